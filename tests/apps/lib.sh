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
#   run_app APP NAME NP ARGS...  runs APP with --quiet, a report in $tmp/NAME.json and its
#                            output in $tmp/NAME.out; a non-zero exit fails the script
#   run_matrix APP LABEL RANKS ARGS...  the bitwise matrix: runs APP ARGS (run_app) under
#                            bsp and under forkjoin and dataflow with 1 and 2 threads, on each
#                            rank count of RANKS ("1 2 4"), named LABEL_bsp_npN and
#                            LABEL_MODEL_npN_tT, and appends the names to the array `runs`.
#                            A script may define matrix_options MODEL NP THREADS: the words it
#                            prints are added to that run's options
#   expect_same REF RUN [INVARIANT]  the output of INVARIANT (default `invariant`: a function
#                            the script defines, printing the report values that must not
#                            depend on how the run was executed) for $tmp/RUN.json equals
#                            that for $tmp/REF.json
#   expect_all_same REF RUN...  expect_same REF RUN for every RUN, then one "ok" line
#   expect_error NP APP TEXT ARGS...  APP ARGS on NP ranks is refused (as `refused`) and its
#                            output names TEXT (a fixed string: the option at fault)
#   error_on_every_rank APP TEXT ARGS...  on $ranks ranks (default 2): exactly one line
#                            "error: ...TEXT...", every rank's own status non-zero
#   require_smpi APP         exits 77 (ctest's skip) without SimGrid SMPI; else sets
#                            smpi_build ($TESSERA_SMPI_BUILD, default <source>/build-smpi,
#                            which scripts/test builds first) and builds jacobi7, mg and
#                            APP there with scripts/smpi-build if it lacks APP
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
    timeout -k 10 "$launch_timeout" "$@"
  else
    timeout -k 10 "$launch_timeout" mpirun -np "$np" --oversubscribe --bind-to none "$@"
  fi
}

# run_app APP NAME NP ARGS...: runs APP on NP ranks with --quiet, --hang-timeout 30 and its
# report in $tmp/NAME.json, its output in $tmp/NAME.out; a non-zero exit prints the output
# and fails the script.
run_app() {
  local app="$1" name="$2" np="$3"
  shift 3
  launch "$np" "$bin/$app" --quiet --hang-timeout 30 --report "$tmp/$name.json" "$@" \
    >"$tmp/$name.out" 2>&1 ||
    { cat "$tmp/$name.out"; fail "$name: $app $* on $np rank(s) exited non-zero"; }
}

# The matrix of execution models, rank and thread counts every app must agree on.
run_matrix() {
  local app="$1" label="$2" ranks="$3" np model threads name extra
  shift 3
  for np in $ranks; do
    for model in bsp forkjoin dataflow; do
      for threads in 1 2; do
        [[ $model != bsp || $threads == 1 ]] || continue
        name="${label}_${model}_np${np}"
        [[ $model == bsp ]] || name+="_t${threads}"
        extra=()
        if declare -F matrix_options >/dev/null; then
          read -r -a extra <<<"$(matrix_options "$model" "$np" "$threads")"
        fi
        run_app "$app" "$name" "$np" --exec "$model" --threads "$threads" "${extra[@]}" "$@"
        runs+=("$name")
      done
    done
  done
}

expect_same() {
  local check="${3:-invariant}" want got
  want="$("$check" "$tmp/$1.json")"
  got="$("$check" "$tmp/$2.json")"
  [[ "$want" == "$got" ]] || fail "$2 differs from $1:
  $got
  $want"
}

expect_all_same() {
  local reference="$1" r
  shift
  for r in "$@"; do expect_same "$reference" "$r"; done
  echo "ok: $# runs agree with $reference: $(invariant "$tmp/$reference.json")"
}

expect_error() {
  local np="$1" app="$2" text="$3"
  shift 3
  refused "$np" "$app" "$@"
  grep -q -- "$text" "$tmp/out" || { cat "$tmp/out"; fail "$app $*: no message naming $text"; }
  echo "ok: $* -> $(grep -m1 -- "$text" "$tmp/out")"
}

