#pragma once
// Names shared by the checkpoint writer and reader (the file layout is documented in
// docs/checkpoint.md).

#include <cstdint>

namespace tessera::detail {

inline constexpr const char* kCheckpointFormat = "tessera-checkpoint";
inline constexpr std::int64_t kCheckpointFormatVersion = 1;

}  // namespace tessera::detail
