#pragma once
// The rules of tools/check_trace.py, in C++, for the MPI tests (no Python in the loop):
// tasks once each, no overlap per thread, dependencies respected, messages paired.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tessera::obs_test {

/// Violations found in a parsed trace (empty when valid), one readable line each.
std::vector<std::string> validate_trace(const nlohmann::json& trace);

}  // namespace tessera::obs_test
