// Formatting of NetCDF values for the tool: numbers at full precision, char data as strings,
// and ValueWriter, which streams a box of values as text rows or as nested JSON arrays.
#pragma once
#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "format/netcdf/header.h"

namespace tapio::cli {

using Json = nlohmann::ordered_json;

// Serialise JSON for output: invalid UTF-8 in names or char data is replaced, not fatal.
std::string to_json_text(const Json& j, int indent = -1);

// Append one numeric value (host byte order): integers in decimal, float32 as %.9g, float64
// as %.17g. With json, NaN and infinities (not JSON numbers) are written as null.
void append_number(fmt::memory_buffer& out, netcdf::NcType t, const uint8_t* value, bool json);

// Char data is shown up to its trailing NUL padding.
std::string_view trim_nuls(std::string_view s);
// Double-quoted, with C escapes for quotes, backslashes and control characters.
std::string quote(std::string_view s);

std::string attr_text(const netcdf::Attr& a);  // "\"K\"" or "0, 400"
Json attr_json(const netcdf::Attr& a);         // {"type": "float32", "value": [0, 400]}

// Writes a box of `count` elements of `type`, fed in C order through add(). Text: one line per
// row of the last dimension, values separated by ", "; char data one quoted string per row.
// JSON: nested arrays following count (for char, arrays of strings, one per row); a 0-d box is
// a bare value.
class ValueWriter {
 public:
  ValueWriter(std::FILE* out, netcdf::NcType type, const std::vector<uint64_t>& count, bool json);
  // Text: each row starts with its elements' indices in the variable, as `ncdump -b c`
  // annotates a row: "temp(2,0, 3-5) = " (0-based; the last dimension's range, or its one
  // index; "name = " for a scalar). `first` is the box's first element in the variable, the
  // record index first for a record variable (then it has one entry more than count).
  void label_rows(std::string name, std::vector<uint64_t> first);
  void add(const uint8_t* host_values, uint64_t n);
  void finish();  // closes the JSON arrays or ends the last line

 private:
  void begin_item();
  void write_label(uint64_t row);
  void add_string(std::string_view s);
  void write_empty_arrays(size_t dim);
  void flush_if_full();

  std::FILE* out_;
  std::vector<uint64_t> count_;
  std::string label_name_;             // "" unless label_rows()
  std::vector<uint64_t> label_first_;
  netcdf::NcType type_;
  size_t elem_size_;
  bool json_;
  bool is_char_;
  std::vector<uint64_t> items_shape_;  // count, or count without its last dim for char
  std::vector<uint64_t> suffix_;       // suffix_[d] = product of items_shape_[d..]
  uint64_t items_total_ = 1;
  uint64_t per_line_ = 1;              // text: items per line
  uint64_t row_len_ = 1;               // char: characters per string
  uint64_t items_done_ = 0;
  std::string row_;                    // char: the string being collected
  fmt::memory_buffer buf_;
};

}  // namespace tapio::cli
