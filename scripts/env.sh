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
  libbenchmark-dev python3-matplotlib python3-numpy iproute2 libsimgrid-dev)

# Installs the Debian packages the project needs that are not installed yet.
tessera_install_deps() {
  local missing=()
  for p in "${TESSERA_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "tessera: installing missing Debian packages: ${missing[*]}"
    local sudo=""
    [[ $(id -u) -ne 0 ]] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
  fi
}

# Configures and builds one build tree: tessera_build DIR [cmake args...]
tessera_build() {
  local dir="$1"; shift
  cmake -S "$TESSERA_ROOT" -B "$TESSERA_ROOT/$dir" -G Ninja "$@" >/dev/null
  cmake --build "$TESSERA_ROOT/$dir" -j "$(nproc)"
}
