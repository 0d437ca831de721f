#include "engine/conversions.h"

namespace tapio {

Result<uint8_t*> Conversions::buffer(uint64_t bytes) {
  if (used_ == buffers_.size()) buffers_.push_back(std::make_unique<PooledBuffer>(pool_));
  ByteBuffer& b = buffers_[used_++]->get();
  if (!b.try_prepare(bytes))
    return error(TAPIO_ERR_NOMEM, "no memory for a {}-byte buffer to convert into", bytes);
  return b.data();
}

Result<const void*> Conversions::put(const void* data, DataType memtype, DataType vartype,
                                     uint64_t n) {
  const uint64_t bytes = n * type_size(vartype);
  TAPIO_ASSIGN_OR_RETURN(uint8_t* const copy, buffer(bytes));
  PhaseTimer t(profile_, Phase::kCopy);
  TAPIO_RETURN_IF_ERROR(convert_elements(copy, vartype, data, memtype, n));
  profile_->bytes_copied += bytes;
  return static_cast<const void*>(copy);
}

Result<void*> Conversions::get(void* data, DataType memtype, DataType vartype, uint64_t n,
                               std::string context) {
  TAPIO_ASSIGN_OR_RETURN(uint8_t* const read, buffer(n * type_size(vartype)));
  gets_.push_back(PendingGet{data, memtype, read, vartype, n, std::move(context)});
  return static_cast<void*>(read);
}

Status Conversions::finish_gets() {
  PhaseTimer t(profile_, Phase::kCopy);
  Status first;
  for (const PendingGet& g : gets_) {
    keep(&first, convert_elements(g.to, g.to_type, g.from, g.from_type, g.n)
                     .with_context(g.context));
    profile_->bytes_copied += g.n * type_size(g.to_type);
  }
  return first;
}

void Conversions::release() {
  used_ = 0;
  gets_.clear();
}

}  // namespace tapio
