// mpi_delay: a test-only PMPI interposition library that delivers completions late and out
// of order, so tests can show that a program's results do not depend on when MPI reports a
// message done.
//
// Loaded with LD_PRELOAD (`mpirun -x LD_PRELOAD=<build>/lib/libtessera_mpi_delay.so ...`, or
// the variable set in the environment of a singleton run), it replaces the MPI calls that
// report completions:
//   MPI_Test, MPI_Testany, MPI_Testsome, MPI_Testall   a request MPI has completed is
//       reported only after it was polled (seen complete) a random number of further times,
//       0 .. TESSERA_MPI_DELAY_MAX, drawn once per request when MPI first shows it complete.
//       Each request counts down on its own, so requests (from different peers, or of
//       different kinds) are reported in another order than MPI completed them.
//   MPI_Iprobe, MPI_Improbe   a message MPI could match is reported (or, for Improbe,
//       matched) only after the same kind of random hold, per (communicator, source, tag).
//   MPI_Wait, MPI_Waitany, MPI_Waitsome, MPI_Waitall   loops of the Test call above (each
//       round one poll), so a blocking wait sees the same holds.
//   MPI_Irecv   passes through; counts receives per source for TESSERA_MPI_DELAY_NEVER.
// Everything else goes straight to MPI.
//
// Guarantees: a completion is only ever reported after MPI itself has completed the request
// (MPI_Request_get_status says so; the request is then completed with PMPI_Test, which frees
// it as the caller expects), and every completion MPI made is reported at the latest after
// TESSERA_MPI_DELAY_MAX further polls of its request: nothing is invented, nothing is lost.
// A held request stays alive inside MPI, so its handle cannot be reused by a new request.
// The state is guarded by one mutex: the calls may come from any thread.
//
// Environment (read at the first intercepted call):
//   TESSERA_MPI_DELAY_SEED     seed of the random holds (default 1); each rank draws from its
//                              own stream, derived from the seed and its MPI_COMM_WORLD rank
//   TESSERA_MPI_DELAY_MAX      largest hold in polls (default 8; 0 passes completions through)
//   TESSERA_MPI_DELAY_NEVER    RANK:PEER:N  on MPI_COMM_WORLD rank RANK, the N-th MPI_Irecv
//                              (counting from 1) from source PEER never completes: it stays
//                              pending however often it is tested, as a message that never
//                              arrives would (the hang watchdog's test); the rank prints
//                              "mpi_delay: rank RANK: receive N from rank PEER tag T never
//                              completes" when it posts that receive
//   TESSERA_MPI_DELAY_VERBOSE  1: at MPI_Finalize each rank prints one line to stderr,
//                              "mpi_delay: rank R: seed S max M: C completions, H held for P
//                              polls, L left unreported", so a test can check that the
//                              library was loaded and worked (L > 0: the program ended
//                              without taking a completion MPI had made)
// A bad value stops the program with one line naming the variable.

#include <mpi.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace {

struct Settings {
  std::uint64_t seed = 1;
  int max_hold = 8;
  int never_rank = -1;  // TESSERA_MPI_DELAY_NEVER's parts; -1: not set
  int never_peer = -1;
  long never_nth = 0;
  bool verbose = false;
};

[[noreturn]] void bad_setting(const char* name, const char* value, const char* allowed) {
  std::fprintf(stderr, "mpi_delay: error: %s='%s': %s\n", name, value, allowed);
  std::fflush(stderr);
  std::_Exit(2);
}

long parse_number(const char* name, const char* text, long low, const char* allowed) {
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v < low) bad_setting(name, text, allowed);
  return v;
}

