#!/usr/bin/env python3
"""Checks every #include of tessera's library code against the layer graph.

Usage: check_layers.py [ROOT]   (ROOT: the source tree, default: this script's parent)

Each file under src/<layer>/ and include/tessera/<layer>/ belongs to <layer>; the
top-level headers include/tessera/{session,memory_check,restart}.hpp to `session`, and
include/tessera/tessera.hpp (the umbrella) to `tessera`. A file may include
  - public headers "tessera/<L>/..." of its own layer or of a layer below it (ALLOWED),
  - private headers "<L>/..." (src/<L>/) of its own layer only (and obs those of record,
    its lower half: SHARED_PRIVATE),
  - <mpi.h> only in a layer that may use MPI (not base except check_mpi.hpp, runtime,
    record or exec: a runtime-only program links without MPI).
Prints one line per violation (file:line: what and why) and exits 1 if there is any.
The same graph is built into CMake (CMakeLists.txt, cmake/TesseraLayers.cmake).
"""
import pathlib
import re
import sys

# Each layer and every layer it may use (the whole set below it, not only the next one).
ALLOWED = {
    "base": set(),
    "runtime": {"base"},
    "record": {"runtime", "base"},
    "comm": {"record", "runtime", "base"},
    "exec": {"runtime", "base"},
    "obs": {"record", "comm", "runtime", "base"},
    "mesh": {"exec", "comm", "runtime", "base"},
    "amr": {"mesh", "exec", "comm", "runtime", "base"},
    "io": {"amr", "mesh", "exec", "comm", "runtime", "base"},
    "session": {"io", "amr", "mesh", "obs", "exec", "comm", "record", "runtime", "base"},
    "driver": {"session", "io", "amr", "mesh", "obs", "exec", "comm", "record", "runtime",
               "base"},
}
ALLOWED["tessera"] = set(ALLOWED) | {"tessera"}
SHARED_PRIVATE = {"obs": {"record"}}
NO_MPI = {"runtime", "record", "exec"}
MPI_CHECK_HEADER = "include/tessera/base/check_mpi.hpp"
TOP_LEVEL_HEADERS = {"session.hpp": "session", "memory_check.hpp": "session",
                     "restart.hpp": "session", "option_registry.hpp": "session",
                     "balance_options.hpp": "session",
                     "tessera.hpp": "tessera"}
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def layer_of(rel):
    parts = rel.parts
    if parts[0] == "src" and len(parts) > 2:
        return parts[1]
    if parts[:2] == ("include", "tessera"):
        if len(parts) == 3:
            return TOP_LEVEL_HEADERS.get(parts[2])
        return parts[2]
    return None


def included_layer(name):
    """(layer, public) of an include of tessera's own, else (None, None)."""
    parts = name.split("/")
    if parts[0] == "tessera" and len(parts) >= 2:
        if len(parts) == 2:
            return TOP_LEVEL_HEADERS.get(parts[1], parts[1]), True
        return parts[1], True
    if len(parts) >= 2 and parts[0] in ALLOWED:
        return parts[0], False
    return None, None


def check(root):
    errors = []
    files = sorted(p for d in ("src", "include/tessera") for p in (root / d).rglob("*")
                   if p.suffix in (".hpp", ".cpp", ".inc", ".h"))
    for path in files:
        rel = path.relative_to(root)
        layer = layer_of(rel)
        if layer is None:
            continue
        if layer not in ALLOWED:
            errors.append(f"{rel}: layer '{layer}' is not in the layer graph "
                          f"(known: {', '.join(sorted(ALLOWED))})")
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            name = m.group(2)
            where = f"{rel}:{number}: {line.strip()}"
            if name == "mpi.h":
                if layer in NO_MPI or (layer == "base" and rel.as_posix() != MPI_CHECK_HEADER):
                    errors.append(f"{where}: layer '{layer}' must not use MPI")
                continue
            target, public = included_layer(name)
            if target is None or target == layer:
                continue
            if public:
                if target not in ALLOWED[layer]:
                    errors.append(f"{where}: layer '{layer}' may not include layer '{target}' "
                                  f"(allowed: {', '.join(sorted(ALLOWED[layer])) or 'none'})")
            elif target not in SHARED_PRIVATE.get(layer, set()):
                errors.append(f"{where}: private header of layer '{target}' included from "
                              f"layer '{layer}' (use its public headers)")
    return errors


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else
                        pathlib.Path(__file__).resolve().parent.parent)
    errors = check(root)
    for e in errors:
        print(e)
    if errors:
        print(f"check_layers: {len(errors)} include(s) break the layer graph")
        return 1
    print("check_layers: every include follows the layer graph")
    return 0


if __name__ == "__main__":
    sys.exit(main())
