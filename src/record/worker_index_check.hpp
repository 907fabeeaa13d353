#pragma once
// Observers index per-worker buffers by the worker number the runtime passes; a number
// outside [0, threads) means the observer was built for a different runtime.

#include <cstdio>
#include <cstdlib>

namespace tessera::obs {

/// Aborts with the observer's name and the offending index unless 0 <= worker < threads.
inline void check_worker_index(const char* observer, int worker, int threads) {
  if (worker >= 0 && worker < threads) [[likely]] {
    return;
  }
  std::fprintf(stderr, "%s:%d: %s built for %d threads got an event from worker %d\n", __FILE__,
               __LINE__, observer, threads, worker);
  std::abort();
}

}  // namespace tessera::obs
