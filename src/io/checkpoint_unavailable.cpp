// The checkpoint and plot-file layer in a SimGrid SMPI build (TESSERA_SMPI): parallel HDF5
// is built against a real MPI and cannot run inside the simulator, so writing or reading a
// checkpoint or writing a plot file there fails up front with an error naming the option,
// and nothing else of the program changes. Normal builds compile checkpoint_writer.cpp,
// checkpoint_reader.cpp and plot_file.cpp instead and nothing of this file.
#ifdef TESSERA_SMPI

#include "tessera/io/checkpoint_reader.hpp"
#include "tessera/io/checkpoint_writer.hpp"
#include "tessera/io/plot_file.hpp"

#include <stdexcept>
#include <string>

namespace tessera {

namespace {
[[noreturn]] void unavailable(const char* option) {
  throw CheckpointError(option, "checkpoints need parallel HDF5, which an SMPI build lacks");
}
}  // namespace

// Never created here; complete so that the writer's members can be destroyed.
struct CheckpointWriter::InFlight {};

CheckpointWriter::CheckpointWriter(Comm& comm, CheckpointOptions options)
    : comm_(comm), options_(std::move(options)) {
  unavailable("--checkpoint-every");
}
CheckpointWriter::~CheckpointWriter() = default;
void CheckpointWriter::submit(const CheckpointHeader&, const CheckpointBlocks&,
                              const std::vector<CheckpointField>&) {
  unavailable("--checkpoint-every");
}
void CheckpointWriter::wait() {}

CheckpointReader::CheckpointReader(MPI_Comm, const std::string&, const std::string&,
                                   const std::string&) {
  unavailable("--restart");
}
CheckpointReader::~CheckpointReader() = default;
std::vector<CheckpointPlace> CheckpointReader::read_places() {
  unavailable("--restart");
}
std::vector<double> CheckpointReader::read_field(const std::string&, std::int64_t, std::int64_t,
                                                 std::size_t) {
  unavailable("--restart");
}
void CheckpointReader::read_field(const std::string&, std::int64_t, std::int64_t, std::size_t,
                                  const std::function<void(std::int64_t, const double*)>&) {
  unavailable("--restart");
}

// The adaptive driver asks this before any work when --output-every > 0, so a plot file
// is refused up front; write_plot_file is then never reached.
std::string output_directory_problem(const std::string&) {
  return "plot files need parallel HDF5, which an SMPI build lacks (use --output-every 0)";
}
PlotFiles write_plot_file(AmrMesh&, const PlotOutput&) {
  throw std::runtime_error("plot files need parallel HDF5, which an SMPI build lacks");
}

}  // namespace tessera

#endif
