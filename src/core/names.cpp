// name = nelems namestring
// namestring = ID1 [IDN ...] padding
// ID1 = alphanumeric | '_'         IDN = alphanumeric | special1 | special2
// alphanumeric = lowercase | uppercase | numeric | MUTF8
// Names match ([a-zA-Z0-9_]|{MUTF8})([^\x00-\x1F/\x7F-\xFF]|{MUTF8})* and have no trailing
// space ("Note on names", NetCDF classic format spec). MUTF8 is checked to be well-formed UTF-8;
// the form (NFC) is checked by utf8proc, the library netCDF-C normalizes names with.
#include "core/names.h"

#include <fmt/format.h>
#include <utf8proc.h>

#include <cstdlib>
#include <memory>

namespace tapio {
namespace {

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// Length of the well-formed multi-byte UTF-8 character at s[i], or 0 if there is none
// (overlong forms, surrogates and code points above U+10FFFF are rejected).
size_t utf8_length(const std::string& s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  size_t len = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  const auto second = static_cast<unsigned char>(s[i + 1]);
  if (second < lo || second > hi) return 0;
  for (size_t k = 2; k < len; ++k) {
    if (!is_continuation(static_cast<unsigned char>(s[i + k]))) return 0;
  }
  return len;
}

// Explicit ranges rather than std::isalnum, which depends on the locale.
bool is_first_ascii(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool is_control(unsigned char c) { return c < 0x20 || c == 0x7F; }

// Why the ASCII character c at byte i is not allowed there ("" if it is).
std::string ascii_problem(unsigned char c, size_t i) {
  if (is_control(c)) return fmt::format("contains a control character (byte {})", i);
  if (c == '/') return "contains '/'";
  if (i == 0 && !is_first_ascii(c))
    return fmt::format("starts with '{}': a name starts with a letter, a digit, '_' or a "
                       "non-ASCII character", char(c));
  return "";
}

// The NFC form of well-formed UTF-8 `name`, as netCDF-C would store it.
std::string nfc(const std::string& name) {
  utf8proc_uint8_t* out = nullptr;
  const utf8proc_ssize_t n =
      utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(name.data()),
                   static_cast<utf8proc_ssize_t>(name.size()), &out,
                   static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
  const std::unique_ptr<utf8proc_uint8_t, decltype(&std::free)> owned(out, &std::free);
  if (n < 0) return name;  // not reached: the grammar accepted the bytes
  return std::string(reinterpret_cast<const char*>(out), static_cast<size_t>(n));
}

}  // namespace

std::string name_grammar_problem(const std::string& name) {
  if (name.empty()) return "is empty";
  for (size_t i = 0; i < name.size();) {
    const auto c = static_cast<unsigned char>(name[i]);
    if (c < 0x80) {
      std::string why = ascii_problem(c, i);
      if (!why.empty()) return why;
      ++i;
      continue;
    }
    const size_t len = utf8_length(name, i);
    if (len == 0) return fmt::format("is not well-formed UTF-8 (byte {})", i);
    i += len;
  }
  if (name.back() == ' ') return "ends in a space";
  return "";
}

std::string name_definition_problem(const std::string& name) {
  std::string why = name_grammar_problem(name);
  if (!why.empty()) return why;
  if (name.size() > kMaxNameBytes)
    return fmt::format("is {} bytes long, more than the {} NetCDF allows", name.size(),
                       kMaxNameBytes);
  const std::string normal = nfc(name);
  if (normal != name)
    return fmt::format("is not in Unicode normalization form C (NFC), the form NetCDF stores "
                       "names in: write it as '{}'", normal);
  return "";
}

std::string printable_name(const std::string& name) {
  std::string out;
  for (size_t i = 0; i < name.size();) {
    const auto c = static_cast<unsigned char>(name[i]);
    const size_t len = c < 0x80 ? (is_control(c) ? 0 : 1) : utf8_length(name, i);
    if (len == 0) {
      out += fmt::format("\\x{:02x}", c);
      ++i;
    } else {
      out.append(name, i, len);
      i += len;
    }
  }
  return out;
}

}  // namespace tapio
