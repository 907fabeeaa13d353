#!/usr/bin/env bash
# Proves tools/check_trace.py can fail: a small hand-made trace (2 ranks x 2 threads,
# read/reduce/write groups, a message each way, a collective) passes, and every kind of
# corruption of it (overlap, dependency violation, missing or duplicated task, unreadable
# access list, unpaired or resized message, incomplete request, collective mismatch,
# broken JSON) is rejected with the matching message.
# Usage: trace_checker_rejects.sh <build>/bin   (the build is not needed)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
checker="$src/tools/check_trace.py"
work="$tmp"

/usr/bin/python3 - "$work" <<'PY'
import copy, json, os, sys
work = sys.argv[1]

LETTERS = {"read": "r", "write": "w", "readwrite": "rw", "reduce": "red"}

def task(rank, tid, tid_, name, begin, end, accesses, main=False):
    args = {"id": tid_, "acc": " ".join(f"{LETTERS[m]}{h}" for h, m in accesses)}
    if main:
        args["main_thread_only"] = True
    return {"ph": "X", "name": name, "pid": rank, "tid": tid,
            "ts": begin, "dur": end - begin, "args": args}

def mpi(rank, lane, kind, peer, tag, nbytes, op_id, begin, end, message=None):
    args = {"kind": kind, "peer": peer, "tag": tag, "bytes": nbytes, "id": op_id}
    if message is not None:
        args["message"] = message
    return {"ph": "X", "cat": "mpi", "name": kind, "pid": rank, "tid": 1000 + lane,
            "ts": begin, "dur": end - begin, "args": args}

events = []
for r in (0, 1):
    other = 1 - r
    events += [
        task(r, 0, 1, "init", 0, 10, [[1, "write"]]),
        task(r, 0, 2, "look", 10, 20, [[1, "read"]]),
        task(r, 1, 3, "look", 12, 22, [[1, "read"]]),
        task(r, 0, 4, "sum", 22, 30, [[2, "reduce"], [1, "read"]]),
        task(r, 1, 5, "sum", 23, 29, [[2, "reduce"]]),   # same reduce group as 4: may overlap it
        task(r, 1, 6, "update", 31, 40, [[1, "readwrite"], [2, "read"]]),
        task(r, 0, 7, "send", 41, 42, [[1, "read"]], main=True),
        task(r, 0, 8, "recv", 43, 44, [[3, "write"]], main=True),
        task(r, 1, 9, "unpack", 50, 55, [[3, "read"], [1, "readwrite"]]),
        mpi(r, 0, "send", other, 5, 64, 1, 41, 60, message=r),
        mpi(r, 1, "recv", other, 5, 64, 2, 43, 48, message=other),
        mpi(r, 1, "allreduce", -1, 0, 16, 3, 56, 58),
        {"ph": "s", "cat": "mpi", "name": "message", "id": r, "pid": r, "tid": 1000, "ts": 41},
        {"ph": "f", "bp": "e", "cat": "mpi", "name": "message", "id": other, "pid": r,
         "tid": 1001, "ts": 47.999},
    ]
good = {"traceEvents": events, "tessera": {"ranks": 2, "threads": [2, 2], "tasks_submitted": [9, 9]}}

def find(trace, rank, task_id):
    for e in trace["traceEvents"]:
        if e.get("ph") == "X" and "cat" not in e and e["pid"] == rank and e["args"]["id"] == task_id:
            return e
    raise KeyError((rank, task_id))

def find_mpi(trace, rank, kind):
    for e in trace["traceEvents"]:
        if e.get("cat") == "mpi" and e.get("ph") == "X" and e["pid"] == rank and e["args"]["kind"] == kind:
            return e
    raise KeyError((rank, kind))

def mutation(name, expected, change):
    t = copy.deepcopy(good)
    change(t)
    with open(os.path.join(work, f"{name}.json"), "w") as f:
        json.dump(t, f)
    with open(os.path.join(work, f"{name}.expect"), "w") as f:
        f.write(expected)

def set_(e, **kw):
    e.update(kw)

with open(os.path.join(work, "good.json"), "w") as f:
    json.dump(good, f)
mutation("overlap", "tasks overlap on one thread", lambda t: set_(find(t, 0, 3), tid=0))
mutation("early_unpack", "dependency violated", lambda t: set_(find(t, 0, 9), ts=43.5))
# 'update' starts after the other reducer (same thread) but before reducer 4 and reader 4 end.
mutation("early_update", "dependency violated", lambda t: set_(find(t, 1, 6), ts=29.5, dur=1))
mutation("read_before_write", "dependency violated", lambda t: set_(find(t, 0, 2), ts=9.999, dur=0.001))
mutation("missing_middle", "task missing", lambda t: t["traceEvents"].remove(find(t, 1, 5)))
mutation("missing_last", "task missing", lambda t: t["traceEvents"].remove(find(t, 1, 9)))
mutation("duplicate", "task recorded more than once",
         lambda t: t["traceEvents"].append(dict(find(t, 0, 5), tid=7)))
mutation("main_off_main", "main-thread-only task off the main thread",
         lambda t: set_(find(t, 0, 7), tid=1))
mutation("bad_access", "malformed task event",
         lambda t: find(t, 0, 2)["args"].update(acc="r1 x1"))
mutation("unpaired", "unpaired messages", lambda t: t["traceEvents"].remove(find_mpi(t, 1, "recv")))
mutation("resized", "message size mismatch", lambda t: find_mpi(t, 1, "recv")["args"].update(bytes=32))
mutation("incomplete", "MPI operation never completed",
         lambda t: find_mpi(t, 0, "send")["args"].update(incomplete=True))
mutation("collective", "collectives differ across ranks",
         lambda t: t["traceEvents"].remove(find_mpi(t, 1, "allreduce")))
mutation("flow", "broken message flow",
         lambda t: t["traceEvents"].remove(next(e for e in t["traceEvents"] if e.get("ph") == "f")))
with open(os.path.join(work, "truncated.json"), "w") as f:
    f.write(json.dumps(good)[:-40])
with open(os.path.join(work, "truncated.expect"), "w") as f:
    f.write("not valid JSON")
PY

fail=0
if ! /usr/bin/python3 "$checker" "$work/good.json" --expect-tasks 18; then
  echo "FAIL: the uncorrupted trace was rejected"
  fail=1
fi
if /usr/bin/python3 "$checker" "$work/good.json" --expect-tasks 17 2>"$work/count.err"; then
  echo "FAIL: a wrong --expect-tasks was accepted"
  fail=1
elif ! grep -q "task count" "$work/count.err"; then
  echo "FAIL: wrong --expect-tasks rejected without saying so:"; cat "$work/count.err"
  fail=1
fi
for trace in "$work"/*.json; do
  name="$(basename "$trace" .json)"
  [[ "$name" == good ]] && continue
  expected="$(cat "$work/$name.expect")"
  if /usr/bin/python3 "$checker" "$trace" 2>"$work/$name.err" >/dev/null; then
    echo "FAIL: corruption '$name' was accepted"
    fail=1
  elif ! grep -qF "$expected" "$work/$name.err"; then
    echo "FAIL: corruption '$name' rejected without '$expected':"; cat "$work/$name.err"
    fail=1
  else
    echo "ok: '$name' rejected: $(grep -F "$expected" "$work/$name.err" | head -1)"
  fi
done
exit $fail
