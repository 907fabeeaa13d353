// A tessera program started without mpirun (only so: under mpirun the PMIx client is how
// the rank reaches its daemon) must not load OpenMPI's PMIx client (the component
// mca_pmix_ext3x and libpmix): OpenMPI 4.1's MPI_Finalize unloads that component
// while its progress thread may still hold an event of it, which crashed runs after their
// report (SIGSEGV) on a loaded machine. Session sets OMPI_MCA_ess_singleton_isolated so a
// singleton needs no PMIx server. Used by tests/apps/singleton_exit.sh; prints the loaded
// PMIx objects and exits 1 if there are any, 0 otherwise.
#include <link.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tessera/session.hpp"

namespace {

int collect(struct dl_phdr_info* info, std::size_t, void* data) {
  const char* name = info->dlpi_name;
  // The PMIx library and any pmix component but the isolated one (ext3x, pmix3x, ...).
  if (name && (std::strstr(name, "libpmix.so") ||
               (std::strstr(name, "mca_pmix_") && !std::strstr(name, "mca_pmix_isolated")))) {
    static_cast<std::vector<std::string>*>(data)->push_back(name);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return tessera::run_guarded([&] {
    int loaded = 0;
    {
      tessera::Session session(argc, argv, "singleton_exit", "lists OpenMPI's PMIx client");
      session.start();
      std::vector<std::string> pmix;
      dl_iterate_phdr(collect, &pmix);
      for (const std::string& name : pmix) std::printf("singleton_exit: loaded %s\n", name.c_str());
      loaded = static_cast<int>(pmix.size());
      std::printf("singleton_exit: %d rank(s), %d PMIx client object(s) loaded\n", session.size(),
                  loaded);
      session.finish({{"checksum", "0"}});
    }
    return loaded == 0 ? 0 : 1;
  });
}
