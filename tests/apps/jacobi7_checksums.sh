#!/usr/bin/env bash
# jacobi7 gives bitwise identical checksums and residual histories under every execution
# model, on 1, 2 and 4 ranks, 1 and 2 threads and every halo and packing option; the residual
# decreases; and the error against the manufactured solution falls as h^2 (second order).
# Usage: jacobi7_checksums.sh <build>/bin
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

# run NAME RANKS ARGS...: runs jacobi7 with a report in $tmp/NAME.json.
run() { run_app jacobi7 "$@"; }
# The part of a report that must not depend on how the run was executed.
invariant() { fields "$1" checksum history; }

# A 3-D input with skeleton and enclave blocks on every rank count, and a 2-D one.
input3d=(--blocks 4 3 2 --block-cells 6 5 4 --iters 40 --check-every 7)
input2d=(--blocks 5 3 1 --block-cells 7 6 1 --iters 40 --check-every 9)

runs=()
run_matrix jacobi7 base "1 2 4" "${input3d[@]}"
# Fused packing (receive, the default: sweeps read the remote faces from the receive buffer;
# all: they fill the send buffer too; x: all for x faces) and pack / unpack tasks (none),
# with each way of cutting messages.
halo_options=("--send-faces --fused-packing none" "--max-comm-tasks 3 --fused-packing x"
  "--fused-packing none" "--send-faces --fused-packing all"
  "--max-comm-tasks 2 --separate-buffers --fused-packing none"
  "--copy-local-ghosts --fused-packing all" "--copy-local-ghosts --send-faces --fused-packing x")
for i in "${!halo_options[@]}"; do
  read -r -a opts <<<"${halo_options[$i]}"
  run "halo${i}_bsp_np4" 4 --exec bsp "${opts[@]}" "${input3d[@]}"
  run "halo${i}_forkjoin_np2_t2" 2 --exec forkjoin --threads 2 "${opts[@]}" "${input3d[@]}"
  run "halo${i}_dataflow_np4_t2" 4 --exec dataflow --threads 2 "${opts[@]}" "${input3d[@]}"
  runs+=("halo${i}_bsp_np4" "halo${i}_forkjoin_np2_t2" "halo${i}_dataflow_np4_t2")
done
run priorities_none 2 --exec dataflow --threads=2 --priorities none "${input3d[@]}"
runs+=(priorities_none)
# Temporal blocking orders the sweeps differently; the bits stay those of bsp.
run wavefront_np1_t2 1 --exec dataflow --threads 2 --wavefront-depth 3 "${input3d[@]}"
run wavefront_np2_t2 2 --exec dataflow --threads 2 --wavefront-depth 2 "${input3d[@]}"
run wavefront_np4_t1 4 --exec dataflow --wavefront-depth 5 --copy-local-ghosts "${input3d[@]}"
run wavefront_bsp_np2 2 --exec bsp --wavefront-depth 2 --fused-packing all "${input3d[@]}"
runs+=(wavefront_np1_t2 wavefront_np2_t2 wavefront_np4_t1 wavefront_bsp_np2)
run intranode_mpi_bsp_np4 4 --exec bsp --intranode mpi "${input3d[@]}"
run intranode_mpi_dataflow_np4 4 --exec dataflow --threads 2 --intranode mpi "${input3d[@]}"
runs+=(intranode_mpi_bsp_np4 intranode_mpi_dataflow_np4)

expect_all_same base_bsp_np1 "${runs[@]}"
# One thread per rank makes the process single-threaded: MPI_THREAD_SINGLE spares
# OpenMPI's locks. More threads need MPI_THREAD_FUNNELED, whichever way --threads is spelt.
for r in "${runs[@]}"; do
  want=funneled
  [[ "$(field "$tmp/$r.json" threads)" == 1 ]] && want=single
  [[ "$(field "$tmp/$r.json" mpi_thread_level)" == "$want" ]] ||
    fail "$r: MPI thread level $(field "$tmp/$r.json" mpi_thread_level), expected $want"
