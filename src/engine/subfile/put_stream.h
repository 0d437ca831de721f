// A rank's puts of one batch seen as one stream of bytes, block after block — the bytes of its
// region of the subfile, in the user's buffers (each put's data is contiguous, in the
// variable's type and the host's little-endian order, which is what the format stores), or
// for a block an operator encoded, in its encoded buffer (subfile_operators.cpp).
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/model.h"
#include "engine/engine.h"
#include "format/subfile/block_sums.h"

namespace tapio::subfile {

class PutStream {
 public:
  // puts[b].data holds shapes[b].stored_bytes() bytes.
  PutStream(const std::vector<PutOp>& puts, const std::vector<BlockShape>& shapes)
      : puts_(puts), shapes_(shapes) {
    starts_.reserve(puts.size() + 1);
    uint64_t at = 0;
    for (const BlockShape& s : shapes) {
      starts_.push_back(at);
      at += s.stored_bytes();
    }
    starts_.push_back(at);
  }
  uint64_t bytes() const { return starts_.back(); }
  size_t blocks() const { return puts_.size(); }
  uint64_t block_bytes(size_t b) const { return starts_[b + 1] - starts_[b]; }
  const PutOp& put(size_t b) const { return puts_[b]; }
  bool coded(size_t b) const { return shapes_[b].codec != Codec::kNone; }

  // Calls f(block, data, n) for the pieces of stream bytes [from, to), in stream order.
  template <typename F>
  void for_each(uint64_t from, uint64_t to, F&& f) const {
    size_t b = std::upper_bound(starts_.begin(), starts_.end(), from) - starts_.begin() - 1;
    for (; b < puts_.size() && starts_[b] < to; ++b) {
      const uint64_t lo = std::max(from, starts_[b]), hi = std::min(to, starts_[b + 1]);
      if (lo < hi) f(b, static_cast<const uint8_t*>(puts_[b].data) + (lo - starts_[b]), hi - lo);
    }
  }

 private:
  const std::vector<PutOp>& puts_;
  const std::vector<BlockShape>& shapes_;
  std::vector<uint64_t> starts_;  // stream offset of each block, then the total
};

// Each block's BlockSummer, fed with stream ranges in order; a block's sums are stored in
// (*sums)[block] when its last byte has passed (empty blocks at once). A coded block's
// checksums cover its stored bytes; its min/max, of the values put, are already in
// (*sums)[block] (computed when it was encoded) and kept.
class BlockSummers {
 public:
  BlockSummers(const PutStream& stream, const IoDef& io, bool stats, std::vector<BlockSums>* sums);
  void add(uint64_t from, uint64_t to);  // stream bytes [from, to), after those before them

 private:
  const PutStream& stream_;
  std::vector<BlockSums>* sums_;
  std::vector<BlockSummer> summers_;
};

}  // namespace tapio::subfile
