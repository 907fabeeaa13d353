#!/usr/bin/python3
"""Validates a tessera Chrome trace (written by --trace).

Checks, and exits non-zero naming every violation found:
  * the file is valid JSON with a "traceEvents" list;
  * every task id appears exactly once per rank, and as many tasks as the rank
    submitted (the "tessera" section) with contiguous ids (nothing missing);
  * no two tasks overlap on one (rank, thread); main-thread-only tasks ran on thread 0;
  * every task began after all tasks it depends on ended. Dependencies are recomputed
    from the recorded accesses in submission (id) order with the runtime's rules: a run
    of consecutive reads of a handle is one group, a run of consecutive reduces is one
    group, every write/readwrite is a group of its own; a task depends on every member
    of the previous group of each handle it accesses;
  * MPI sends and receives pair up across ranks: per (source, destination, tag) the
    same number of sends and receives, the k-th send (in posting order) with the same
    byte count as the k-th receive; every operation completed; every rank ran the same
    number of each kind of collective; every message flow has both ends.

Usage: check_trace.py TRACE.json [--expect-tasks N] [--report REPORT.json]
  --expect-tasks N   the trace must hold exactly N tasks (all ranks together)
  --report FILE      per task name counts must equal the run report's "tasks" counts
"""

import argparse
import collections
import json
import re
import sys

MAX_SHOWN = 20  # violations printed per kind; the rest are counted


class Violations:
    def __init__(self):
        self.by_kind = collections.OrderedDict()

    def add(self, kind, message):
        self.by_kind.setdefault(kind, []).append(message)

    def report(self, out):
        for kind, messages in self.by_kind.items():
            out.write(f"check_trace: {kind}: {len(messages)} violation(s)\n")
            for m in messages[:MAX_SHOWN]:
                out.write(f"  {m}\n")
            if len(messages) > MAX_SHOWN:
                out.write(f"  ... and {len(messages) - MAX_SHOWN} more\n")

    def __bool__(self):
        return bool(self.by_kind)


def ns(microseconds):
    """Trace timestamps carry exactly three decimals: integer nanoseconds."""
    return int(round(float(microseconds) * 1000))


def fmt_us(nanoseconds):
    return f"{nanoseconds / 1000:.3f} us"


ACCESS_MODES = {"r": "read", "w": "write", "rw": "readwrite", "red": "reduce"}
ACCESS = re.compile(r"(r|w|rw|red)(\d+)")


def parse_accesses(text):
    """A task's "acc" field, e.g. "r129 w1153": mode letters then handle id, per access."""
    accesses = []
    for item in text.split():
        m = ACCESS.fullmatch(item)
        if not m:
            raise ValueError(f"bad access {item!r}")
        accesses.append((int(m[2]), ACCESS_MODES[m[1]]))
    return accesses


def is_task(event):
    """Tasks are the complete events without a category (MPI operations have "mpi")."""
    return event.get("ph") == "X" and "cat" not in event


class Task:
    __slots__ = ("rank", "tid", "id", "name", "begin", "end", "accesses", "main_only")

    def __init__(self, event):
        args = event.get("args", {})
        self.rank = event["pid"]
        self.tid = event["tid"]
        self.id = args["id"]
        self.name = event.get("name", "?")
        self.begin = ns(event["ts"])
        self.end = self.begin + ns(event["dur"])
        self.accesses = parse_accesses(args.get("acc", ""))
        self.main_only = bool(args.get("main_thread_only", False))

    def label(self):
        return f"rank {self.rank}: task {self.id} '{self.name}' (thread {self.tid})"


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            trace = json.load(f)
    except OSError as e:
        sys.exit(f"check_trace: cannot read {path}: {e.strerror}")
    except json.JSONDecodeError as e:
        sys.exit(f"check_trace: {path} is not valid JSON: {e}")
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        sys.exit(f"check_trace: {path} has no \"traceEvents\" list")
    return trace


