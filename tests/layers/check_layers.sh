#!/usr/bin/env bash
# The layer graph is enforced twice, and each enforcement can fail:
#  1. tools/check_layers.py passes on the source tree, and rejects (exit 1, naming file and
#     rule) a scratch tree with an upward include, another layer's private header and
#     <mpi.h> in the runtime;
#  2. the per-layer include directories of the build tree (cmake/TesseraLayers.cmake) make an
#     upward include a compile error: the runtime's directories do not find an exec header,
#     which exec's own directories do.
# Usage: check_layers.sh <source dir> <build dir> <C++ compiler>
set -uo pipefail
src="$1"; build="$2"; cxx="$3"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

python3 "$src/tools/check_layers.py" "$src" || fail "the source tree breaks the layer graph"

mkdir -p "$work/tree/src/runtime" "$work/tree/src/comm" "$work/tree/include/tessera/runtime"
printf '#include "tessera/comm/comm.hpp"\n' >"$work/tree/include/tessera/runtime/upward.hpp"
printf '#include "runtime/scheduler.hpp"\n' >"$work/tree/src/comm/private.cpp"
printf '#include <mpi.h>\n' >"$work/tree/src/runtime/uses_mpi.cpp"
printf '#include "tessera/base/tick_clock.hpp"\n#include "runtime/task.hpp"\n' \
  >"$work/tree/src/runtime/fine.cpp"
python3 "$src/tools/check_layers.py" "$work/tree" >"$work/out" 2>&1
status=$?
cat "$work/out"
[[ $status == 1 ]] || fail "check_layers.py exited $status on a tree with wrong includes"
grep -q "include/tessera/runtime/upward.hpp:1: .*layer 'runtime' may not include layer 'comm'" \
  "$work/out" || fail "upward include not reported"
grep -q "src/comm/private.cpp:1: .*private header of layer 'runtime' included from layer 'comm'" \
  "$work/out" || fail "private include not reported"
grep -q "src/runtime/uses_mpi.cpp:1: .*layer 'runtime' must not use MPI" "$work/out" ||
  fail "MPI in the runtime not reported"
! grep -q "fine.cpp" "$work/out" || fail "a correct file was reported"
[[ $(grep -c ':1: #include' "$work/out") == 3 ]] || fail "expected exactly 3 violations"

# 2. The compiler, with the include directories CMake gives each layer.
layer_flags() {
  local flags=()
  for l in "$@"; do flags+=(-I "$build/layers/public/$l"); done
  echo "${flags[@]}"
}
printf '#include "tessera/exec/exec_model.hpp"\n' >"$work/upward.cpp"
# shellcheck disable=SC2046
if "$cxx" -std=c++20 -fsyntax-only $(layer_flags runtime base) "$work/upward.cpp" \
    >"$work/compile" 2>&1; then
  fail "the runtime layer's include directories found an exec header"
fi
grep -q "tessera/exec/exec_model.hpp: No such file" "$work/compile" ||
  { cat "$work/compile"; fail "unexpected compiler error"; }
echo "ok: runtime cannot include tessera/exec/exec_model.hpp: $(grep -m1 'fatal error' "$work/compile")"
# shellcheck disable=SC2046
"$cxx" -std=c++20 -fsyntax-only $(layer_flags exec runtime base) "$work/upward.cpp" ||
  fail "the exec layer's own include directories do not find its header"
echo "ok: exec's include directories find it"
