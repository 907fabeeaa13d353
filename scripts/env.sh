# Shared settings for tessera's scripts: sourced, not run.
# OpenMPI refuses to run as root unless told; CI and developers run as root here.
export OMPI_ALLOW_RUN_AS_ROOT=1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Keep OpenMPI quiet about missing high-speed transports on a laptop-class machine.
export OMPI_MCA_btl_base_warn_component_unused=0
export PMIX_MCA_gds=hash
TESSERA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export TESSERA_ROOT
TESSERA_PACKAGES=(build-essential cmake ninja-build libopenmpi-dev openmpi-bin libp4est-dev
  libhwloc-dev libcli11-dev nlohmann-json3-dev libfmt-dev googletest libgtest-dev
  libbenchmark-dev python3-matplotlib python3-numpy iproute2 libhdf5-openmpi-dev libsimgrid-dev
  python3-h5py libxsmm-dev dpkg-dev autoconf automake libtool gfortran zlib1g-dev)

# Where the scripts put the output of their steps (package manager, configure, build,
# tests): one log file per step, named on the terminal when the step fails.
TESSERA_LOG_DIR="$TESSERA_ROOT/out/logs"

# tessera_step WHAT LOG COMMAND...: runs one step with all its output in LOG and prints one
# line: what it did and how long it took, or, on failure, the log's last lines and its
# path (then exits non-zero).
tessera_step() {
  local what="$1" log="$2" start=$SECONDS
  shift 2
  mkdir -p "$(dirname "$log")"
  if "$@" >"$log" 2>&1; then
    echo "tessera: $what: done in $((SECONDS - start)) s"
  else
    echo "tessera: $what: FAILED after $((SECONDS - start)) s; last lines of $log:"
    tail -n 30 "$log" | sed 's/^/  | /'
    echo "tessera: $what failed; the whole output is in $log"
    exit 1
  fi
}

# Installs the Debian packages the project needs that are not installed yet; the package
# manager's output goes to $TESSERA_LOG_DIR/packages.log.
tessera_install_deps() {
  local missing=()
  for p in "${TESSERA_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]} == 0)); then
    echo "tessera: Debian packages: all ${#TESSERA_PACKAGES[@]} installed"
    return
  fi
  local sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  [[ -n "$sudo" ]] && $sudo -v  # ask for the password here, not inside the logged step
  tessera_step "installing ${#missing[@]} Debian packages (${missing[*]})" \
    "$TESSERA_LOG_DIR/packages.log" _tessera_apt_install $sudo "${missing[@]}"
}
_tessera_apt_install() {
  local sudo=()
  [[ "$1" == sudo ]] && { sudo=(sudo); shift; }
  "${sudo[@]}" apt-get update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "$@"
}

# Configures and builds one build tree, output in $TESSERA_LOG_DIR/DIR.log:
# tessera_build DIR [cmake args...]
tessera_build() {
  local dir="$1"
  shift
  tessera_step "build $dir/" "$TESSERA_LOG_DIR/$dir.log" _tessera_configure_and_build "$dir" "$@"
}
_tessera_configure_and_build() {
  local dir="$1"
  shift
  cmake -S "$TESSERA_ROOT" -B "$TESSERA_ROOT/$dir" -G Ninja "$@"
  cmake --build "$TESSERA_ROOT/$dir" -j "$(nproc)"
}

# Runs ctest in build tree DIR: tessera_ctest DIR WHAT [ctest args...]. The output goes to
# $TESSERA_LOG_DIR/DIR-tests.log; prints one line, then ctest's count of passed tests.
tessera_ctest() {
  local dir="$1" what="$2"
  shift 2
  local log="$TESSERA_LOG_DIR/$dir-tests.log"
  # Without a fast network OpenMPI settles on its ob1 messaging layer, but only after
  # probing UCX and libfabric, which doubles the start-up of every MPI process (0.5 ->
  # 0.27 s on this machine) and the tests start about a thousand. Naming ob1 skips the
  # probes and keeps the transport the tests would get anyway (shared memory, TCP).
  # The suite runs several MPI jobs at once on few cores: threads waiting for a message
  # or a collective must give their cores to the ranks that have work, so idle tessera
  # threads wait passively and OpenMPI yields in its blocking calls (four concurrent
  # euler_amr scripts: 75-80 s each with spinning, 23 s without).
  OMPI_MCA_pml="${OMPI_MCA_pml:-ob1}" OMPI_MCA_mpi_yield_when_idle="${OMPI_MCA_mpi_yield_when_idle:-1}" \
    TESSERA_WAIT_POLICY="${TESSERA_WAIT_POLICY:-passive}" tessera_step "$what" "$log" \
    ctest --test-dir "$TESSERA_ROOT/$dir" --output-on-failure -j "$(nproc)" "$@"
  echo "tessera:   $(grep -E "tests passed" "$log" | tail -1)"
}
