#!/usr/bin/env bash
# Runs jacobi7, euler, miniamr and mg many times under the PMPI delay library
# (tests/support/mpi_delay.cpp, LD_PRELOAD) and checks that every run gives the bits of the
# same app's run without it: a message completed late or out of order changes no bit,
# loses nothing, hangs nothing and does not wake the hang watchdog (--hang-timeout 10 with
# holds of at most 64 polls).
# Sourced by tests/apps/mpi_delay.sh (default suite) and tests/apps/long/mpi_delay_many.sh
# after lib.sh, with
#   delayed_runs COUNT FIRST_SEED
# Run k (seed FIRST_SEED + k) picks its app, ranks (2-4), model, threads, intranode path
# and largest hold from the seed, so a failure names a seed that repeats the same run.

# The part of each app's report that must not depend on how the run was executed.
delayed_invariant() {
  case "$1" in
    jacobi7) fields "$2" checksum history ;;
    euler) fields "$2" checksum conserved_hex time cycles ;;
    miniamr) fields "$2" checksum validation total_blocks ;;
    mg) fields "$2" checksum rnm2_hex ;;
  esac
}

delayed_input() {
  case "$1" in
    jacobi7) echo "--blocks 4 3 2 --block-cells 6 5 4 --iters 20 --check-every 7" ;;
    euler) echo "--problem blast --dim 3 --cells 16 16 8 --block-cells 8 4 4 --max-cycles 4" ;;
    miniamr)
      echo "--nx 4 --ny 4 --nz 4 --num_vars 2 --comm_vars 2 --stages_per_ts 2 --checksum_freq 1" \
        "--init_x 2 --init_y 2 --init_z 1 --num_refine 1 --refine_freq 2 --num_tsteps 4" \
        "--max_blocks 4000 --num_objects 1 --object 2 0 -0.2 0.1 0.3 0.08 0.05 0.03 0.35 0.35" \
        "0.35 0 0 0 --report_perf 0"
      ;;
    mg) echo "--nx 16 --nit 2 --block-cells 8" ;;
  esac
}

delayed_runs() {
  local count="$1" first="$2"
  local library="$bin/libtessera_mpi_delay.so"
  [[ -f "$library" ]] || fail "$library is missing (built with the tests)"
  # Cheap apps run more often than the slow ones: every app many times within the budget.
  local apps=(jacobi7 euler jacobi7 euler miniamr jacobi7 euler mg)
  local ranks=(2 3 2 4)
  local app np model threads intranode hold reference
  declare -A references=()
  for app in jacobi7 euler miniamr mg; do
    read -r -a input <<<"$(delayed_input "$app")"
    run_app "$app" "plain_$app" 2 --exec bsp "${input[@]}"
    references[$app]="$(delayed_invariant "$app" "$tmp/plain_$app.json")"
  done
  local held=0 runs=0 seed
  for ((seed = first; seed < first + count; ++seed)); do
    app=${apps[seed % ${#apps[@]}]}
    np=${ranks[(seed / 8) % ${#ranks[@]}]}
    model=$(((seed / 3) % 3))
    model=$([[ $model == 0 ]] && echo bsp || { [[ $model == 1 ]] && echo forkjoin || echo dataflow; })
    threads=$((1 + (seed / 5) % 2))
    [[ $model != bsp ]] || threads=1
    # Every fourth run keeps the default: small messages on tessera's shared-memory rings,
    # collectives and the larger messages through MPI.
    intranode=mpi
    ((seed % 4 != 3)) || intranode=rings
    hold=$(((seed * 7) % 4))
    hold=$((hold == 0 ? 1 : (hold == 1 ? 4 : (hold == 2 ? 16 : 64))))
    read -r -a input <<<"$(delayed_input "$app")"
    local name="seed${seed}_$app" out="$tmp/seed${seed}.out" report="$tmp/seed${seed}.json"
    local what="seed $seed: $app on $np ranks, --exec $model --threads $threads --intranode $intranode, holds up to $hold polls"
    rm -f "$report"
    timeout -k 10 "$launch_timeout" mpirun -np "$np" --oversubscribe --bind-to none \
      -x LD_PRELOAD="$library" -x TESSERA_MPI_DELAY_SEED="$seed" -x TESSERA_MPI_DELAY_MAX="$hold" \
      -x TESSERA_MPI_DELAY_VERBOSE=1 \
      "$bin/$app" --quiet --hang-timeout 10 --exec "$model" --threads "$threads" \
      --intranode "$intranode" --report "$report" "${input[@]}" >"$out" 2>&1 ||
      { cat "$out"; fail "$what: exited non-zero"; }
    [[ "$(delayed_invariant "$app" "$report")" == "${references[$app]}" ]] ||
      { cat "$out"; fail "$what: $(delayed_invariant "$app" "$report") instead of ${references[$app]}"; }
    # Every rank had the library loaded, took every completion MPI made, and was delayed.
    local lines
    lines=$(grep -c "^mpi_delay: rank [0-9]*: seed $seed max $hold: [0-9]* completions, [1-9][0-9]* held for [0-9]* polls, 0 left unreported$" "$out" || true)
    [[ "$lines" == "$np" ]] ||
      { cat "$out"; fail "$what: $lines of $np ranks report held completions and none left unreported"; }
    held=$((held + $(awk '/^mpi_delay: rank/ { n += $(NF - 7) } END { print n + 0 }' "$out")))
    runs=$((runs + 1))
  done
  echo "delayed runs: $runs runs (seeds $first..$((first + count - 1))) matched their plain runs' bits; $held completions held"
}
