#!/usr/bin/env bash
# Declared options (docs/options.md): a run repeated from the config file --write-config
# wrote gives the same checksum and options; compatibility spellings set the same option;
# a config file's unknown key, bad value or conflict with the command line, and an output
# directory that does not exist or cannot be written, stop every rank with status 2 and
# one line naming the option, without a report, a config file or a hang.
# Usage: options.sh <build>/bin
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
launch_timeout=60

small=(--blocks 2 2 2 --block-cells 8 8 8 --check-every 5)

# The run, its config, and the run again from the config on other ranks and threads.
run_app jacobi7 first 2 "${small[@]}" --iters 20 --exec forkjoin --threads 2 --send-faces \
  --write-config "$tmp/run.toml"
grep -qx 'iterations = 20' "$tmp/run.toml" || { cat "$tmp/run.toml"; fail "no iterations in the config"; }
! grep -q '^report' "$tmp/run.toml" || fail "the config names this run's report"
# The command line may repeat a value but not contradict it: other models go in the file.
sed -e 's/^exec = .*/exec = "bsp"/' -e 's/^threads = .*/threads = 1/' "$tmp/run.toml" >"$tmp/bsp.toml"
run_app jacobi7 again 1 --config "$tmp/bsp.toml" --iterations 20
[[ "$(field "$tmp/first.json" checksum)" == "$(field "$tmp/again.json" checksum)" ]] ||
  fail "the run repeated from its config has another checksum"
/usr/bin/python3 - "$tmp/first.json" "$tmp/again.json" <<'PY' || fail "options differ"
import json, sys
a, b = (json.load(open(p))["options"] for p in sys.argv[1:])
for changed in ("exec", "threads", "report"):
    a.pop(changed), b.pop(changed)
assert a == b, (a, b)
assert a["iterations"] == 20 and a["send-faces"] is True and a["blocks"] == [2, 2, 2], a
PY
echo "ok: --write-config then --config repeats the run"

# taskbench too: its Task Bench flags are declared options, written and read back (under
# another model); the graphs after -and cannot go in a config file.
run_app taskbench tb_first 2 -steps 6 -width 4 -type stencil_1d -kernel compute_bound -iter 8 \
  --exec forkjoin --write-config "$tmp/tb.toml"
grep -qx 'type = "stencil_1d"' "$tmp/tb.toml" || { cat "$tmp/tb.toml"; fail "no -type in taskbench's config"; }
sed -e 's/^exec = .*/exec = "bsp"/' "$tmp/tb.toml" >"$tmp/tb_bsp.toml"
run_app taskbench tb_again 1 --config "$tmp/tb_bsp.toml"
[[ "$(fields "$tmp/tb_first.json" checksum taskbench)" == "$(fields "$tmp/tb_again.json" checksum taskbench)" ]] ||
  fail "taskbench repeated from its config ran another graph"
refused 1 taskbench -steps 4 -and -steps 5 --write-config "$tmp/tb_two.toml"
[[ ! -e "$tmp/tb_two.toml" ]] || fail "taskbench -and --write-config wrote a config"
grep -q -- "error: --write-config: cannot write the graphs after -and" "$tmp/out" ||
  { cat "$tmp/out"; fail "taskbench -and --write-config: no message naming --write-config"; }
echo "ok: taskbench --write-config then --config repeats the run; -and is refused"

# Compatibility spellings set the option of the shared name.
run_app jacobi7 alias 1 "${small[@]}" --iterations 20
[[ "$(field "$tmp/alias.json" checksum)" == "$(field "$tmp/first.json" checksum)" ]] ||
  fail "--iterations 20 and --iters 20 differ"
run_app mg nit 1 --nit 2
run_app mg iterations 1 --iterations 2
[[ "$(field "$tmp/nit.json" checksum)" == "$(field "$tmp/iterations.json" checksum)" ]] ||
  fail "mg --nit 2 and --iterations 2 differ"
amr_small=(--nx 4 --ny 4 --nz 4 --num_vars 2 --stages_per_ts 2 --init_x 2 --num_refine 1 --report_perf 0)
run_app miniamr tsteps 2 "${amr_small[@]}" --num_tsteps 3 --send_faces --max_comm_tasks 2
run_app miniamr cycles 2 "${amr_small[@]}" --max-cycles 3 --send-faces --max-comm-tasks 2
/usr/bin/python3 - "$tmp/tsteps.json" "$tmp/cycles.json" <<'PY' ||
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for r in (a, b):
    r["options"].pop("report")
assert a["checksum"] == b["checksum"] and a["options"] == b["options"], (a["options"], b["options"])
assert a["options"]["max-cycles"] == 3 and a["options"]["send-faces"] is True, a["options"]
PY
  fail "miniamr --num_tsteps/--send_faces/--max_comm_tasks and --max-cycles/--send-faces/--max-comm-tasks differ"
echo "ok: --iters, --nit are --iterations; miniAMR's spellings are the shared names"

# expect_error NP NAME-IN-MESSAGE ARGS...: refused with one line naming it, no config.
expect_error() {
  local np="$1" option="$2"
  shift 2
  rm -f "$tmp/written.toml"
  refused "$np" jacobi7 "$@"
  [[ ! -e "$tmp/written.toml" ]] || fail "jacobi7 $*: wrote a config"
  [[ "$(grep -c -- "error: $option" "$tmp/out")" == 1 ]] ||
    { cat "$tmp/out"; fail "jacobi7 $*: not one line naming $option"; }
  echo "ok: $* -> $(grep -m1 -- "$option" "$tmp/out")"
}
printf 'iterations = 5\nbogus = 3\n' >"$tmp/unknown.toml"
printf 'threads = 0\n' >"$tmp/bad.toml"
printf '[run]\niterations = 5\n' >"$tmp/section.toml"
expect_error 2 "--config: unknown key 'bogus'" --config "$tmp/unknown.toml" --write-config "$tmp/written.toml"
expect_error 2 "--config: unknown key 'run.iterations'" --config "$tmp/section.toml"
expect_error 2 "--threads" --config "$tmp/bad.toml"
expect_error 2 "--iterations: 30 on the command line but 20 in config file" \
  --config "$tmp/run.toml" --iters 30 --write-config "$tmp/written.toml"
expect_error 1 "--config: cannot read" --config "$tmp/missing.toml"
expect_error 1 "--write-config: directory '$tmp/nowhere' does not exist" \
  --write-config "$tmp/nowhere/run.toml"
mkdir -p "$tmp/readonly" && chmod a-w "$tmp/readonly"
if [[ ! -w "$tmp/readonly" ]]; then  # root writes anywhere: nothing to check then
  expect_error 1 "--write-config: directory '$tmp/readonly' is not writable" \
    --write-config "$tmp/readonly/run.toml"
fi
# An option the app did not declare cannot be written to a config file: refused, not lost.
refused 1 miniamr --num_objects 1 --object 0 0 0.5 0.5 0.5 0 0 0 0.1 0.1 0.1 0 0 0 \
  --write-config "$tmp/written.toml"
[[ ! -e "$tmp/written.toml" ]] || fail "miniamr --object --write-config wrote a config"
grep -q -- "error: --write-config: cannot write --object" "$tmp/out" ||
  { cat "$tmp/out"; fail "miniamr --object --write-config: no message naming --object"; }
echo "ok: $(cat "$tmp/out")"
echo "options: all checks passed"
