#pragma once
// What a checkpoint holds (layer `io`): the app's name, its problem-defining options, the
// step and time, the app's small state, this rank's share of the blocks in global curve
// order, and the fields stored per block. An app describes these; CheckpointWriter and
// CheckpointReader move them to and from parallel HDF5 files (docs/checkpoint.md).

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "tessera/runtime/handle.hpp"

namespace tessera {

/// The scalars of a checkpoint. `problem` maps option names as typed on the command line
/// ("--blocks") to their values; `state` is whatever else the app needs to continue bitwise
/// (counters, histories); both must be equal on every rank. `rank_sums` and `rank_maxima`
/// are per-rank counters that the writer reduces over ranks (sum / max): a reader returns
/// the reduced values.
struct CheckpointHeader {
  std::string app;
  nlohmann::json problem = nlohmann::json::object();
  std::int64_t step = 0;
  double time = 0;
  nlohmann::json state = nlohmann::json::object();
  std::map<std::string, std::int64_t> rank_sums;
  std::map<std::string, std::int64_t> rank_maxima;
};

/// Where a block lies: refinement level and the integer coordinates of its lower corner
/// (the mesh's own units). Stored per block so that a restart can rebuild the mesh.
using CheckpointPlace = std::array<std::int64_t, 4>;  // level, x, y, z

/// This rank's blocks: global curve positions [first, first + places.size()) of
/// `global_count` blocks (every rank holds one contiguous range; ranges do not overlap).
struct CheckpointBlocks {
  std::int64_t global_count = 0;
  std::int64_t first = 0;
  std::vector<CheckpointPlace> places;
  std::int64_t local_count() const { return static_cast<std::int64_t>(places.size()); }
};

/// A field stored as `values_per_block` doubles per block. `reads(b, out)` appends the
/// handles holding local block b's values; `pack(b, out)` copies them to `out` in the
/// app's own order. pack is called from a task holding read access to those handles, on
/// any thread, concurrently for different blocks.
struct CheckpointField {
  std::string name;
  std::size_t values_per_block = 0;
  std::function<void(std::int32_t b, std::vector<Handle>& out)> reads;
  std::function<void(std::int32_t b, double* out)> pack;
};

/// A checkpoint that cannot be used, or a restart option that disagrees with it: `option`
/// names the command-line option to blame, what() says which file and what is wrong.
class CheckpointError : public std::runtime_error {
 public:
  CheckpointError(std::string option, const std::string& message)
      : std::runtime_error(message), option_(std::move(option)) {}
  const std::string& option() const { return option_; }

 private:
  std::string option_;
};

}  // namespace tessera
