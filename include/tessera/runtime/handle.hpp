#pragma once
// Handles name the data that tasks access; accesses pair a handle with a mode.
// The runtime derives the task graph from the accesses, in submission order.

#include <cstdint>
#include <string_view>

namespace tessera {

namespace detail {
struct HandleState;
}

/// How a task touches a handle. `reduce` accesses to one handle may run concurrently;
/// each gets a private slot and the slots are combined in submission order.
enum class AccessMode : std::uint8_t { read, write, readwrite, reduce };

/// Returns "read", "write", "readwrite" or "reduce".
std::string_view to_string(AccessMode mode);

/// A datum known to the runtime (a block's variables, a buffer, a scalar). Cheap to copy;
/// stays valid until the runtime that created it is destroyed.
class Handle {
 public:
  Handle() = default;
  explicit Handle(detail::HandleState* state) : state_(state) {}
  /// Stable id, unique within one runtime (used in traces and diagnostics).
  std::uint64_t id() const;
  /// The name given at creation.
  std::string_view name() const;
  bool valid() const { return state_ != nullptr; }
  detail::HandleState* state() const { return state_; }
  friend bool operator==(Handle a, Handle b) { return a.state_ == b.state_; }

 private:
  detail::HandleState* state_ = nullptr;
};

/// One entry of a task's access list.
struct Access {
  Handle handle;
  AccessMode mode;
};

inline Access read(Handle h) {
  return {h, AccessMode::read};
}
inline Access write(Handle h) {
  return {h, AccessMode::write};
}
inline Access readwrite(Handle h) {
  return {h, AccessMode::readwrite};
}
inline Access reduce(Handle h) {
  return {h, AccessMode::reduce};
}

}  // namespace tessera
