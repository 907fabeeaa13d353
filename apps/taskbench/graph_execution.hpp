#pragma once
// One rank's share of a Task Bench graph as tessera tasks (GraphSetExecution runs one or
// several of them as one task flow).
//
// Each rank owns a contiguous block of points (BlockDistribution). Task (t, x) writes its
// output buffer in slot t % kSlots and reads the buffers of its inputs in slot
// (t - 1) % kSlots: the producer's own output when the producer is local, or a receive buffer
// filled by a communication task when it lives on another rank. Every (producer, consumer
// rank) edge of a timestep is one message, tagged by (slot, producer), sent by an isend
// task reading the producer's output and received by an irecv task writing the receive
// buffer. The runtime orders everything else: a buffer is overwritten kSlots timesteps later
// only after all its readers (local tasks, sends) completed.
//
// Under dataflow the timesteps where the graph repeats itself (every point exists, and
// the pattern of timestep t + period is that of t) are not submitted one by one: their
// tasks are recorded once, `period` timesteps long, and replayed as an iteration graph,
// which skips the per-task dependency analysis (GraphSetExecution records and replays).
// Bodies find their timestep from the iteration they are replayed in.

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "config.hpp"
#include "distribution.hpp"
#include "task_graph.hpp"
#include "tessera/session.hpp"

namespace tessera::taskbench {

/// A (timestep, point) whose output is deliberately written wrong (tests use it to prove
/// that verification fails loudly).
using CorruptTask = std::optional<std::pair<long, long>>;

class GraphExecution {
 public:
  /// The bytes one of `ranks` ranks needs for `config` (its timesteps, width, output and
  /// scratch sizes must be positive): buffers and handles of its points, receive buffers,
  /// tasks in flight, and its rows of the graph description. Cheap (a few dependency
  /// lists), for Session::check_memory before check_config.
  static MemoryEstimate memory_needed(const RunConfig& config, int ranks);

  /// Allocates this rank's buffers and handles. `config` must have passed check_config.
  /// `label` starts every failure message ("graph 2: " when the run has several graphs).
  GraphExecution(Session& session, const RunConfig& config, CorruptTask corrupt,
                 std::string label = {});
  ~GraphExecution();
  GraphExecution(const GraphExecution&) = delete;
  GraphExecution& operator=(const GraphExecution&) = delete;

  const RunConfig& config() const { return config_; }

  /// Timesteps [first, first + count * period) replayed per execution (count 0: none).
  struct SteadyRange {
    long first = 0;
    long period = 1;
    long count = 0;
  };
  /// Where the graph starts repeating itself, and its period: every point exists from
  /// timestep first - 1 on, and timestep t + period has the pattern (dependence set and
  /// buffer slot) of t. std::nullopt when this graph is not replayed at all (not dataflow,
  /// or --no-replay). The caller picks the range (set_steady_range): a run of several
  /// graphs replays them together, over a period that is a multiple of each one's.
  struct SteadyStart {
    long first = 1;
    long period = 1;
  };
  std::optional<SteadyStart> steady_start() const;
  /// Sets the timesteps replayed (count 0: none); `range` must start at or after
  /// steady_start()'s first, with a multiple of its period, and end before the last
  /// timestep. Before the first execution only.
  void set_steady_range(const SteadyRange& range) { steady_ = range; }
  const SteadyRange& steady_range() const { return steady_; }

  /// Starts an execution of the graph (resets per-execution bookkeeping). Main thread only.
  void begin_execution();
  /// Submits timestep t (an "exchange" then a "compute" phase of the execution model),
  /// then waits until this rank's tasks of timestep t - 1 are done, so submission
  /// overlaps execution, runs one timestep ahead and memory stays bounded. Timesteps are
  /// submitted in order; those of the steady range are not (they are replayed). Main
  /// thread only.
  void submit_timestep(long t);
  /// Submits timestep t of the steady range while the runtime records an iteration graph
  /// (bodies run timestep t + iteration x period). Main thread only.
  void record_timestep(long t);

  /// Inputs checked so far by this rank's tasks (every task checks all its inputs).
  long long inputs_verified() const;
  /// Inputs (or scratch buffers) found wrong so far on this rank, and the first such
  /// finding, naming the task ("" if none).
  long long failures() const { return failures_.load(std::memory_order_acquire); }
  std::string first_failure() const;

 private:
  /// An array of equally sized, cache-line aligned byte buffers.
  class BufferArray {
   public:
    BufferArray(std::size_t count, std::size_t bytes);
    std::span<std::byte> operator[](std::size_t i) const {
      return {data_.get() + i * stride_, bytes_};
    }

   private:
    struct Free {
      void operator()(std::byte* p) const;
    };
    std::size_t bytes_;
    std::size_t stride_;
    std::unique_ptr<std::byte, Free> data_;
  };
  /// Buffers per point, cycled over timesteps; submission runs kSlots - 1 timesteps
  /// ahead of the oldest unfinished one.
  static constexpr int kSlots = 2;
  static int slot_of(long t) { return static_cast<int>(t % kSlots); }
  /// Inputs checked by the tasks writing one (slot, point) output. Those tasks are
  /// ordered by the runtime (they write the same handle), so a plain integer suffices.
  struct alignas(64) Counter {
    long long value = 0;
  };

  void submit_exchange(long t);
  void submit_compute(long t);
  /// The body of task (t, x): checks the inputs, writes the output, runs the kernel.
  void execute(long t, long x);
  /// Records a wrong input and prints the first one at once. Tasks do not throw: a task
  /// error skips the remaining tasks, including sends other ranks wait for, and the run
  /// would stall instead of reporting. The graph runs to its end and the caller fails.
  void record_failure(const std::string& message);
  bool is_local(long point) const { return point >= first_ && point < end_; }
  std::size_t local_index(long point) const { return static_cast<std::size_t>(point - first_); }
  /// The buffer holding the output of (t, point) as seen on this rank.
  std::span<std::byte> input_buffer(long t, long point) const;
  Handle input_handle(long t, long point) const;
  /// The receive slot of a remote point some local task reads (binary search: the slots
  /// are as many as such points, not as the graph's width).
  std::size_t remote_slot(long point) const;
  bool has_remote_consumer(long t, long point) const;

  Session& session_;
  RunConfig config_;
  DependencyTable table_;
  BlockDistribution distribution_;
  int rank_;
  long first_;
  long end_;
  CorruptTask corrupt_;
  std::string label_;
  TagSpace tags_;

  std::vector<BufferArray> outputs_;  // [slot][local point]
  std::vector<std::vector<Handle>> output_handles_;
  std::vector<long> remote_points_;    // [receive slot] -> remote point, ascending
  std::vector<BufferArray> receives_;  // [slot][remote slot]
  std::vector<std::vector<Handle>> receive_handles_;
  BufferArray scratch_;
  std::vector<Handle> scratch_handles_;
  std::unique_ptr<Counter[]> verified_;  // [slot * local points + local point]
  std::atomic<long long> failures_{0};
  mutable std::mutex failure_mutex_;
  std::string first_failure_;

  // Per dependence set: local points with a consumer on another rank (they send), and
  // local points with a producer on another rank (they receive); existence at a given
  // timestep is checked when submitting.
  std::vector<std::vector<long>> senders_;
  std::vector<std::vector<long>> receivers_;

  SteadyRange steady_;

  // Reused during submission.
  std::vector<Access> accesses_;
  std::vector<long> stamp_;  // [receive slot] -> last timestep its receive was posted
  std::vector<int> peers_;
};

}  // namespace tessera::taskbench
