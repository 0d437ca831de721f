// Helpers shared by the NetCDF codec tests: building headers, comparing them, reading files.
#pragma once
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "format/netcdf/header.h"

namespace tapio::netcdf::testing {

// An attribute from host-order values.
template <typename T>
Attr make_attr(const std::string& name, NcType type, const std::vector<T>& values) {
  Attr a;
  a.name = name;
  a.type = type;
  a.values.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(a.values.data(), values.data(), a.values.size());
  return a;
}

Attr text_attr(const std::string& name, const std::string& text);

// The i-th element of a's values, host order.
template <typename T>
T attr_value(const Attr& a, size_t i) {
  T v;
  std::memcpy(&v, a.values.data() + i * sizeof(T), sizeof(T));
  return v;
}

std::string attr_text(const Attr& a);
const Attr* find_attr(const std::vector<Attr>& attrs, const std::string& name);

// A header using every feature the version has: every type in attributes and variables,
// global and variable attributes, 0-d, fixed and record variables. Layout not computed.
Header sample_header(int version);

// Field-by-field comparison that names the first difference.
::testing::AssertionResult same_header(const Header& a, const Header& b);

// Layout with data_align 4 and no pad (what the netCDF C library writes), then encode.
std::vector<uint8_t> layout_and_encode(Header& h);

std::vector<uint8_t> read_file(const std::string& path);
std::string testdata(const std::string& name);  // path of src/format/netcdf/testdata/name

}  // namespace tapio::netcdf::testing
