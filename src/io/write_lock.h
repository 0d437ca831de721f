// A writer's exclusive lock on what it writes, so that a second job writing the same path fails
// at open instead of splicing its steps into the first's or deleting them (docs/reliability.md,
// "A second writer"). HDF5's model, a non-blocking kernel lock on the file (a NetCDF file itself;
// a subfile dataset's lock file, which also records the holder), taken before anything is
// truncated or removed and held until the writer closes; the kernel releases it when the
// process dies, so a crash leaves no stale lock. Readers take none. Not flock(2) but a lock of
// the open file description on one byte far past the data (fcntl F_OFD_SETLK), which the
// byte-range locks MPI-IO takes around its writes never meet (write_lock.cpp).
#pragma once
#include <memory>
#include <string>
#include <string_view>

#include "core/status.h"

namespace tapio::io {

class Storage;

// The `file_locking` parameter: lock (default), lock where the file system can and write
// unlocked where it answers that it cannot (ENOSYS, ENOLCK, EOPNOTSUPP), or never lock.
enum class Locking { kOn, kBestEffort, kOff };

// The environment variable that overrides `file_locking` on the rank that takes the lock, as
// HDF5_USE_FILE_LOCKING overrides HDF5's setting: for a file system without locks, without
// touching the program or its configuration.
inline constexpr const char* kLockingEnv = "TAPIO_FILE_LOCKING";

// The policy: TAPIO_FILE_LOCKING when set, else `param` (the parameter's text: "true",
// "best_effort", "false"). A value outside these (any case) is TAPIO_ERR_CONFIG naming it.
Result<Locking> locking_policy(std::string_view param);

struct LockRequest {
  Locking locking = Locking::kOn;
  bool create = false;         // write mode: create the file if missing (never truncate it)
  bool striped = false;        // Lustre: a file created here gets its layout from the create
                               // that follows (made without objects)
  bool record_holder = false;  // write the holder (host, pid, time) into the file: a lock file
};

// Held while alive: destroying it releases the lock (and empties a recorded holder).
class WriteLock {
 public:
  virtual ~WriteLock() = default;
};

// Take the lock on `path` through `storage` (Storage::lock), the policy resolved from
// `file_locking` and TAPIO_FILE_LOCKING first. Null when no lock is held: locking off, or best
// effort where the file system has no locks. A path another writer holds is TAPIO_ERR_IO
// naming the path and, where it was recorded, the holder (second_writer); a file system
// without locks, under the default policy, TAPIO_ERR_UNSUPPORTED naming the way out.
Result<std::unique_ptr<WriteLock>> lock_writer(Storage& storage, const std::string& path,
                                               std::string_view file_locking,
                                               LockRequest request);

// The error of a second writer: `path` is held by `holder` ("" when unknown).
Status second_writer(const std::string& path, const std::string& holder);

// The POSIX lock (PosixStorage::lock): F_OFD_SETLK through the syscall table.
Result<std::unique_ptr<WriteLock>> lock_posix(const std::string& path,
                                              const LockRequest& request);

}  // namespace tapio::io
