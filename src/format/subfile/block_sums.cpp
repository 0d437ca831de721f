#include "format/subfile/block_sums.h"

#include <xxhash.h>
// The dispatching entry points pick the widest vector unit at run time (AVX-512 hashes about
// eight times faster than the SSE2 build); their results are XXH3-64's, the same bytes on
// every machine.
#include <xxh_x86dispatch.h>

#include <cstring>
#include <limits>

#include "format/subfile/records.h"

namespace tapio::subfile {
namespace {

// Element-wise min and max over eight independent lanes per 64 bytes, so the compiler keeps
// them in vector registers (one min and one max instruction per vector); x < lo ? x : lo
// ignores a NaN x, as the format asks. Cloned per vector unit and chosen at load time (by GCC:
// clang 14, which builds the fuzz targets, cannot clone a template and gets the default).
// Not under ThreadSanitizer: the clones' resolver runs while the program is being relocated,
// before TSan's runtime is set up, and its instrumented code crashes there (make test-tsan).
#if defined(__clang__) || defined(__SANITIZE_THREAD__)
#define TAPIO_PER_VECTOR_UNIT
#else
#define TAPIO_PER_VECTOR_UNIT __attribute__((target_clones("avx512f", "avx2", "default")))
#endif
template <typename T>
TAPIO_PER_VECTOR_UNIT
void min_max(const uint8_t* data, uint64_t n, T* lo_out, T* hi_out) {
  constexpr int kLanes = 64 / sizeof(T);
  T lo[kLanes], hi[kLanes];
  for (int l = 0; l < kLanes; ++l) lo[l] = *lo_out, hi[l] = *hi_out;
  uint64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l) {
      T x;
      std::memcpy(&x, data + (i + l) * sizeof(T), sizeof(T));
      lo[l] = x < lo[l] ? x : lo[l];
      hi[l] = x > hi[l] ? x : hi[l];
    }
  for (; i < n; ++i) {
    T x;
    std::memcpy(&x, data + i * sizeof(T), sizeof(T));
    lo[0] = x < lo[0] ? x : lo[0];
    hi[0] = x > hi[0] ? x : hi[0];
  }
  for (int l = 0; l < kLanes; ++l) {
    *lo_out = lo[l] < *lo_out ? lo[l] : *lo_out;
    *hi_out = hi[l] > *hi_out ? hi[l] : *hi_out;
  }
}

// Folds n elements into the running min/max kept as bytes in `sums`; *any becomes true once
// a value (not a NaN) was seen. Empty extremes start at +inf/-inf (or the type's limits).
template <typename T>
void fold(const uint8_t* data, uint64_t n, BlockSums* sums, bool* any) {
  using Limits = std::numeric_limits<T>;
  T lo = Limits::has_infinity ? Limits::infinity() : Limits::max();
  T hi = Limits::has_infinity ? -Limits::infinity() : Limits::lowest();
  if (*any) {
    std::memcpy(&lo, sums->min, sizeof(T));
    std::memcpy(&hi, sums->max, sizeof(T));
  }
  min_max<T>(data, n, &lo, &hi);
  if (!(lo <= hi)) return;  // nothing but NaNs so far
  *any = true;
  std::memcpy(sums->min, &lo, sizeof(T));
  std::memcpy(sums->max, &hi, sizeof(T));
}

void fold_typed(DataType type, const uint8_t* data, uint64_t n, BlockSums* sums, bool* any) {
  switch (type) {
    case TAPIO_INT8: return fold<int8_t>(data, n, sums, any);
    case TAPIO_UINT8: return fold<uint8_t>(data, n, sums, any);
    case TAPIO_CHAR: return fold<char>(data, n, sums, any);
    case TAPIO_INT16: return fold<int16_t>(data, n, sums, any);
    case TAPIO_UINT16: return fold<uint16_t>(data, n, sums, any);
    case TAPIO_INT32: return fold<int32_t>(data, n, sums, any);
    case TAPIO_UINT32: return fold<uint32_t>(data, n, sums, any);
    case TAPIO_INT64: return fold<int64_t>(data, n, sums, any);
    case TAPIO_UINT64: return fold<uint64_t>(data, n, sums, any);
    case TAPIO_FLOAT32: return fold<float>(data, n, sums, any);
    case TAPIO_FLOAT64: return fold<double>(data, n, sums, any);
  }
}

}  // namespace

uint64_t chunk_checksum(const void* data, uint64_t n) { return XXH3_64bits_dispatch(data, n); }

BlockSummer::BlockSummer(DataType type, bool stats)
    : type_(type),
      esize_(type_size(type)),
      stats_(stats),
      state_(XXH3_createState(), [](XXH3_state_s* s) { XXH3_freeState(s); }) {}

BlockSummer::~BlockSummer() = default;
BlockSummer::BlockSummer(BlockSummer&&) noexcept = default;
BlockSummer& BlockSummer::operator=(BlockSummer&&) noexcept = default;

void BlockSummer::add(const void* data, uint64_t n) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  hash(bytes, n);
  if (stats_) stats(bytes, n);
}

void BlockSummer::hash(const uint8_t* data, uint64_t n) {
  while (n > 0) {
    const uint64_t take = std::min(n, kChecksumChunk - in_chunk_);
    if (in_chunk_ == 0 && take == kChecksumChunk) {
      sums_.chunks.push_back(chunk_checksum(data, take));  // a whole chunk: no state needed
    } else {
      if (in_chunk_ == 0) XXH3_64bits_reset(state_.get());
      XXH3_64bits_update_dispatch(state_.get(), data, take);
      in_chunk_ += take;
      if (in_chunk_ == kChecksumChunk) {
        sums_.chunks.push_back(XXH3_64bits_digest(state_.get()));
        in_chunk_ = 0;
      }
    }
    data += take;
    n -= take;
  }
}

void BlockSummer::stats(const uint8_t* data, uint64_t n) {
  if (partial_bytes_ > 0) {  // complete the element the previous piece cut
    const uint64_t take = std::min<uint64_t>(n, esize_ - partial_bytes_);
    std::memcpy(partial_ + partial_bytes_, data, take);
    partial_bytes_ += take;
    data += take;
    n -= take;
    if (partial_bytes_ < esize_) return;
    fold_typed(type_, partial_, 1, &sums_, &any_);
    partial_bytes_ = 0;
  }
  const uint64_t whole = n / esize_;
  fold_typed(type_, data, whole, &sums_, &any_);
  partial_bytes_ = n - whole * esize_;
  std::memcpy(partial_, data + whole * esize_, partial_bytes_);
}

BlockSums BlockSummer::finish() {
  if (in_chunk_ > 0) sums_.chunks.push_back(XXH3_64bits_digest(state_.get()));
  if (!any_) {  // no values (or only NaNs): zeros, as the format says
    std::memset(sums_.min, 0, 8);
    std::memset(sums_.max, 0, 8);
  }
  BlockSums out = std::move(sums_);
  sums_ = BlockSums{};
  in_chunk_ = 0;
  any_ = false;
  partial_bytes_ = 0;
  return out;
}

}  // namespace tapio::subfile
