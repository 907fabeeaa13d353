#!/usr/bin/env bash
# Installs tessera from an existing build tree into a scratch prefix, moves the prefix (the
# package must be relocatable: no path of the build machine in its CMake files), then
# configures, builds and runs outside C++-only projects that use find_package(tessera):
#  - consumer/: a small runtime program, examples/03_heat1d and examples/06_advection_amr
#    (the adaptive-mesh driver, with a plot file) on 2 ranks (tessera::tessera);
#  - runtime_consumer/: the same runtime program with find_package(tessera COMPONENTS
#    runtime), which must not search MPI, p4est, HDF5 or CLI11 nor link MPI.
set -euo pipefail
src="$1"; build="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
step() { "$@" >"$work/log" 2>&1 || { cat "$work/log"; echo "FAIL: $*"; exit 1; }; }
step cmake --install "$build" --prefix "$work/installed"
mv "$work/installed" "$work/prefix"
if grep -rl -e "$work/installed" -e "$src" -e "$build" "$work/prefix/lib/cmake" ||
   grep -rnE '(^|[";[:space:]])/(usr|opt|home|work|tmp|lib)/' "$work/prefix/lib/cmake"; then
  echo "FAIL: the installed CMake files name paths of the build machine"; exit 1
fi
grep -q -- "-ffp-contract=off" "$work/prefix/lib/cmake/tessera/tesseraRuntimeTargets.cmake" ||
  { echo "FAIL: the package does not export -ffp-contract=off"; exit 1; }

step cmake -S "$src/tests/install/runtime_consumer" -B "$work/runtime_consumer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release
step cmake --build "$work/runtime_consumer"
if ldd "$work/runtime_consumer/runtime_consumer" | grep -E "libmpi|libp4est|libsc|libhdf5"; then
  echo "FAIL: the runtime-only consumer links MPI, p4est or HDF5"; exit 1
fi
out="$("$work/runtime_consumer/runtime_consumer")"
echo "runtime only: $out"
[[ "$out" == "consumer: 10 tasks, sum 45" ]]

step cmake -S "$src/tests/install/consumer" -B "$work/consumer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release \
  -DTESSERA_EXAMPLES_DIR="$src/examples"
step cmake --build "$work/consumer"
out="$("$work/consumer/consumer")"
echo "$out"
[[ "$out" == "consumer: 10 tasks, sum 45" ]]
heat="$(mpirun -np 2 --oversubscribe "$work/consumer/heat1d" --steps 100 --quiet)"
echo "$heat"
grep -q "^03_heat1d: 256 cells, 100 steps: heat " <<<"$heat"
grep -q "03_heat1d: dataflow on 2 rank(s) x 1 thread(s): .*, checksum [0-9a-f]\{16\}$" <<<"$heat"
amr="$(cd "$work" && mpirun -np 2 --oversubscribe "$work/consumer/advection_amr" --t-end 0.05 \
  --output-every 1000 --output-dir "$work/plots" --quiet)"
echo "$amr"
grep -q "06_advection_amr: dataflow on 2 rank(s) x 1 thread(s): .*, checksum [0-9a-f]\{16\}$" <<<"$amr"
ls "$work/plots"/06_advection_amr_*.h5 >/dev/null
