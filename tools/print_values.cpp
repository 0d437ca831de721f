#include "print_values.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <utility>

#include "input.h"

namespace tapio::cli {
namespace {

template <typename T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <typename T>
void append_int(fmt::memory_buffer& out, const uint8_t* p) {
  fmt::format_to(std::back_inserter(out), "{}", +load<T>(p));  // + prints int8 as a number
}

void append_float(fmt::memory_buffer& out, double v, bool single, bool json) {
  if (json && !std::isfinite(v)) {
    fmt::format_to(std::back_inserter(out), "null");
  } else if (single) {
    fmt::format_to(std::back_inserter(out), "{:.9g}", v);
  } else {
    fmt::format_to(std::back_inserter(out), "{:.17g}", v);
  }
}

std::string_view as_chars(const uint8_t* p, size_t n) {
  return std::string_view(reinterpret_cast<const char*>(p), n);
}

}  // namespace

std::string to_json_text(const Json& j, int indent) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

void append_number(fmt::memory_buffer& out, netcdf::NcType t, const uint8_t* p, bool json) {
  switch (t) {
    case netcdf::NC_BYTE: return append_int<int8_t>(out, p);
    case netcdf::NC_UBYTE: return append_int<uint8_t>(out, p);
    case netcdf::NC_CHAR: return append_int<uint8_t>(out, p);
    case netcdf::NC_SHORT: return append_int<int16_t>(out, p);
    case netcdf::NC_USHORT: return append_int<uint16_t>(out, p);
    case netcdf::NC_INT: return append_int<int32_t>(out, p);
    case netcdf::NC_UINT: return append_int<uint32_t>(out, p);
    case netcdf::NC_INT64: return append_int<int64_t>(out, p);
    case netcdf::NC_UINT64: return append_int<uint64_t>(out, p);
    case netcdf::NC_FLOAT: return append_float(out, load<float>(p), true, json);
    case netcdf::NC_DOUBLE: return append_float(out, load<double>(p), false, json);
  }
}

std::string_view trim_nuls(std::string_view s) {
  while (!s.empty() && s.back() == '\0') s.remove_suffix(1);
  return s;
}

std::string quote(std::string_view s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\0': out += "\\0"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += fmt::format("\\x{:02x}", c);
        } else {
          out += ch;
        }
    }
  }
  return out + "\"";
}

std::string attr_text(const netcdf::Attr& a) {
  const std::string_view chars = as_chars(a.values.data(), a.values.size());
  if (a.type == netcdf::NC_CHAR) return quote(trim_nuls(chars));
  const size_t size = netcdf::nc_type_size(a.type);
  fmt::memory_buffer out;
  for (uint64_t i = 0; i < a.count(); ++i) {
    if (i > 0) fmt::format_to(std::back_inserter(out), ", ");
    append_number(out, a.type, a.values.data() + i * size, false);
  }
  return fmt::to_string(out);
}

Json attr_json(const netcdf::Attr& a) {
  Json j = {{"type", type_name(a.type)}};
  if (a.type == netcdf::NC_CHAR) {
    j["value"] = std::string(trim_nuls(as_chars(a.values.data(), a.values.size())));
    return j;
  }
  // Through the same formatter as dump, so that both print a value the same way.
  const size_t size = netcdf::nc_type_size(a.type);
  Json values = Json::array();
  for (uint64_t i = 0; i < a.count(); ++i) {
    fmt::memory_buffer text;
    append_number(text, a.type, a.values.data() + i * size, true);
    values.push_back(Json::parse(fmt::to_string(text)));
  }
  j["value"] = std::move(values);
  return j;
}

// --- ValueWriter ---------------------------------------------------------------------------

ValueWriter::ValueWriter(std::FILE* out, netcdf::NcType type, const std::vector<uint64_t>& count,
                         bool json)
    : out_(out),
      count_(count),
      type_(type),
      elem_size_(netcdf::nc_type_size(type)),
      json_(json),
      is_char_(type == netcdf::NC_CHAR),
      items_shape_(count) {
  if (is_char_ && !items_shape_.empty()) {
    row_len_ = items_shape_.back();
    items_shape_.pop_back();
  }
  suffix_.assign(items_shape_.size() + 1, 1);
  for (size_t d = items_shape_.size(); d-- > 0;) suffix_[d] = suffix_[d + 1] * items_shape_[d];
  items_total_ = suffix_[0];
  per_line_ = (is_char_ || items_shape_.empty()) ? 1 : std::max<uint64_t>(items_shape_.back(), 1);
}

