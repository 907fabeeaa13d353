#include "tessera/memory_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>

#include "tessera/base/check_mpi.hpp"

namespace tessera {

namespace {

std::optional<std::string> read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::optional<double> read_number(const std::string& path) {
  const auto text = read_text(path);
  if (!text) return std::nullopt;
  std::string_view s = *text;
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.remove_suffix(1);
  unsigned long long value = 0;
  const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (error != std::errc() || end != s.data() + s.size()) return std::nullopt;  // e.g. "max"
  return static_cast<double>(value);
}

// Limits this large mean "no limit" (v1 reports PAGE_COUNTER_MAX rounded to pages).
constexpr double kNoLimit = 1e18;

// The headroom of one cgroup directory, given its limit and usage file names.
std::optional<double> headroom_of(const std::string& dir, const char* limit_file,
                                  const char* usage_file) {
  const auto limit = read_number(dir + "/" + limit_file);
  if (!limit || *limit >= kNoLimit) return std::nullopt;
  const double usage = read_number(dir + "/" + usage_file).value_or(0.0);
  return std::max(0.0, *limit - usage);
}

// Tightest headroom over `base + path` and its ancestors up to `base`.
std::optional<double> tightest_over_ancestors(const std::string& base, std::string path,
                                              const char* limit_file, const char* usage_file) {
  std::optional<double> best;
  while (true) {
    if (const auto h = headroom_of(base + path, limit_file, usage_file)) {
      best = best ? std::min(*best, *h) : *h;
    }
    if (path.empty() || path == "/") break;
    const auto slash = path.find_last_of('/');
    path = slash == std::string::npos ? std::string() : path.substr(0, slash);
  }
  return best;
}

}  // namespace

std::optional<double> meminfo_available(std::string_view meminfo) {
  const std::string_view key = "MemAvailable:";
  const auto at = meminfo.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = meminfo.substr(at + key.size());
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  unsigned long long kb = 0;
  const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), kb);
  if (error != std::errc()) return std::nullopt;
  return static_cast<double>(kb) * 1024.0;
}

std::optional<double> cgroup_headroom(const std::string& root, std::string_view self_cgroup) {
  std::optional<double> best;
  const auto keep = [&](std::optional<double> h) {
    if (h) best = best ? std::min(*best, *h) : *h;
  };
  // Lines are "id:controllers:path"; v2 is "0::path", v1 lists "memory" among controllers.
  std::istringstream lines{std::string(self_cgroup)};
  for (std::string line; std::getline(lines, line);) {
    const auto first = line.find(':');
    const auto second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    std::string path = line.substr(second + 1);
    if (path == "/") path.clear();
    if (controllers.empty()) {
      keep(tightest_over_ancestors(root, path, "memory.max", "memory.current"));
      keep(tightest_over_ancestors(root + "/unified", path, "memory.max", "memory.current"));
    } else if (("," + controllers + ",").find(",memory,") != std::string::npos) {
      keep(tightest_over_ancestors(root + "/memory", path, "memory.limit_in_bytes",
                                   "memory.usage_in_bytes"));
    }
  }
  // Inside a cgroup namespace the own group is mounted as the root.
  keep(headroom_of(root, "memory.max", "memory.current"));
  keep(headroom_of(root + "/memory", "memory.limit_in_bytes", "memory.usage_in_bytes"));
  return best;
}

NodeMemory node_memory(MPI_Comm comm) {
  NodeMemory node;
  MPI_Comm shared = MPI_COMM_NULL;
  TESSERA_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared));
  TESSERA_MPI_CHECK(MPI_Comm_size(shared, &node.ranks_on_node));
  TESSERA_MPI_CHECK(MPI_Comm_free(&shared));

  const auto meminfo = read_text("/proc/meminfo");
  node.available_bytes = meminfo ? meminfo_available(*meminfo).value_or(0.0) : 0.0;
  node.limited_by = "MemAvailable";
  const auto self = read_text("/proc/self/cgroup");
  if (const auto cgroup = self ? cgroup_headroom("/sys/fs/cgroup", *self) : std::nullopt;
      cgroup && *cgroup < node.available_bytes) {
    node.available_bytes = *cgroup;
    node.limited_by = "cgroup memory limit";
  }
  return node;
}

std::optional<std::string> memory_shortfall(double need, double available) {
  if (need <= available) return std::nullopt;
  return fmt::format("needs {} per rank, {} available per rank on this node", format_bytes(need),
                     format_bytes(available));
}

}  // namespace tessera
