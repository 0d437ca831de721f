#include "engine/collective/datatypes.h"

namespace tapio::collective {

bool worth_a_datatype(const SegmentList& segments, uint64_t bytes) {
  constexpr uint64_t kFewEntries = 16, kBytesPerEntry = 4096;
  return segments.size() <= kFewEntries || bytes >= kBytesPerEntry * segments.size();
}

comm::Pieces window_pieces(uint8_t* window, uint64_t base, const SegmentList& segments) {
  comm::Pieces p;
  p.base = window;
  p.blocks.reserve(segments.size());
  for (const plan::Segment s : segments)
    p.blocks.push_back(comm::Block{s.offset - base, s.length, s.stride, s.count});
  return p;
}

comm::Pieces span_pieces(uint8_t* buf, const std::vector<std::pair<uint64_t, uint64_t>>& spans) {
  comm::Pieces p;
  p.base = buf;
  p.blocks.reserve(spans.size());
  for (const auto& [offset, bytes] : spans) p.blocks.push_back(comm::Block{offset, bytes, bytes, 1});
  return p;
}

}  // namespace tapio::collective
