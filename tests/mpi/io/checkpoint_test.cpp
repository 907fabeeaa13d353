// The checkpoint layer: what one rank count writes, any rank count reads back bit for bit;
// the write is ordered by the data-flow engine between a field's writers; old checkpoints
// are pruned; every kind of bad checkpoint gives the same CheckpointError on every rank.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "tessera/comm/comm.hpp"
#include "tessera/io/checkpoint_reader.hpp"
#include "tessera/io/checkpoint_writer.hpp"
#include "shared_temp_dir.hpp"

namespace tessera {
namespace {

using io_test::remove_shared;
using io_test::shared_temp_dir;
using io_test::world_rank;

namespace fs = std::filesystem;

constexpr std::int64_t kBlocks = 37;
constexpr std::size_t kValues = 24;

double value_of(std::int64_t block, std::size_t i, int version) {
  return std::ldexp(std::sin(0.1 * static_cast<double>(block * 100 + static_cast<std::int64_t>(i))),
                    static_cast<int>(block % 7) - 3) +
         version;
}

int world_size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

// This rank's share of the blocks when `ranks` ranks hold them.
std::pair<std::int64_t, std::int64_t> share(int rank, int ranks) {
  const std::int64_t first = kBlocks * rank / ranks, end = kBlocks * (rank + 1) / ranks;
  return {first, end - first};
}

// Writes checkpoints of one field "u" with the given version of values, on all ranks.
struct Writing {
  Runtime runtime;
  Comm comm;
  std::vector<std::vector<double>> blocks;
  std::vector<Handle> handles;
  std::int64_t first = 0;
  std::size_t values;  // per block

  explicit Writing(int threads, std::size_t values_per_block = kValues)
      : runtime(RuntimeOptions{.threads = threads}),
        comm(runtime, MPI_COMM_WORLD),
        values(values_per_block) {
    const auto [f, n] = share(comm.rank(), comm.size());
    first = f;
    blocks.assign(static_cast<std::size_t>(n), std::vector<double>(values));
    for (std::int64_t b = 0; b < n; ++b)
      handles.push_back(runtime.create_handle("u[" + std::to_string(b) + "]"));
  }

  // Submits a task per block that writes version `version` of the values (slowly).
  void submit_fill(int version, int sleep_us = 0) {
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      runtime.submit("fill", {write(handles[b])}, [this, b, version, sleep_us] {
        if (sleep_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(sleep_us));
        for (std::size_t i = 0; i < values; ++i)
          blocks[b][i] = value_of(first + static_cast<std::int64_t>(b), i, version);
      });
    }
  }

