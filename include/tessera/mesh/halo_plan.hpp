#pragma once
// The halo-exchange plan of a uniform mesh: which ghost regions are filled by a local copy
// and which travel in which MPI message, at which buffer offset, with which tag.

#include <cstdint>
#include <vector>

#include "tessera/mesh/box.hpp"
#include "tessera/mesh/direction.hpp"
#include "tessera/mesh/uniform_mesh.hpp"

namespace tessera {

/// How the remote part of a halo exchange is cut into messages and buffers. Every choice
/// moves the same values into the same ghost cells, so results are bitwise identical.
struct HaloOptions {
  HaloShape shape = HaloShape::faces;
  /// One message per face (edge, corner) instead of one per neighbour rank and direction.
  bool send_faces = false;
  /// At most this many messages per neighbour rank and direction, the faces split into
  /// count-balanced contiguous groups; implies per-face splitting. 0 = no limit (one
  /// message per face with send_faces, else one message).
  int max_comm_tasks = 0;
  /// Distinct buffer memory per direction. Without it the directions towards one rank
  /// share one buffer, so direction d+1 may fill it only after direction d has sent /
  /// unpacked its overlapping part (as in miniAMR), and the exchange runs direction by
  /// direction.
  bool separate_buffers = false;
  /// Fill the ghosts facing blocks of this rank by local copies. false: the plan lists no
  /// local copies and those ghosts are left as they are, for kernels that read the
  /// neighbouring blocks' interiors in place (declaring read access to them).
  bool copy_local = true;
  /// One task per target block fills all its local ghost regions (reading every local
  /// neighbour), instead of one task per region. For full halos (26 regions, most of them
  /// tiny edges and corners) this divides the copy tasks by up to 26.
  bool copy_per_block = false;
  /// Fill the ghosts in three stages, x then y then z, as NAS MG's comm3: stage a moves
  /// the two faces across axis a, each spanning the ghosts of the axes before a that the
  /// earlier stages filled, so edges and corners travel inside faces. Up to 6 messages per
  /// block and 3 latencies instead of up to 26 messages and 1; the same ghost values,
  /// bitwise. Needs HaloShape::full and copy_local; buffers are separate per direction.
  bool staged = false;
};

/// A ghost region filled from a block of this rank: source's send_region(-direction) is
/// copied into target's ghost_region(direction).
struct HaloCopy {
  LocalBlockIndex source = kNotLocal;
  LocalBlockIndex target = kNotLocal;
  Direction direction;
  /// Exchange group of the copy (HaloPlan::group_count): the stage with options.staged,
  /// else 0.
  int group = 0;
  /// The cells copied, from source into target: send_region(-direction) and
  /// ghost_region(direction), or with options.staged the stage's extended faces.
  Box from_region;
  Box to_region;
};

/// One region of one block inside a message buffer. Offsets and sizes are in cells; a
/// field of nvars variables stores nvars * cells doubles from nvars * offset.
struct HaloSection {
  LocalBlockIndex block = kNotLocal;
  /// From `block` towards the neighbouring block on the peer rank.
  Direction direction;
  /// send_region(direction) in a send, ghost_region(direction) in a receive.
  Box region;
  std::int64_t offset = 0;
  std::int64_t cells = 0;
  /// Index of the message holding this section, in the same side's list.
  int message = 0;
  /// Sections of other exchange groups (same side and peer) sharing buffer memory with
  /// this one; empty with separate buffers.
  std::vector<int> overlaps;
};

/// One MPI message: sections [first_section, first_section + section_count) of its side,
/// contiguous in the buffer from `offset`.
struct HaloMessage {
  int peer = -1;
  /// From this rank's blocks towards the peer's blocks (the same for all its sections).
  Direction direction;
  /// Position among the messages of (peer, direction).
  int index = 0;
  /// Tag index in [0, HaloPlan::tag_count()); equal on sender and receiver.
  int tag_index = 0;
  std::int64_t offset = 0;
  std::int64_t cells = 0;
  int first_section = 0;
  int section_count = 0;
  /// Exchange group (see HaloPlan::group_count).
  int group = 0;
};

/// Messages and sections of one side (sends or receives) and its buffer size in cells.
struct HaloSide {
  std::vector<HaloMessage> messages;
  std::vector<HaloSection> sections;
  std::int64_t buffer_cells = 0;
};

/// The exchange plan of one rank, built once per mesh and options without communication
/// (every rank derives its part from the same global geometry). The mesh must outlive it.
class HaloPlan {
 public:
  /// Throws std::invalid_argument if options.max_comm_tasks < 0, or options.staged without
  /// HaloShape::full or without copy_local.
  HaloPlan(const UniformMesh& mesh, HaloOptions options);

  const UniformMesh& mesh() const { return *mesh_; }
  const HaloOptions& options() const { return options_; }
  /// Local copies, ordered by group, then target block, then direction; none without
  /// options.copy_local.
  const std::vector<HaloCopy>& copies() const { return copies_; }
  /// Messages ordered by group, then peer, then direction, then index; sections in
  /// message order, each message's sections ordered by sender block id.
  const HaloSide& sends() const { return sends_; }
  const HaloSide& receives() const { return receives_; }
  /// Groups are exchanged one after the other, each as pack -> send/receive -> unpack. With
  /// options.staged there are three, one per axis (its faces and local copies; a pack of a
  /// later stage reads ghosts the earlier ones filled); with separate buffers one;
  /// otherwise one per direction (in halo_directions order), a message belonging to the
  /// group of its sender's direction.
  int group_count() const { return group_count_; }
  /// Number of MPI tags an exchange needs (HaloMessage::tag_index < tag_count()).
  int tag_count() const { return tag_count_; }

 private:
  void build_side(HaloSide& side, bool send);

  const UniformMesh* mesh_;
  HaloOptions options_;
  std::vector<HaloCopy> copies_;
  HaloSide sends_;
  HaloSide receives_;
  int group_count_ = 1;
  int max_messages_ = 1;
  int tag_count_ = 0;
};

}  // namespace tessera
