#include "record/chunked_buffer.hpp"

#include <sys/mman.h>

namespace tessera::obs::detail {

void* allocate_chunk(std::size_t bytes) {
  if (bytes < kPopulatedChunkBytes) {
    void* p = std::malloc(bytes);
    if (!p) throw std::bad_alloc();
    return p;
  }
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
                 -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return p;
}

void FreeChunk::operator()(void* p) const {
  if (bytes < kPopulatedChunkBytes) {
    std::free(p);
  } else {
    munmap(p, bytes);
  }
}

}  // namespace tessera::obs::detail
