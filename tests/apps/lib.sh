# The preamble every tests/apps/*.sh shares; sourced, not run (it is not registered as a
# test: tests/CMakeLists.txt skips it). A script starts with
#   set -euo pipefail     # or set -uo pipefail when it checks exit codes itself
#   source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
# which sets
#   bin   the build's program folder, the script's first argument (<build>/bin)
#   src   the source tree (TESSERA_SOURCE_DIR, set by ctest, or this file's ../..)
#   tmp   a fresh folder for the script's files, removed when the script exits
# and OpenMPI's environment (runs as root, more ranks than cores), and defines:
#   fail MESSAGE...          prints "FAIL: MESSAGE..." and exits 1
#   launch NP COMMAND...     runs COMMAND on NP unbound ranks (a rank's threads may use
#                            every core), killed after $launch_timeout s (default 120; exit
#                            124 then). NP 1 runs it as an MPI singleton, without mpirun: the
#                            same program on one rank, and mpirun's start-up (seconds on a
#                            loaded machine) is most of a small test run. Call mpirun
#                            yourself for other mpirun options (bindings, 3 ranks in one
#                            mpirun with a wrapper, ...).
#   refused NP APP ARGS...   runs $bin/APP ARGS on NP ranks (as launch) with --report
#                            $tmp/report.json, output in $tmp/out: bad input must make it
#                            exit non-zero, before the timeout, without writing the report
#   field REPORT KEY         prints one top-level value of a JSON report
#   fields REPORT KEY...     prints the values of KEYs of a JSON report as one JSON list:
#                            compare two runs' results with [[ "$(fields a ...)" == ... ]]
#   require_smpi APP         exits 77 (ctest's skip) without SimGrid SMPI; else sets
#                            smpi_build ($TESSERA_SMPI_BUILD, default <source>/build-smpi,
#                            which scripts/test builds first) and builds jacobi7 and mg
#                            there with scripts/smpi-build if it lacks APP
bin="${1:-}"
if [[ -d "$bin" ]]; then bin="$(cd "$bin" && pwd)"; fi  # absolute: scripts cd elsewhere
src="${TESSERA_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
launch_timeout=120

fail() {
  echo "FAIL: $*"
  exit 1
}

launch() {
  local np="$1"
  shift
  if [[ "$np" == 1 ]]; then
    timeout "$launch_timeout" "$@"
  else
    timeout "$launch_timeout" mpirun -np "$np" --oversubscribe --bind-to none "$@"
  fi
}

refused() {
  local np="$1" app="$2"
  shift 2
  rm -f "$tmp/report.json"
  launch "$np" "$bin/$app" --report "$tmp/report.json" "$@" >"$tmp/out" 2>&1
  local rc=$?
  [[ $rc -ne 124 ]] || fail "$app $* hung"
  [[ $rc -ne 0 ]] || { cat "$tmp/out"; fail "$app $* exited 0"; }
  [[ ! -e "$tmp/report.json" ]] || fail "$app $* wrote a report"
}

field() {
  /usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"
}

fields() {
  /usr/bin/python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(json.dumps([r[k] for k in sys.argv[2:]]))" "$@"
}

require_smpi() {
  if ! command -v smpirun >/dev/null || [[ ! -f /usr/include/smpi/mpi.h ]]; then
    echo "SKIP: SimGrid SMPI is not installed (Debian package libsimgrid-dev; scripts/test installs it)"
    exit 77
  fi
  smpi_build="${TESSERA_SMPI_BUILD:-$src/build-smpi}"
  if [[ ! -x "$smpi_build/bin/$1" ]]; then
    echo "building jacobi7 and mg for SMPI into $smpi_build"
    "$src/scripts/smpi-build" "$smpi_build" --apps "jacobi7 mg" >"$tmp/build.out" 2>&1 ||
      { tail -30 "$tmp/build.out"; fail "scripts/smpi-build $smpi_build failed"; }
  fi
}
