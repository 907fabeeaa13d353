#include "tessera/amr/block_store.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

namespace tessera {

void BlockStore::FreeDeleter::operator()(double* p) const {
  std::free(p);
}

BlockStore::BlockStore(Runtime& runtime, BlockShape shape) : runtime_(runtime), shape_(shape) {
  for (int a = 0; a < 3; ++a) {
    const bool flat = shape.cells[a] == 1 && shape.ghost[a] == 0;
    if (!flat && (shape.cells[a] < 2 || shape.cells[a] % 2 != 0))
      throw std::invalid_argument(
          fmt::format("BlockStore: cells per block must be even and >= 2, got {} on axis {}",
                      shape.cells[a], a));
    if (!flat && (shape.ghost[a] < 1 || shape.ghost[a] > shape.cells[a]))
      throw std::invalid_argument(
          fmt::format("BlockStore: ghost layers must be in 1..{} (the cells per block) on axis "
                      "{}, got {}",
                      shape.cells[a], a, shape.ghost[a]));
  }
  if (shape.num_vars < 1 || shape.group_size < 1 || shape.group_size > shape.num_vars)
    throw std::invalid_argument(
        fmt::format("BlockStore: need num_vars >= 1 and 1 <= group_size <= num_vars, got {} and {}",
                    shape.num_vars, shape.group_size));
  layout_ = shape.layout();
}

std::int32_t BlockStore::acquire() {
  std::int32_t slot;
  if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
  } else {
    slot = static_cast<std::int32_t>(slots_.size());
    Slot s;
    // Zeroed so that no cell is ever read uninitialized (ghost corners a 7-point
    // stencil never reads, for instance).
    // On a cache line, so that BlockLayout's line-aligned rows are aligned in memory.
    constexpr std::size_t line = BlockLayout::kRowAlignment * sizeof(double);
    const std::size_t bytes = (layout_.size() * sizeof(double) + line - 1) / line * line;
    void* memory = std::aligned_alloc(line, bytes);
    if (memory == nullptr) throw std::bad_alloc();
    std::memset(memory, 0, bytes);
    s.data.reset(static_cast<double*>(memory));
    s.handles.resize(static_cast<std::size_t>(shape_.groups()));
    for (int g = 0; g < shape_.groups(); ++g) {
      auto& h = s.handles[static_cast<std::size_t>(g)];
      h[0] = runtime_.create_handle(fmt::format("block{}.g{}.interior", slot, g));
      for (int a = 0; a < 3; ++a)
        h[1 + static_cast<std::size_t>(a)] =
            runtime_.create_handle(fmt::format("block{}.g{}.ghosts{}", slot, g, "xyz"[a]));
    }
    slots_.push_back(std::move(s));
  }
  ++in_use_;
  high_water_ = std::max(high_water_, in_use_);
  return slot;
}

void BlockStore::release(std::int32_t slot) {
  free_.push_back(slot);
  --in_use_;
}

}  // namespace tessera
