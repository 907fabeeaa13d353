#pragma once
// An allocation failure that says what was being allocated, so that the report of an
// escaped exception names it ("out of memory while allocating field 'u' (6.6 TB)").

#include <new>
#include <string>
#include <utility>

namespace tessera {

/// A std::bad_alloc (callers catching that still catch it) carrying a message. Thrown by
/// the library's large allocations; run_guarded prints what().
class OutOfMemory : public std::bad_alloc {
 public:
  explicit OutOfMemory(std::string what) : what_(std::move(what)) {}
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  std::string what_;
};

}  // namespace tessera