Settings read_settings() {
  Settings s;
  if (const char* v = std::getenv("TESSERA_MPI_DELAY_SEED")) {
    char* end = nullptr;
    errno = 0;
    s.seed = std::strtoull(v, &end, 10);
    if (errno != 0 || end == v || *end != '\0' || v[0] == '-') {
      bad_setting("TESSERA_MPI_DELAY_SEED", v, "expected an unsigned integer");
    }
  }
  if (const char* v = std::getenv("TESSERA_MPI_DELAY_MAX")) {
    s.max_hold = static_cast<int>(
        parse_number("TESSERA_MPI_DELAY_MAX", v, 0, "expected an integer from 0 to 1000000"));
    if (s.max_hold > 1000000) {
      bad_setting("TESSERA_MPI_DELAY_MAX", v, "expected an integer from 0 to 1000000");
    }
  }
  if (const char* v = std::getenv("TESSERA_MPI_DELAY_NEVER"); v && *v) {
    const char* allowed = "expected RANK:PEER:N (ranks >= 0, N >= 1)";
    const std::string text(v);
    const auto a = text.find(':');
    const auto b = a == std::string::npos ? a : text.find(':', a + 1);
    if (b == std::string::npos) bad_setting("TESSERA_MPI_DELAY_NEVER", v, allowed);
    const std::string parts[3] = {text.substr(0, a), text.substr(a + 1, b - a - 1),
                                  text.substr(b + 1)};
    s.never_rank =
        static_cast<int>(parse_number("TESSERA_MPI_DELAY_NEVER", parts[0].c_str(), 0, allowed));
    s.never_peer =
        static_cast<int>(parse_number("TESSERA_MPI_DELAY_NEVER", parts[1].c_str(), 0, allowed));
    s.never_nth = parse_number("TESSERA_MPI_DELAY_NEVER", parts[2].c_str(), 1, allowed);
  }
  if (const char* v = std::getenv("TESSERA_MPI_DELAY_VERBOSE"))
    s.verbose = std::strcmp(v, "1") == 0;
  return s;
}