done
# Halo messages of this input fit a ring: with rings (the default) they take them, and
# --intranode mpi sends every one through MPI.
comm_field() { /usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['comm'][sys.argv[2]])" "$1" "$2"; }
[[ "$(comm_field "$tmp/base_dataflow_np4_t2.json" ring_messages)" -gt 0 ]] ||
  fail "base_dataflow_np4_t2 sent no message through a ring"
[[ "$(comm_field "$tmp/intranode_mpi_dataflow_np4.json" ring_messages)" == 0 ]] ||
  fail "intranode_mpi_dataflow_np4 sent messages through rings"
echo "3-D: ${#runs[@]} runs, checksum $(field "$tmp/base_bsp_np1.json" checksum) in all"

/usr/bin/python3 - "$tmp/base_bsp_np1.json" <<'PY' || fail "residual does not decrease"
import json, sys
history = json.load(open(sys.argv[1]))["history"]
residuals = [h["residual"] for h in history]
assert len(residuals) == 7, residuals  # iterations 0, 7, ..., 35 and the final 40
assert all(b < a for a, b in zip(residuals, residuals[1:])), residuals
print("residual decreases:", " ".join(f"{r:.3e}" for r in residuals))
PY

run 2d_bsp_np1 1 --exec bsp "${input2d[@]}"
run 2d_dataflow_np2_t2 2 --exec dataflow --threads 2 --send-faces "${input2d[@]}"
run 2d_forkjoin_np4_t2 4 --exec forkjoin --threads 2 --fused-packing none "${input2d[@]}"
expect_all_same 2d_bsp_np1 2d_dataflow_np2_t2 2d_forkjoin_np4_t2

# Rows long enough for the vector path (16 cells: the last vector ends the row; 19: two
# vectors and a scalar tail) give the same bits whether a sweep reads its local neighbours'
# faces in place or from ghosts filled by copy tasks.
for cells in "16 6 5" "19 6 5"; do
  read -r -a c <<<"$cells"
  rows=(--blocks 3 2 2 --block-cells "${c[@]}" --iters 20 --check-every 6)
  run rows_copy_np1 1 --exec bsp --copy-local-ghosts "${rows[@]}"
  run rows_dataflow_np1_t2 1 --exec dataflow --threads 2 "${rows[@]}"
  run rows_forkjoin_np2_t2 2 --exec forkjoin --threads 2 "${rows[@]}"
  run rows_dataflow_np4 4 --exec dataflow --copy-local-ghosts "${rows[@]}"
  expect_all_same rows_copy_np1 rows_dataflow_np1_t2 rows_forkjoin_np2_t2 rows_dataflow_np4
done

# More ranks than blocks: ranks without blocks still take part in every reduction.
sparse=(--blocks 3 1 1 --block-cells 4 5 6 --iters 12 --check-every 5)
run sparse_bsp_np1 1 --exec bsp "${sparse[@]}"
run sparse_dataflow_np4 4 --exec dataflow "${sparse[@]}"
expect_all_same sparse_bsp_np1 sparse_dataflow_np4

# Second order: iterate to convergence on 16^3 and 32^3 cells (h = 1/17 and 1/33).
run coarse 1 --exec dataflow --threads 2 --blocks 2 2 2 --block-cells 8 8 8 --iters 900 --check-every 0
run fine 2 --exec dataflow --threads 1 --blocks 2 2 2 --block-cells 16 16 16 --iters 3200 --check-every 0
/usr/bin/python3 - "$tmp/coarse.json" "$tmp/fine.json" <<'PY' || fail "not second order"
import json, math, sys
coarse, fine = (json.load(open(p)) for p in sys.argv[1:3])
for r in (coarse, fine):
    assert r["residual"] < 1e-4, f"not converged: residual {r['residual']}"
h_coarse, h_fine = 1 / 17, 1 / 33
ratio = coarse["error"] / fine["error"]
order = math.log(ratio) / math.log(h_coarse / h_fine)
print(f"error {coarse['error']:.4e} -> {fine['error']:.4e}: ratio {ratio:.2f} for h ratio "
      f"{h_coarse / h_fine:.2f}, order {order:.2f}")
assert 1.9 <= order <= 2.1, order
PY
echo "jacobi7_checksums: PASS"
