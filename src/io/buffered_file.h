// The `buffered` layer (Cray FFIO's `bufa`): small writes are gathered into `buffers` buffers of
// `buffer_size` bytes that a background thread writes while the next fills (write-behind), and
// a small read brings in a whole buffer from its offset, so the reads after it are served from
// memory (sequential read-ahead). Storage sees buffer_size requests instead of many small ones.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "io/file.h"
#include "io/write_behind.h"

namespace tapio::io {

class BufferedFile final : public File {
 public:
  // buffers >= 1; with one, a full buffer is written before the call returns (no thread).
  BufferedFile(std::unique_ptr<File> inner, uint64_t buffer_size, uint32_t buffers);
  ~BufferedFile() override { (void)close(); }

  Status write_at(uint64_t offset, const void* data, size_t n) override;
  Status read_at(uint64_t offset, void* data, size_t n, size_t* got) override;
  // Every buffered byte is on storage (the inner file synced) before this returns.
  Status sync() override;
  Status flush() override;
  Status truncate(uint64_t size) override;
  Status allocate(uint64_t offset, uint64_t length) override;
  Result<uint64_t> size() override;
  Status close() override;
  const std::string& path() const override { return inner_->path(); }

 private:
  // One write-behind buffer: `used` bytes meant for [offset, offset + used).
  struct Slot {
    std::vector<uint8_t> bytes;
    uint64_t offset = 0;
    size_t used = 0;
    WriteBehind::Ticket ticket = 0;  // the write that last read this slot
  };

  // The first failure of a background write so far, without waiting.
  Status check();
  // Hands the filling slot to storage and makes the next one ready to fill.
  Status flush_slot();
  // flush_slot, then waits for every queued write: the inner file is this thread's again.
  Status settle();
  // Keeps the first failure of a background write: the file stays failed, so no later call
  // (nor sync, nor close) can report success for data that never reached storage.
  Status keep(Status st);
  void drop_read_ahead(uint64_t offset, uint64_t n);

  std::unique_ptr<File> inner_;
  uint64_t buffer_size_;
  std::vector<Slot> slots_;
  size_t filling_ = 0;
  std::unique_ptr<WriteBehind> behind_;  // null with one buffer
  Status failed_;
  std::vector<uint8_t> ahead_;  // read-ahead: bytes [ahead_offset_, + ahead_.size())
  uint64_t ahead_offset_ = 0;
  bool closed_ = false;
};

}  // namespace tapio::io
