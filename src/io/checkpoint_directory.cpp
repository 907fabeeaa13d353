#include "io/checkpoint_directory.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "tessera/io/checkpoint_content.hpp"

namespace tessera::detail {

namespace fs = std::filesystem;

namespace {

std::optional<std::int64_t> parse_digits(const std::string& s) {
  if (s.empty() || s.size() > 18) return std::nullopt;
  std::int64_t n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

// fsync, or fdatasync when `data_only` (a file's bytes and size, not its timestamps).
void sync_path(const std::string& path, bool data_only = false) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    throw std::runtime_error(
        fmt::format("checkpoint: cannot open {} to flush it: {}", path, std::strerror(errno)));
  const int rc = data_only ? ::fdatasync(fd) : ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0)
    throw std::runtime_error(
        fmt::format("checkpoint: flushing {} to disk failed: {}", path, std::strerror(err)));
}

struct StepEntry {
  std::int64_t step;
  fs::path path;
};

// Complete and unfinished checkpoints in dir (none if dir does not exist).
void list_steps(const std::string& dir, std::vector<StepEntry>& complete,
                std::vector<StepEntry>& unfinished) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_directory(ec)) continue;
    const std::string name = entry.path().filename().string();
    if (auto n = complete_step_of(name)) complete.push_back({*n, entry.path()});
    if (auto n = unfinished_step_of(name)) unfinished.push_back({*n, entry.path()});
  }
  const auto by_step = [](const StepEntry& a, const StepEntry& b) { return a.step < b.step; };
  std::sort(complete.begin(), complete.end(), by_step);
  std::sort(unfinished.begin(), unfinished.end(), by_step);
}

}  // namespace

std::string step_directory(const std::string& dir, std::int64_t step) {
  return (fs::path(dir) / fmt::format("step-{}", step)).string();
}

std::optional<std::int64_t> complete_step_of(const std::string& name) {
  if (name.rfind("step-", 0) != 0) return std::nullopt;
  return parse_digits(name.substr(5));
}

std::optional<std::int64_t> unfinished_step_of(const std::string& name) {
  if (name.rfind("step-", 0) != 0 || name.size() < 9 || name.substr(name.size() - 4) != ".tmp")
    return std::nullopt;
  return parse_digits(name.substr(5, name.size() - 9));
}

std::string resolve_restart_file(const std::string& restart, const std::string& dir) {
  std::error_code ec;
  fs::path step_dir;
  if (restart == "latest") {
    std::vector<StepEntry> complete, unfinished;
    if (!fs::is_directory(dir, ec))
      throw CheckpointError("--restart", fmt::format("latest: checkpoint directory {} does not "
                                                     "exist (see --checkpoint-dir)",
                                                     dir));
    list_steps(dir, complete, unfinished);
    if (complete.empty())
      throw CheckpointError(
          "--restart",
          fmt::format("latest: no complete checkpoint (step-N/) in {}{}", dir,
                      unfinished.empty() ? std::string()
                                         : fmt::format(" (only the unfinished {}, left by an "
                                                       "interrupted write)",
                                                       unfinished.back().path.string())));
    step_dir = complete.back().path;
  } else {
    step_dir = fs::path(restart);
    const std::string name = step_dir.filename().string();
    if (unfinished_step_of(name) || (name.size() > 4 && name.substr(name.size() - 4) == ".tmp"))
      throw CheckpointError("--restart", fmt::format("{}: an unfinished checkpoint (a .tmp "
                                                     "directory left by an interrupted write); "
                                                     "restart from a complete step-N directory",
                                                     restart));
    if (!fs::exists(step_dir, ec))
      throw CheckpointError("--restart", fmt::format("{}: no such checkpoint directory", restart));
    if (!fs::is_directory(step_dir, ec))
      throw CheckpointError(
          "--restart",
          fmt::format("{}: not a directory (give a step-N directory or latest)", restart));
  }
  const fs::path file = step_dir / kCheckpointFileName;
  if (!fs::is_regular_file(file, ec) && restart != "latest") {
    std::vector<StepEntry> complete, unfinished;
    list_steps(step_dir.string(), complete, unfinished);
    if (!complete.empty())
      throw CheckpointError("--restart",
                            fmt::format("{}: a directory of checkpoints, not one checkpoint: give "
                                        "{} or --restart latest --checkpoint-dir {}",
                                        restart, complete.back().path.string(), restart));
  }
  if (!fs::is_regular_file(file, ec))
    throw CheckpointError("--restart",
                          fmt::format("{}: missing (not a complete checkpoint)", file.string()));
  return file.string();
}

void publish_checkpoint(const std::string& file, const std::string& tmp,
                        const std::string& final_dir) {
  // fdatasync: every rank's I/O thread synced its rows (and rank 0's the metadata HDF5
  // wrote); an fsync here also waited for a journal commit of the file's timestamps
  // behind the next checkpoint's data (mg class A: 45-75 ms per checkpoint).
  sync_path(file, /*data_only=*/true);
  sync_path(tmp);
  std::error_code ec;
  std::string aside;
  if (fs::exists(final_dir, ec)) {
    // A restarted run writes a step that the interrupted run had written already: the
    // contents are the same bits; keep the old one until the new one is in place.
    aside = final_dir + ".replaced";
    fs::remove_all(aside, ec);
    if (::rename(final_dir.c_str(), aside.c_str()) != 0)
      throw std::runtime_error(
          fmt::format("checkpoint: cannot move {} aside: {}", final_dir, std::strerror(errno)));
  }
  if (::rename(tmp.c_str(), final_dir.c_str()) != 0)
    throw std::runtime_error(fmt::format("checkpoint: cannot rename {} to {}: {}", tmp, final_dir,
                                         std::strerror(errno)));
  sync_path(fs::path(final_dir).parent_path().string());
  if (!aside.empty()) fs::remove_all(aside, ec);
}

std::vector<std::string> prune_checkpoints(const std::string& dir, int keep) {
  std::vector<StepEntry> complete, unfinished;
  list_steps(dir, complete, unfinished);
  std::error_code ec;
  std::vector<std::string> retired;
  // Removing a tree is not atomic: a crash in the middle would leave a step-N/ without its
  // file. Renamed first, it stops being a checkpoint at once.
  const auto retire = [&](const fs::path& path) {
    const fs::path doomed = path.string() + ".removing";
    if (::rename(path.c_str(), doomed.c_str()) == 0) retired.push_back(doomed.string());
  };
  const std::size_t kept = static_cast<std::size_t>(std::max(keep, 1));
  for (std::size_t i = 0; i + kept < complete.size(); ++i) retire(complete[i].path);
  if (!complete.empty())
    for (const StepEntry& u : unfinished)
      if (u.step < complete.back().step) retire(u.path);
  // What an interrupted removal or replacement left behind.
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    const std::string path = entry.path().string();
    if (name.rfind("step-", 0) == 0 &&
        (name.ends_with(".removing") || name.ends_with(".replaced")) &&
        std::find(retired.begin(), retired.end(), path) == retired.end())
      retired.push_back(path);
  }
  return retired;
}

void remove_retired(const std::vector<std::string>& paths) {
  std::error_code ec;
  for (const std::string& p : paths) fs::remove_all(p, ec);
}

}  // namespace tessera::detail
