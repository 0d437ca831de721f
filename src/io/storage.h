// Where an engine's files live: the narrow interface every engine creates, opens, lists, locks
// and removes its files through (the bytes themselves move through io::File), and asks what
// file system holds them. POSIX is the one implementation; an object store would map a
// directory to a key prefix and a file to an object (docs/design.md, "Storage").
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "io/file.h"
#include "io/filesystem.h"
#include "io/write_lock.h"

namespace tapio::io {

// A file found by Storage::list: its name within the directory, and its size in bytes.
struct StoredFile {
  std::string name;
  uint64_t size = 0;
};

class Storage {
 public:
  virtual ~Storage() = default;

  // Open or create one file (see OpenMode; `striping` as for open_posix). Errors name the path;
  // a missing file is TAPIO_ERR_NOT_FOUND.
  virtual Result<std::unique_ptr<File>> open(const std::string& path, OpenMode mode,
                                             Counters* counters,
                                             const std::optional<LustreLayout>& striping = {}) = 0;
  // Make directory `dir` if it does not exist; not its parents: a missing parent is
  // TAPIO_ERR_NOT_FOUND naming it, as a mistyped path should be.
  virtual Status make_directory(const std::string& dir) = 0;
  // The files directly in `dir` whose names start with `prefix`, sorted by name.
  virtual Result<std::vector<StoredFile>> list(const std::string& dir,
                                               const std::string& prefix = "") = 0;
  // Open an existing file again for direct I/O (the aligned layer's twin, io/layers.h): whole
  // aligned units, no cache. TAPIO_ERR_UNSUPPORTED where the storage has no such thing.
  virtual Result<std::unique_ptr<File>> open_direct(const std::string& path, Counters* counters);
  // What file system holds `path`, which need not exist yet (the defaults of
  // engine/file_system_defaults.h follow from it); kind unknown where the storage has none.
  virtual FileSystemInfo file_system(const std::string& path);
  // Remove one file; one already gone is not an error.
  virtual Status remove(const std::string& path) = 0;
  // A writer's exclusive lock on `path` (io/write_lock.h; call it through lock_writer, which
  // resolves the policy), taken without waiting, before anything it guards changes. Null when
  // best effort met a file system without locks.
  virtual Result<std::unique_ptr<WriteLock>> lock(const std::string& path,
                                                  const LockRequest& request) = 0;
};

// The POSIX file system: open_posix for files, std::filesystem for directories, fcntl(2) for
// locks, statfs(2) for the file system. Stateless and shared.
Storage& posix_storage();

}  // namespace tapio::io
