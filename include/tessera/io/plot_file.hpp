#pragma once
// Plot files of an adaptive mesh (layer `io`): one parallel HDF5 file per output holding
// every rank's blocks on every level (cell data of the variables the caller names, and per
// block its level, owner rank, origin and cell spacing), an XDMF description of it that
// ParaView and VisIt open directly (one uniform grid per block in a spatial collection),
// and an XDMF time series over every output of the directory. docs/output.md describes the
// layout; tools/plot_file.py reads it with h5py.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/amr/mesh.hpp"

namespace tessera {

/// One variable of the mesh's blocks, written as the cell-data field `name`.
struct PlotVariable {
  std::string name;  ///< dataset name under /fields: letters, digits, '_', '-', '.'
  int var = 0;       ///< variable index in the blocks: 0..num_vars - 1
};

/// What one output holds and where it goes.
struct PlotOutput {
  std::string dir;        ///< directory of the files (created if missing)
  std::string prefix;     ///< file-name prefix, without '/': files are PREFIX_<step>.*
  std::int64_t step = 0;  ///< cycle or step number (>= 0): names the files, orders the series
  double time = 0;        ///< simulation time, stored in the files and the series
  /// The physical domain box: the forest's unit cube maps onto [lo, hi] (a flat z axis of a
  /// 2-D forest spans it with one cell).
  std::array<double, 3> lo{0, 0, 0}, hi{1, 1, 1};
  std::vector<PlotVariable> variables;
};

/// The files one output wrote (paths).
struct PlotFiles {
  std::string data;              ///< DIR/PREFIX_<step>.h5
  std::string description;       ///< DIR/PREFIX_<step>.xmf: this output alone
  std::string series;            ///< DIR/PREFIX.xdmf: every output in DIR up to this step
  std::int64_t field_bytes = 0;  ///< cell data of all ranks in the HDF5 file
  double seconds = 0;            ///< this rank's wall time in write_plot_file, all files renamed
};

/// Writes one output of `mesh`. Collective over the mesh's communicator, every rank with the
/// same `output`; main thread (HDF5 is not thread-safe), with no task in flight that writes
/// the blocks (e.g. after Exec::barrier()). Rank 0 creates the HDF5 file (attributes,
/// /blocks, the field datasets allocated); every rank writes its own blocks' cell data into
/// it at the offsets HDF5 allocated and flushes them to disk; rank 0 then renames it and
/// writes the XDMF files, rebuilding the series from the PREFIX_<n>.xmf files in DIR with
/// n <= step (so a restarted run continues the series). Every file is written under a
/// temporary name and renamed once complete. On a failure on any rank, throws
/// std::runtime_error naming the file on every rank, and leaves no partial file behind.
/// Throws std::invalid_argument (before any collective call) for a bad name or variable
/// index.
PlotFiles write_plot_file(AmrMesh& mesh, const PlotOutput& output);

/// Empty if `dir` exists or can be created and a file can be created in it; else one line
/// saying why not. Any thread, not collective: every rank may check the same directory (its
/// probe file has a name of its own).
std::string output_directory_problem(const std::string& dir);

}  // namespace tessera
