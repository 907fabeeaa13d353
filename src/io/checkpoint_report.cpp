#include "tessera/io/checkpoint_report.hpp"

#include "tessera/io/checkpoint_writer.hpp"

namespace tessera {

nlohmann::json checkpoint_report(const CheckpointWriter* writer, const CheckpointRestore& restore) {
  return {{"restarted_from", restore.restarted_from},
          {"written", writer ? writer->written() : 0},
          {"write_s", writer ? writer->write_seconds() : 0.0},
          {"write_phases_s",
           writer ? nlohmann::json(writer->write_phase_seconds()) : nlohmann::json::object()},
          {"bytes", writer ? writer->last_bytes() : std::int64_t{0}},
          {"read_s", restore.read_s},
          {"read_phases_s", restore.read_phases_s},
          {"restore_s", restore.restore_s}};
}

}  // namespace tessera
