#include "engine/subfile/put_stream.h"

#include <cstring>

namespace tapio::subfile {

BlockSummers::BlockSummers(const PutStream& stream, const IoDef& io, bool stats,
                           std::vector<BlockSums>* sums)
    : stream_(stream), sums_(sums) {
  summers_.reserve(stream.blocks());
  for (size_t b = 0; b < stream.blocks(); ++b) {
    const bool coded = stream.coded(b);
    summers_.emplace_back(coded ? TAPIO_UINT8 : io.vars[stream.put(b).var].type, stats && !coded);
    if (stream.block_bytes(b) == 0) (*sums_)[b] = summers_[b].finish();  // no bytes will come
  }
}

void BlockSummers::add(uint64_t from, uint64_t to) {
  stream_.for_each(from, to, [&](size_t b, const uint8_t* data, uint64_t n) {
    summers_[b].add(data, n);
    const auto* start = static_cast<const uint8_t*>(stream_.put(b).data);
    if (static_cast<uint64_t>(data - start) + n != stream_.block_bytes(b)) return;
    BlockSums sums = summers_[b].finish();
    if (stream_.coded(b)) {
      std::memcpy(sums.min, (*sums_)[b].min, 8);
      std::memcpy(sums.max, (*sums_)[b].max, 8);
    }
    (*sums_)[b] = std::move(sums);
  });
}

}  // namespace tapio::subfile
