// The operators' codecs: zstd (optionally after a byte shuffle) and zfp (docs/format.md,
// "Operators"). zfp streams carry zfp's full header (mode, type, shape), so a block decodes
// from its own bytes.
#include <zfp.h>
#include <zstd.h>

#include <cstring>
#include <memory>

#include "format/subfile/operators.h"

namespace tapio::subfile {
namespace {

// Byte k of element i goes to k * n + i (and back): zstd then sees the exponents and high
// mantissa bytes of smooth fields as long runs.
void shuffle(const uint8_t* in, uint64_t bytes, size_t esize, uint8_t* out) {
  const uint64_t n = bytes / esize;
  for (size_t k = 0; k < esize; ++k)
    for (uint64_t i = 0; i < n; ++i) out[k * n + i] = in[i * esize + k];
  std::memcpy(out + n * esize, in + n * esize, bytes - n * esize);
}

void unshuffle(const uint8_t* in, uint64_t bytes, size_t esize, uint8_t* out) {
  const uint64_t n = bytes / esize;
  for (size_t k = 0; k < esize; ++k)
    for (uint64_t i = 0; i < n; ++i) out[i * esize + k] = in[k * n + i];
  std::memcpy(out + n * esize, in + n * esize, bytes - n * esize);
}

std::vector<uint8_t> zstd_encode(const uint8_t* data, uint64_t bytes, int level) {
  std::vector<uint8_t> out(ZSTD_compressBound(bytes));
  const size_t n = ZSTD_compress(out.data(), out.size(), data, bytes, level);
  if (ZSTD_isError(n) || n >= bytes) return {};  // stored as put
  out.resize(n);
  return out;
}

Status zstd_decode(const uint8_t* stored, uint64_t size, uint8_t* out, uint64_t length) {
  const unsigned long long declared = ZSTD_getFrameContentSize(stored, size);
  if (declared != length)
    return error(TAPIO_ERR_FORMAT, "a zstd block declares {} bytes where the block holds {}",
                 declared >= ZSTD_CONTENTSIZE_ERROR ? 0 : declared, length);
  const size_t n = ZSTD_decompress(out, length, stored, size);
  if (ZSTD_isError(n) || n != length)
    return error(TAPIO_ERR_FORMAT, "a zstd block does not decode: {}",
                 ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short");
  return ok_status();
}

using ZfpStream = std::unique_ptr<zfp_stream, void (*)(zfp_stream*)>;
using ZfpField = std::unique_ptr<zfp_field, void (*)(zfp_field*)>;
using BitStream = std::unique_ptr<bitstream, void (*)(bitstream*)>;

// zfp's field over a C-order box: extents of 1 dropped, the slowest ones folded into one so
// that at most 4 remain; zfp's x is the fastest-varying.
ZfpField zfp_box(void* data, zfp_type type, const std::vector<uint64_t>& counts) {
  std::vector<size_t> dims;  // slowest first
  for (uint64_t c : counts)
    if (c != 1) dims.push_back(c);
  while (dims.size() > 4) {
    dims[1] *= dims[0];
    dims.erase(dims.begin());
  }
  if (dims.empty()) dims.push_back(1);
  const size_t k = dims.size();
  zfp_field* f = k == 1   ? zfp_field_1d(data, type, dims[0])
                 : k == 2 ? zfp_field_2d(data, type, dims[1], dims[0])
                 : k == 3 ? zfp_field_3d(data, type, dims[2], dims[1], dims[0])
                          : zfp_field_4d(data, type, dims[3], dims[2], dims[1], dims[0]);
  return ZfpField(f, zfp_field_free);
}

void zfp_set_mode(zfp_stream* z, const Operator& op, const zfp_field* f) {
  switch (op.zfp_mode) {
    case Operator::ZfpMode::kAccuracy: zfp_stream_set_accuracy(z, op.zfp_value); break;
    case Operator::ZfpMode::kRate:
      zfp_stream_set_rate(z, op.zfp_value, f->type, zfp_field_dimensionality(f), zfp_false);
      break;
    case Operator::ZfpMode::kPrecision:
      zfp_stream_set_precision(z, static_cast<unsigned>(op.zfp_value));
      break;
  }
}

std::vector<uint8_t> zfp_encode(const Operator& op, DataType type,
                                const std::vector<uint64_t>& counts, const uint8_t* data,
                                uint64_t bytes) {
  const zfp_type zt = type == TAPIO_FLOAT32 ? zfp_type_float : zfp_type_double;
  ZfpField field = zfp_box(const_cast<uint8_t*>(data), zt, counts);
  ZfpStream z(zfp_stream_open(nullptr), zfp_stream_close);
  zfp_set_mode(z.get(), op, field.get());
  std::vector<uint8_t> out(zfp_stream_maximum_size(z.get(), field.get()));
  BitStream bits(stream_open(out.data(), out.size()), stream_close);
  zfp_stream_set_bit_stream(z.get(), bits.get());
  zfp_stream_rewind(z.get());
  zfp_write_header(z.get(), field.get(), ZFP_HEADER_FULL);
  const size_t n = zfp_compress(z.get(), field.get());
  if (n == 0 || n >= bytes) return {};  // stored as put: exact, so within any bound
  out.resize(n);
  return out;
}

// zfp reads its stream without bounds, as far as the header's mode allows: the stored bytes
// are copied into a zeroed buffer of the largest size that mode and shape allow, so no
// stream (even a hostile one) makes it read past its buffer.
Status zfp_decode(DataType type, const uint8_t* stored, uint64_t size, uint8_t* out,
                  uint64_t length) {
  const uint64_t header_max = 64;  // more than ZFP_HEADER_MAX_BITS
  std::vector<uint8_t> head(header_max, 0);
  std::memcpy(head.data(), stored, std::min(size, header_max));
  BitStream head_bits(stream_open(head.data(), head.size()), stream_close);
  ZfpStream z(zfp_stream_open(head_bits.get()), zfp_stream_close);
  ZfpField field(zfp_field_alloc(), zfp_field_free);
  zfp_stream_rewind(z.get());
  const zfp_type want = type == TAPIO_FLOAT32 ? zfp_type_float : zfp_type_double;
  if (!zfp_read_header(z.get(), field.get(), ZFP_HEADER_FULL) || field->type != want ||
      zfp_field_size(field.get(), nullptr) * type_size(type) != length)
    return error(TAPIO_ERR_FORMAT, "a zfp block's header does not match the block ({} bytes "
                 "of {})", length, type_name(type));
  const uint64_t max = zfp_stream_maximum_size(z.get(), field.get());
  if (max == 0 || size > max)
    return error(TAPIO_ERR_FORMAT, "a zfp block of {} bytes exceeds its mode's bound", size);
  std::vector<uint8_t> padded(max + 8, 0);
  std::memcpy(padded.data(), stored, size);
  BitStream bits(stream_open(padded.data(), padded.size()), stream_close);
  zfp_stream_set_bit_stream(z.get(), bits.get());
  zfp_stream_rewind(z.get());
  zfp_field_set_pointer(field.get(), out);
  if (!zfp_read_header(z.get(), field.get(), ZFP_HEADER_FULL) ||
      !zfp_decompress(z.get(), field.get()))
    return error(TAPIO_ERR_FORMAT, "a zfp block does not decode");
  return ok_status();
}

}  // namespace

std::vector<uint8_t> encode_block(const Operator& op, DataType type,
                                  const std::vector<uint64_t>& counts, const uint8_t* data,
                                  uint64_t bytes) {
  std::vector<uint8_t> out;
  if (bytes == 0) return out;
  switch (op.codec) {
    case Codec::kNone: break;
    case Codec::kZstd: out = zstd_encode(data, bytes, op.level); break;
    case Codec::kShuffleZstd: {
      std::vector<uint8_t> shuffled(bytes);
      shuffle(data, bytes, type_size(type), shuffled.data());
      out = zstd_encode(shuffled.data(), bytes, op.level);
      break;
    }
    case Codec::kZfp: out = zfp_encode(op, type, counts, data, bytes); break;
  }
  if (!out.empty() && out.size() * kMaxRatio < bytes) out.clear();
  return out;
}

Status decode_block(Codec codec, DataType type, const uint8_t* stored, uint64_t size,
                    uint8_t* out, uint64_t length) {
  switch (codec) {
    case Codec::kNone:
      if (size != length) break;
      std::memcpy(out, stored, size);
      return ok_status();
    case Codec::kZstd: return zstd_decode(stored, size, out, length);
    case Codec::kShuffleZstd: {
      std::vector<uint8_t> shuffled(length);
      TAPIO_RETURN_IF_ERROR(zstd_decode(stored, size, shuffled.data(), length));
      unshuffle(shuffled.data(), length, type_size(type), out);
      return ok_status();
    }
    case Codec::kZfp:
      if (type != TAPIO_FLOAT32 && type != TAPIO_FLOAT64) break;
      return zfp_decode(type, stored, size, out, length);
  }
  return error(TAPIO_ERR_FORMAT, "a block's operator code {} does not fit its {} bytes of {}",
               static_cast<int>(codec), length, type_name(type));
}

}  // namespace tapio::subfile
