// A Storage that keeps its files in memory: the test double that shows an engine reaches its
// files only through io::Storage (nothing it writes can appear on disk). Thread-safe, for the
// virtual ranks of comm::FakeWorld. Header-only, for tests.
#pragma once
#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "io/storage.h"

namespace tapio::io {

class MemoryStorage final : public Storage {
 public:
  // `dirs`: the directories that exist from the start (a dataset's parent).
  explicit MemoryStorage(std::set<std::string> dirs) : dirs_(std::move(dirs)) {}

  Result<std::unique_ptr<File>> open(const std::string& path, OpenMode mode, Counters*,
                                     const std::optional<LustreLayout>&) override {
    std::lock_guard<std::mutex> lock(m_);
    auto it = files_.find(path);
    if (mode == OpenMode::kCreate) {
      if (!dirs_.count(parent(path)))
        return error(TAPIO_ERR_NOT_FOUND, "open of '{}' for create failed: no directory '{}'",
                     path, parent(path));
      if (it == files_.end()) it = files_.emplace(path, std::make_shared<Bytes>()).first;
      std::lock_guard<std::mutex> bytes(it->second->m);
      it->second->data.clear();
    } else if (it == files_.end()) {
      return error(TAPIO_ERR_NOT_FOUND, "open of '{}' failed: no such file", path);
    }
    ++opens_;
    return std::unique_ptr<File>(new MemoryFile(path, it->second, mode == OpenMode::kReadOnly));
  }

  Status make_directory(const std::string& dir) override {
    std::lock_guard<std::mutex> lock(m_);
    if (!dirs_.count(parent(dir)))
      return error(TAPIO_ERR_NOT_FOUND, "cannot create directory '{}': no directory '{}'", dir,
                   parent(dir));
    dirs_.insert(dir);
    return ok_status();
  }

  Result<std::vector<StoredFile>> list(const std::string& dir,
                                       const std::string& prefix) override {
    std::lock_guard<std::mutex> lock(m_);
    if (!dirs_.count(dir)) return error(TAPIO_ERR_NOT_FOUND, "no directory '{}'", dir);
    std::vector<StoredFile> out;  // files_ is ordered by path, so by name within a directory
    for (const auto& [path, bytes] : files_) {
      const std::string name = path.substr(path.rfind('/') + 1);
      if (parent(path) != dir || name.rfind(prefix, 0) != 0) continue;
      std::lock_guard<std::mutex> b(bytes->m);
      out.push_back({name, bytes->data.size()});
    }
    return out;
  }

  Status remove(const std::string& path) override {
    std::lock_guard<std::mutex> lock(m_);
    files_.erase(path);
    return ok_status();
  }

  // One holder per path, in this process; a missing file is created or refused as by open.
  Result<std::unique_ptr<WriteLock>> lock(const std::string& path,
                                          const LockRequest& request) override {
    std::lock_guard<std::mutex> lock(m_);
    if (!files_.count(path)) {
      if (!request.create || !dirs_.count(parent(path)))
        return error(TAPIO_ERR_NOT_FOUND, "lock of '{}' failed: no such file", path);
      files_.emplace(path, std::make_shared<Bytes>());
    }
    if (!locked_.insert(path).second) return second_writer(path, "this process");
    return std::unique_ptr<WriteLock>(new MemoryLock(this, path));
  }

  // For the test's checks: every file's path, in order, and how many opens there were.
  std::vector<std::string> paths() const {
    std::lock_guard<std::mutex> lock(m_);
    std::vector<std::string> out;
    for (const auto& entry : files_) out.push_back(entry.first);
    return out;
  }
  int opens() const {
    std::lock_guard<std::mutex> lock(m_);
    return opens_;
  }

 private:
  struct Bytes {
    std::mutex m;
    std::vector<uint8_t> data;
  };

  class MemoryFile final : public File {
   public:
    MemoryFile(std::string path, std::shared_ptr<Bytes> bytes, bool read_only)
        : path_(std::move(path)), bytes_(std::move(bytes)), read_only_(read_only) {}
    Status write_at(uint64_t offset, const void* data, size_t n) override {
      if (read_only_) return error(TAPIO_ERR_IO, "write to '{}': opened read-only", path_);
      std::lock_guard<std::mutex> lock(bytes_->m);
      if (bytes_->data.size() < offset + n) bytes_->data.resize(offset + n);
      if (n > 0) std::memcpy(bytes_->data.data() + offset, data, n);
      return ok_status();
    }
    Status read_at(uint64_t offset, void* data, size_t n, size_t* got) override {
      std::lock_guard<std::mutex> lock(bytes_->m);
      const size_t size = bytes_->data.size();
      const size_t k = offset >= size ? 0 : std::min<size_t>(n, size - offset);
      if (k > 0) std::memcpy(data, bytes_->data.data() + offset, k);
      if (got) *got = k;
      return ok_status();
    }
    Status sync() override { return ok_status(); }
    Status truncate(uint64_t size) override {
      std::lock_guard<std::mutex> lock(bytes_->m);
      bytes_->data.resize(size);
      return ok_status();
    }
    Result<uint64_t> size() override {
      std::lock_guard<std::mutex> lock(bytes_->m);
      return static_cast<uint64_t>(bytes_->data.size());
    }
    Status close() override { return ok_status(); }
    const std::string& path() const override { return path_; }

   private:
    std::string path_;
    std::shared_ptr<Bytes> bytes_;
    bool read_only_;
  };

  class MemoryLock final : public WriteLock {
   public:
    MemoryLock(MemoryStorage* storage, std::string path)
        : storage_(storage), path_(std::move(path)) {}
    ~MemoryLock() override {
      std::lock_guard<std::mutex> lock(storage_->m_);
      storage_->locked_.erase(path_);
    }

   private:
    MemoryStorage* storage_;
    std::string path_;
  };

  static std::string parent(const std::string& path) {
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? "." : path.substr(0, slash);
  }

  mutable std::mutex m_;
  std::set<std::string> dirs_;
  std::map<std::string, std::shared_ptr<Bytes>> files_;
  std::set<std::string> locked_;  // paths a writer's lock holds
  int opens_ = 0;
};

}  // namespace tapio::io
