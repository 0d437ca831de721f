#include "sim/units.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdlib>

#include "core/params.h"

namespace tapio::sim {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// A non-negative decimal number at the start of s; its length in *used (0: none).
double leading_number(std::string_view s, size_t* used) {
  size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E') && i + 1 < s.size() &&
      (std::isdigit(static_cast<unsigned char>(s[i + 1])) || s[i + 1] == '-')) {
    i += 2;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  }
  const std::string digits(s.substr(0, i));
  char* end = nullptr;
  const double v = digits.empty() ? 0 : std::strtod(digits.c_str(), &end);
  *used = digits.empty() || end != digits.c_str() + digits.size() ? 0 : i;
  return v;
}

}  // namespace

Result<double> parse_rate(std::string_view text) {
  std::string_view s = trim(text);
  const size_t slash = s.rfind('/');
  if (slash == std::string_view::npos || trim(s.substr(slash + 1)) != "s")
    return error(TAPIO_ERR_CONFIG, "expected a rate like \"12GiB/s\" (got '{}')", text);
  const std::string_view size = trim(s.substr(0, slash));
  // parse_size wants whole bytes; a rate may be fractional ("1.5GiB/s" is, "0.3MiB/s" is not),
  // so the number is scaled here and the unit checked by parse_size on "1<unit>".
  size_t used = 0;
  const double number = leading_number(size, &used);
  if (used == 0) return error(TAPIO_ERR_CONFIG, "expected a rate like \"12GiB/s\" (got '{}')", text);
  Result<uint64_t> unit = parse_size("1" + std::string(trim(size.substr(used))));
  if (!unit.ok()) return error(TAPIO_ERR_CONFIG, "expected a rate like \"12GiB/s\" (got '{}')", text);
  return number * static_cast<double>(*unit);
}

Result<double> parse_duration(std::string_view text) {
  const std::string_view s = trim(text);
  size_t used = 0;
  const double number = leading_number(s, &used);
  const std::string_view unit = trim(s.substr(used));
  static const std::pair<std::string_view, double> kUnits[] = {
      {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}};
  if (used > 0)
    for (const auto& [name, scale] : kUnits)
      if (unit == name) return number * scale;
  return error(TAPIO_ERR_CONFIG, "expected a duration like \"1.5us\" or \"7.4ms\" (got '{}')",
               text);
}

std::string format_bytes(double bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (std::fabs(bytes) >= 1024 && u < 5) bytes /= 1024, ++u;
  return u == 0 ? fmt::format("{:.0f} B", bytes) : fmt::format("{:.3g} {}", bytes, kUnits[u]);
}

std::string format_rate(double bytes_per_second) { return format_bytes(bytes_per_second) + "/s"; }

std::string format_duration(double seconds) {
  if (seconds >= 1) return fmt::format("{:.3g} s", seconds);
  if (seconds >= 1e-3) return fmt::format("{:.3g} ms", seconds * 1e3);
  return fmt::format("{:.3g} us", seconds * 1e6);
}

}  // namespace tapio::sim
