#!/usr/bin/env bash
# taskbench: every Task Bench pattern runs with every task verifying its inputs, on 1, 2
# and 4 ranks, and reports Task Bench's own totals; stencil_1d and runs of several graphs
# (-and) under every execution model with 1 and 2 threads; a replayed run's trace names
# each instance's iteration; a corrupted payload (local or received, in any graph) and bad
# options make the run fail with a clear message and a non-zero exit.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
out="$tmp/out"
failures=0
fail() {
  echo "FAIL: $*"
  sed 's/^/    /' "$out" | tail -20
  failures=$((failures + 1))
}

# run NP ARGS...: runs taskbench on NP ranks into $out; sets rc.
run() {
  local np="$1"
  shift
  launch "$np" "$bin/taskbench" --quiet "$@" >"$out" 2>&1
  rc=$?
}

# expect_ok NP TASKS DEPENDENCIES ARGS...: the run succeeds, prints Task Bench's totals,
# and its tasks checked every input of both runs (the checksum is 2 x dependencies).
expect_ok() {
  local np="$1" tasks="$2" deps="$3"
  shift 3
  run "$np" "$@"
  local what="np=$np $*"
  if [[ $rc -ne 0 ]]; then
    fail "$what: exit $rc"
    return
  fi
  grep -qx "Total Tasks $tasks" "$out" || { fail "$what: expected 'Total Tasks $tasks'"; return; }
  grep -qx "Total Dependencies $deps" "$out" ||
    { fail "$what: expected 'Total Dependencies $deps'"; return; }
  grep -q "checksum $((2 * deps))\$" "$out" ||
    { fail "$what: expected $((2 * deps)) verified inputs"; return; }
  grep -q "^Elapsed Time [0-9.e+-]* seconds\$" "$out" || { fail "$what: no Elapsed Time"; return; }
  echo "ok: $what"
}

# expect_refusal NP PATTERN ARGS...: the run exits non-zero and prints PATTERN (an ERE).
expect_refusal() {
  local np="$1" pattern="$2"
  shift 2
  run "$np" "$@"
  local what="np=$np $*"
  [[ $rc -ne 0 ]] || { fail "$what: exited 0, expected a failure"; return; }
  [[ $rc -ne 124 ]] || { fail "$what: hung until the outer timeout"; return; }
  grep -Eq -- "$pattern" "$out" || { fail "$what: no message matching '$pattern'"; return; }
  echo "ok (fails as it must): $what"
}

# Task Bench's own totals for -steps 5 -width 8 (printed by Task Bench for these flags).
patterns=(
  "40 0 -type trivial"
  "40 32 -type no_comm"
  "40 88 -type stencil_1d"
  "40 96 -type stencil_1d_periodic"
  "9 10 -type dom"
  "23 22 -type tree"
  "40 80 -type fft"
  "40 256 -type all_to_all"
  "40 88 -type nearest -radix 3"
  "40 64 -type spread -radix 2 -period 2"
  "40 50 -type random_nearest -radix 3 -period 2 -fraction 0.5"
)
# every_pattern STEPS ITER PATTERN...: each "TASKS DEPENDENCIES ARGS" pattern at width 8
# on 1, 2 and 4 ranks with 2 threads.
every_pattern() {
  local steps="$1" iter="$2"
  shift 2
  for np in 1 2 4; do
    for p in "$@"; do
      read -r tasks deps args <<<"$p"
      # shellcheck disable=SC2086
      expect_ok "$np" "$tasks" "$deps" -steps "$steps" -width 8 $args -kernel busy_wait \
        -iter "$iter" -output 40 --threads 2
    done
  done
}
every_pattern 5 100 "${patterns[@]}"

