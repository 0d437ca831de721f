// The operators' codecs (format/subfile/operators.h) on hostile bytes. The input is
//   codec u8 | type u8 | length u16 (the block's size as put, in 16-byte units) | bytes
// and the bytes are used twice: as a stored block decoded into `length` bytes (what a reader
// does once the block list passed its checks: stored < length <= stored * kMaxRatio), and as
// values encoded and decoded back (exact for the lossless operators). Checks: no read or
// write outside the buffers (ASan), allocation within a constant times the block, round trips.
#include <cstdlib>
#include <cstring>

#include "alloc_bound.h"
#include "format/subfile/operators.h"

using namespace tapio;
using subfile::Codec;

namespace {

constexpr DataType kTypes[] = {TAPIO_FLOAT32, TAPIO_FLOAT64, TAPIO_INT32, TAPIO_UINT8};

void round_trip(Codec codec, DataType type, const uint8_t* values, uint64_t n) {
  subfile::Operator op;
  op.codec = codec;
  op.zfp_value = 1e-3;  // accuracy
  const bool is_float = type == TAPIO_FLOAT32 || type == TAPIO_FLOAT64;
  if (n == 0 || (codec == Codec::kZfp && !is_float)) return;
  const std::vector<uint8_t> stored =
      subfile::encode_block(op, type, {n / type_size(type)}, values, n);
  if (stored.empty()) return;  // stored as put
  std::vector<uint8_t> back(n);
  if (!subfile::decode_block(codec, type, stored.data(), stored.size(), back.data(), n).ok())
    std::abort();  // what the encoder wrote must decode
  // zfp's bound holds for finite values only: arbitrary bytes are NaNs and infinities.
  if (codec != Codec::kZfp && std::memcmp(back.data(), values, n) != 0) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  fuzz::AllocationBound bound;
  const auto codec = static_cast<Codec>(data[0] % subfile::kCodecs);
  const DataType type = kTypes[data[1] % 4];
  const size_t esize = type_size(type);
  const uint64_t length = uint64_t(data[2] | data[3] << 8) * 16 / esize * esize;
  const uint8_t* bytes = data + 4;
  const uint64_t n = size - 4;
  if (n > 0 && n < length && length / subfile::kMaxRatio <= n) {
    std::vector<uint8_t> out(length);
    (void)subfile::decode_block(codec, type, bytes, n, out.data(), length);
  }
  round_trip(codec, type, bytes, n / esize * esize);
  bound.check(size, 64, 8 * (uint64_t{1} << 20), "operators");
  return 0;
}
