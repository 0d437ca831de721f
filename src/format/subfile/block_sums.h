// A block's min/max and chunk checksums (BlockSums), computed as its bytes stream past in
// pieces of any size: a writer describes each piece just before it writes (or sends) it, while
// the bytes are in cache, instead of making a second pass over the data. A reader verifies
// the chunks it reads with chunk_checksum.
#pragma once
#include <cstdint>
#include <memory>

#include "core/types.h"
#include "format/subfile/block_list.h"

struct XXH3_state_s;

namespace tapio::subfile {

class BlockSummer {
 public:
  // `stats`: also track min and max (in `type`; NaNs are ignored).
  BlockSummer(DataType type, bool stats);
  ~BlockSummer();
  BlockSummer(BlockSummer&&) noexcept;
  BlockSummer& operator=(BlockSummer&&) noexcept;

  // The next n bytes of the block; pieces may end inside an element.
  void add(const void* data, uint64_t n);
  // The block's sums, after its last byte (the summer starts a new block afterwards).
  BlockSums finish();

 private:
  void hash(const uint8_t* data, uint64_t n);
  void stats(const uint8_t* data, uint64_t n);

  DataType type_;
  size_t esize_;
  bool stats_;
  std::unique_ptr<XXH3_state_s, void (*)(XXH3_state_s*)> state_;
  uint64_t in_chunk_ = 0;   // bytes of the current chunk hashed so far
  BlockSums sums_;
  bool any_ = false;        // a (non-NaN) value was seen
  uint8_t partial_[8] = {};  // an element cut by a piece boundary
  size_t partial_bytes_ = 0;
};

// The checksum of one whole chunk (as BlockSums::chunks holds it).
uint64_t chunk_checksum(const void* data, uint64_t n);

}  // namespace tapio::subfile
