// name = nelems namestring
// namestring = ID1 [IDN ...] padding
// ID1 = alphanumeric | '_'         IDN = alphanumeric | special1 | special2
// alphanumeric = lowercase | uppercase | numeric | MUTF8
// Names match ([a-zA-Z0-9_]|{MUTF8})([^\x00-\x1F/\x7F-\xFF]|{MUTF8})* and have no trailing
// space ("Note on names"). MUTF8 is checked to be well-formed UTF-8; NFC normalization is not
// checked (names are compared as bytes).
#include "format/netcdf/header.h"

namespace tapio::netcdf {
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

// special1 | special2 | alphanumeric: printable ASCII except '/'.
bool is_next_ascii(unsigned char c) { return c >= 0x20 && c < 0x7F && c != '/'; }

}  // namespace

bool valid_name(const std::string& name) {
  if (name.empty() || name.back() == ' ') return false;
  for (size_t i = 0; i < name.size();) {
    const auto c = static_cast<unsigned char>(name[i]);
    if (c >= 0x80) {
      const size_t len = utf8_length(name, i);
      if (len == 0) return false;
      i += len;
      continue;
    }
    if (i == 0 ? !is_first_ascii(c) : !is_next_ascii(c)) return false;
    ++i;
  }
  return true;
}

}  // namespace tapio::netcdf
