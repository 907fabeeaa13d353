// The umbrella header compiles on its own: every public header of every layer can be
// included together in one translation unit (no duplicate names across layers).
#include "tessera/tessera.hpp"

#include <gtest/gtest.h>

#include <type_traits>

TEST(UmbrellaHeader, DeclaresTheTypesOfEveryLayer) {
  EXPECT_TRUE(std::is_class_v<tessera::Runtime>);
  EXPECT_TRUE(std::is_class_v<tessera::Comm>);
  EXPECT_TRUE(std::is_class_v<tessera::Exec>);
  EXPECT_TRUE(std::is_class_v<tessera::UniformMesh>);
  EXPECT_TRUE(std::is_class_v<tessera::HaloOptions>);
  EXPECT_TRUE(std::is_class_v<tessera::AmrHaloOptions>);
  EXPECT_TRUE(std::is_class_v<tessera::Forest>);
  EXPECT_TRUE(std::is_class_v<tessera::RunStats>);
  EXPECT_TRUE(std::is_class_v<tessera::Session>);
}
