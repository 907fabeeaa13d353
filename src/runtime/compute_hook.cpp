#include "tessera/runtime/compute_hook.hpp"

namespace tessera::detail {

ComputeHook* active_compute_hook = nullptr;

}  // namespace tessera::detail
