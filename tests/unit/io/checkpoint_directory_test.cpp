// The checkpoint directory's naming, publishing and pruning rules (no MPI, no HDF5).
#include "io/checkpoint_directory.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tessera/io/checkpoint_content.hpp"

namespace tessera::detail {
namespace {

namespace fs = std::filesystem;

struct ScratchDir {
  fs::path path;
  ScratchDir() {
    std::string templ = (fs::temp_directory_path() / "tessera_ckdir_XXXXXX").string();
    path = mkdtemp(templ.data());
  }
  ~ScratchDir() { fs::remove_all(path); }
  std::string make_checkpoint(const std::string& name) const {
    fs::create_directories(path / name);
    std::ofstream(path / name / kCheckpointFileName) << name;
    return (path / name).string();
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(path)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
};

TEST(CheckpointDirectory, OnlyExactStepNamesAreCompleteCheckpoints) {
  EXPECT_EQ(complete_step_of("step-12"), 12);
  EXPECT_EQ(complete_step_of("step-0"), 0);
  EXPECT_FALSE(complete_step_of("step-12.tmp"));
  EXPECT_FALSE(complete_step_of("step-12.removing"));
  EXPECT_FALSE(complete_step_of("step--1"));
  EXPECT_FALSE(complete_step_of("step-"));
  EXPECT_FALSE(complete_step_of("latest"));
  EXPECT_EQ(unfinished_step_of("step-7.tmp"), 7);
  EXPECT_FALSE(unfinished_step_of("step-7"));
  EXPECT_FALSE(unfinished_step_of("step-.tmp"));
  EXPECT_EQ(step_directory("ck", 40), "ck/step-40");
}

TEST(CheckpointDirectory, LatestIsTheNewestCompleteStepNotTheNewestName) {
  ScratchDir d;
  d.make_checkpoint("step-9");
  d.make_checkpoint("step-10");
  fs::create_directories(d.path / "step-11.tmp");
  EXPECT_EQ(resolve_restart_file("latest", d.path.string()),
            (d.path / "step-10" / kCheckpointFileName).string());
  EXPECT_THROW(resolve_restart_file((d.path / "step-11.tmp").string(), d.path.string()),
               CheckpointError);
  try {
    resolve_restart_file(d.path.string(), d.path.string());
    ADD_FAILURE() << "a directory of checkpoints accepted as one";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("a directory of checkpoints, not one checkpoint"),
              std::string::npos)
        << e.what();
  }
  fs::remove(d.path / "step-10" / kCheckpointFileName);
  EXPECT_THROW(resolve_restart_file((d.path / "step-10").string(), d.path.string()),
               CheckpointError);
}

TEST(CheckpointDirectory, PublishRenamesAndReplacesTheSameStep) {
  ScratchDir d;
  d.make_checkpoint("step-5");
  const std::string tmp = d.make_checkpoint("step-5.tmp");
  publish_checkpoint(tmp + "/" + kCheckpointFileName, tmp, (d.path / "step-5").string());
  EXPECT_EQ(d.names(), std::vector<std::string>{"step-5"});
  std::ifstream in(d.path / "step-5" / kCheckpointFileName);
  std::string content;
  in >> content;
  EXPECT_EQ(content, "step-5.tmp");  // the new one
}

TEST(CheckpointDirectory, PruneKeepsTheNewestAndDropsOlderLeftovers) {
  ScratchDir d;
  for (const char* n : {"step-1", "step-2", "step-3", "step-4"}) d.make_checkpoint(n);
  fs::create_directories(d.path / "step-2.tmp");
  fs::create_directories(d.path / "step-6.tmp");
  fs::create_directories(d.path / "step-1.removing");
  fs::create_directories(d.path / "other");
  // Retired at once (renamed away), removed later (the writer's I/O thread does that).
  const std::vector<std::string> retired = prune_checkpoints(d.path.string(), 2);
  EXPECT_EQ(d.names(),
            (std::vector<std::string>{"other", "step-1.removing", "step-2.removing",
                                      "step-2.tmp.removing", "step-3", "step-4", "step-6.tmp"}));
  EXPECT_EQ(retired.size(), 3U);
  remove_retired(retired);
  EXPECT_EQ(d.names(), (std::vector<std::string>{"other", "step-3", "step-4", "step-6.tmp"}));
}

}  // namespace
}  // namespace tessera::detail