  void submit_checkpoint(CheckpointWriter& writer, std::int64_t step) {
    CheckpointHeader h;
    h.app = "testapp";
    h.problem = {{"--size", 37}};
    h.step = step;
    h.time = 0.5 * static_cast<double>(step);
    h.state = {{"history", {1.25, 0.1}}};
    h.rank_sums = {{"count", comm.rank() + 1}};
    h.rank_maxima = {{"peak", 10 * comm.rank()}};
    CheckpointBlocks bl;
    bl.global_count = kBlocks;
    bl.first = first;
    for (std::size_t b = 0; b < blocks.size(); ++b)
      bl.places.push_back({1, first + static_cast<std::int64_t>(b), 2, 3});
    CheckpointField field;
    field.name = "u";
    field.values_per_block = values;
    field.reads = [this](std::int32_t b, std::vector<Handle>& out) {
      out.push_back(handles[static_cast<std::size_t>(b)]);
    };
    field.pack = [this](std::int32_t b, double* out) {
      std::copy(blocks[static_cast<std::size_t>(b)].begin(),
                blocks[static_cast<std::size_t>(b)].end(), out);
    };
    writer.submit(h, bl, {field});
  }
};

// Reads the checkpoint on the first k ranks of the world for every k; checks every bit.
void expect_readable_on_every_rank_count(const std::string& restart, const std::string& dir,
                                         std::int64_t step, int version,
                                         std::size_t values_per_block = kValues) {
  const int rank = world_rank(), size = world_size();
  for (int k = 1; k <= size; ++k) {
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, rank < k ? 0 : MPI_UNDEFINED, rank, &sub);
    if (sub == MPI_COMM_NULL) continue;
    CheckpointReader reader(sub, restart, dir, "testapp");
    const CheckpointHeader& h = reader.header();
    EXPECT_EQ(h.step, step);
    EXPECT_EQ(h.time, 0.5 * static_cast<double>(step));
    EXPECT_EQ(h.problem, nlohmann::json({{"--size", 37}}));
    EXPECT_EQ(h.state.at("history").at(0).get<double>(), 1.25);
    EXPECT_EQ(h.rank_sums.at("count"), size * (size + 1) / 2);
    EXPECT_EQ(h.rank_maxima.at("peak"), 10 * (size - 1));
    EXPECT_EQ(reader.written_partition().size(), static_cast<std::size_t>(size) + 1);
    const auto places = reader.read_places();
    ASSERT_EQ(places.size(), static_cast<std::size_t>(kBlocks));
    for (std::int64_t b = 0; b < kBlocks; ++b)
      EXPECT_EQ(places[static_cast<std::size_t>(b)], (CheckpointPlace{1, b, 2, 3}));
    const auto [first, count] = share(rank, k);
    const std::vector<double> values = reader.read_field("u", first, count, values_per_block);
    for (std::int64_t b = 0; b < count; ++b)
      for (std::size_t i = 0; i < values_per_block; ++i)
        ASSERT_EQ(std::bit_cast<std::uint64_t>(
                      values[static_cast<std::size_t>(b) * values_per_block + i]),
                  std::bit_cast<std::uint64_t>(value_of(first + b, i, version)))
            << "block " << first + b << " value " << i << " on " << k << " ranks";
    MPI_Comm_free(&sub);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// The error every rank gets when reading `restart` (empty if none).
std::string read_error(const std::string& restart, const std::string& dir,
                       const std::string& app = "testapp") {
  try {
    CheckpointReader reader(MPI_COMM_WORLD, restart, dir, app);
    reader.read_places();
    const auto [first, count] = share(world_rank(), world_size());
    reader.read_field("u", first, count, kValues);
  } catch (const CheckpointError& e) {
    EXPECT_EQ(e.option(), "--restart");
    return e.what();
  }
  return {};
}

// Every rank got the same message.
void expect_same_on_every_rank(const std::string& message) {
  int length = static_cast<int>(message.size()), min = 0, max = 0;
  MPI_Allreduce(&length, &min, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&length, &max, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(min, max) << message;
}

TEST(Checkpoint, WrittenOnThisRankCountReadsBackBitwiseOnEveryRankCount) {
  const std::string dir = shared_temp_dir("tessera_ckpt_");
  {
    Writing w(2);
    CheckpointWriter writer(w.comm, CheckpointOptions{.every = 1, .dir = dir, .keep = 2});
    w.submit_fill(0);
    w.submit_checkpoint(writer, 7);
    writer.wait();
    EXPECT_EQ(writer.written(), 1);
  }
  expect_readable_on_every_rank_count(dir + "/step-7", dir, 7, 0);
  expect_readable_on_every_rank_count("latest", dir, 7, 0);
  remove_shared(dir);
}

// Rows of 1000 doubles (8000 bytes, not a multiple of the 4 KiB direct-I/O unit): every
// rank's range has an unaligned head and tail around a middle that goes by direct I/O
// where the file system allows it; the bits read back are the same on every rank count.
TEST(Checkpoint, RowsNotAlignedToTheDiskWrittenDirectlyReadBackBitwise) {
  constexpr std::size_t kWide = 1000;
  const std::string dir = shared_temp_dir("tessera_ckpt_");
  std::int64_t direct = 0;
  {
    Writing w(2, kWide);
    CheckpointWriter writer(w.comm, CheckpointOptions{.every = 1, .dir = dir, .keep = 2});
    w.submit_fill(0);
    w.submit_checkpoint(writer, 3);
    w.submit_fill(1);  // the next writer of the field: the staging copy keeps version 0
    writer.wait();
    w.runtime.wait_all();
    direct = writer.direct_bytes();
  }
  MPI_Allreduce(MPI_IN_PLACE, &direct, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  // Whether this file system takes O_DIRECT at all decides whether any byte went direct.
  bool direct_io = false;
  if (world_rank() == 0) {
    const std::string probe = dir + "/direct-probe";
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_DIRECT, 0644);
    direct_io = fd >= 0;
    if (fd >= 0) ::close(fd);
    fs::remove(probe);
  }
  MPI_Bcast(&direct_io, 1, MPI_CXX_BOOL, 0, MPI_COMM_WORLD);
  if (direct_io) {
    EXPECT_GT(direct, 0);
  }
  expect_readable_on_every_rank_count(dir + "/step-3", dir, 3, 0, kWide);
  remove_shared(dir);
}

TEST(Checkpoint, WriteReadsTheFieldBetweenItsLastWriterAndTheNextOne) {
  const std::string dir = shared_temp_dir("tessera_ckpt_");
  {
    Writing w(3);
    CheckpointWriter writer(w.comm, CheckpointOptions{.every = 1, .dir = dir, .keep = 2});
    w.submit_fill(1, 2000);  // slow writers: the checkpoint must wait for them
    w.submit_checkpoint(writer, 1);
    w.submit_fill(2);  // the next writers must wait for the checkpoint's copy
    w.runtime.wait_all();
    for (std::size_t b = 0; b < w.blocks.size(); ++b)
      EXPECT_EQ(w.blocks[b][0], value_of(w.first + static_cast<std::int64_t>(b), 0, 2));
  }
  expect_readable_on_every_rank_count("latest", dir, 1, 1);
  remove_shared(dir);
}

// The field data goes to disk on the writer's I/O thread after the write task; the file is
// closed and renamed by the next checkpoint's write task, or by wait().
TEST(Checkpoint, PublishedByTheNextCheckpointOrByWait) {
  const std::string dir = shared_temp_dir("tessera_ckpt_");
  const auto exists = [&](const char* name) { return fs::exists(dir + "/" + name); };
  {
    Writing w(2);
    CheckpointWriter writer(w.comm, CheckpointOptions{.every = 1, .dir = dir, .keep = 5});
    w.submit_fill(1);
    w.submit_checkpoint(writer, 1);
    w.runtime.wait_all();
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_TRUE(exists("step-1.tmp"));
    EXPECT_FALSE(exists("step-1"));
    EXPECT_EQ(writer.written(), 0);
    w.submit_fill(2);
    w.submit_checkpoint(writer, 2);
    w.runtime.wait_all();
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_TRUE(exists("step-1") && !exists("step-1.tmp"));
    EXPECT_TRUE(exists("step-2.tmp") && !exists("step-2"));
    writer.wait();
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_TRUE(exists("step-2") && !exists("step-2.tmp"));
    EXPECT_EQ(writer.written(), 2);
  }
  expect_readable_on_every_rank_count(dir + "/step-1", dir, 1, 1);
  expect_readable_on_every_rank_count("latest", dir, 2, 2);
  remove_shared(dir);
}

TEST(Checkpoint, KeepsTheNewestKAndLatestIsTheNewestComplete) {
  const std::string dir = shared_temp_dir("tessera_ckpt_");
  {
    Writing w(2);
    CheckpointWriter writer(w.comm, CheckpointOptions{.every = 1, .dir = dir, .keep = 2});
    for (int step = 1; step <= 4; ++step) {
      w.submit_fill(step);
      w.submit_checkpoint(writer, step);
    }
    writer.wait();
    // An interrupted write of a later step is not "latest"; one of an earlier step is
    // pruned by the next write.
    if (w.comm.rank() == 0) {
      fs::create_directories(dir + "/step-9.tmp");
      fs::create_directories(dir + "/step-3.tmp");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    expect_readable_on_every_rank_count("latest", dir, 4, 4);
    w.submit_fill(5);
    w.submit_checkpoint(writer, 5);
    writer.wait();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"step-4", "step-5", "step-9.tmp"}));
  expect_readable_on_every_rank_count("latest", dir, 5, 5);
  remove_shared(dir);
}

TEST(Checkpoint, BadCheckpointsGiveOneErrorNamingTheFileOnEveryRank) {
  const std::string dir = shared_temp_dir("tessera_ckpt_");
  {
    Writing w(1);
    CheckpointWriter writer(w.comm, CheckpointOptions{.every = 1, .dir = dir, .keep = 5});
    for (int step = 1; step <= 3; ++step) {
      w.submit_fill(step);
      w.submit_checkpoint(writer, step);
    }
    writer.wait();
  }
  const std::string file1 = dir + "/step-1/checkpoint.h5";
  const std::string file2 = dir + "/step-2/checkpoint.h5";
  const std::string file3 = dir + "/step-3/checkpoint.h5";
  if (world_rank() == 0) {
    // Step 1: flip one byte inside block 5's values of /fields/u (found by its bits).
    std::ifstream in(file1, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
    in.close();
    std::vector<double> block(kValues);
    for (std::size_t i = 0; i < kValues; ++i) block[i] = value_of(5, i, 1);
    const char* pattern = reinterpret_cast<const char*>(block.data());
    const auto at =
        std::search(bytes.begin(), bytes.end(), pattern, pattern + kValues * sizeof(double));
    ASSERT_NE(at, bytes.end());
    at[13] = static_cast<char>(at[13] ^ 0x10);
    std::ofstream(file1, std::ios::binary | std::ios::trunc)
        .write(bytes.data(), static_cast<long>(bytes.size()));
    // Step 2: truncated to half its size.
    fs::resize_file(file2, fs::file_size(file2) / 2);
    fs::create_directories(dir + "/step-4.tmp");
  }
  MPI_Barrier(MPI_COMM_WORLD);

  std::string e = read_error(dir + "/step-1", dir);
  EXPECT_NE(e.find(file1), std::string::npos) << e;
  EXPECT_NE(e.find("/fields/u: checksum mismatch"), std::string::npos) << e;
  expect_same_on_every_rank(e);

  e = read_error(dir + "/step-2", dir);
  EXPECT_NE(e.find(file2), std::string::npos) << e;
  EXPECT_NE(e.find("HDF5 cannot open it"), std::string::npos) << e;
  expect_same_on_every_rank(e);

  e = read_error(dir + "/step-3", dir, "otherapp");
  EXPECT_NE(e.find(file3), std::string::npos) << e;
  EXPECT_NE(e.find("a checkpoint of app 'testapp', not of 'otherapp'"), std::string::npos) << e;
  expect_same_on_every_rank(e);

  e = read_error(dir + "/step-8", dir);
  EXPECT_NE(e.find("step-8: no such checkpoint directory"), std::string::npos) << e;
  e = read_error(dir + "/step-4.tmp", dir);
  EXPECT_NE(e.find("step-4.tmp: an unfinished checkpoint"), std::string::npos) << e;
  e = read_error("latest", dir + "/nowhere");
  EXPECT_NE(e.find("does not exist"), std::string::npos) << e;
  // An intact checkpoint is still fine, and nothing was deleted by the failed reads.
  EXPECT_EQ(read_error(dir + "/step-3", dir), "");
  EXPECT_TRUE(fs::exists(file1) && fs::exists(file2) && fs::exists(dir + "/step-4.tmp"));
  remove_shared(dir);
}

TEST(Checkpoint, ProblemOptionsGivenAgainMustAgree) {
  CLI::App cli;
  std::vector<int> blocks{2, 2, 2};
  int iters = 5;
  cli.add_option("--blocks", blocks)->expected(3);
  cli.add_option("--iters", iters);
  const char* argv[] = {"app", "--blocks", "2", "2", "4", "--iters", "9"};
  cli.parse(7, const_cast<char**>(argv));
  const nlohmann::json given = {{"--blocks", blocks}, {"--iters", iters}};
  try {
    check_problem_options_agree(cli, given, {{"--blocks", {2, 2, 2}}}, "f.h5");
    ADD_FAILURE() << "disagreeing --blocks accepted";
  } catch (const CheckpointError& e) {
    EXPECT_EQ(e.option(), "--blocks");
    EXPECT_NE(std::string(e.what()).find("[2,2,4] given, but the checkpoint f.h5 was written with "
                                         "[2,2,2]"),
              std::string::npos)
        << e.what();
  }
  // Agreeing, or not given on the command line: accepted.
  check_problem_options_agree(cli, given, {{"--blocks", {2, 2, 4}}, {"--other", 1}}, "f.h5");
}

}  // namespace
}  // namespace tessera
