// Puts and gets whose buffer type differs from the variable's (core/convert.h). The engines
// only ever see data of the variable's type:
// - a converted put is copied at put time into a buffer the engine holds until the put's batch
//   is written, so a value out of range is that put's error (a rejected put) and the engines'
//   deferred reads of put data find it unchanged;
// - a converted get reads into such a buffer, converted into the program's once the batch's
//   read has succeeded.
// The buffers come from the context's pool and go back to it when the engine goes; between
// batches they are kept for the next, so steady steps neither allocate nor fault pages.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/buffer_pool.h"
#include "core/convert.h"
#include "engine/profile.h"

namespace tapio {

class Conversions {
 public:
  Conversions(BufferPool* pool, Profile* profile) : pool_(pool), profile_(profile) {}

  // The `n` elements of `memtype` at data, converted to `vartype` in a buffer held until
  // release(). TAPIO_ERR_RANGE names the first value out of range, TAPIO_ERR_NOMEM a
  // buffer that cannot be had.
  Result<const void*> put(const void* data, DataType memtype, DataType vartype, uint64_t n);
  // Where a get of `n` elements of `vartype` reads, to be converted into `data` (memtype) by
  // finish_gets; `context` prefixes its error ("file 'x.nc', variable 'v', rank r").
  Result<void*> get(void* data, DataType memtype, DataType vartype, uint64_t n,
                    std::string context);
  // Converts the gets queued since the last release() into the program's buffers; the first
  // value out of range fails (the other gets are still converted).
  Status finish_gets();
  // The batch is done: its buffers are free for the next one, and no get is pending.
  void release();

 private:
  struct PendingGet {
    void* to;
    DataType to_type;
    const void* from;
    DataType from_type;
    uint64_t n;
    std::string context;
  };
  Result<uint8_t*> buffer(uint64_t bytes);

  BufferPool* pool_;
  Profile* profile_;
  std::vector<std::unique_ptr<PooledBuffer>> buffers_;  // stable addresses: puts point in them
  size_t used_ = 0;                                     // buffers_ in use by this batch
  std::vector<PendingGet> gets_;
};

}  // namespace tapio