def collect_tasks(events, v):
    tasks = collections.defaultdict(list)  # rank -> [Task]
    for e in events:
        if not is_task(e):
            continue
        try:
            t = Task(e)
        except (KeyError, TypeError, ValueError) as err:
            v.add("malformed task event", f"{json.dumps(e)[:200]} ({err!r})")
            continue
        if t.end < t.begin:
            v.add("negative duration", t.label())
        tasks[t.rank].append(t)
    return tasks


def check_task_ids(tasks, meta, v):
    submitted = meta.get("tasks_submitted") if isinstance(meta, dict) else None
    for rank, ts in sorted(tasks.items()):
        counts = collections.Counter(t.id for t in ts)
        for task_id, n in sorted(counts.items()):
            if n != 1:
                v.add("task recorded more than once", f"rank {rank}: task {task_id} appears {n} times")
        ids = sorted(counts)
        if ids and ids[-1] - ids[0] + 1 != len(ids):
            missing = sorted(set(range(ids[0], ids[-1] + 1)) - set(ids))
            v.add("task missing", f"rank {rank}: ids {missing[:10]}{' ...' if len(missing) > 10 else ''} "
                                  f"were submitted (later ids exist) but never ran")
        if submitted is not None and rank < len(submitted) and len(ids) != submitted[rank]:
            v.add("task missing", f"rank {rank}: {submitted[rank]} tasks submitted, {len(ids)} recorded")
    if submitted is not None:
        for rank, n in enumerate(submitted):
            if n and rank not in tasks:
                v.add("task missing", f"rank {rank}: {n} tasks submitted, none recorded")


def check_threads(tasks, v):
    lanes = collections.defaultdict(list)
    for ts in tasks.values():
        for t in ts:
            lanes[(t.rank, t.tid)].append(t)
            if t.main_only and t.tid != 0:
                v.add("main-thread-only task off the main thread", t.label())
    for (rank, tid), ts in sorted(lanes.items()):
        ts.sort(key=lambda t: (t.begin, t.end))
        for a, b in zip(ts, ts[1:]):
            if b.begin < a.end:
                v.add("tasks overlap on one thread",
                      f"{b.label()} began at {fmt_us(b.begin)} while task {a.id} '{a.name}' ran "
                      f"until {fmt_us(a.end)}")


class Group:
    __slots__ = ("mode", "last_end", "last_task")

    def __init__(self, mode):
        self.mode = mode
        self.last_end = None  # latest end among members, and who
        self.last_task = None

    def add(self, task):
        if self.last_end is None or task.end > self.last_end:
            self.last_end = task.end
            self.last_task = task


def check_dependencies(tasks, v):
    checked = 0
    for rank, ts in sorted(tasks.items()):
        current = {}   # handle -> Group being formed
        previous = {}  # handle -> the group before it
        for t in sorted(ts, key=lambda t: t.id):
            for handle, mode in t.accesses:
                group = current.get(handle)
                shareable = mode in ("read", "reduce")
                if group is None or not shareable or group.mode != mode:
                    if group is not None:
                        previous[handle] = group
                    group = Group(mode)
                    current[handle] = group
                before = previous.get(handle)
                if before is not None and before.last_task is not None:
                    checked += 1
                    if t.begin < before.last_end:
                        d = before.last_task
                        v.add("dependency violated",
                              f"{t.label()} began at {fmt_us(t.begin)} before task {d.id} '{d.name}' "
                              f"(thread {d.tid}) ended at {fmt_us(d.end)}: {before.mode} then "
                              f"{mode} of handle {handle}")
                group.add(t)
    return checked


