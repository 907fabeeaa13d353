#include "comm/intranode_rings.hpp"

#include "tessera/base/check_mpi.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>

namespace tessera::detail {

namespace {

/// The name of a rank's segment: its process, a count of the process's segments and a
/// random token. A rank killed between creating its segment and unlinking it leaves the
/// name behind, and a later process can get the same process id: the token keeps the
/// names apart.
std::string segment_name(std::int64_t pid, std::int64_t serial, std::int64_t token) {
  return fmt::format("/tessera-rings-{}-{}-{:x}", pid, serial, static_cast<std::uint64_t>(token));
}

/// Maps a segment; `create` makes it (zero-filled) first. Empty error on success;
/// `*exists` tells whether creating failed because the name was taken.
std::string map_segment(const std::string& name, std::size_t bytes, bool create, void** address,
                        bool* exists = nullptr) {
  const int fd = shm_open(name.c_str(), create ? O_CREAT | O_EXCL | O_RDWR : O_RDWR, 0600);
  if (exists != nullptr) *exists = fd < 0 && errno == EEXIST;
  if (fd < 0) return fmt::format("shm_open {}: {}", name, std::strerror(errno));
  std::string error;
  if (create && ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    error = fmt::format("ftruncate {}: {}", name, std::strerror(errno));
  } else {
    void* a = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (a == MAP_FAILED) {
      error = fmt::format("mmap {}: {}", name, std::strerror(errno));
    } else {
      *address = a;
    }
  }
  close(fd);
  return error;
}

/// Throws the first rank's error on every rank of `node` if any rank has one.
void agree(MPI_Comm node, const std::string& error) {
  int failed = error.empty() ? 0 : 1;
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, node), "MPI_Allreduce");
  if (failed == 0) return;
  throw std::runtime_error(
      fmt::format("cannot map the shared-memory rings between ranks of this node{}{} "
                  "(--intranode mpi sends every message through MPI instead)",
                  error.empty() ? "" : ": ", error));
}

}  // namespace

IntranodeRings::IntranodeRings(MPI_Comm comm) {
  int rank = 0, size = 1;
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  outbound_.resize(static_cast<std::size_t>(size));
  MPI_Comm node;
  check_mpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node),
            "MPI_Comm_split_type");
  struct FreeNode {
    MPI_Comm& node;
    ~FreeNode() { MPI_Comm_free(&node); }
  } free_node{node};
  int node_rank = 0, node_size = 1;
  check_mpi(MPI_Comm_rank(node, &node_rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(node, &node_size), "MPI_Comm_size");
  if (node_size == 1) return;

  // Each rank's segment holds its inbound rings, one per sender's node rank (created
  // zero-filled). What a rank needs to know of the others: their rank in `comm` and their
  // segment's name.
  static std::int64_t serial = 0;
  const std::size_t bytes = sizeof(Ring) * static_cast<std::size_t>(node_size);
  std::random_device entropy;
  std::int64_t mine[4] = {rank, static_cast<std::int64_t>(getpid()), serial++, 0};
  std::string own_name;
  bool created = false;
  // Every rank of the node takes the same branch: all succeed or all throw.
  const auto agree_or_unwind = [&](const std::string& error) {
    try {
      agree(node, error);
    } catch (...) {
      for (const Mapping& m : mappings_) munmap(m.address, m.bytes);
      mappings_.clear();
      if (created) shm_unlink(own_name.c_str());
      throw;
    }
  };
  void* own = nullptr;
  std::string error;
  // A taken name (left by a killed process) gets another token; eight in a row taken
  // would mean something else is wrong.
  for (int attempt = 0; attempt < 8; ++attempt) {
    mine[3] = static_cast<std::int64_t>((std::uint64_t{entropy()} << 32) | entropy());
    own_name = segment_name(mine[1], mine[2], mine[3]);
    bool exists = false;
    error = map_segment(own_name, bytes, true, &own, &exists);
    if (!exists) break;
  }
  if (error.empty()) {
    created = true;
    mappings_.push_back(Mapping{own, bytes});
  }
  agree_or_unwind(error);
  std::vector<std::int64_t> all(4 * static_cast<std::size_t>(node_size));
  check_mpi(MPI_Allgather(mine, 4, MPI_INT64_T, all.data(), 4, MPI_INT64_T, node), "MPI_Allgather");
  for (int r = 0; r < node_size && error.empty(); ++r) {
    if (r == node_rank) continue;
    const std::int64_t* who = &all[4 * static_cast<std::size_t>(r)];
    void* theirs = nullptr;
    error = map_segment(segment_name(who[1], who[2], who[3]), bytes, false, &theirs);
    if (!error.empty()) break;
    mappings_.push_back(Mapping{theirs, bytes});
    const int peer = static_cast<int>(who[0]);
    outbound_[static_cast<std::size_t>(peer)].ring = &static_cast<Ring*>(theirs)[node_rank];
    inbound_.push_back(Inbound{&static_cast<Ring*>(own)[r], peer, 0});
  }
  agree_or_unwind(error);
  // Every rank mapped every segment: the name is no longer needed. Unlinked, the memory
  // goes away with the last mapping, even if a rank dies.
  shm_unlink(own_name.c_str());
}

IntranodeRings::~IntranodeRings() {
  for (const Mapping& m : mappings_) munmap(m.address, m.bytes);
}

bool IntranodeRings::try_send(int peer, int tag, const void* data, std::size_t bytes) {
  Outbound& out = outbound_[static_cast<std::size_t>(peer)];
  if (out.sent - out.seen_consumed == kSlots) {
    out.seen_consumed = load_acquire(out.ring->consumed);
    if (out.sent - out.seen_consumed == kSlots) return false;
  }
  Slot& slot = out.ring->slots[out.sent % kSlots];
  slot.tag = static_cast<std::int32_t>(tag);
  slot.bytes = static_cast<std::uint32_t>(bytes);
  if (bytes > 0) std::memcpy(slot.payload, data, bytes);
  store_release(slot.sequence, ++out.sent);
  return true;
}

}  // namespace tessera::detail
