// The halo plan: message counts per option, sender/receiver agreement, and a complete
// exchange simulated in one process for every rank count and option.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "tessera/mesh/halo_plan.hpp"

namespace tessera {
namespace {

// A 4x4x4 block grid on two ranks splits at z = 2 along the Morton curve.
UniformMesh two_rank_mesh(int rank) {
  return UniformMesh({4, 4, 4}, {2, 3, 4}, 1, rank, 2);
}

TEST(HaloPlan, DefaultSendsOneMessagePerNeighbourRankAndDirection) {
  const UniformMesh mesh = two_rank_mesh(0);
  const HaloPlan plan(mesh, {});
  ASSERT_EQ(plan.sends().messages.size(), 1u);
  ASSERT_EQ(plan.receives().messages.size(), 1u);
  const HaloMessage& send = plan.sends().messages[0];
  EXPECT_EQ(send.peer, 1);
  EXPECT_EQ(send.direction, (Direction{{0, 0, 1}}));
  EXPECT_EQ(send.section_count, 16);
  EXPECT_EQ(send.cells, 16 * 2 * 3);
  EXPECT_EQ(plan.sends().sections.size(), 16u);
  EXPECT_EQ(plan.receives().sections.size(), 16u);
  EXPECT_EQ(plan.group_count(), 6);
  // Inside each rank's 4x4x2 half, every adjacent pair copies both ways.
  EXPECT_EQ(plan.copies().size(), 2u * (24 + 24 + 16));
}

TEST(HaloPlan, WithoutCopyLocalListsNoCopiesButTheSameMessages) {
  const UniformMesh mesh = two_rank_mesh(0);
  const HaloPlan copied(mesh, {});
  const HaloPlan in_place(mesh, {.copy_local = false});
  EXPECT_TRUE(in_place.copies().empty());
  EXPECT_EQ(in_place.sends().messages.size(), copied.sends().messages.size());
  EXPECT_EQ(in_place.receives().sections.size(), copied.receives().sections.size());
  EXPECT_EQ(in_place.sends().buffer_cells, copied.sends().buffer_cells);
}

TEST(HaloPlan, SendFacesSendsOneMessagePerFace) {
  const UniformMesh mesh = two_rank_mesh(1);
  const HaloPlan plan(mesh, {.send_faces = true});
  EXPECT_EQ(plan.sends().messages.size(), 16u);
  EXPECT_EQ(plan.receives().messages.size(), 16u);
  for (const HaloMessage& m : plan.sends().messages) EXPECT_EQ(m.section_count, 1);
}

TEST(HaloPlan, MaxCommTasksSplitsFacesIntoBalancedMessages) {
  const UniformMesh mesh = two_rank_mesh(0);
  const HaloPlan four(mesh, {.max_comm_tasks = 4});
  ASSERT_EQ(four.sends().messages.size(), 4u);
  for (const HaloMessage& m : four.sends().messages) EXPECT_EQ(m.section_count, 4);
  const HaloPlan five(mesh, {.send_faces = true, .max_comm_tasks = 5});
  ASSERT_EQ(five.sends().messages.size(), 5u);
  std::vector<int> sizes;
  for (const HaloMessage& m : five.sends().messages) sizes.push_back(m.section_count);
  EXPECT_EQ(sizes, (std::vector<int>{4, 3, 3, 3, 3}));
  const HaloPlan many(mesh, {.max_comm_tasks = 100});
  EXPECT_EQ(many.sends().messages.size(), 16u);
  EXPECT_THROW(HaloPlan(mesh, {.max_comm_tasks = -1}), std::invalid_argument);
}

TEST(HaloPlan, FullShapeAddsEdgeAndCornerMessages) {
  const UniformMesh mesh = two_rank_mesh(0);
  const HaloPlan plan(mesh, {.shape = HaloShape::full});
  // +z face, four edges towards +z and four corners towards +z.
  EXPECT_EQ(plan.sends().messages.size(), 9u);
  EXPECT_EQ(plan.sends().sections.size(), 16u + 4 * 12 + 4 * 9);
  EXPECT_EQ(plan.receives().sections.size(), 16u + 4 * 12 + 4 * 9);
  EXPECT_EQ(plan.group_count(), 26);
}

TEST(HaloPlan, SeparateBuffersGiveEachDirectionItsOwnMemory) {
  const UniformMesh mesh = two_rank_mesh(0);
  const HaloPlan shared(mesh, {.shape = HaloShape::full});
  const HaloPlan separate(mesh, {.shape = HaloShape::full, .separate_buffers = true});
  // Shared: the largest direction (the +z face, 16 faces of 2x3 cells).
  EXPECT_EQ(shared.sends().buffer_cells, 16 * 6);
  // Separate: face + 2 edges of 12 x 3 cells + 2 edges of 12 x 2 cells + 4 corners of 9 x 1.
  EXPECT_EQ(separate.sends().buffer_cells, 16 * 6 + 2 * 12 * 3 + 2 * 12 * 2 + 4 * 9);
  EXPECT_EQ(separate.group_count(), 1);
  for (const HaloSection& s : separate.sends().sections) EXPECT_TRUE(s.overlaps.empty());
  bool any_overlap = false;
  for (const HaloSection& s : shared.sends().sections) any_overlap |= !s.overlaps.empty();
  EXPECT_TRUE(any_overlap);
}

TEST(HaloPlan, OverlapListsNameExactlyTheOtherGroupsSectionsSharingMemory) {
  const UniformMesh mesh({3, 3, 3}, {3, 2, 2}, 1, 1, 3);
  for (HaloShape shape : {HaloShape::faces, HaloShape::full}) {
    const HaloPlan plan(mesh, {.shape = shape, .send_faces = true});
    for (const HaloSide* side : {&plan.sends(), &plan.receives()}) {
      const auto& sections = side->sections;
      for (int s = 0; s < static_cast<int>(sections.size()); ++s) {
        std::vector<int> expected;
        const HaloMessage& ms = side->messages[sections[s].message];
        for (int t = 0; t < static_cast<int>(sections.size()); ++t) {
          const HaloMessage& mt = side->messages[sections[t].message];
          if (mt.group == ms.group || mt.peer != ms.peer) continue;
          if (sections[t].offset < sections[s].offset + sections[s].cells &&
              sections[s].offset < sections[t].offset + sections[t].cells) {
            expected.push_back(t);
          }
        }
        std::vector<int> got = sections[s].overlaps;
        std::sort(got.begin(), got.end());
        EXPECT_EQ(got, expected) << "section " << s;
      }
    }
  }
}

// One block per rank in a periodic 4x4x4 grid on 64 ranks: every neighbour is another
// rank. Staged, its 6 faces carry what the direct exchange sends in 26 messages.
TEST(HaloPlan, StagedSendsSixFacesInThreeAxisGroupsSpanningEarlierGhosts) {
  const UniformMesh mesh({4, 4, 4}, {5, 4, 3}, 1, 9, 64, Periodicity::all());
  const HaloPlan direct(mesh, {.shape = HaloShape::full, .separate_buffers = true});
  const HaloPlan staged(mesh, {.shape = HaloShape::full, .staged = true});
  EXPECT_EQ(direct.sends().messages.size(), 26u);
  ASSERT_EQ(staged.sends().messages.size(), 6u);
  ASSERT_EQ(staged.receives().messages.size(), 6u);
  EXPECT_EQ(staged.group_count(), 3);
  const std::int64_t expected_cells[3] = {4 * 3, (5 + 2) * 3, (5 + 2) * (4 + 2)};
  for (const HaloSide* side : {&staged.sends(), &staged.receives()}) {
    for (const HaloMessage& m : side->messages) {
      const int axis = m.direction.offset.x != 0 ? 0 : (m.direction.offset.y != 0 ? 1 : 2);
      EXPECT_EQ(m.direction.order(), 1);
      EXPECT_EQ(m.group, axis);
      EXPECT_EQ(m.cells, expected_cells[axis]) << direction_name(m.direction);
    }
  }
  // Separate memory per direction: no overlaps, the buffer holds every message.
  std::int64_t cells = 0;
  for (const HaloMessage& m : staged.sends().messages) cells += m.cells;
  EXPECT_EQ(staged.sends().buffer_cells, cells);
  for (const HaloSection& s : staged.sends().sections) EXPECT_TRUE(s.overlaps.empty());
  EXPECT_TRUE(staged.copies().empty());
}

TEST(HaloPlan, StagedRefusesTheFacesShapeAndPlansWithoutLocalCopies) {
  const UniformMesh mesh = two_rank_mesh(0);
  EXPECT_THROW(HaloPlan(mesh, {.staged = true}), std::invalid_argument);
  EXPECT_THROW(HaloPlan(mesh, {.shape = HaloShape::full, .copy_local = false, .staged = true}),
               std::invalid_argument);
  const HaloPlan staged(mesh, {.shape = HaloShape::full, .staged = true});
  // Copies come by stage: the x faces' first, then y's, then z's.
  for (std::size_t i = 1; i < staged.copies().size(); ++i) {
    EXPECT_LE(staged.copies()[i - 1].group, staged.copies()[i].group);
  }
  EXPECT_EQ(staged.copies().size(), 2u * (24 + 24 + 16));
}

struct PlanCase {
  Int3 blocks;
  Int3 cells;
  int ghost;
  int ranks;
  HaloOptions options;
  Periodicity periodic{};
};

std::vector<PlanCase> plan_cases() {
  std::vector<PlanCase> cases;
  const std::vector<HaloOptions> options{
      {},
      {.send_faces = true},
      {.max_comm_tasks = 3},
      {.separate_buffers = true},
      {.send_faces = true, .separate_buffers = true},
      {.shape = HaloShape::full},
      {.shape = HaloShape::full, .max_comm_tasks = 2, .separate_buffers = true},
      {.shape = HaloShape::full, .staged = true},
      {.shape = HaloShape::full, .send_faces = true, .staged = true},
  };
  for (const HaloOptions& o : options) {
    for (int ranks : {1, 2, 3, 4, 7}) {
      cases.push_back({{3, 4, 2}, {3, 2, 4}, 1, ranks, o});
      cases.push_back({{5, 3, 1}, {4, 3, 1}, 2, ranks, o});  // 2-D
    }
    cases.push_back({{2, 2, 3}, {4, 4, 4}, 2, 4, o});
    // Periodic: one block on an axis is its own neighbour, two blocks are each other's
    // neighbour on both sides.
    for (int ranks : {1, 2, 3, 5}) {
      cases.push_back({{1, 2, 3}, {3, 2, 2}, 1, ranks, o, Periodicity::all()});
      cases.push_back({{3, 2, 1}, {2, 3, 1}, 1, ranks, o, {true, false, false}});  // 2-D
    }
  }
  return cases;
}

// Every rank's data in one process: a field of two variables whose interior values are a
// function of the global cell and variable, ghosts set to a sentinel.
struct SimulatedRank {
  std::unique_ptr<UniformMesh> mesh;
  std::unique_ptr<HaloPlan> plan;
  BlockLayout layout;
  std::vector<std::vector<double>> blocks;
  std::vector<double> send_buffer;
  std::vector<double> receive_buffer;
};

constexpr int kVars = 2;
constexpr double kSentinel = -1.0;

double cell_value(Int3 g, int var) {
  return 1.0 + g.x + 1000.0 * g.y + 1.0e6 * g.z + 1.0e9 * var;
}

class SimulatedExchange : public ::testing::TestWithParam<PlanCase> {};

TEST_P(SimulatedExchange, FillsEveryGhostFacingABlockWithItsValueAndNothingElse) {
  const PlanCase& c = GetParam();
  std::vector<SimulatedRank> ranks(c.ranks);
  for (int r = 0; r < c.ranks; ++r) {
    SimulatedRank& s = ranks[r];
    s.mesh = std::make_unique<UniformMesh>(c.blocks, c.cells, c.ghost, r, c.ranks, c.periodic);
    s.plan = std::make_unique<HaloPlan>(*s.mesh, c.options);
    s.layout = s.mesh->layout(kVars);
    s.send_buffer.assign(s.plan->sends().buffer_cells * kVars, 0.0);
    s.receive_buffer.assign(s.plan->receives().buffer_cells * kVars, 0.0);
    for (const MeshBlock& block : s.mesh->local_blocks()) {
      std::vector<double> data(s.layout.size(), kSentinel);
      const Int3 o = s.mesh->cell_origin(block);
      for (int var = 0; var < kVars; ++var)
        for (int k = 0; k < c.cells.z; ++k)
          for (int j = 0; j < c.cells.y; ++j)
            for (int i = 0; i < c.cells.x; ++i)
              data[s.layout.index(var, i, j, k)] = cell_value({o.x + i, o.y + j, o.z + k}, var);
      s.blocks.push_back(std::move(data));
    }
    ASSERT_EQ(s.plan->group_count(), ranks[0].plan->group_count());
  }
  for (int group = 0; group < ranks[0].plan->group_count(); ++group) {
    for (SimulatedRank& s : ranks) {
      for (const HaloSection& sec : s.plan->sends().sections) {
        if (s.plan->sends().messages[sec.message].group != group) continue;
        pack_region(s.layout, s.blocks[sec.block].data(), sec.region,
                    s.send_buffer.data() + sec.offset * kVars);
      }
    }
    for (int r = 0; r < c.ranks; ++r) {
      for (const HaloMessage& m : ranks[r].plan->receives().messages) {
        if (m.group != group) continue;
        const auto& peer_sends = ranks[m.peer].plan->sends().messages;
        const auto match = std::find_if(peer_sends.begin(), peer_sends.end(), [&](const auto& s) {
          return s.peer == r && s.tag_index == m.tag_index;
        });
        ASSERT_NE(match, peer_sends.end()) << "no send for rank " << r << " tag " << m.tag_index;
        ASSERT_EQ(match->cells, m.cells);
        ASSERT_EQ(match->group, m.group);
        std::copy_n(ranks[m.peer].send_buffer.data() + match->offset * kVars, m.cells * kVars,
                    ranks[r].receive_buffer.data() + m.offset * kVars);
      }
    }
    for (SimulatedRank& s : ranks) {
      for (const HaloSection& sec : s.plan->receives().sections) {
        if (s.plan->receives().messages[sec.message].group != group) continue;
        unpack_region(s.layout, s.blocks[sec.block].data(), sec.region,
                      s.receive_buffer.data() + sec.offset * kVars);
      }
      // Local copies with their group (a staged exchange's later stages copy ghosts the
      // earlier ones filled), over the regions the plan gives.
      for (const HaloCopy& copy : s.plan->copies()) {
        if (copy.group != group) continue;
        copy_region(s.layout, s.blocks[copy.source].data(), copy.from_region,
                    s.blocks[copy.target].data(), copy.to_region);
      }
    }
  }
  // Every send has exactly one receive.
  std::size_t sends = 0, receives = 0;
  for (const SimulatedRank& s : ranks) {
    sends += s.plan->sends().messages.size();
    receives += s.plan->receives().messages.size();
  }
  EXPECT_EQ(sends, receives);

  const auto directions = halo_directions(c.options.shape);
  for (SimulatedRank& s : ranks) {
    for (LocalBlockIndex b = 0; b < s.mesh->local_block_count(); ++b) {
      const MeshBlock& block = s.mesh->local_block(b);
      const Int3 o = s.mesh->cell_origin(block);
      const Int3 g = s.mesh->ghost();
      for (int var = 0; var < kVars; ++var)
        for (int k = -g.z; k < c.cells.z + g.z; ++k)
          for (int j = -g.y; j < c.cells.y + g.y; ++j)
            for (int i = -g.x; i < c.cells.x + g.x; ++i) {
              const Int3 cell{i, j, k};
              Direction d{{0, 0, 0}};
              for (int a = 0; a < 3; ++a) {
                d.offset[a] = cell[a] < 0 ? -1 : (cell[a] >= c.cells[a] ? 1 : 0);
              }
              if (d.index() == 13) continue;
              const bool filled =
                  std::find(directions.begin(), directions.end(), d) != directions.end() &&
                  block.neighbour[d.index()] != kNoBlock;
              Int3 global{o.x + i, o.y + j, o.z + k};
              const Int3 n = s.mesh->cells();
              for (int a = 0; a < 3; ++a) global[a] = (global[a] + n[a]) % n[a];
              const double expected = filled ? cell_value(global, var) : kSentinel;
              ASSERT_EQ(s.blocks[b][s.layout.index(var, i, j, k)], expected)
                  << "rank " << s.mesh->rank() << " block " << block.id << " cell " << i << "," << j
                  << "," << k << " var " << var;
            }
    }
  }
}

std::string describe(const PlanCase& c) {
  const HaloOptions& o = c.options;
  std::string name = "blocks" + std::to_string(c.blocks.x) + std::to_string(c.blocks.y) +
                     std::to_string(c.blocks.z) + "_ghost" + std::to_string(c.ghost) + "_ranks" +
                     std::to_string(c.ranks) + (o.shape == HaloShape::faces ? "_faces" : "_full");
  if (o.send_faces) name += "_sendfaces";
  if (o.max_comm_tasks > 0) name += "_max" + std::to_string(o.max_comm_tasks);
  if (o.separate_buffers) name += "_separate";
  if (o.staged) name += "_staged";
  if (c.periodic.x || c.periodic.y || c.periodic.z) name += "_periodic";
  return name;
}

void PrintTo(const PlanCase& c, std::ostream* os) {
  *os << describe(c);
}

std::string case_name(const ::testing::TestParamInfo<PlanCase>& info) {
  return describe(info.param) + "_" + std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(RanksShapesAndOptions, SimulatedExchange,
                         ::testing::ValuesIn(plan_cases()), case_name);

}  // namespace
}  // namespace tessera
