// The pieces of the POSIX transport (posix_file.cpp) that a writer's lock (write_lock.cpp)
// shares: inside the io layer only.
#pragma once
#include <string>

#include "core/status.h"

namespace tapio::io {

// strerror's text for `err`, thread-safe.
std::string errno_string(int err);

// The descriptor a writer's lock holds: `path` opened read-write through the syscall table,
// never truncated; created if missing when `create` (as a file without objects on Lustre when
// `striped`, so that the create that follows still gives it its layout). Errors are worded as
// open_posix's for kCreate and kReadWrite (a missing file is TAPIO_ERR_NOT_FOUND).
Result<int> open_posix_for_lock(const std::string& path, bool create, bool striped);

}  // namespace tapio::io