def check_messages(events, ranks, v):
    ops = [e for e in events if e.get("ph") == "X" and e.get("cat") == "mpi"]
    channels = collections.defaultdict(lambda: ([], []))  # (src, dst, tag) -> sends, recvs
    collectives = collections.defaultdict(collections.Counter)  # kind -> rank -> count
    for e in ops:
        args = e.get("args", {})
        kind = args.get("kind")
        rank = e.get("pid")
        if args.get("incomplete"):
            v.add("MPI operation never completed",
                  f"rank {rank}: {kind} id {args.get('id')} peer {args.get('peer')} tag {args.get('tag')}")
        if kind == "send":
            channels[(rank, args["peer"], args["tag"])][0].append(args)
        elif kind == "recv":
            channels[(args["peer"], rank, args["tag"])][1].append(args)
        elif kind in ("allreduce", "barrier"):
            collectives[kind][rank] += 1
    paired = 0
    for (src, dst, tag), (sends, recvs) in sorted(channels.items()):
        if len(sends) != len(recvs):
            v.add("unpaired messages",
                  f"rank {src} -> rank {dst} tag {tag}: {len(sends)} send(s), {len(recvs)} receive(s)")
        sends.sort(key=lambda a: a["id"])
        recvs.sort(key=lambda a: a["id"])
        for k, (s, r) in enumerate(zip(sends, recvs)):
            paired += 1
            if s["bytes"] != r["bytes"]:
                v.add("message size mismatch",
                      f"rank {src} -> rank {dst} tag {tag} message {k}: sent {s['bytes']} bytes, "
                      f"receive expects {r['bytes']}")
    for kind, per_rank in sorted(collectives.items()):
        counts = {r: per_rank.get(r, 0) for r in ranks}
        if len(set(counts.values())) > 1:
            v.add("collectives differ across ranks", f"{kind} count per rank: {counts}")
    flows = collections.defaultdict(collections.Counter)
    for e in events:
        if e.get("ph") in ("s", "f") and e.get("cat") == "mpi":
            flows[e.get("id")][e["ph"]] += 1
    for flow_id, ends in sorted(flows.items(), key=lambda kv: str(kv[0])):
        if ends["s"] != 1 or ends["f"] != 1:
            v.add("broken message flow", f"flow {flow_id}: {ends['s']} start(s), {ends['f']} end(s)")
    return paired, len(ops)


def check_report(tasks, report_path, v):
    try:
        with open(report_path, encoding="utf-8") as f:
            report = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        sys.exit(f"check_trace: cannot read report {report_path}: {e}")
    # "tasks" maps a name to its count (or to {"count": ...}).
    expected = {name: entry["count"] if isinstance(entry, dict) else entry
                for name, entry in report.get("tasks", {}).items()}
    traced = collections.Counter(t.name for ts in tasks.values() for t in ts)
    for name in sorted(set(expected) | set(traced)):
        if expected.get(name, 0) != traced.get(name, 0):
            v.add("trace disagrees with report",
                  f"task '{name}': {traced.get(name, 0)} in the trace, {expected.get(name, 0)} in the report")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("trace")
    parser.add_argument("--expect-tasks", type=int, metavar="N")
    parser.add_argument("--report", metavar="REPORT.json")
    opts = parser.parse_args()

    trace = load(opts.trace)
    events = trace["traceEvents"]
    meta = trace.get("tessera", {})
    v = Violations()
    tasks = collect_tasks(events, v)
    total = sum(len(ts) for ts in tasks.values())
    ranks = sorted(set(tasks) | {e.get("pid") for e in events if "pid" in e}
                   | set(range(meta.get("ranks", 0))))
    check_task_ids(tasks, meta, v)
    check_threads(tasks, v)
    dependencies = check_dependencies(tasks, v)
    paired, mpi_ops = check_messages(events, ranks, v)
    if opts.expect_tasks is not None and total != opts.expect_tasks:
        v.add("task count", f"expected {opts.expect_tasks} tasks, the trace holds {total}")
    if opts.report:
        check_report(tasks, opts.report, v)
    if v:
        v.report(sys.stderr)
        sys.stderr.write(f"check_trace: {opts.trace}: INVALID\n")
        return 1
    print(f"check_trace: {opts.trace}: ok: {total} tasks on {len(ranks)} rank(s), "
          f"{dependencies} dependencies and {paired} message pairs ({mpi_ops} MPI operations) checked")
    return 0


if __name__ == "__main__":
    sys.exit(main())