void ValueWriter::label_rows(std::string name, std::vector<uint64_t> first) {
  label_name_ = std::move(name);
  label_first_ = std::move(first);
}

void ValueWriter::write_label(uint64_t row) {
  // The row's leading indices: the record index, then row unravelled over all but the last
  // dimension of the box.
  const size_t dims = count_.size();
  std::vector<uint64_t> at = label_first_;
  if (dims > 0) {
    at.pop_back();
    const size_t lead = label_first_.size() - dims;
    for (size_t d = dims - 1; d-- > 0;) {
      at[lead + d] += row % count_[d];
      row /= count_[d];
    }
  }
  std::string inside = fmt::format("{}", fmt::join(at, ","));
  if (dims > 0 && count_.back() > 0) {  // the last dimension's range ("" for empty strings)
    const uint64_t a = label_first_.back(), n = count_.back();
    const std::string last = n == 1 ? fmt::format("{}", a) : fmt::format("{}-{}", a, a + n - 1);
    inside += (inside.empty() ? "" : n == 1 ? "," : ", ") + last;
  }
  auto it = std::back_inserter(buf_);
  if (inside.empty())
    fmt::format_to(it, "{} = ", label_name_);
  else
    fmt::format_to(it, "{}({}) = ", label_name_, inside);
}

// Separators (and JSON brackets, or the text's row labels) before the next item.
void ValueWriter::begin_item() {
  const uint64_t i = items_done_;
  auto it = std::back_inserter(buf_);
  if (!json_) {
    if (i > 0) fmt::format_to(it, "{}", i % per_line_ == 0 ? "\n" : ", ");
    if (!label_name_.empty() && i % per_line_ == 0) write_label(i / per_line_);
    return;
  }
  if (i == 0) {
    for (size_t d = 0; d < items_shape_.size(); ++d) buf_.push_back('[');
    return;
  }
  size_t closing = 0;  // arrays that end before item i: the innermost ones whose size divides i
  for (size_t d = 1; d < items_shape_.size(); ++d)
    if (i % suffix_[d] == 0) ++closing;
  for (size_t k = 0; k < closing; ++k) buf_.push_back(']');
  buf_.push_back(',');
  for (size_t k = 0; k < closing; ++k) buf_.push_back('[');
}

void ValueWriter::add_string(std::string_view s) {
  begin_item();
  const std::string_view chars = trim_nuls(s);
  const std::string text = json_ ? to_json_text(Json(std::string(chars))) : quote(chars);
  buf_.append(text.data(), text.data() + text.size());
  ++items_done_;
  flush_if_full();
}

void ValueWriter::add(const uint8_t* values, uint64_t n) {
  for (uint64_t k = 0; k < n; ++k) {
    const uint8_t* p = values + k * elem_size_;
    if (is_char_) {
      row_.push_back(static_cast<char>(*p));
      if (row_.size() == row_len_) {
        add_string(row_);
        row_.clear();
      }
      continue;
    }
    begin_item();
    append_number(buf_, type_, p, json_);
    ++items_done_;
    flush_if_full();
  }
}

// JSON for a box with no items: the nested empty arrays of its shape ([[], []] for 2 x 0).
void ValueWriter::write_empty_arrays(size_t dim) {
  buf_.push_back('[');
  if (dim + 1 < items_shape_.size()) {
    for (uint64_t i = 0; i < items_shape_[dim]; ++i) {
      if (i > 0) buf_.push_back(',');
      write_empty_arrays(dim + 1);
    }
  }
  buf_.push_back(']');
}

void ValueWriter::finish() {
  if (is_char_ && row_len_ == 0) {  // rows of zero characters: empty strings, never fed
    while (items_done_ < items_total_) add_string("");
  }
  if (json_ && items_total_ == 0) {
    write_empty_arrays(0);
  } else if (json_) {
    for (size_t d = 0; d < items_shape_.size(); ++d) buf_.push_back(']');
  } else if (items_done_ > 0) {
    buf_.push_back('\n');
  }
  std::fwrite(buf_.data(), 1, buf_.size(), out_);
  buf_.clear();
}

void ValueWriter::flush_if_full() {
  if (buf_.size() < (1 << 16)) return;
  std::fwrite(buf_.data(), 1, buf_.size(), out_);
  buf_.clear();
}

}  // namespace tapio::cli
