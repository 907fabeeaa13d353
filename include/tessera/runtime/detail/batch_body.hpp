#pragma once
// The body of a Runtime::submit_batch loop, one copy shared by the batch's tasks.

#include <atomic>
#include <cstddef>
#include <utility>

namespace tessera::detail {

/// Holds a batch's body for as long as the submitting loop or any queued task of the
/// batch may still call it; the last of them frees it.
template <class Body>
class SharedBatchBody {
 public:
  /// A claim on the body, held by a queued task until its body (run or skipped after an
  /// error) is destroyed. Move-only, so it fits a task's inline body storage.
  class Use {
   public:
    explicit Use(SharedBatchBody* shared) : shared_(shared) {
      shared_->users_.fetch_add(1, std::memory_order_relaxed);
    }
    Use(Use&& other) noexcept : shared_(std::exchange(other.shared_, nullptr)) {}
    Use(const Use&) = delete;
    Use& operator=(const Use&) = delete;
    Use& operator=(Use&&) = delete;
    ~Use() {
      if (shared_) shared_->release();
    }
    void operator()(std::size_t i) const { shared_->body_(i); }

   private:
    SharedBatchBody* shared_;
  };

  /// Created by the submitting loop, which holds the first claim.
  template <class B>
  static SharedBatchBody* create(B&& body) {
    return new SharedBatchBody(std::forward<B>(body));
  }
  /// Calls the body for item `i` (the loop, for a task it runs at submission).
  void call(std::size_t i) { body_(i); }
  /// Drops one claim (the loop's, or a task's through Use).
  void release() {
    if (users_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }

 private:
  template <class B>
  explicit SharedBatchBody(B&& body) : body_(std::forward<B>(body)) {}
  Body body_;
  std::atomic<std::size_t> users_{1};
};

}  // namespace tessera::detail
