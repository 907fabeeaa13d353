#!/usr/bin/env bash
# Installs tessera from an existing build tree into a scratch prefix, then configures,
# builds and runs an outside C++-only project that uses find_package(tessera): a small
# runtime program and examples/03_heat1d on 2 ranks.
set -euo pipefail
src="$1"; build="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
step() { "$@" >"$work/log" 2>&1 || { cat "$work/log"; echo "FAIL: $*"; exit 1; }; }
step cmake --install "$build" --prefix "$work/prefix"
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
