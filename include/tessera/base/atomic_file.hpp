#pragma once
// Whole-file writes that a reader never sees half done (layer `base`): the text goes to a
// temporary name beside the target, is flushed, then renamed over it, so after a crash or
// a failed write `path` holds either its old content or the new one, never a part.

#include <string>

namespace tessera {

/// Writes `text` to `path` atomically: to `path.tmp.<pid>`, then rename. Throws
/// std::runtime_error naming the path on failure (the temporary file is removed when the
/// rename fails). Callable from any thread; two concurrent writers of one path leave one of
/// the two texts.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace tessera
