#pragma once
// The on-disk layout of a checkpoint directory: DIR/step-N/checkpoint.h5 once complete,
// DIR/step-N.tmp/ while being written. Publishing flushes to disk and renames, so a
// directory named step-N is always complete. Plain POSIX calls, rank 0 only for changes.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tessera::detail {

inline constexpr const char* kCheckpointFileName = "checkpoint.h5";

/// DIR/step-N (without the .tmp suffix).
std::string step_directory(const std::string& dir, std::int64_t step);
/// N if `name` is exactly "step-N" (N decimal, no sign), else nothing.
std::optional<std::int64_t> complete_step_of(const std::string& name);
/// N if `name` is exactly "step-N.tmp".
std::optional<std::int64_t> unfinished_step_of(const std::string& name);

/// The step directory a restart reads: `restart` itself, or for "latest" the newest
/// complete step-N/ in `dir`. Throws CheckpointError("--restart", ...) when there is none,
/// when the directory or its file is missing, or when it is an unfinished .tmp directory.
/// Returns the path of the HDF5 file.
std::string resolve_restart_file(const std::string& restart, const std::string& dir);

/// Flushes `file` (fdatasync: its bytes and size; every writer has already synced its own
/// rows) and the directory `tmp` to disk, renames `tmp` to `final_dir` (a complete
/// checkpoint of the same step already there is replaced), and flushes the parent
/// directory. Throws std::runtime_error naming the path on failure.
void publish_checkpoint(const std::string& file, const std::string& tmp,
                        const std::string& final_dir);

/// Retires all but the newest `keep` complete checkpoints of `dir`, and unfinished .tmp
/// directories older than the newest complete one (left by interrupted runs): renames each
/// to NAME.removing (no longer a checkpoint at once) and returns those paths, with any
/// NAME.removing or NAME.replaced an interrupted run left, for remove_retired.
std::vector<std::string> prune_checkpoints(const std::string& dir, int keep);
/// Removes the directories prune_checkpoints retired (unlinking a large file takes tens of
/// milliseconds: the writer does it on its I/O thread). Errors are ignored: a leftover is
/// retired again by the next prune.
void remove_retired(const std::vector<std::string>& paths);

}  // namespace tessera::detail