# Long enough for the repeating timesteps to be replayed as an iteration graph (dataflow):
# Task Bench's totals for -steps 20 -width 8 (dom never repeats, so it is submitted).
replayed=(
  "160 0 -type trivial"
  "160 152 -type no_comm"
  "160 418 -type stencil_1d"
  "160 456 -type stencil_1d_periodic"
  "104 187 -type dom"
  "143 142 -type tree"
  "160 370 -type fft"
  "160 1216 -type all_to_all"
  "160 418 -type nearest -radix 3"
  "160 304 -type spread -radix 2 -period 2"
  "160 239 -type random_nearest -radix 3 -period 2 -fraction 0.5"
)
every_pattern 20 20 "${replayed[@]}"
expect_ok 2 160 418 -steps 20 -width 8 -type stencil_1d --threads 2 --no-replay

# --stats counts: the same run, its tasks counted but not timed, and the report says so.
full_report="$(mktemp --suffix=.json)"
counts_report="$(mktemp --suffix=.json)"
expect_ok 2 160 418 -steps 20 -width 8 -type stencil_1d --threads 2 --report "$full_report"
expect_ok 2 160 418 -steps 20 -width 8 -type stencil_1d --threads 2 --stats counts \
  --report "$counts_report"
grep -q "overlap not measured (--stats counts)" "$out" || fail "--stats counts: summary line"
/usr/bin/python3 - "$full_report" "$counts_report" >"$out" 2>&1 <<'PY' || fail "--stats counts: report"
import json, sys
full, counts = (json.load(open(p)) for p in sys.argv[1:])
assert (full["stats"], counts["stats"]) == ("full", "counts"), (full["stats"], counts["stats"])
assert counts["tasks"] == full["tasks"], (counts["tasks"], full["tasks"])
assert counts["task_stats"] == {n: {"count": c} for n, c in full["tasks"].items()}
assert counts["overlap_fraction"] is None and counts["thread_times"] == []
assert isinstance(full["overlap_fraction"], float) and full["thread_times"]
assert counts["checksum"] == full["checksum"] and counts["comm"]["messages"] == full["comm"]["messages"]
PY
rm -f "$full_report" "$counts_report"

# A trace of a replayed run passes the checker, and each replayed instance names its
# iteration: its recorded timestep (tag 0) plus period x iteration gives every
# (timestep, point) exactly once in each of the two runs.
trace="$(mktemp --suffix=.json)"
expect_ok 2 160 418 -steps 20 -width 8 -type stencil_1d --threads 2 --trace "$trace"
/usr/bin/python3 "$src/tools/check_trace.py" "$trace" >"$out" 2>&1 || fail "replayed trace: checker"
/usr/bin/python3 - "$trace" >"$out" 2>&1 <<'PY' || fail "replayed trace: iterations"
import collections, json, sys
trace = json.load(open(sys.argv[1]))
events = trace["traceEvents"] if isinstance(trace, dict) else trace
tasks = [e for e in events if e.get("ph") == "X" and e["name"] == "taskbench_task"]
replayed = [e for e in tasks if "iteration" in e["args"]]
assert replayed, "no task carries an iteration"
recorded = sorted({e["args"]["tags"][0] for e in replayed})
period = len(recorded)
seen = collections.Counter()
for e in tasks:
    step, point = e["args"]["tags"]
    if "iteration" in e["args"]:
        step += period * e["args"]["iteration"]
    seen[(step, point)] += 1
expected = {(t, x): 2 for t in range(20) for x in range(8)}
assert seen == expected, sorted(set(seen.items()) ^ set(expected.items()))[:5]
print(f"{len(replayed)} replayed of {len(tasks)} tasks, period {period}")
PY
rm -f "$trace"
expect_ok 2 160 418 -steps 20 -width 8 -type stencil_1d --threads 1

# stencil_1d under every execution model, 1 and 2 threads, on 1, 2 and 4 ranks.
for np in 1 2 4; do
  expect_ok "$np" 40 88 -steps 5 -width 8 -type stencil_1d -kernel compute_bound -iter 10 --exec bsp
  for exec in forkjoin dataflow; do
    for threads in 1 2; do
      expect_ok "$np" 40 88 -steps 5 -width 8 -type stencil_1d -kernel compute_bound -iter 10 \
        --exec "$exec" --threads "$threads"
    done
  done
