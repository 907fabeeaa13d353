#include "tessera/runtime/runtime.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "runtime/run_at_submission.hpp"
#include "runtime/scheduler.hpp"

namespace tessera {

WaitPolicy wait_policy_from_environment() {
  const char* policy = std::getenv("TESSERA_WAIT_POLICY");
  if (!policy || !*policy || std::strcmp(policy, "active") == 0) return WaitPolicy::active;
  if (std::strcmp(policy, "passive") == 0) return WaitPolicy::passive;
  throw std::invalid_argument(
      fmt::format("TESSERA_WAIT_POLICY is '{}'; allowed values: active, passive", policy));
}

std::string_view to_string(AccessMode mode) {
  switch (mode) {
    case AccessMode::read:
      return "read";
    case AccessMode::write:
      return "write";
    case AccessMode::readwrite:
      return "readwrite";
    case AccessMode::reduce:
      return "reduce";
  }
  return "?";
}

std::uint64_t Handle::id() const {
  return state_ ? state_->id : 0;
}
std::string_view Handle::name() const {
  return state_ ? std::string_view(state_->name) : "";
}

TaskTags::TaskTags(std::initializer_list<std::int64_t> init) {
  for (std::int64_t v : init) {
    if (count == values.size()) break;
    values[count++] = v;
  }
}

TaskError::TaskError(const std::string& task_name, const std::string& what)
    : std::runtime_error(fmt::format("task '{}' failed: {}", task_name, what)),
      task_name_(task_name) {}

const char* TaskContext::name() const {
  return task_->name;
}
bool TaskContext::main_thread_only() const {
  return task_->main_only;
}
const TaskTags& TaskContext::tags() const {
  return task_->tags;
}

std::int64_t TaskContext::iteration() const {
  return task_->iteration;
}

std::size_t IterationGraph::size() const {
  return recorded_ ? recorded_->nodes.size() : 0;
}

CompletionToken TaskContext::hold() {
  if (!task_->held.load(std::memory_order_relaxed)) {
    // The first hold: the body's own count (1) is the only one, and no token exists that
    // another thread could complete, so no locked instruction is needed.
    task_->held.store(true, std::memory_order_relaxed);
    task_->holds.store(2, std::memory_order_relaxed);
  } else {
    task_->holds.fetch_add(1, std::memory_order_relaxed);
  }
  return CompletionToken(task_);
}

void* TaskContext::reduction_slot_ptr(Handle h) {
  return detail::Scheduler::reduction_slot(task_, h.state());
}

std::string Runtime::compute_timing() const {
  return scheduler_->compute_timing();
}

Runtime::Runtime(RuntimeOptions options)
    : options_(std::move(options)), scheduler_(std::make_unique<detail::Scheduler>(options_)) {
  if (options_.sequential) options_.threads = 1;
}

Runtime::~Runtime() {
  try {
    scheduler_->wait_all();
  } catch (...) {
    // A destructor must not throw; the error was the caller's to collect with a wait.
  }
}

Handle Runtime::create_handle(std::string name) {
  return scheduler_->create_handle(std::move(name), nullptr);
}

Handle Runtime::create_handle_with_reduction(std::string name, std::shared_ptr<ReductionOps> ops) {
  return scheduler_->create_handle(std::move(name), std::move(ops));
}

detail::Task* Runtime::new_task(const char* name, const TaskAttributes& attributes) {
  return scheduler_->new_task(name, attributes);
}

detail::TaskBody& Runtime::body_of(detail::Task* task) {
  return task->body;
}

void Runtime::enqueue(detail::Task* task, std::span<const Access> accesses) {
  const detail::OverheadScope overhead("runtime.submit");
  scheduler_->enqueue(task, accesses);
}

bool Runtime::run_at_submission(const char* name, std::span<const Access> accesses,
                                const TaskAttributes& attributes, void (*invoke)(void*),
                                void* body) {
  // A task run here is submitted and finished at once (its body is timed on its own).
  detail::OverheadScope overhead("runtime.inline");
  const bool ran = scheduler_->run_at_submission(name, accesses, attributes, invoke, body);
  if (!ran) overhead.drop();
  return ran;
}

void Runtime::begin_batch() {
  scheduler_->begin_batch();
}
void Runtime::end_batch() {
  scheduler_->end_batch();
}
void Runtime::begin_recording() {
  scheduler_->begin_recording();
}
IterationGraph Runtime::end_recording() {
  return IterationGraph(scheduler_->end_recording());
}
bool Runtime::recording() const {
  return scheduler_->recording();
}
void Runtime::replay(const IterationGraph& graph, std::int64_t first, std::int64_t count) {
  if (!graph.recorded()) throw std::invalid_argument("replay: the graph was never recorded");
  scheduler_->replay(*graph.recorded(), first, count);
}

void Runtime::wait_all() {
  scheduler_->wait_all();
}
void Runtime::wait_for(Handle h) {
  scheduler_->wait_for(h.state());
}

void Runtime::complete(CompletionToken token) {
  if (detail::Task* t = token.release()) scheduler_->complete(t);
}

void Runtime::set_observer(Observer* observer) {
  scheduler_->set_observer(observer);
}
void Runtime::set_cost_table(CostTable* table) {
  if (table && table->threads() < options_.threads) {
    throw std::invalid_argument(
        fmt::format("set_cost_table: the table has {} thread rows, the runtime {} threads",
                    table->threads(), options_.threads));
  }
  scheduler_->set_cost_table(table);
}
void Runtime::set_submission_cost_slot(std::int32_t slot) {
  scheduler_->set_submission_cost_slot(slot);
}
void Runtime::set_progress_engine(ProgressEngine* engine) {
  scheduler_->set_progress_engine(engine);
}
std::uint64_t Runtime::tasks_completed() const {
  return scheduler_->tasks_completed();
}
std::uint64_t Runtime::tasks_submitted() const {
  return scheduler_->tasks_submitted();
}
void Runtime::describe_waiting(std::ostream& out) const {
  scheduler_->describe_waiting(out);
}

}  // namespace tessera
