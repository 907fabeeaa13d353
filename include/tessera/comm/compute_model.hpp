#pragma once
// Modelled compute for simulated runs (layer `comm`; docs/scaling-sim.md, "Modelled
// compute"): the ComputeHook the runtime uses when the environment asks for a calibration
// or a modelled run. It needs MPI (the calibrating rank) and, in SMPI builds, SimGrid.

#include <memory>

#include "tessera/runtime/compute_hook.hpp"

namespace tessera {

/// A ComputeHookFactory for RuntimeOptions::compute_hook. From the environment:
/// TESSERA_COMPUTE_CALIBRATE=FILE times every body with work > 0 on world rank 0 and writes
/// its 10th percentile per (task name, work) to FILE when the runtime ends;
/// TESSERA_COMPUTE_MODEL=FILE (SMPI builds only) charges those bodies from such a file.
/// nullptr when neither is set; a bad value throws std::invalid_argument naming the
/// variable. Call on the thread that makes the Runtime (MPI may or may not be initialized).
std::unique_ptr<ComputeHook> compute_model_from_environment();

}  // namespace tessera