done

# Several graphs in one run (-and), concurrently: Task Bench's totals over all graphs
# (printed by Task Bench for these command lines), under every execution model with 1 and
# 2 threads on 1, 2 and 4 ranks. The second and third are long enough to be replayed
# together under dataflow (dom never repeats: it is submitted beside the replay).
several=(
  "114 221 -steps 5 -width 8 -type stencil_1d -and -steps 7 -width 6 -type fft -kernel busy_wait -iter 50 -and -steps 4 -width 8 -type random_nearest -radix 3 -period 2 -fraction 0.5 -output 64"
  "456 973 -steps 20 -width 8 -type stencil_1d -and -steps 24 -width 8 -type spread -radix 2 -period 2 -and -steps 20 -width 8 -type dom"
  "480 1346 -steps 20 -width 8 -type fft -and -steps 20 -width 8 -type nearest -radix 5 -and -steps 20 -width 8 -type random_nearest -radix 3 -period 3 -fraction 0.5"
)
for np in 1 2 4; do
  for p in "${several[@]}"; do
    read -r tasks deps args <<<"$p"
    # shellcheck disable=SC2086
    expect_ok "$np" "$tasks" "$deps" $args --exec bsp
    grep -qx "    Task Graph 3:" "$out" || fail "np=$np $args: no configuration block of graph 3"
    for exec in forkjoin dataflow; do
      for threads in 1 2; do
        # shellcheck disable=SC2086
        expect_ok "$np" "$tasks" "$deps" $args --exec "$exec" --threads "$threads"
      done
    done
  done
done
# The report lists each graph; under dataflow the repeating graphs are replayed together
# (period lcm(2, 3, 6) = 6 from timestep 1: 3 periods, 18 timesteps each).
several_report="$(mktemp --suffix=.json)"
read -r tasks deps args <<<"${several[2]}"
# shellcheck disable=SC2086
expect_ok 2 "$tasks" "$deps" $args --threads 2 --report "$several_report"
/usr/bin/python3 - "$several_report" >"$out" 2>&1 <<'PY' || fail "-and: report"
import json, sys
t = json.load(open(sys.argv[1]))["taskbench"]
graphs = t["graphs"]
assert [g["type"] for g in graphs] == ["fft", "nearest", "random_nearest"], graphs
assert [g["replayed_timesteps"] for g in graphs] == [18, 18, 18], graphs
assert sum(g["tasks"] for g in graphs) == t["tasks"] == 480, t
assert sum(g["dependencies"] for g in graphs) == t["dependencies"] == 1346, t
PY
rm -f "$several_report"
# -v lists each graph's dependencies after its configuration block, as Task Bench does.
expect_ok 1 57 84 -steps 4 -width 6 -type stencil_1d -and -steps 3 -width 6 -type random_nearest \
  -radix 3 -period 2 -fraction 0.5 -v -and -steps 5 -width 4 -type tree -kernel compute_bound \
  -iter 10 -output 32 -nodes 2
grep -A6 "^      Timestep 2 (offset 0, width 6" "$out" | grep -q "^          Point 2: 2 3\$" ||
  fail "-and -v: graph 2's random dependencies"
grep -qx "  Local Bytes 1232" "$out" || fail "-and -nodes: transfer over graphs of two output sizes"

# More ranks than points: rank 0 owns none (Task Bench printed 15 tasks, 28 dependencies).
expect_ok 4 15 28 -steps 5 -width 3 -type stencil_1d --threads 2

# The other kernels, with scratch memory and large (rendezvous-sized) messages.
expect_ok 2 40 88 -steps 5 -width 8 -type nearest -kernel memory_bound -iter 8 -scratch 4096 \
  -sample 4 --threads 2
expect_ok 2 40 88 -steps 5 -width 8 -type stencil_1d -kernel load_imbalance -iter 50 \
  -imbalance 1.0 --exec forkjoin --threads 2