// splitmix64: a full-period generator whose every seed gives a good stream; the rank's
// stream starts at a seed mixed from the run's seed and the rank.
std::uint64_t splitmix(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

using ProbeKey = std::tuple<MPI_Comm, int, int>;  // communicator, source, tag

struct State {
  std::mutex mutex;
  bool ready = false;
  Settings settings;
  int rank = -1;
  std::uint64_t rng = 0;
  // Requests MPI has completed whose report is held: polls still to wait.
  std::unordered_map<MPI_Request, int> held;
  // Probe matches being held, per (communicator, source, tag).
  std::map<ProbeKey, int> probes;
  std::unordered_set<MPI_Request> never;        // TESSERA_MPI_DELAY_NEVER's receive
  std::unordered_map<int, long> receives_from;  // MPI_Irecv count per source
  long completions = 0;                         // requests reported complete
  long held_completions = 0;                    // ... of which were held at least one poll
  long held_polls = 0;                          // polls that withheld a completion
};

State& state() {
  static State s;
  return s;
}

// Called with the mutex held, after MPI_Init (every intercepted call needs MPI up).
void prepare(State& s) {
  if (s.ready) return;
  s.settings = read_settings();
  PMPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
  s.rng = s.settings.seed ^ (0x632be59bd9b4e019ULL * static_cast<std::uint64_t>(s.rank + 1));
  splitmix(s.rng);
  s.ready = true;
}

int draw_hold(State& s) {
  if (s.settings.max_hold == 0) return 0;
  return static_cast<int>(splitmix(s.rng) % static_cast<std::uint64_t>(s.settings.max_hold + 1));
}

// One poll of something MPI has completed (a request, a probe match), kept in `holds` under
// `key`: true while its hold, drawn at its first poll, lasts (this poll withholds it).
template <class Holds, class Key>
bool withheld(State& s, Holds& holds, const Key& key) {
  auto [it, fresh] = holds.try_emplace(key, 0);
  if (fresh) {
    it->second = draw_hold(s);
    if (it->second > 0) ++s.held_completions;
  }
  if (it->second == 0) return false;
  --it->second;
  ++s.held_polls;
  return true;
}

// One poll of one request: true when it is to be reported complete now, and then it has
// been completed in MPI (request set as PMPI_Test sets it, status filled). `*code` gets an
// MPI error code when MPI reports one.
bool poll_one(State& s, MPI_Request* request, MPI_Status* status, int* code) {
  *code = MPI_SUCCESS;
  if (*request == MPI_REQUEST_NULL) return false;
  if (!s.never.empty() && s.never.count(*request)) {
    // Keep MPI progressing as a real poll would, but never look at this request.
    int flag = 0;
    *code = PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
    return false;
  }
  int done = 0;
  MPI_Status peek;
  *code = PMPI_Request_get_status(*request, &done, &peek);
  if (*code != MPI_SUCCESS || !done) return false;
  if (withheld(s, s.held, *request)) return false;
  s.held.erase(*request);
  int flag = 0;
  *code = PMPI_Test(request, &flag, status);
  if (*code != MPI_SUCCESS) return false;
  if (!flag) {
    // MPI_Request_get_status said complete: MPI_Test must agree.
    std::fprintf(stderr, "mpi_delay: rank %d: MPI_Test disagrees with MPI_Request_get_status\n",
                 s.rank);
    std::abort();
  }
  ++s.completions;
  return true;
}

int test_some(State& s, int incount, MPI_Request requests[], int* outcount, int indices[],
              MPI_Status statuses[]) {
  int found = 0;
  bool any_active = false;
  for (int i = 0; i < incount; ++i) {
    if (requests[i] == MPI_REQUEST_NULL) continue;
    any_active = true;
    int code = MPI_SUCCESS;
    MPI_Status* st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[found];
    if (poll_one(s, &requests[i], st, &code)) indices[found++] = i;
    if (code != MPI_SUCCESS) return code;
  }
  *outcount = any_active ? found : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int test_any(State& s, int count, MPI_Request requests[], int* index, int* flag,
             MPI_Status* status) {
  *flag = 0;
  *index = MPI_UNDEFINED;
  bool any_active = false;
  for (int i = 0; i < count; ++i) {
    if (requests[i] == MPI_REQUEST_NULL) continue;
    any_active = true;
    int code = MPI_SUCCESS;
    if (poll_one(s, &requests[i], status, &code)) {
      *flag = 1;
      *index = i;
      return MPI_SUCCESS;
    }
    if (code != MPI_SUCCESS) return code;
  }
  // No active request: MPI's own answer (flag set, index undefined, empty status).
  if (!any_active) return PMPI_Testany(count, requests, index, flag, status);
  return MPI_SUCCESS;
}

// All or nothing, as MPI_Testall: the holds of the requests that are ready are counted
// down on every poll; the requests are completed once all are ready and released.
int test_all(State& s, int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  *flag = 0;
  bool all = true;
  for (int i = 0; i < count; ++i) {
    if (requests[i] == MPI_REQUEST_NULL) continue;
    if (!s.never.empty() && s.never.count(requests[i])) {
      all = false;
      continue;
    }
    int done = 0;
    MPI_Status peek;
    const int code = PMPI_Request_get_status(requests[i], &done, &peek);
    if (code != MPI_SUCCESS) return code;
    if (!done) {
      all = false;
      continue;
    }
    if (withheld(s, s.held, requests[i])) all = false;
  }
  if (!all) return MPI_SUCCESS;
  for (int i = 0; i < count; ++i) {
    if (requests[i] != MPI_REQUEST_NULL) {
      s.held.erase(requests[i]);
      ++s.completions;
    }
  }
  return PMPI_Testall(count, requests, flag, statuses);
}

// Iprobe's hold: true when the match (source and tag in `status`) is to be reported now.
bool release_probe(State& s, MPI_Comm comm, const MPI_Status& status) {
  const ProbeKey key{comm, status.MPI_SOURCE, status.MPI_TAG};
  if (withheld(s, s.probes, key)) return false;
  s.probes.erase(key);
  return true;
}

// Lets another thread (or process) run between the rounds of a blocking wait.
void between_rounds() {
  int flag = 0;
  PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
}

}  // namespace

extern "C" {

int MPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request* request) {
  const int code = PMPI_Irecv(buf, count, datatype, source, tag, comm, request);
  if (code != MPI_SUCCESS) return code;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  prepare(s);
  if (s.settings.never_rank == s.rank && comm != MPI_COMM_SELF) {
    // The peer as a rank of MPI_COMM_WORLD: the variable names world ranks.
    int world_peer = source;
    if (comm != MPI_COMM_WORLD && source >= 0) {
      MPI_Group group, world;
      PMPI_Comm_group(comm, &group);
      PMPI_Comm_group(MPI_COMM_WORLD, &world);
      PMPI_Group_translate_ranks(group, 1, &source, world, &world_peer);
      PMPI_Group_free(&group);
      PMPI_Group_free(&world);
    }
    if (world_peer == s.settings.never_peer &&
        ++s.receives_from[world_peer] == s.settings.never_nth) {
      s.never.insert(*request);
      // The test names the request the hang report must describe.
      std::fprintf(stderr, "mpi_delay: rank %d: receive %ld from rank %d tag %d never completes\n",
                   s.rank, s.settings.never_nth, world_peer, tag);
      std::fflush(stderr);
    }
  }
  return MPI_SUCCESS;
}

int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  prepare(s);
  if (*request == MPI_REQUEST_NULL) return PMPI_Test(request, flag, status);
  int code = MPI_SUCCESS;
  *flag = poll_one(s, request, status, &code) ? 1 : 0;
  return code;
}

int MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  prepare(s);
  return test_any(s, count, requests, index, flag, status);
}

int MPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                 MPI_Status statuses[]) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  prepare(s);
  return test_some(s, incount, requests, outcount, indices, statuses);
}

int MPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  prepare(s);
  return test_all(s, count, requests, flag, statuses);
}

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  for (;;) {
    int flag = 0;
    const int code = MPI_Test(request, &flag, status);
    if (code != MPI_SUCCESS || flag || *request == MPI_REQUEST_NULL) return code;
    between_rounds();
  }
}

int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  for (;;) {
    int flag = 0;
    const int code = MPI_Testany(count, requests, index, &flag, status);
    if (code != MPI_SUCCESS || flag) return code;
    between_rounds();
  }
}

int MPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                 MPI_Status statuses[]) {
  for (;;) {
    const int code = MPI_Testsome(incount, requests, outcount, indices, statuses);
    if (code != MPI_SUCCESS || *outcount != 0) return code;
    between_rounds();
  }
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  for (;;) {
    int flag = 0;
    const int code = MPI_Testall(count, requests, &flag, statuses);
    if (code != MPI_SUCCESS || flag) return code;
    between_rounds();
  }
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  MPI_Status seen;
  const int code = PMPI_Iprobe(source, tag, comm, flag, &seen);
  if (code != MPI_SUCCESS || !*flag) return code;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  prepare(s);
  if (!release_probe(s, comm, seen)) {
    *flag = 0;
    return MPI_SUCCESS;
  }
  if (status != MPI_STATUS_IGNORE) *status = seen;
  return MPI_SUCCESS;
}

int MPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                MPI_Status* status) {
  // Probe first: a held message must stay in MPI's queue, unmatched.
  MPI_Status seen;
  int code = PMPI_Iprobe(source, tag, comm, flag, &seen);
  if (code != MPI_SUCCESS || !*flag) return code;
  {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    prepare(s);
    if (!release_probe(s, comm, seen)) {
      *flag = 0;
      return MPI_SUCCESS;
    }
  }
  // The message the probe saw (another thread may have taken it since: then MPI says so).
  return PMPI_Improbe(seen.MPI_SOURCE, seen.MPI_TAG, comm, flag, message, status);
}

int MPI_Finalize() {
  {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    prepare(s);
    if (s.settings.verbose) {
      std::fprintf(stderr,
                   "mpi_delay: rank %d: seed %llu max %d: %ld completions, %ld held for %ld "
                   "polls, %zu left unreported\n",
                   s.rank, static_cast<unsigned long long>(s.settings.seed), s.settings.max_hold,
                   s.completions, s.held_completions, s.held_polls, s.held.size());
      std::fflush(stderr);
    }
  }
  return PMPI_Finalize();
}

}  // extern "C"
