// The collective engine's segment-list decoder (engine/collective/messages.h unpack) on a
// hostile message: an aggregator decodes what a rank sent before it touches its window. The
// input is the message. Checks: a list unpack accepts has the length the message says, its
// pieces' byte total is the sum of the segments' and fits 64 bits (a wrapped total would let a
// short data message pass for a long list), every piece ends inside 64 bits, and
// plan::segment_inside, which an aggregator then applies, agrees with exact arithmetic about a
// window.
#include <cstdlib>

#include "alloc_bound.h"
#include "engine/collective/messages.h"

using namespace tapio;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::AllocationBound bound;
  const collective::Unpacked u = collective::unpack(data, size);
  bound.check(size, 4, 4096, "collective::unpack");
  if (!u.ok) return 0;
  if (size != 8 + 32 * u.segments.size()) std::abort();
  using u128 = unsigned __int128;
  const plan::Extent window{1 << 12, 1 << 20};
  u128 bytes = 0;
  for (const plan::Segment& s : u.segments) {
    const u128 end = u128(s.offset) + u128(s.count - 1) * s.stride + s.length;
    if (end > UINT64_MAX) std::abort();
    const bool inside = s.offset >= window.offset && end <= window.end();
    if (plan::segment_inside(s, window) != inside) std::abort();
    bytes += u128(s.length) * s.count;
  }
  if (bytes != u.bytes) std::abort();
  return 0;
}
