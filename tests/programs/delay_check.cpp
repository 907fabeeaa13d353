// Checks the PMPI delay library (tests/support/mpi_delay.cpp) against MPI's contract, run on
// 2 ranks with the library preloaded (tests/apps/mpi_delay_check.sh): every completion that
// MPI_Test, Testany, Testsome, Testall, Wait and Iprobe report is real (the receive buffer
// holds the message, the status names its source and tag), each request is reported
// exactly once, none is lost (every message is reported within a bounded number of polls),
// and the reported order differs from the posting order somewhere (the holds reorder).
// Prints "delay_check: rank R: N messages, M out of order" and exits 0, or one line naming
// the broken check and exits 1. Plain MPI: the library is what is under test.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr int kMessages = 64;
constexpr int kWords = 32;
// A hold ends after at most TESSERA_MPI_DELAY_MAX polls; far more polls than that after the
// last message arrived means one was lost. The sender waits for the receiver's "all
// arrived" before leaving, so every message is in MPI long before the bound.
constexpr long kPollBound = 50000000;

int rank = 0;

[[noreturn]] void broken(const char* what, int index) {
  std::fprintf(stderr, "delay_check: rank %d: FAIL: %s (message %d)\n", rank, what, index);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::exit(1);
}

double word(int message, int w) {
  return message * 1000.0 + w;
}

void check_payload(const std::vector<double>& buffer, int message) {
  for (int w = 0; w < kWords; ++w) {
    if (buffer[static_cast<std::size_t>(w)] != word(message, w)) {
      broken("a reported completion's buffer does not hold the message", message);
    }
  }
}

// Receives kMessages messages with the Test call chosen by `mode` (0 Testsome, 1 Testany,
// 2 Test per request, 3 Testall, 4 Wait) and checks each report; returns how many were
// reported after a message posted later.
int receive_all(int mode) {
  std::vector<std::vector<double>> buffers(kMessages, std::vector<double>(kWords, -1.0));
  std::vector<MPI_Request> requests(kMessages);
  for (int m = 0; m < kMessages; ++m) {
    MPI_Irecv(buffers[m].data(), kWords, MPI_DOUBLE, 0, m, MPI_COMM_WORLD, &requests[m]);
  }
  MPI_Barrier(MPI_COMM_WORLD);  // the sender starts now
  std::vector<int> reported(kMessages, 0);
  std::vector<int> order;
  std::vector<int> indices(kMessages);
  std::vector<MPI_Status> statuses(kMessages);
  const auto take = [&](int m, const MPI_Status& status) {
    if (m < 0 || m >= kMessages) broken("an index outside the request list", m);
    if (reported[m]++) broken("a request reported complete twice", m);
    if (requests[m] != MPI_REQUEST_NULL) broken("a reported request was not freed", m);
    if (status.MPI_SOURCE != 0 || status.MPI_TAG != m) broken("a status of another message", m);
    check_payload(buffers[m], m);
    order.push_back(m);
  };
  long polls = 0;
  while (static_cast<int>(order.size()) < kMessages) {
    if (++polls > kPollBound)
      broken("messages never reported (lost)", static_cast<int>(order.size()));
    if (mode == 0) {
      int count = 0;
      MPI_Testsome(kMessages, requests.data(), &count, indices.data(), statuses.data());
      if (count == MPI_UNDEFINED) broken("Testsome found no active request", 0);
      for (int k = 0; k < count; ++k) take(indices[k], statuses[k]);
    } else if (mode == 1) {
      int index = 0, flag = 0;
      MPI_Status status;
      MPI_Testany(kMessages, requests.data(), &index, &flag, &status);
      if (flag) take(index, status);
    } else if (mode == 2) {
      for (int m = 0; m < kMessages; ++m) {
        if (requests[m] == MPI_REQUEST_NULL) continue;
        int flag = 0;
        MPI_Status status;
        MPI_Test(&requests[m], &flag, &status);
        if (flag) take(m, status);
      }
    } else if (mode == 3) {
      int flag = 0;
      MPI_Testall(kMessages, requests.data(), &flag, statuses.data());
      if (flag) {
        for (int m = 0; m < kMessages; ++m) take(m, statuses[m]);
      }
    } else {
      for (int m = kMessages - 1; m >= 0; --m) {
        MPI_Status status;
        MPI_Wait(&requests[m], &status);
        take(m, status);
      }
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);  // all arrived
  int late = 0;
  for (std::size_t k = 1; k < order.size(); ++k) late += order[k] < order[k - 1] ? 1 : 0;
  return late;
}

void send_all() {
  std::vector<std::vector<double>> buffers(kMessages, std::vector<double>(kWords));
  std::vector<MPI_Request> requests(kMessages);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int m = 0; m < kMessages; ++m) {
    for (int w = 0; w < kWords; ++w) buffers[m][static_cast<std::size_t>(w)] = word(m, w);
    MPI_Isend(buffers[m].data(), kWords, MPI_DOUBLE, 1, m, MPI_COMM_WORLD, &requests[m]);
  }
  MPI_Waitall(kMessages, requests.data(), MPI_STATUSES_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);
}

// Iprobe reports a message only when a receive of it succeeds at once.
int probe_all() {
  MPI_Barrier(MPI_COMM_WORLD);
  std::vector<int> seen(kMessages, 0);
  std::vector<double> buffer(kWords);
  int got = 0, late = 0, last = -1;
  long polls = 0;
  while (got < kMessages) {
    if (++polls > kPollBound) broken("probed messages never reported (lost)", got);
    int flag = 0;
    MPI_Status status;
    MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
    if (!flag) continue;
    const int m = status.MPI_TAG;
    if (m < 0 || m >= kMessages || seen[m]++) broken("Iprobe reported a message twice", m);
    MPI_Recv(buffer.data(), kWords, MPI_DOUBLE, 0, m, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    check_payload(buffer, m);
    late += m < last ? 1 : 0;
    last = m;
    ++got;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return late;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) std::fprintf(stderr, "delay_check: runs on 2 ranks (got %d)\n", size);
    MPI_Finalize();
    return 2;
  }
  int late = 0;
  for (int mode = 0; mode < 6; ++mode) {
    if (rank == 0) {
      send_all();
    } else {
      const int l = mode == 5 ? probe_all() : receive_all(mode);
      // Testsome, Testany and Iprobe report what MPI completed first, lowest index first:
      // without holds one peer's messages come in posting order. (A loop of Tests can pass
      // a message that arrives behind it, Testall reports in index order and the Waits go
      // backwards on purpose.)
      if (mode == 0 || mode == 1 || mode == 5) late += l;
    }
  }
  int status = 0;
  if (rank == 1) {
    std::printf("delay_check: rank 1: %d messages, %d out of order\n", 6 * kMessages, late);
    if (late == 0) {
      // Both ranks are past their last message: finalize and exit 1 instead of MPI_Abort,
      // which under load can leave mpirun waiting when the other rank is in MPI_Finalize.
      std::fprintf(stderr, "delay_check: rank 1: FAIL: no message was reported out of "
                           "posting order (message 0)\n");
      status = 1;
    }
  }
  MPI_Finalize();
  return status;
}
