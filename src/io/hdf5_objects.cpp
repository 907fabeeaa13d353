#include "io/hdf5_objects.hpp"

#include <vector>

namespace tessera::detail {

void silence_hdf5_errors() {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

namespace {

Hid string_type(std::size_t size) {
  Hid type(H5Tcopy(H5T_C_S1), H5Tclose);
  if (!type.valid()) return type;
  // Fixed length (at least 1 byte: HDF5 rejects size 0), UTF-8, as h5py reads it as bytes.
  H5Tset_size(type.get(), size == 0 ? 1 : size);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  H5Tset_strpad(type.get(), H5T_STR_NULLPAD);
  return type;
}

template <class T>
bool write_scalar(hid_t object, const char* name, hid_t type, const T& value) {
  Hid space(H5Screate(H5S_SCALAR), H5Sclose);
  if (!space.valid()) return false;
  Hid attr(H5Acreate2(object, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (!attr.valid()) return false;
  return H5Awrite(attr.get(), type, &value) >= 0;
}

template <class T>
bool read_scalar(hid_t object, const char* name, hid_t type, H5T_class_t klass, T& value) {
  if (H5Aexists(object, name) <= 0) return false;
  Hid attr(H5Aopen(object, name, H5P_DEFAULT), H5Aclose);
  if (!attr.valid()) return false;
  Hid stored(H5Aget_type(attr.get()), H5Tclose);
  if (!stored.valid() || H5Tget_class(stored.get()) != klass) return false;
  return H5Aread(attr.get(), type, &value) >= 0;
}

}  // namespace

bool write_attribute(hid_t object, const char* name, const std::string& value) {
  Hid type = string_type(value.size());
  if (!type.valid()) return false;
  Hid space(H5Screate(H5S_SCALAR), H5Sclose);
  Hid attr(H5Acreate2(object, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (!attr.valid()) return false;
  const std::string padded = value.empty() ? std::string(1, '\0') : value;
  return H5Awrite(attr.get(), type.get(), padded.data()) >= 0;
}

bool write_attribute(hid_t object, const char* name, std::int64_t value) {
  return write_scalar(object, name, H5T_NATIVE_INT64, value);
}
bool write_attribute(hid_t object, const char* name, std::uint64_t value) {
  return write_scalar(object, name, H5T_NATIVE_UINT64, value);
}
bool write_attribute(hid_t object, const char* name, double value) {
  return write_scalar(object, name, H5T_NATIVE_DOUBLE, value);
}

bool read_attribute(hid_t object, const char* name, std::string& value) {
  if (H5Aexists(object, name) <= 0) return false;
  Hid attr(H5Aopen(object, name, H5P_DEFAULT), H5Aclose);
  if (!attr.valid()) return false;
  Hid stored(H5Aget_type(attr.get()), H5Tclose);
  if (!stored.valid() || H5Tget_class(stored.get()) != H5T_STRING ||
      H5Tis_variable_str(stored.get()) != 0)
    return false;
  const std::size_t size = H5Tget_size(stored.get());
  std::vector<char> buffer(size + 1, '\0');
  if (H5Aread(attr.get(), stored.get(), buffer.data()) < 0) return false;
  value.assign(buffer.data());  // up to the first NUL (null padding)
  return true;
}

bool read_attribute(hid_t object, const char* name, std::int64_t& value) {
  return read_scalar(object, name, H5T_NATIVE_INT64, H5T_INTEGER, value);
}
bool read_attribute(hid_t object, const char* name, std::uint64_t& value) {
  return read_scalar(object, name, H5T_NATIVE_UINT64, H5T_INTEGER, value);
}
bool read_attribute(hid_t object, const char* name, double& value) {
  return read_scalar(object, name, H5T_NATIVE_DOUBLE, H5T_FLOAT, value);
}

RowSelection select_rows(hid_t dataset, std::int64_t first, std::int64_t count,
                         std::int64_t width) {
  const hsize_t start[2] = {static_cast<hsize_t>(first), 0};
  const hsize_t size[2] = {static_cast<hsize_t>(count), static_cast<hsize_t>(width)};
  const hsize_t one_row[2] = {1, static_cast<hsize_t>(width)};
  RowSelection rows{Hid(H5Dget_space(dataset), H5Sclose),
                    Hid(H5Screate_simple(2, count > 0 ? size : one_row, nullptr), H5Sclose)};
  if (!rows.valid()) return rows;
  if (count > 0) {
    if (H5Sselect_hyperslab(rows.file_space.get(), H5S_SELECT_SET, start, nullptr, size, nullptr) <
        0)
      rows.file_space = Hid();
  } else {
    H5Sselect_none(rows.file_space.get());
    H5Sselect_none(rows.memory_space.get());
  }
  return rows;
}

}  // namespace tessera::detail
