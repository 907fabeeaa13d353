#include "observed_program.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "tessera/comm/comm.hpp"
#include "tessera/comm/exact_sum.hpp"
#include "tessera/obs/run_stats.hpp"
#include "tessera/obs/trace_recorder.hpp"

namespace tessera::obs_test {

ProgramRun run_observed_program(RuntimeOptions options, const ProgramShape& shape,
                                const std::string& trace_path, StatsDetail detail) {
  const int threads = options.sequential ? 1 : options.threads;
  // Observers outlive the runtime and the lane that call them.
  RunStats stats(threads, detail);
  std::unique_ptr<TraceRecorder> trace;
  if (!trace_path.empty()) {
    trace = std::make_unique<TraceRecorder>(threads, MPI_COMM_WORLD, &stats);
  }

  Runtime rt(options);
  Comm comm(rt, MPI_COMM_WORLD);
  comm.add_observer(&stats);
  if (trace) comm.add_observer(trace.get());
  if (trace) {
    rt.set_observer(trace.get());
  } else {
    rt.set_observer(&stats);
  }
  stats.start();

  const int right = (comm.rank() + 1) % comm.size();
  const int left = (comm.rank() + comm.size() - 1) % comm.size();
  const TagSpace tags = comm.allocate_tags("obs-ring", 1);
  const std::size_t bytes = shape.width * sizeof(double);
  std::vector<double> value(shape.width), out(shape.width), in(shape.width);
  for (int i = 0; i < shape.width; ++i) value[i] = comm.rank() + 0.25 * i;
  double total = 0;
  ExactSum sum;
  Handle hvalue = rt.create_handle("value");
  Handle hout = rt.create_handle("out");
  Handle hin = rt.create_handle("in");
  Handle htotal = rt.create_reduction_handle("total", &total, [](double& a, double b) { a += b; });
  Handle hsum = rt.create_handle("sum");
  for (int r = 0; r < shape.rounds; ++r) {
    rt.submit("pack", {read(hvalue), write(hout)}, [&] { out = value; });
    if (r % 2 == 0) {
      comm.isend(hout, out.data(), bytes, right, tags.tag(0));
      comm.irecv(hin, in.data(), bytes, left, tags.tag(0));
    } else {
      comm.irecv(hin, in.data(), bytes, left, tags.tag(0));
      comm.isend(hout, out.data(), bytes, right, tags.tag(0));
    }
    for (int k = 0; k < shape.readers; ++k) {
      rt.submit(
          "observe", {read(hvalue), reduce(htotal)},
          [&, k](TaskContext& ctx) {
            ctx.reduction_slot<double>(htotal) += value[k % shape.width];
          },
          TaskAttributes(Priority::normal, TaskTags{r, k}));
    }
    rt.submit("update", {readwrite(hvalue), read(hin)}, [&] {
      for (int i = 0; i < shape.width; ++i) value[i] = 0.5 * value[i] + 0.25 * in[i];
    });
    if (r % 4 == 3) {
      rt.submit("contribute", {read(htotal), write(hsum)}, [&] {
        sum = ExactSum();
        sum.add(total);
      });
      comm.iallreduce_sum(hsum, &sum);
      rt.submit("use_sum", {read(hsum), readwrite(hvalue)},
                [&] { value[0] += 1e-3 * sum.value(); });
    }
  }
  rt.wait_all();
  stats.stop();
  ProgramRun run{stats.collect(MPI_COMM_WORLD), rt.tasks_submitted(), value[0]};
  if (trace) {
    // As Session does: the runtime's threads format the trace, unobserved.
    rt.set_observer(nullptr);
    trace->write(trace_path, MPI_COMM_WORLD, &rt);
  }
  return run;
}

std::string shared_trace_path(const std::string& stem) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::string path;
  if (rank == 0) {
    const char* keep = std::getenv("TESSERA_OBS_TRACE_DIR");
    path = keep ? std::string(keep) + "/" + stem + ".json"
                : "/tmp/tessera_obs_" + std::to_string(::getpid()) + "_" + stem + ".json";
  }
  int length = static_cast<int>(path.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
  path.resize(length);
  MPI_Bcast(path.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
  return path;
}

void remove_trace(const std::string& path) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0 && std::getenv("TESSERA_OBS_TRACE_DIR") == nullptr) std::remove(path.c_str());
}

}  // namespace tessera::obs_test
