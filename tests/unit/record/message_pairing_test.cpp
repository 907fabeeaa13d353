// Matching sends with receives the way MPI's non-overtaking rule does.
#include "record/message_pairing.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace tessera::obs {
namespace {

TEST(PairMessages, PairsTheKthSendOfAChannelWithItsKthReceive) {
  // Rank 0 sends twice to rank 1 with tag 5 and once with tag 6; rank 1 posts the
  // receives in a different record order but the same posting order per channel.
  const std::vector<MessageRecord> records{
      {0, 1, 5, 1, true},   // 0: first send, tag 5
      {0, 1, 6, 2, true},   // 1: send, tag 6
      {0, 1, 5, 3, true},   // 2: second send, tag 5
      {1, 0, 5, 9, false},  // 3: second receive, tag 5 (posted later)
      {1, 0, 6, 4, false},  // 4: receive, tag 6
      {1, 0, 5, 2, false},  // 5: first receive, tag 5
  };
  const auto partner = pair_messages(records);
  EXPECT_EQ(partner[0], 5);
  EXPECT_EQ(partner[5], 0);
  EXPECT_EQ(partner[2], 3);
  EXPECT_EQ(partner[3], 2);
  EXPECT_EQ(partner[1], 4);
  EXPECT_EQ(partner[4], 1);
}

TEST(PairMessages, LeavesUnmatchedOperationsUnpaired) {
  const std::vector<MessageRecord> records{
      {0, 1, 5, 1, true},
      {0, 1, 5, 2, true},  // no second receive
      {1, 0, 5, 1, false},
      {2, 3, 7, 1, false},  // nobody sends to rank 2 with tag 7
  };
  const auto partner = pair_messages(records);
  EXPECT_EQ(partner[0], 2);
  EXPECT_EQ(partner[1], -1);
  EXPECT_EQ(partner[2], 0);
  EXPECT_EQ(partner[3], -1);
}

TEST(PairMessages, KeepsDirectionsApart) {
  // 0 -> 1 and 1 -> 0 with the same tag are different channels.
  const std::vector<MessageRecord> records{
      {0, 1, 3, 1, true},
      {1, 0, 3, 1, true},
      {0, 1, 3, 2, false},
      {1, 0, 3, 2, false},
  };
  const auto partner = pair_messages(records);
  EXPECT_EQ(partner[0], 3);
  EXPECT_EQ(partner[1], 2);
}

}  // namespace
}  // namespace tessera::obs
