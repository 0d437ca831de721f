#include "io/buffered_file.h"

#include <algorithm>
#include <cstring>

namespace tapio::io {

BufferedFile::BufferedFile(std::unique_ptr<File> inner, uint64_t buffer_size, uint32_t buffers)
    : inner_(std::move(inner)), buffer_size_(buffer_size), slots_(std::max<uint32_t>(buffers, 1)) {
  if (slots_.size() > 1) behind_ = std::make_unique<WriteBehind>();
}

Status BufferedFile::keep(Status st) {
  if (!st.ok() && failed_.ok()) failed_ = st;
  return failed_;
}

Status BufferedFile::check() {
  // wait(0) does not block: it hands over a background write's failure, if one happened.
  return keep(behind_ ? behind_->wait(0) : Status());
}

Status BufferedFile::flush_slot() {
  Slot& s = slots_[filling_];
  if (s.used == 0) return failed_;
  if (!behind_) {
    const Status st = inner_->write_at(s.offset, s.bytes.data(), s.used);
    s.used = 0;
    return keep(st);
  }
  s.ticket = behind_->submit([this, &s] { return inner_->write_at(s.offset, s.bytes.data(), s.used); });
  filling_ = (filling_ + 1) % slots_.size();
  Slot& next = slots_[filling_];
  // The next slot is reused only once the write that read it has finished.
  const Status st = behind_->wait(next.ticket);
  next.used = 0;
  return keep(st);
}

Status BufferedFile::settle() {
  TAPIO_RETURN_IF_ERROR(flush_slot());
  return keep(behind_ ? behind_->drain() : Status());
}

void BufferedFile::drop_read_ahead(uint64_t offset, uint64_t n) {
  if (offset < ahead_offset_ + ahead_.size() && ahead_offset_ < offset + n) ahead_.clear();
}

Status BufferedFile::write_at(uint64_t offset, const void* data, size_t n) {
  TAPIO_RETURN_IF_ERROR(check());
  if (closed_) return inner_->write_at(offset, data, n);  // the inner file names the error
  drop_read_ahead(offset, n);
  const uint8_t* bytes = static_cast<const uint8_t*>(data);
  if (n >= buffer_size_) {
    // A large write is already well formed: written as it is, after what was queued before.
    TAPIO_RETURN_IF_ERROR(settle());
    return keep(inner_->write_at(offset, bytes, n));
  }
  while (n > 0) {
    Slot* s = &slots_[filling_];
    if (s->used > 0 && (offset != s->offset + s->used || s->used == buffer_size_)) {
      TAPIO_RETURN_IF_ERROR(flush_slot());
      s = &slots_[filling_];
    }
    if (s->used == 0) {
      s->offset = offset;
      s->bytes.resize(buffer_size_);
    }
    const size_t take = std::min<uint64_t>(n, buffer_size_ - s->used);
    std::memcpy(s->bytes.data() + s->used, bytes, take);
    s->used += take;
    offset += take, bytes += take, n -= take;
  }
  return ok_status();
}

Status BufferedFile::read_at(uint64_t offset, void* data, size_t n, size_t* got) {
  if (got != nullptr) *got = 0;
  TAPIO_RETURN_IF_ERROR(check());
  // Reads see this file's own writes: whatever is buffered goes to storage first.
  TAPIO_RETURN_IF_ERROR(settle());
  if (n >= buffer_size_ || closed_) return inner_->read_at(offset, data, n, got);
  if (offset < ahead_offset_ || offset + n > ahead_offset_ + ahead_.size()) {
    ahead_.resize(buffer_size_);
    size_t read = 0;
    const Status st = inner_->read_at(offset, ahead_.data(), buffer_size_, &read);
    ahead_.resize(st.ok() ? read : 0);
    ahead_offset_ = offset;
    TAPIO_RETURN_IF_ERROR(st);
  }
  // Short only at end of file, as the inner read was.
  const size_t have = offset >= ahead_offset_ + ahead_.size()
                          ? 0
                          : std::min<uint64_t>(n, ahead_offset_ + ahead_.size() - offset);
  if (have > 0) std::memcpy(data, ahead_.data() + (offset - ahead_offset_), have);
  if (got != nullptr) *got = have;
  return ok_status();
}

Status BufferedFile::sync() {
  TAPIO_RETURN_IF_ERROR(settle());
  return keep(inner_->sync());
}

Status BufferedFile::flush() {
  TAPIO_RETURN_IF_ERROR(settle());
  return keep(inner_->flush());
}

Status BufferedFile::truncate(uint64_t size) {
  TAPIO_RETURN_IF_ERROR(settle());
  ahead_.clear();
  return keep(inner_->truncate(size));
}

Status BufferedFile::allocate(uint64_t offset, uint64_t length) {
  TAPIO_RETURN_IF_ERROR(settle());
  return keep(inner_->allocate(offset, length));
}

Result<uint64_t> BufferedFile::size() {
  TAPIO_RETURN_IF_ERROR(settle());
  return inner_->size();
}

Status BufferedFile::close() {
  if (closed_) return failed_;
  const Status st = settle();
  closed_ = true;
  behind_.reset();
  const Status closing = inner_->close();
  return keep(st.ok() ? closing : st);
}

}  // namespace tapio::io
