#!/usr/bin/env bash
# Installs tessera from an existing build tree into a scratch prefix, then configures,
# builds and runs a tiny outside project that uses find_package(tessera).
set -euo pipefail
src="$1"; build="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$src/tests/install/consumer" -B "$work/consumer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/consumer" >/dev/null
out="$("$work/consumer/consumer")"
echo "$out"
[[ "$out" == "consumer: 10 tasks, sum 45" ]]
