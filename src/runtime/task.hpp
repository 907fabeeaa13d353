#pragma once
// Internal task-graph nodes: tasks, their access records, access groups and handles.
//
// Dependencies are tracked per handle as a chain of *groups*: a group is one exclusive
// access (write/readwrite), or a run of consecutive reads, or a run of consecutive
// reduces. Members of a group may run together; a group becomes ready when the one
// before it completed. A task is ready when all its access records' groups are ready.
// A handle's chain is guarded by a small spinlock; the submitting thread appends, any
// finishing thread completes groups.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "tessera/runtime/detail/task_body.hpp"
#include "tessera/runtime/runtime.hpp"

namespace tessera::detail {

struct Task;
struct Group;
struct Replay;

/// Test-and-test-and-set lock for the few instructions a handle update takes.
class SpinLock {
 public:
  /// With a single thread nothing can contend, so locking is skipped (a locked
  /// instruction costs more than everything else a task update does).
  void set_uncontended(bool on) { uncontended_ = on; }
  void lock() {
    if (uncontended_) return;
    while (flag_.exchange(true, std::memory_order_acquire)) {
      while (flag_.load(std::memory_order_relaxed)) std::this_thread::yield();
    }
  }
  void unlock() {
    if (!uncontended_) flag_.store(false, std::memory_order_release);
  }

 private:
  std::atomic<bool> flag_{false};
  bool uncontended_ = false;
};

/// A reducing task's private slot. Outlives the task: it is folded when the whole group
/// of reducers completes, possibly after the task's node was recycled.
struct ReducerEntry {
  void* slot = nullptr;
  ReducerEntry* next = nullptr;
};

struct AccessRecord {
  HandleState* handle = nullptr;
  Group* group = nullptr;
  Task* task = nullptr;
  AccessRecord* next_waiter = nullptr;  // in group's waiter list
  ReducerEntry* reducer = nullptr;      // private reduction slot, for reduce accesses
  AccessMode mode = AccessMode::read;
};

struct Group {
  std::uint64_t seq = 0;
  Group* next = nullptr;
  AccessRecord* waiters = nullptr;
  ReducerEntry* reducers_head = nullptr;  // submission order
  ReducerEntry* reducers_tail = nullptr;
  int unfinished = 0;
  AccessMode kind = AccessMode::read;
  bool ready = false;
  Group* next_free = nullptr;
};

struct HandleState {
  SpinLock lock;
  std::uint64_t id = 0;
  std::string name;
  Group* first = nullptr;
  Group* last = nullptr;
  std::uint64_t next_seq = 0;         // submitter only
  std::uint64_t last_writer_seq = 0;  // submitter only
  std::atomic<std::uint64_t> completed_seq{0};
  std::shared_ptr<Runtime::ReductionOps> reduction;

  /// Idle: the last group is ready and has no unfinished member (a read may have joined
  /// a group that had completed), so no task waits on the handle or runs with it, and
  /// only the submitting thread can make it busy again. Caller holds `lock`.
  bool idle() const { return !last || (last->ready && last->unfinished == 0); }
};

/// HandleState::idle, taking the lock: that orders the caller after the thread that
/// completed the last group, so a body run now sees its writes.
inline bool is_idle(HandleState& h) {
  std::lock_guard<SpinLock> lock(h.lock);
  return h.idle();
}

struct Task {
  static constexpr std::uint32_t kInlineAccesses = 4;

  // Written by the threads that release the task (and by the free list): on a cache line
  // of their own, so those writes do not take away what the executing thread reads.
  alignas(64) std::atomic<int> pending{0};
  Task* next_free = nullptr;
  alignas(64) TaskBody body;
  const char* name = "";
  TaskTags tags{};
  std::uint64_t id = 0;
  std::atomic<int> holds{0};
  // Set by TaskContext::hold on the executing thread; atomic only so a hang report may
  // read it from the main thread.
  std::atomic<bool> held{false};
  std::uint32_t access_count = 0;
  Priority priority = Priority::normal;
  bool main_only = false;
  bool ordered = false;           // TaskAttributes::order was given
  std::uint8_t work_variant = 0;  // TaskAttributes::work_variant (in the padding here)
  std::int64_t order_key = 0;     // its value
  std::int64_t work = 0;          // TaskAttributes::work
  std::int32_t cost_slot = -1;    // TaskAttributes::cost_slot
  AccessRecord inline_records[kInlineAccesses];
  std::unique_ptr<AccessRecord[]> extra_records;
  // A replayed task (an instance of a recorded node) runs its node's body and releases
  // successors through the replay's counters instead of access groups.
  Replay* replay = nullptr;
  std::uint32_t node = 0;
  std::uint32_t slot = 0;  // of the replay's ring of iterations
  std::int64_t iteration = 0;

  AccessRecord* records() { return extra_records ? extra_records.get() : inline_records; }
  const AccessRecord* records() const {
    return extra_records ? extra_records.get() : inline_records;
  }
};

/// "1,2,3": a task's tags as hang reports print them.
std::string tags_text(const TaskTags& tags);

/// Multi-producer, single-consumer free list: any thread returns nodes, only the
/// submitting thread takes them (it grabs the whole shared stack at once, so no ABA).
template <class Node>
class FreeList {
 public:
  ~FreeList() {
    drain(shared_.exchange(nullptr));
    drain(local_);
  }
  Node* take() {
    if (!local_) local_ = shared_.exchange(nullptr, std::memory_order_acquire);
    if (!local_) return new Node();
    Node* n = local_;
    local_ = n->next_free;
    n->next_free = nullptr;
    return n;
  }
  /// Returns a node from the owning (submitting) thread itself: no atomics needed.
  void give_local(Node* n) {
    n->next_free = local_;
    local_ = n;
  }
  void give(Node* n) {
    Node* head = shared_.load(std::memory_order_relaxed);
    do {
      n->next_free = head;
    } while (!shared_.compare_exchange_weak(head, n, std::memory_order_release,
                                            std::memory_order_relaxed));
  }

 private:
  static void drain(Node* n) {
    while (n) {
      Node* next = n->next_free;
      delete n;
      n = next;
    }
  }
  std::atomic<Node*> shared_{nullptr};
  Node* local_ = nullptr;
};

}  // namespace tessera::detail
