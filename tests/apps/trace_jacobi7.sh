#!/usr/bin/env bash
# jacobi7 traced on 2 ranks x 2 threads (dataflow and forkjoin; bsp on 2 x 1): every trace
# passes tools/check_trace.py (each task once, no overlap per thread, dependencies
# respected, messages paired) and agrees with the run report's task counts; then the
# real dataflow trace, corrupted three ways (overlap, dependency violation, missing
# task), is rejected.
# Usage: trace_jacobi7.sh <build>/bin
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
source "$src/scripts/env.sh"
checker="$src/tools/check_trace.py"
work="$tmp"
[[ -x "$bin/jacobi7" ]] || { echo "FAIL: $bin/jacobi7 is not built"; exit 1; }

for exec in dataflow bsp forkjoin; do
  threads=2
  [[ "$exec" == bsp ]] && threads=1  # bsp is one thread per rank
  mpirun -np 2 "$bin/jacobi7" --exec "$exec" --threads "$threads" --blocks 4 4 2 --block-cells 8 8 8 \
    --iters 6 --check-every 2 --quiet --trace "$work/$exec.json" --report "$work/$exec.report.json" \
    >"$work/$exec.log" 2>&1 || { cat "$work/$exec.log"; echo "FAIL: jacobi7 --exec $exec"; exit 1; }
  tasks="$(/usr/bin/python3 -c 'import json,sys; print(sum(json.load(open(sys.argv[1]))["tasks"].values()))' \
    "$work/$exec.report.json")"
  /usr/bin/python3 "$checker" "$work/$exec.json" --expect-tasks "$tasks" --report "$work/$exec.report.json"
done

# Corruptions of the real dataflow trace must be caught.
/usr/bin/python3 - "$work" <<'PY'
import copy, json, os, sys
work = sys.argv[1]
with open(os.path.join(work, "dataflow.json")) as f:
    good = json.load(f)
def is_task(e):
    return e.get("ph") == "X" and "cat" not in e

tasks = [e for e in good["traceEvents"] if is_task(e)]
rank0 = sorted((e for e in tasks if e["pid"] == 0), key=lambda e: e["args"]["id"])

def save(name, trace, expected):
    with open(os.path.join(work, f"bad_{name}.json"), "w") as f:
        json.dump(trace, f)
    with open(os.path.join(work, f"bad_{name}.expect"), "w") as f:
        f.write(expected)

def copy_of(event, trace):
    return next(e for e in trace["traceEvents"] if is_task(e) and e["pid"] == event["pid"]
                and e["args"]["id"] == event["args"]["id"])

# Missing task: drop one from the middle of rank 0's submission order.
t = copy.deepcopy(good)
t["traceEvents"].remove(copy_of(rank0[len(rank0) // 2], t))
save("missing", t, "task missing")

# Overlap: start a task of rank 0's main thread in the middle of the longest other one.
main = [e for e in rank0 if e["tid"] == 0]
a = max(main, key=lambda e: e["dur"])
b = next(e for e in main if e is not a)
t = copy.deepcopy(good)
copy_of(b, t)["ts"] = a["ts"] + a["dur"] / 2
save("overlap", t, "tasks overlap on one thread")

# Dependency: a task that follows a write of one of its handles starts with the writer,
# on a thread of its own (so only the dependency is wrong).
last_writer, pair = {}, None
for e in rank0:
    for access in e["args"]["acc"].split():
        mode, handle = access.rstrip("0123456789"), access.lstrip("rwed")
        if handle in last_writer and pair is None:
            pair = (last_writer[handle], e)
        last_writer.pop(handle, None)
        if mode in ("w", "rw"):
            last_writer[handle] = e
writer, reader = pair
t = copy.deepcopy(good)
moved = copy_of(reader, t)
moved["ts"], moved["tid"], moved["dur"] = writer["ts"], 999, 0.001
save("dependency", t, "dependency violated")
PY
for trace in "$work"/bad_*.json; do
  name="$(basename "$trace" .json)"
  expected="$(cat "$work/$name.expect")"
  if /usr/bin/python3 "$checker" "$trace" >/dev/null 2>"$work/$name.err"; then
    echo "FAIL: $name was accepted"; exit 1
  fi
  grep -qF -- "$expected" "$work/$name.err" ||
    { echo "FAIL: $name rejected without '$expected':"; cat "$work/$name.err"; exit 1; }
  echo "ok: $name rejected: $(grep -F -- "$expected" "$work/$name.err" | head -1)"
done
