#pragma once
// Tracing (layer `obs`): every task (begin/end, rank, thread, name, tags, accesses) and
// every MPI operation (post/complete, peer, tag, bytes), buffered per thread without
// locks and written at the end as one Chrome trace-event JSON file (Perfetto,
// chrome://tracing): ranks are processes, threads are threads.

#include <mpi.h>

#include <string>

#include "tessera/comm.hpp"
#include "tessera/observer.hpp"

namespace tessera {

class TraceRecorder : public Observer, public CommObserver {
 public:
  /// Collective over `comm`: measures this rank's clock offset to rank 0 so the ranks'
  /// timelines align. `threads`: workers of the observed runtime.
  TraceRecorder(int threads, MPI_Comm comm);
  ~TraceRecorder() override;

  void on_submit(const TaskInfo& task) override;
  void on_ready(const TaskInfo& task, int worker) override;
  void on_begin(const TaskInfo& task, int worker) override;
  void on_end(const TaskInfo& task, int worker) override;
  void on_post(const CommEvent& event) override;
  void on_complete(const CommEvent& event) override;
  void on_lane_time(double seconds) override;

  /// Collective over `comm` (main thread, after all tasks completed): gathers every
  /// rank's events and rank 0 writes `path` atomically.
  void write(const std::string& path, MPI_Comm comm) const;

 private:
  struct Impl;
  Impl* impl_;
};

/// Forwards every event to several observers, in order.
class ObserverList : public Observer, public CommObserver {
 public:
  void add(Observer* o) { task_observers_.push_back(o); }
  void add(CommObserver* o) { comm_observers_.push_back(o); }
  void on_submit(const TaskInfo& t) override {
    for (auto* o : task_observers_) o->on_submit(t);
  }
  void on_ready(const TaskInfo& t, int w) override {
    for (auto* o : task_observers_) o->on_ready(t, w);
  }
  void on_begin(const TaskInfo& t, int w) override {
    for (auto* o : task_observers_) o->on_begin(t, w);
  }
  void on_end(const TaskInfo& t, int w) override {
    for (auto* o : task_observers_) o->on_end(t, w);
  }
  void on_post(const CommEvent& e) override {
    for (auto* o : comm_observers_) o->on_post(e);
  }
  void on_complete(const CommEvent& e) override {
    for (auto* o : comm_observers_) o->on_complete(e);
  }
  void on_lane_time(double s) override {
    for (auto* o : comm_observers_) o->on_lane_time(s);
  }

 private:
  std::vector<Observer*> task_observers_;
  std::vector<CommObserver*> comm_observers_;
};

}  // namespace tessera
