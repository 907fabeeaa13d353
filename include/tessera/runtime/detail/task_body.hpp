#pragma once
// Type-erased, move-only task body with an inline buffer, so submitting a lambda that
// captures a few pointers allocates nothing.

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace tessera {
class TaskContext;
namespace detail {

class TaskBody {
 public:
  static constexpr std::size_t kInlineBytes = 64;

  TaskBody() = default;
  TaskBody(const TaskBody&) = delete;
  TaskBody& operator=(const TaskBody&) = delete;
  ~TaskBody() { reset(); }

  /// Stores `f`, callable as f() or f(TaskContext&).
  template <class F>
  void emplace(F&& f) {
    using Fn = std::decay_t<F>;
    reset();
    if constexpr (sizeof(Fn) <= kInlineBytes && alignof(Fn) <= alignof(std::max_align_t) &&
                  std::is_nothrow_move_constructible_v<Fn>) {
      ::new (static_cast<void*>(storage_)) Fn(std::forward<F>(f));
      invoke_ = [](void* p, TaskContext& ctx) { call(*static_cast<Fn*>(p), ctx); };
      // Most bodies capture only pointers and indices: nothing to call on reset.
      if constexpr (std::is_trivially_destructible_v<Fn>) {
        destroy_ = nullptr;
      } else {
        destroy_ = [](void* p) { static_cast<Fn*>(p)->~Fn(); };
      }
      target_ = storage_;
    } else {
      target_ = new Fn(std::forward<F>(f));
      invoke_ = [](void* p, TaskContext& ctx) { call(*static_cast<Fn*>(p), ctx); };
      destroy_ = [](void* p) { delete static_cast<Fn*>(p); };
    }
  }

  void operator()(TaskContext& ctx) { invoke_(target_, ctx); }
  explicit operator bool() const { return invoke_ != nullptr; }

  void reset() {
    if (destroy_) destroy_(target_);
    invoke_ = nullptr;
    destroy_ = nullptr;
    target_ = nullptr;
  }

 private:
  template <class Fn>
  static void call(Fn& fn, TaskContext& ctx) {
    if constexpr (std::is_invocable_v<Fn&, TaskContext&>) {
      fn(ctx);
    } else {
      fn();
    }
  }

  alignas(std::max_align_t) unsigned char storage_[kInlineBytes];
  void (*invoke_)(void*, TaskContext&) = nullptr;
  void (*destroy_)(void*) = nullptr;
  void* target_ = nullptr;
};

}  // namespace detail
}  // namespace tessera
