#pragma once
// One output file made of every rank's piece of text in rank order, written by all ranks
// at once: each rank writes its own piece at its offset (MPI-IO), so no rank funnels the
// others' text through memory and the file-system copies run in parallel.

#include <mpi.h>

#include <string>
#include <string_view>

namespace tessera::obs {

/// Collective over `comm` (main thread). Writes `head` (taken from rank 0), then every
/// rank's `piece` in rank order, then `tail` (from rank 0) as the file `path`. The file
/// appears complete or not at all (written under a temporary name, renamed by rank 0).
/// On any rank's I/O error every rank throws std::runtime_error
/// "<label>: cannot write '<path>': <reason>" and no file is left behind.
void write_rank_ordered_file(const std::string& path, std::string_view label,
                             std::string_view head, std::string_view piece, std::string_view tail,
                             MPI_Comm comm);

}  // namespace tessera::obs
