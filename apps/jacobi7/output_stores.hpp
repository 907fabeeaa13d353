#pragma once
// How a kernel writes an output array that will not be read again before it has left the
// caches: through them (the default) or with streaming (non-temporal) stores, which skip
// the read-for-ownership of every output line and do not evict inputs still to be used.

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace tessera::jacobi7 {

enum class OutputStores {
  cached,     ///< ordinary stores: the output stays in cache for a reader that comes soon
  streaming,  ///< non-temporal stores: for outputs far larger than the last-level cache
};

/// Orders this thread's streaming stores before its later stores (such as the release
/// that completes a task); a kernel that streamed calls it once before returning.
inline void finish_streaming_stores() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

}  // namespace tessera::jacobi7
