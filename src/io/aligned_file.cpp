#include "io/aligned_file.h"

#include <stdlib.h>

#include <algorithm>
#include <cstring>
#include <new>

namespace tapio::io {
namespace {

// O_DIRECT wants memory aligned to the logical block size; 4096 covers every device in use.
constexpr size_t kMemoryAlign = 4096;

}  // namespace

void AlignedFile::FreeAligned::operator()(uint8_t* p) const { free(p); }

AlignedFile::AlignedFile(std::unique_ptr<File> inner, uint64_t align, std::unique_ptr<File> direct)
    : inner_(std::move(inner)), direct_(std::move(direct)), align_(align) {
  void* p = nullptr;
  if (posix_memalign(&p, kMemoryAlign, align_) != 0) throw std::bad_alloc();
  unit_.reset(static_cast<uint8_t*>(p));
}

Status AlignedFile::write_unit(uint64_t offset, const uint8_t* bytes) {
  if (!direct_) return inner_->write_at(offset, bytes, align_);
  if (bytes != unit_.get()) std::memcpy(unit_.get(), bytes, align_);  // aligned memory
  return direct_->write_at(offset, unit_.get(), align_);
}

Status AlignedFile::flush_pending() {
  if (pending_ == 0) return ok_status();
  const uint64_t start = pending_offset_ % align_;
  const uint64_t n = std::exchange(pending_, 0);
  if (n == align_) return write_unit(pending_offset_, unit_.get());
  return inner_->write_at(pending_offset_, unit_.get() + start, n);
}

Status AlignedFile::write_at(uint64_t offset, const void* data, size_t n) {
  const uint8_t* bytes = static_cast<const uint8_t*>(data);
  while (n > 0) {
    if (pending_ > 0 && offset != pending_offset_ + pending_)
      TAPIO_RETURN_IF_ERROR(flush_pending());
    const uint64_t in_unit = offset % align_;
    if (pending_ == 0 && in_unit == 0 && n >= align_) {
      TAPIO_RETURN_IF_ERROR(write_unit(offset, bytes));  // a whole unit needs no coalescing
      offset += align_, bytes += align_, n -= align_;
      continue;
    }
    if (pending_ == 0) pending_offset_ = offset;
    const uint64_t take = std::min<uint64_t>(n, align_ - in_unit);
    std::memcpy(unit_.get() + in_unit, bytes, take);
    pending_ += take;
    offset += take, bytes += take, n -= take;
    if (in_unit + take == align_) TAPIO_RETURN_IF_ERROR(flush_pending());  // the unit is done
  }
  return ok_status();
}

Status AlignedFile::read_at(uint64_t offset, void* data, size_t n, size_t* got) {
  if (got != nullptr) *got = 0;
  TAPIO_RETURN_IF_ERROR(flush_pending());  // reads see this file's writes
  uint8_t* bytes = static_cast<uint8_t*>(data);
  size_t done = 0;
  while (done < n) {
    const uint64_t at = offset + done;
    const size_t want = std::min<uint64_t>(n - done, align_ - at % align_);
    size_t read = 0;
    const Status st = inner_->read_at(at, bytes + done, want, &read);
    done += read;
    if (got != nullptr) *got = done;
    TAPIO_RETURN_IF_ERROR(st);
    if (read < want) break;  // end of file
  }
  return ok_status();
}

Status AlignedFile::sync() {
  TAPIO_RETURN_IF_ERROR(flush_pending());
  // fsync on any descriptor of a file flushes the file: one call covers both.
  return inner_->sync();
}

Status AlignedFile::flush() {
  TAPIO_RETURN_IF_ERROR(flush_pending());
  return inner_->flush();
}

Status AlignedFile::truncate(uint64_t size) {
  TAPIO_RETURN_IF_ERROR(flush_pending());
  return inner_->truncate(size);
}

Status AlignedFile::allocate(uint64_t offset, uint64_t length) {
  TAPIO_RETURN_IF_ERROR(flush_pending());
  return inner_->allocate(offset, length);
}

Result<uint64_t> AlignedFile::size() {
  TAPIO_RETURN_IF_ERROR(flush_pending());
  return inner_->size();
}

Status AlignedFile::close() {
  Status st = flush_pending();
  if (direct_) {
    const Status closing = direct_->close();
    if (st.ok()) st = closing;
  }
  const Status closing = inner_->close();
  return st.ok() ? closing : st;
}

}  // namespace tapio::io
