#!/usr/bin/env bash
# Bad radhydro options: each gives exactly one error line naming the option, a non-zero exit
# status on every rank, no hang, no report (radiation options included). A run that
# produces a non-positive pressure stops on every rank with exit status 3 and a line naming
# the cycle, block and cell.
# Usage: radhydro_errors.sh <build>/bin
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
launch_timeout=60

# expect_error_on_every_rank TEXT ARGS... on $ranks ranks (lib.sh: error_on_every_rank)
ranks=2
expect_error_on_every_rank() { error_on_every_rank radhydro "$@"; }

expect_error_on_every_rank --problem --problem sodd
expect_error_on_every_rank --gamma --gamma 1
# The 2-D sedov blast at cfl 1 makes a negative pressure in the first stage (on rank 0's
# block at the origin): every rank stops with status 3.
expect_error_on_every_rank "cycle 1 .*block 0, cell" --quiet --problem sedov --dim 2 --cells 32 32 \
  --block-cells 16 16 --cfl 1
grep -q "status 3" "$tmp/status" || fail "a stopped run exits 3"
# Multigrid asked for a residual below round-off stalls (10 V-cycles without halving the
# best residual) and stops every rank with status 3 at once, not after
# --rad-max-iterations V-cycles.
expect_error_on_every_rank "cycle 1 .*stalled at the relative residual .* raise --rad-tolerance" \
  --quiet --problem rad-shock --dim 3 --cells 16 16 16 --block-cells 8 8 8 --rad-solver mg \
  --rad-tolerance 1e-18 --max-cycles 3
grep -q "status 3" "$tmp/status" || fail "a stalled solve exits 3"
ranks=1
expect_error_on_every_rank --mu --mu 0
expect_error_on_every_rank --mu --mu -0.5
expect_error_on_every_rank --cfl --cfl 0
expect_error_on_every_rank --cfl --cfl 1.5
expect_error_on_every_rank --t-end --t-end -1
expect_error_on_every_rank --max-cycles --max-cycles -1
expect_error_on_every_rank --dim --dim 4
expect_error_on_every_rank --cells --dim 2 --cells 64
expect_error_on_every_rank --cells --cells 2
expect_error_on_every_rank --block-cells --cells 256 --block-cells 48
expect_error_on_every_rank --block-cells --cells 256 --block-cells 2
expect_error_on_every_rank --axis --axis y
expect_error_on_every_rank --axis --dim 2 --axis w
expect_error_on_every_rank --boundary --boundary walls
expect_error_on_every_rank --boundary --boundary periodic flow
expect_error_on_every_rank --boundary --dim 2 --boundary flow flow flow
expect_error_on_every_rank --radiation --radiation maybe
expect_error_on_every_rank --kappa --problem heating-cooling --kappa 0
expect_error_on_every_rank --kappa --radiation on --kappa -0.4
expect_error_on_every_rank --max-dt --max-dt -1
expect_error_on_every_rank --rad-solver --radiation on --rad-solver sor
expect_error_on_every_rank --coupling --radiation on --coupling strang
expect_error_on_every_rank --rad-sweeps --rad-sweeps -1
expect_error_on_every_rank --rad-tolerance --rad-tolerance 0
expect_error_on_every_rank --rad-tolerance --rad-tolerance -1e-8
expect_error_on_every_rank --rad-max-iterations --rad-max-iterations 0
expect_error_on_every_rank --rad-theta --rad-theta 0.3
expect_error_on_every_rank --flux-limiter --flux-limiter minmod
expect_error_on_every_rank --exchange --exchange sometimes
expect_error_on_every_rank --face-state --face-state weno
expect_error_on_every_rank --lineout --lineout "$tmp/no/such/dir/line.csv"
expect_error_on_every_rank --exec --exec threads
echo "radhydro_errors: PASS"
