#include "graph_execution.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <numeric>
#include <stdexcept>

#include "kernel.hpp"
#include "payload.hpp"

namespace tessera::taskbench {

GraphExecution::BufferArray::BufferArray(std::size_t count, std::size_t bytes)
    : bytes_(bytes), stride_((bytes + 63) / 64 * 64) {
  // Each buffer starts on its own cache line: tasks of neighbouring points write their
  // outputs from different threads.
  const std::size_t total = std::max<std::size_t>(count * stride_, 64);
  data_.reset(static_cast<std::byte*>(std::aligned_alloc(64, total)));
  if (!data_) throw std::bad_alloc();
  std::memset(data_.get(), 0, total);
}

void GraphExecution::BufferArray::Free::operator()(std::byte* p) const {
  std::free(p);
}

MemoryEstimate GraphExecution::memory_needed(const RunConfig& config, int ranks) {
  const TaskGraph& g = config.graph;
  const double width = static_cast<double>(g.max_width);
  const double local = std::ceil(width / ranks);
  // Most inputs of one task, over a few sample points and every dependence set.
  double inputs = 0;
  for (long dset = 0; dset < std::min(g.dependence_sets(), 64L); ++dset) {
    for (long x : {0L, g.max_width / 2, g.max_width - 1}) {
      double n = 0;
      for (const PointRange& r : g.dependencies(dset, x))
        n += static_cast<double>(r.last - r.first + 1);
      inputs = std::max(inputs, n);
    }
  }
  // Patterns whose inputs lie next to the point reach only the neighbouring ranks' edges;
  // the others may reach any point.
  const bool near = g.type == DependenceType::trivial || g.type == DependenceType::no_comm ||
                    g.type == DependenceType::stencil_1d ||
                    g.type == DependenceType::stencil_1d_periodic ||
                    g.type == DependenceType::dom || g.type == DependenceType::nearest ||
                    g.type == DependenceType::random_nearest;
  const double remote =
      ranks == 1 ? 0.0 : std::min(width - local, near ? 2 * inputs : local * inputs);
  const double output = std::ceil(static_cast<double>(config.output_bytes) / 64) * 64;
  constexpr double kHandleBytes = 256, kTaskBytes = 512;
  MemoryEstimate need;
  need.add("outputs", kSlots * local * output);
  need.add("receive buffers", kSlots * remote * output);
  need.add("scratch", local * static_cast<double>(config.scratch_bytes));
  need.add("metadata", local * (kSlots * (kHandleBytes + sizeof(Counter)) + kHandleBytes +
                                kSlots * kTaskBytes * (1 + inputs / 8)) +
                           kSlots * remote * kHandleBytes);
  // This rank's rows of the dependency lists, both directions, and its remote points.
  const double sets = static_cast<double>(g.dependence_sets());
  need.add("graph description",
           sets * (2 * (local + 1) * sizeof(std::size_t) + 2 * local * inputs * sizeof(long)) +
               remote * 2 * sizeof(long));
  return need;
}

GraphExecution::GraphExecution(Session& session, const RunConfig& config, CorruptTask corrupt,
                               std::string label)
    : session_(session),
      config_(config),
      table_(config.graph,
             BlockDistribution{config.graph.max_width, session.size()}.first(session.rank()),
             BlockDistribution{config.graph.max_width, session.size()}.end(session.rank())),
      distribution_{config.graph.max_width, session.size()},
      rank_(session.rank()),
      first_(distribution_.first(session.rank())),
      end_(distribution_.end(session.rank())),
      corrupt_(corrupt),
      label_(std::move(label)),
      tags_(session.comm().allocate_tags(
          config.graph.graph_index == 0
              ? std::string("taskbench")
              : fmt::format("taskbench graph {}", config.graph.graph_index + 1),
          static_cast<int>(kSlots * config.graph.max_width))),
      scratch_(static_cast<std::size_t>(end_ - first_),
               static_cast<std::size_t>(config.scratch_bytes)),
      verified_(std::make_unique<Counter[]>(kSlots * static_cast<std::size_t>(end_ - first_))) {
  Runtime& runtime = session_.runtime();
  const TaskGraph& g = config_.graph;
  const auto local_points = static_cast<std::size_t>(end_ - first_);
  const auto output_bytes = static_cast<std::size_t>(config_.output_bytes);

  // Every remote point some local point may depend on, in any dependence set, ascending:
  // its position is its receive slot.
  for (long dset = 0; dset < g.dependence_sets(); ++dset) {
    for (long x = first_; x < end_; ++x) {
      for (long y : table_.producers(dset, x)) {
        if (!is_local(y)) remote_points_.push_back(y);
      }
    }
  }
  std::sort(remote_points_.begin(), remote_points_.end());
  remote_points_.erase(std::unique(remote_points_.begin(), remote_points_.end()),
                       remote_points_.end());
  const auto slots = static_cast<long>(remote_points_.size());
  stamp_.assign(remote_points_.size(), -1);

  senders_.resize(static_cast<std::size_t>(g.dependence_sets()));
  receivers_.resize(static_cast<std::size_t>(g.dependence_sets()));
  for (long dset = 0; dset < g.dependence_sets(); ++dset) {
    for (long x = first_; x < end_; ++x) {
      const auto remote = [&](long p) { return !is_local(p); };
      const auto consumers = table_.consumers(dset, x);
      const auto producers = table_.producers(dset, x);
      if (std::any_of(consumers.begin(), consumers.end(), remote)) senders_[dset].push_back(x);
      if (std::any_of(producers.begin(), producers.end(), remote)) receivers_[dset].push_back(x);
    }
  }

  for (int slot = 0; slot < kSlots; ++slot) {
    outputs_.emplace_back(local_points, output_bytes);
    receives_.emplace_back(static_cast<std::size_t>(slots), output_bytes);
    auto& out = output_handles_.emplace_back();
    for (long x = first_; x < end_; ++x) {
      out.push_back(runtime.create_handle(fmt::format("output[{}] of point {}", slot, x)));
    }
    auto& in = receive_handles_.emplace_back();
    for (long y : remote_points_) {
      in.push_back(runtime.create_handle(fmt::format("received[{}] of point {}", slot, y)));
    }
  }
  if (config_.scratch_bytes > 0) {
    for (std::size_t i = 0; i < local_points; ++i) {
      const std::span<std::byte> s = scratch_[i];
      for (std::size_t off = 0; off + sizeof kScratchMagic <= s.size();
           off += sizeof kScratchMagic) {
        std::memcpy(s.data() + off, &kScratchMagic, sizeof kScratchMagic);
      }
      scratch_handles_.push_back(
          runtime.create_handle(fmt::format("scratch of point {}", first_ + static_cast<long>(i))));
    }
  }
}

GraphExecution::~GraphExecution() {
  // Tasks hold pointers into this object's buffers.
  try {
    session_.runtime().wait_all();
  } catch (...) {
    // The error was reported by the wait that saw it; a destructor must not throw.
  }
}

void GraphExecution::begin_execution() {
  std::fill(stamp_.begin(), stamp_.end(), -1);
}

void GraphExecution::record_timestep(long t) {
  submit_exchange(t);
  submit_compute(t);
}

std::optional<GraphExecution::SteadyStart> GraphExecution::steady_start() const {
  const TaskGraph& g = config_.graph;
  if (!config_.replay || session_.exec().model() != ExecModel::dataflow) return std::nullopt;
  // Timestep t repeats t + period when every point exists at t - 1, t and t + 1 (the
  // sends of t read which consumers exist) and the dependence set and buffer slot recur.
  const auto full = [&](long t) { return g.offset_at(t) == 0 && g.width_at(t) == g.max_width; };
  long first = 1;
  for (long t = g.timesteps - 1; t >= 0; --t) {
    if (!full(t)) {
      first = t + 2;
      break;
    }
  }
  return SteadyStart{first, std::lcm(static_cast<long>(kSlots), g.dependence_sets())};
}

void GraphExecution::submit_timestep(long t) {
  const TaskGraph& g = config_.graph;
  if (t > 0) submit_exchange(t);
  submit_compute(t);
  // Bounded lookahead: submission runs kSlots - 1 timesteps ahead of execution, so it
  // stays off the critical path and receives are posted early. The last writer of a
  // point's output in slot (t - kSlots + 1) % kSlots is its task of that timestep.
  const long oldest = t - (kSlots - 1);
  for (long x = first_; x < end_ && oldest >= 0; ++x) {
    if (g.exists(oldest, x)) {
      session_.runtime().wait_for(output_handles_[slot_of(oldest)][local_index(x)]);
      break;
    }
  }
}

long long GraphExecution::inputs_verified() const {
  long long sum = 0;
  for (long i = 0; i < kSlots * (end_ - first_); ++i) sum += verified_[i].value;
  return sum;
}

void GraphExecution::submit_exchange(long t) {
  const TaskGraph& g = config_.graph;
  Comm& comm = session_.comm();
  Exec& exec = session_.exec();
  const int slot = slot_of(t - 1);
  const auto bytes = static_cast<std::size_t>(config_.output_bytes);
  const long dset = g.dependence_set_at(t);
  exec.begin_phase("exchange");
  // Each output of t - 1 goes once to every other rank that consumes it at t (consumers
  // come in ascending point order, hence in ascending owner order).
  for (long y : senders_[dset]) {
    if (!g.exists(t - 1, y)) continue;
    peers_.clear();
    table_.for_each_consumer(t - 1, y, [&](long x) {
      const int owner = distribution_.owner(x);
      if (owner != rank_ && (peers_.empty() || peers_.back() != owner)) peers_.push_back(owner);
    });
    const std::size_t i = local_index(y);
    for (int peer : peers_) {
      // Another rank waits for the message: it leaves before anything else that is ready.
      comm.isend(output_handles_[slot][i], outputs_[slot][i].data(), bytes, peer,
                 tags_.tag(slot * g.max_width + y), exec.skeleton_priority(), "taskbench_send");
    }
  }
  // One receive per remote producer that some local task of timestep t reads.
  for (long x : receivers_[dset]) {
    if (!g.exists(t, x)) continue;
    table_.for_each_input(t, x, [&](long y) {
      if (is_local(y)) return;
      const std::size_t r = remote_slot(y);
      if (stamp_[r] == t) return;
      stamp_[r] = t;
      comm.irecv(receive_handles_[slot][r], receives_[slot][r].data(), bytes,
                 distribution_.owner(y), tags_.tag(slot * g.max_width + y), {}, "taskbench_recv");
    });
  }
  // Under forkjoin every exchange completes before the timestep computes (like Task
  // Bench's bulk-synchronous MPI driver).
  exec.end_phase();
}

void GraphExecution::submit_compute(long t) {
  const TaskGraph& g = config_.graph;
  Exec& exec = session_.exec();
  const int slot = slot_of(t);
  const Priority skeleton = exec.skeleton_priority();
  exec.begin_phase("compute");
  for (long x = first_; x < end_; ++x) {
    if (!g.exists(t, x)) continue;
    const std::size_t i = local_index(x);
    accesses_.clear();
    accesses_.push_back(write(output_handles_[slot][i]));
    table_.for_each_input(t, x, [&](long y) { accesses_.push_back(read(input_handle(t - 1, y))); });
    if (config_.scratch_bytes > 0) accesses_.push_back(readwrite(scratch_handles_[i]));
    // Tasks whose output leaves the rank run first, so their messages leave early.
    const Priority priority = has_remote_consumer(t, x) ? skeleton : Priority::normal;
    const TaskAttributes attributes(priority, TaskTags{t, x});
    if (session_.runtime().recording()) {
      // Replayed iteration i runs timestep t + i * period.
      session_.runtime().submit(
          "taskbench_task", std::span<const Access>(accesses_),
          [this, t, x](TaskContext& ctx) { execute(t + ctx.iteration() * steady_.period, x); },
          attributes);
    } else {
      session_.runtime().submit(
          "taskbench_task", std::span<const Access>(accesses_), [this, t, x] { execute(t, x); },
          attributes);
    }
  }
  exec.end_phase();
}

void GraphExecution::execute(long t, long x) {
  long index = 0;
  table_.for_each_input(t, x, [&](long y) {
    if (auto problem = check_input(input_buffer(t - 1, y), t, x, index, y)) {
      record_failure(*problem);
    }
    ++index;
  });
  const std::size_t i = local_index(x);
  const std::span<std::byte> out = outputs_[slot_of(t)][i];
  write_output(out, t, x);
  if (corrupt_ && corrupt_->first == t && corrupt_->second == x) write_output(out, t, x + 1);
  std::span<std::byte> scratch;
  if (config_.scratch_bytes > 0) {
    scratch = scratch_[i];
    std::uint64_t magic = 0;
    std::memcpy(&magic, scratch.data(), sizeof magic);
    if (magic != kScratchMagic) {
      record_failure(fmt::format(
          "verification failed: task (timestep {}, point {}): scratch lost its magic word", t, x));
    }
  }
  run_kernel(config_.kernel, config_.graph.graph_index, t, x, scratch);
  verified_[static_cast<std::size_t>(slot_of(t)) * static_cast<std::size_t>(end_ - first_) + i]
      .value += index;
}

void GraphExecution::record_failure(const std::string& message) {
  if (failures_.fetch_add(1, std::memory_order_acq_rel) > 0) return;
  {
    std::lock_guard<std::mutex> lock(failure_mutex_);
    first_failure_ = label_ + message;
  }
  std::fprintf(stderr, "taskbench: rank %d: %s%s\n", rank_, label_.c_str(), message.c_str());
  std::fflush(stderr);
}

std::string GraphExecution::first_failure() const {
  std::lock_guard<std::mutex> lock(failure_mutex_);
  return first_failure_;
}

std::span<std::byte> GraphExecution::input_buffer(long t, long point) const {
  const int slot = slot_of(t);
  if (is_local(point)) return outputs_[slot][local_index(point)];
  return receives_[slot][remote_slot(point)];
}

std::size_t GraphExecution::remote_slot(long point) const {
  return static_cast<std::size_t>(
      std::lower_bound(remote_points_.begin(), remote_points_.end(), point) -
      remote_points_.begin());
}

Handle GraphExecution::input_handle(long t, long point) const {
  const int slot = slot_of(t);
  if (is_local(point)) return output_handles_[slot][local_index(point)];
  return receive_handles_[slot][remote_slot(point)];
}

bool GraphExecution::has_remote_consumer(long t, long point) const {
  if (t + 1 >= config_.graph.timesteps) return false;
  const auto& senders = senders_[config_.graph.dependence_set_at(t + 1)];
  if (!std::binary_search(senders.begin(), senders.end(), point)) return false;
  bool remote = false;
  table_.for_each_consumer(t, point, [&](long x) { remote = remote || !is_local(x); });
  return remote;
}

}  // namespace tessera::taskbench
