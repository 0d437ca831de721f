// The `aligned` layer: writes are coalesced and cut at `align` boundaries, so storage sees only
// well-formed requests: whole align units at unit boundaries, and a partial unit only where the
// program's writes leave one (at a jump, sync, close). Reads are cut at the same boundaries.
// With a direct file (O_DIRECT, io::open_posix_direct) whole units go through it from aligned
// memory, bypassing the page cache; partial units always go through the inner file, which
// O_DIRECT could not take (docs/design.md, "Buffering layers").
#pragma once
#include <cstdint>
#include <memory>

#include "io/file.h"

namespace tapio::io {

class AlignedFile final : public File {
 public:
  // `align` > 0; with `direct`, a multiple of the device's block size (4096 is safe).
  AlignedFile(std::unique_ptr<File> inner, uint64_t align, std::unique_ptr<File> direct);
  ~AlignedFile() override { (void)close(); }

  Status write_at(uint64_t offset, const void* data, size_t n) override;
  Status read_at(uint64_t offset, void* data, size_t n, size_t* got) override;
  Status sync() override;
  Status flush() override;
  Status truncate(uint64_t size) override;
  Status allocate(uint64_t offset, uint64_t length) override;
  Result<uint64_t> size() override;
  Status close() override;
  const std::string& path() const override { return inner_->path(); }

 private:
  struct FreeAligned {
    void operator()(uint8_t* p) const;
  };

  // Writes the pending bytes: a whole unit through the direct file when there is one.
  Status flush_pending();
  // One whole unit at `offset` (a multiple of align_).
  Status write_unit(uint64_t offset, const uint8_t* bytes);

  std::unique_ptr<File> inner_;
  std::unique_ptr<File> direct_;
  uint64_t align_;
  // Bytes written but not yet sent, [pending_offset_, + pending_) inside one unit, kept at
  // their place in the unit's buffer (memory aligned to 4096 for O_DIRECT).
  std::unique_ptr<uint8_t, FreeAligned> unit_;
  uint64_t pending_offset_ = 0;
  uint64_t pending_ = 0;
};

}  // namespace tapio::io
