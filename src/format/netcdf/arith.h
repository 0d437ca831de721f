// Checked unsigned arithmetic for sizes read from untrusted headers (internal to the codec).
#pragma once
#include <cstdint>

namespace tapio::netcdf::detail {

// *out = a * b; false on overflow.
inline bool mul_overflows(uint64_t a, uint64_t b, uint64_t* out) {
  return __builtin_mul_overflow(a, b, out);
}

// *out = a + b; false on overflow.
inline bool add_overflows(uint64_t a, uint64_t b, uint64_t* out) {
  return __builtin_add_overflow(a, b, out);
}

// Round v up to a multiple of `align` (a power of two); false on overflow.
inline bool round_up_overflows(uint64_t v, uint64_t align, uint64_t* out) {
  uint64_t sum = 0;
  if (add_overflows(v, align - 1, &sum)) return true;
  *out = sum & ~(align - 1);
  return false;
}

// v rounded up to a multiple of 4 (callers keep v far below 2^64).
constexpr uint64_t round_up4(uint64_t v) { return (v + 3) & ~uint64_t{3}; }

constexpr bool is_power_of_two(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

}  // namespace tapio::netcdf::detail
