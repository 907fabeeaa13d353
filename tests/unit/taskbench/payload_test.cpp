// The (timestep, point) payload every task writes and every consumer checks.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "../../../apps/taskbench/payload.hpp"

namespace tessera::taskbench {
namespace {

TEST(Payload, OutputPassesTheCheckOfItsConsumer) {
  std::vector<std::byte> buffer(64);
  write_output(buffer, 6, 3);
  EXPECT_FALSE(check_input(buffer, 7, 2, 0, 3));
}

TEST(Payload, CheckNamesTaskInputAndWhatWasFound) {
  std::vector<std::byte> buffer(64);
  write_output(buffer, 6, 3);
  const std::int64_t wrong[2] = {5, 3};
  std::memcpy(buffer.data() + 2 * kPairBytes, wrong, kPairBytes);
  const auto message = check_input(buffer, 7, 2, 1, 3);
  ASSERT_TRUE(message);
  EXPECT_NE(message->find("task (timestep 7, point 2)"), std::string::npos) << *message;
  EXPECT_NE(message->find("input 1 at pair 2"), std::string::npos) << *message;
  EXPECT_NE(message->find("holds (timestep 5, point 3), expected (timestep 6, point 3)"),
            std::string::npos)
      << *message;
}

TEST(Payload, WrongProducerIsCaught) {
  std::vector<std::byte> buffer(16);
  write_output(buffer, 0, 4);
  EXPECT_TRUE(check_input(buffer, 1, 0, 0, 5));
}

TEST(Payload, BytesBeyondTheLastWholePairAreLeftAlone) {
  std::vector<std::byte> buffer(20, std::byte{0x5a});
  write_output(buffer, 1, 2);
  for (std::size_t i = 16; i < 20; ++i) EXPECT_EQ(buffer[i], std::byte{0x5a});
  EXPECT_FALSE(check_input(buffer, 2, 0, 0, 2));
}

}  // namespace
}  // namespace tessera::taskbench
