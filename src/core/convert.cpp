#include "core/convert.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tapio {
namespace {

// The numeric types in tapio_type order: TAPIO_INT8 (1) is index 0, TAPIO_FLOAT64 (10) index 9.
using Numeric = std::tuple<int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t,
                           uint64_t, float, double>;
constexpr size_t kNumeric = std::tuple_size_v<Numeric>;
template <size_t I>
using TypeAt = std::tuple_element_t<I, Numeric>;

bool is_numeric(DataType t) { return t >= TAPIO_INT8 && t <= TAPIO_FLOAT64; }
size_t index_of(DataType t) { return static_cast<size_t>(t) - 1; }

// A floating value converts to integer type To when it lies strictly between these: its
// truncation is then within To's limits (NaN fails both comparisons).
template <typename To>
struct TruncationBounds {
  static constexpr int kDigits = std::numeric_limits<To>::digits;  // value bits, sign aside
  static constexpr double kAbove = 2.0 * static_cast<double>(uint64_t{1} << (kDigits - 1));
  // min - 1 where a double holds it; int64's min - 1 is no double, so its bound is inclusive
  // (no double lies between -2^63 - 2048 and -2^63).
  static constexpr bool kInclusiveMin = std::is_signed_v<To> && kDigits >= 53;
  static constexpr double kMin = static_cast<double>(std::numeric_limits<To>::min());
  static bool fits(double v) {
    const bool above_min = kInclusiveMin ? v >= kMin : v > kMin - 1.0;
    return above_min && v < kAbove;
  }
};

template <typename To, typename From>
bool fits(From v) {
  if constexpr (std::is_floating_point_v<To>) {
    if constexpr (sizeof(To) < sizeof(From))  // float64 to float32
      return !(std::fabs(v) > std::numeric_limits<To>::max()) || std::isinf(v);
    else
      return true;
  } else if constexpr (std::is_floating_point_v<From>) {
    return TruncationBounds<To>::fits(static_cast<double>(v));
  } else if constexpr (std::is_signed_v<From> == std::is_signed_v<To>) {
    using Wide = std::conditional_t<std::is_signed_v<From>, int64_t, uint64_t>;
    return static_cast<Wide>(v) >= static_cast<Wide>(std::numeric_limits<To>::min()) &&
           static_cast<Wide>(v) <= static_cast<Wide>(std::numeric_limits<To>::max());
  } else if constexpr (std::is_signed_v<From>) {  // signed to unsigned
    return v >= 0 && static_cast<uint64_t>(v) <= std::numeric_limits<To>::max();
  } else {  // unsigned to signed
    return static_cast<uint64_t>(v) <= static_cast<uint64_t>(std::numeric_limits<To>::max());
  }
}

template <typename T>
T load(const unsigned char* p, uint64_t i) {
  T v;
  std::memcpy(&v, p + i * sizeof(T), sizeof(T));
  return v;
}

// Converts n elements; returns the index of the first one out of range, or n. Each chunk is
// converted in one branch-free pass (out-of-range elements become 0, never an undefined cast)
// that the compiler vectorizes; only a chunk holding a bad value is scanned again to find it.
template <typename To, typename From>
uint64_t convert_run(void* dst, const void* src, uint64_t n) {
  constexpr uint64_t kChunk = 4096;
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  for (uint64_t at = 0; at < n; at += kChunk) {
    const uint64_t end = std::min(n, at + kChunk);
    bool all = true;
    for (uint64_t i = at; i < end; ++i) {
      const From v = load<From>(s, i);
      const bool ok = fits<To>(v);
      const To t = ok ? static_cast<To>(v) : To{};
      std::memcpy(d + i * sizeof(To), &t, sizeof(To));
      all &= ok;
    }
    if (!all)
      for (uint64_t i = at; i < end; ++i)
        if (!fits<To>(load<From>(s, i))) return i;
  }
  return n;
}

template <typename From>
std::string value_text(const void* src, uint64_t i) {
  return fmt::format("{}", load<From>(static_cast<const unsigned char*>(src), i));
}

using RunFn = uint64_t (*)(void*, const void*, uint64_t);
using TextFn = std::string (*)(const void*, uint64_t);

template <size_t To, size_t... From>
constexpr std::array<RunFn, kNumeric> runs_into(std::index_sequence<From...>) {
  return {&convert_run<TypeAt<To>, TypeAt<From>>...};
}
template <size_t... To>
constexpr std::array<std::array<RunFn, kNumeric>, kNumeric> run_table(
    std::index_sequence<To...>) {
  return {runs_into<To>(std::make_index_sequence<kNumeric>{})...};
}
template <size_t... From>
constexpr std::array<TextFn, kNumeric> text_table(std::index_sequence<From...>) {
  return {&value_text<TypeAt<From>>...};
}

// kRuns[to][from]: one loop per pair, chosen once per call.
constexpr auto kRuns = run_table(std::make_index_sequence<kNumeric>{});
constexpr auto kTexts = text_table(std::make_index_sequence<kNumeric>{});

}  // namespace

bool types_convert(DataType from, DataType to) {
  return from == to || (is_numeric(from) && is_numeric(to));
}

Status convert_elements(void* dst, DataType to, const void* src, DataType from, uint64_t count) {
  if (!types_convert(from, to))
    return error(TAPIO_ERR_TYPE, "{} does not convert to {}", type_name(from), type_name(to));
  if (from == to) {
    if (count > 0) std::memcpy(dst, src, count * type_size(to));
    return ok_status();
  }
  const uint64_t bad = kRuns[index_of(to)][index_of(from)](dst, src, count);
  if (bad == count) return ok_status();
  return error(TAPIO_ERR_RANGE, "element {} ({} {}) is out of the range of {}", bad,
               type_name(from), kTexts[index_of(from)](src, bad), type_name(to));
}

}  // namespace tapio
