// The POSIX Storage: files through open_posix and locks through lock_posix (and so the syscall
// table), directories through std::filesystem; and what the Storage interface answers for
// storages without direct I/O or file-system kinds.
#include <algorithm>
#include <filesystem>

#include "io/storage.h"

namespace tapio::io {
namespace {

namespace fs = std::filesystem;

class PosixStorage final : public Storage {
 public:
  Result<std::unique_ptr<File>> open(const std::string& path, OpenMode mode, Counters* counters,
                                     const std::optional<LustreLayout>& striping) override {
    return open_posix(path, mode, counters, striping);
  }

  Status make_directory(const std::string& dir) override {
    std::error_code ec;
    fs::create_directory(dir, ec);
    if (ec == std::errc::no_such_file_or_directory)
      return error(TAPIO_ERR_NOT_FOUND,
                   "cannot create directory '{}': its parent directory '{}' does not exist", dir,
                   fs::path(dir).parent_path().string());
    if (ec) return error(TAPIO_ERR_IO, "cannot create directory '{}': {}", dir, ec.message());
    return ok_status();
  }

  Result<std::vector<StoredFile>> list(const std::string& dir,
                                       const std::string& prefix) override {
    std::vector<StoredFile> files;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.rfind(prefix, 0) != 0 || !it->is_regular_file(ec)) continue;
      const uintmax_t size = it->file_size(ec);
      if (ec) break;
      files.push_back({name, static_cast<uint64_t>(size)});
    }
    if (ec)
      return error(ec == std::errc::no_such_file_or_directory ? TAPIO_ERR_NOT_FOUND : TAPIO_ERR_IO,
                   "listing directory '{}' failed: {}", dir, ec.message());
    std::sort(files.begin(), files.end(),
              [](const StoredFile& a, const StoredFile& b) { return a.name < b.name; });
    return files;
  }

  Result<std::unique_ptr<File>> open_direct(const std::string& path,
                                            Counters* counters) override {
    return open_posix_direct(path, counters);
  }

  FileSystemInfo file_system(const std::string& path) override { return detect_filesystem(path); }

  Status remove(const std::string& path) override {
    std::error_code ec;
    fs::remove(path, ec);
    if (ec) return error(TAPIO_ERR_IO, "cannot remove '{}': {}", path, ec.message());
    return ok_status();
  }

  Result<std::unique_ptr<WriteLock>> lock(const std::string& path,
                                          const LockRequest& request) override {
    return lock_posix(path, request);
  }
};

}  // namespace

Result<std::unique_ptr<File>> Storage::open_direct(const std::string& path, Counters*) {
  return error(TAPIO_ERR_UNSUPPORTED, "'{}': this storage has no direct I/O", path);
}

FileSystemInfo Storage::file_system(const std::string&) { return {}; }

Storage& posix_storage() {
  static PosixStorage storage;
  return storage;
}

}  // namespace tapio::io