expect_ok 2 40 88 -steps 5 -width 8 -type stencil_1d -output 262144 --exec forkjoin

# A wrong payload is caught by its consumers, locally (1 rank) and after a message
# (2 ranks: point 3's consumer 4 lives on rank 1), under every execution model.
corrupt="verification failed: task \(timestep 3, point [234]\): input [0-2] at pair 0 holds \(timestep 2, point 4\), expected \(timestep 2, point 3\)"
expect_refusal 1 "$corrupt" -steps 5 -width 8 -type stencil_1d --corrupt 2 3
for exec in bsp forkjoin dataflow; do
  expect_refusal 2 "$corrupt" -steps 5 -width 8 -type stencil_1d --corrupt 2 3 --exec "$exec"
done
# Inside the replayed timesteps too.
expect_refusal 2 "verification failed: task \(timestep 11, point [234]\): input [0-2] at pair 0 holds \(timestep 10, point 4\), expected \(timestep 10, point 3\)" \
  -steps 20 -width 8 -type stencil_1d --corrupt 10 3 --threads 2
expect_refusal 2 "verification failed: task \(timestep 3, point [67]\): input 0 at pair 0 holds \(timestep 2, point 4\), expected \(timestep 2, point 3\)" \
  -steps 5 -width 8 -type tree --corrupt 2 3

# In any graph of several, under every execution model, and inside the replayed timesteps.
corrupt2="graph 2: verification failed: task \(timestep 3, point [234]\): input [0-2] at pair 0 holds \(timestep 2, point 4\), expected \(timestep 2, point 3\)"
for exec in bsp forkjoin dataflow; do
  expect_refusal 2 "$corrupt2" -steps 5 -width 8 -type tree -and -steps 5 -width 8 \
    -type stencil_1d --corrupt 2 3 --corrupt-graph 2 --exec "$exec"
done
expect_refusal 2 "graph 2: verification failed: task \(timestep 11, point [234]\): input [0-2] at pair 0 holds \(timestep 10, point 4\), expected \(timestep 10, point 3\)" \
  -steps 20 -width 8 -type nearest -and -steps 20 -width 8 -type stencil_1d --corrupt 10 3 \
  --corrupt-graph 2 --threads 2

# Bad options name the option and the allowed values, on every rank, before any work.
expect_refusal 2 "taskbench: error: -type: unknown type 'stencil' \(allowed: trivial, no_comm," \
  -type stencil
expect_refusal 2 "taskbench: error: -steps: must be > 0 \(got 0\)" -steps 0
expect_refusal 1 "taskbench: error: -period: type stencil_1d does not support" -type stencil_1d \
  -period 2
expect_refusal 1 "taskbench: error: -kernel: kernel 'compute_dgemm' is not provided" \
  -kernel compute_dgemm
expect_refusal 1 "taskbench: error: -width: type fft needs a width >= 2" -type fft -width 1
expect_refusal 2 "taskbench: error: -and: task graph 2 has no flags" -steps 2 -and
expect_refusal 2 "taskbench: error: -and: task graph 2 has no flags" -steps 2 -and -and -steps 3
expect_refusal 2 "taskbench: error: .*-bogus" -steps 2 -and -steps 3 -bogus
expect_refusal 2 "taskbench: error: -and: graph 2: .*--steps.*x" -steps 2 -and -steps x
expect_refusal 2 "taskbench: error: -type: graph 3: unknown type 'foo' \(allowed: trivial," \
  -steps 2 -and -steps 3 -and -type foo
expect_refusal 2 "taskbench: error: -width: graph 2: type fft needs a width >= 2" -type fft \
  -and -type fft -width 1
expect_refusal 1 "taskbench: error: .*--steps.*x" -steps x
expect_refusal 1 "taskbench: error: --stats: bogus not in \\{full,counts\\}" --stats bogus

if [[ $failures -ne 0 ]]; then
  echo "taskbench_patterns: $failures FAILED"
  exit 1
fi
echo "taskbench_patterns: PASS"
