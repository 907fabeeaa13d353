// A tessera program that deliberately never sends: every rank posts a receive from its
// left neighbour that nobody matches. Used by tests/apps/watchdog.sh to check that the
// hang watchdog reports on every rank and the run exits non-zero instead of hanging.
#include "tessera/session.hpp"

int main(int argc, char** argv) {
  return tessera::run_guarded([&] {
    tessera::Session session(argc, argv, "never_sends", "receives a message nobody sends");
    session.start();
    auto& comm = session.comm();
    auto& rt = session.runtime();
    const int left = (comm.rank() + comm.size() - 1) % comm.size();
    tessera::TagSpace tags = comm.allocate_tags("never", 1);
    tessera::Handle h = rt.create_handle("never-filled-buffer");
    static long value = 0;
    comm.irecv(h, &value, sizeof value, left, tags.tag(0), {}, "halo-recv");
    rt.submit(
        "unpack", {tessera::read(h)}, [] {},
        tessera::TaskAttributes(tessera::Priority::normal, {3, 1}));
    session.finish({{"checksum", "0"}});
    return 0;
  });
}
