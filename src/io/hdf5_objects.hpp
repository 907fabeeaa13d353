#pragma once
// Small RAII owners and attribute helpers over HDF5's C API for the checkpoint files.
// HDF5 here is not thread-safe: everything in this file runs on a rank's main thread.

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <utility>

namespace tessera::detail {

/// Owns one HDF5 identifier and closes it with the matching H5*close.
class Hid {
 public:
  using Closer = herr_t (*)(hid_t);
  Hid() = default;
  Hid(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  Hid(Hid&& o) noexcept : id_(std::exchange(o.id_, -1)), closer_(o.closer_) {}
  Hid& operator=(Hid&& o) noexcept {
    reset();
    id_ = std::exchange(o.id_, -1);
    closer_ = o.closer_;
    return *this;
  }
  Hid(const Hid&) = delete;
  Hid& operator=(const Hid&) = delete;
  ~Hid() { reset(); }
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  /// Closes now; returns false if the close failed (a file close can fail on I/O).
  bool reset() {
    bool ok = true;
    if (id_ >= 0 && closer_ != nullptr) ok = closer_(id_) >= 0;
    id_ = -1;
    return ok;
  }

 private:
  hid_t id_ = -1;
  Closer closer_ = nullptr;
};

/// Turns HDF5's automatic error-stack printing off for this process: the checkpoint code
/// reports its own one-line errors. Idempotent.
void silence_hdf5_errors();

/// Writes a scalar attribute on `object`. Collective in parallel HDF5: every rank passes
/// the same value. Return false on failure.
bool write_attribute(hid_t object, const char* name, const std::string& value);
bool write_attribute(hid_t object, const char* name, std::int64_t value);
bool write_attribute(hid_t object, const char* name, std::uint64_t value);
bool write_attribute(hid_t object, const char* name, double value);

/// Reads a scalar attribute; false if it is missing or of another kind.
bool read_attribute(hid_t object, const char* name, std::string& value);
bool read_attribute(hid_t object, const char* name, std::int64_t& value);
bool read_attribute(hid_t object, const char* name, std::uint64_t& value);
bool read_attribute(hid_t object, const char* name, double& value);

/// The file and memory dataspaces for rows [first, first + count) of a 2-D dataset of
/// `width` columns. A rank with no rows selects nothing in both, so it still takes part in
/// a collective read or write. valid() is false when HDF5 refused a step.
struct RowSelection {
  Hid file_space;
  Hid memory_space;
  bool valid() const { return file_space.valid() && memory_space.valid(); }
};
RowSelection select_rows(hid_t dataset, std::int64_t first, std::int64_t count, std::int64_t width);

}  // namespace tessera::detail