# error_on_every_rank APP TEXT ARGS...: APP with ARGS on $ranks ranks (default 2) prints
# exactly one line, "error: ...TEXT...", every rank exits non-zero (each rank's status is
# recorded apart: the wrapper exits 0 so that mpirun neither aborts the other ranks nor adds
# its own messages), no hang, no report.
error_on_every_rank() {
  local app="$1" text="$2" np="${ranks:-2}"
  shift 2
  if [[ ! -e "$tmp/rank.sh" ]]; then
    cat >"$tmp/rank.sh" <<'SH'
#!/usr/bin/env bash
status_file="$1"
shift
"$@"
echo "rank ${OMPI_COMM_WORLD_RANK:-?} status $?" >>"$status_file"
exit 0
SH
  fi
  rm -f "$tmp/status" "$tmp/report.json"
  launch "$np" bash "$tmp/rank.sh" "$tmp/status" "$bin/$app" \
    --report "$tmp/report.json" "$@" >"$tmp/out" 2>&1
  local rc=$?
  [[ $rc -ne 124 ]] || fail "$app $* hung"
  local lines
  lines="$(grep -c . "$tmp/out")"
  [[ "$lines" == 1 ]] || { cat "$tmp/out"; fail "$app $*: $lines output lines, expected one"; }
  grep -q -- "error: .*$text" "$tmp/out" || { cat "$tmp/out"; fail "$app $*: no error naming $text"; }
  [[ "$(grep -c 'status [1-9]' "$tmp/status")" == "$np" ]] ||
    { cat "$tmp/status"; fail "$app $*: not every rank exited non-zero"; }
  [[ ! -e "$tmp/report.json" ]] || fail "$app $* wrote a report"
  echo "ok: $* -> $(cat "$tmp/out")"
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

# euler_conserved REPORT MIN_ADAPTATIONS NEED_MERGES [HISTORY]: an adaptive euler run's
# conserved totals drift by <= 1e-13 of the larger of the total and the mass (momentum
# totals are ~0); it adapted at least MIN_ADAPTATIONS times, split blocks (and merged
# families unless NEED_MERGES is 0), ended 2:1 balanced with blocks on its finest level,
# and (given its --history CSV) its block count changed during the run.
euler_conserved() {
  /usr/bin/python3 - "$1" "$2" "$3" "${4:-}" <<'PY' || fail "$1: conservation with adaptation"
import json, sys
r = json.load(open(sys.argv[1]))
def flat(t): return [t["mass"], *t["momentum"], t["energy"]]
a, b = flat(r["totals_start"]), flat(r["totals_end"])
ok = True
for v, name in enumerate(["mass", "mom_x", "mom_y", "mom_z", "energy"]):
    drift = abs(b[v] - a[v]) / max(abs(a[v]), abs(a[0]))
    print(f"  {name}: start {a[v]!r} end {b[v]!r} drift {drift:.3g}")
    ok = ok and drift <= 1e-13
print(f"  adaptations {r['adaptations']} split {r['blocks_split']} merged {r['families_merged']} "
      f"levels {r['blocks_by_level']} balanced {r['face_balanced']}")
ok = ok and r["adaptations"] >= int(sys.argv[2]) and r["blocks_split"] > 0
ok = ok and (sys.argv[3] == "0" or r["families_merged"] > 0)
ok = ok and r["face_balanced"] is True and r["blocks_by_level"][-1] > 0
if sys.argv[4]:
    import csv
    blocks = {row["blocks"] for row in csv.DictReader(open(sys.argv[4]))}
    print(f"  block counts seen: {len(blocks)}")
    ok = ok and len(blocks) >= 2
sys.exit(0 if ok else 1)
PY
}

require_smpi() {
  if ! command -v smpirun >/dev/null || [[ ! -f /usr/include/smpi/mpi.h ]]; then
    echo "SKIP: SimGrid SMPI is not installed (Debian package libsimgrid-dev; scripts/test installs it)"
    exit 77
  fi
  smpi_build="${TESSERA_SMPI_BUILD:-$src/build-smpi}"
  if [[ ! -x "$smpi_build/bin/$1" ]]; then
    local apps="jacobi7 mg"
    [[ " $apps " == *" $1 "* ]] || apps+=" $1"
    echo "building $apps for SMPI into $smpi_build"
    "$src/scripts/smpi-build" "$smpi_build" --apps "$apps" >"$tmp/build.out" 2>&1 ||
      { tail -30 "$tmp/build.out"; fail "scripts/smpi-build $smpi_build failed"; }
  fi
}
