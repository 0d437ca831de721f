// Reading a small TOML document into a plain struct by a table of fields, with errors that
// name the file, the line and the key ("cluster file 'c.toml', line 7: 'nic.bandwidth' must
// be a rate like "12GiB/s" (got 'fast')") and suggest the nearest key for a misspelled one,
// as core/config.cpp does for config files. The cluster and workload specs both use it.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace toml {
inline namespace v3 {
class table;
}
}  // namespace toml

namespace tapio::sim {

enum class FieldKind {
  kInteger,   // a TOML integer (or its decimal text)
  kNumber,    // an integer or a float
  kRate,      // "12GiB/s", or a number of bytes per second
  kDuration,  // "1.5us", or a number of seconds
  kSize,      // "1MiB", or an integer number of bytes
  kText,      // a string (one of `choices` when given)
  kBoolean,
};

// One key of one section ("" is the top level). `set` receives the value as a double
// (numbers, rates, durations, sizes, booleans as 0/1) or as text (kText); `min` bounds numbers.
struct Field {
  std::string_view section;
  std::string_view key;
  FieldKind kind;
  std::string_view doc;  // what it is, for the documentation and messages
  double min = 0;
  std::vector<std::string_view> choices = {};
  std::function<void(double)> set_number = nullptr;
  std::function<void(const std::string&)> set_text = nullptr;
};

// Setters for Field: a number into a member of any arithmetic type, text into a string.
template <typename T>
std::function<void(double)> into(T* target) {
  return [target](double v) { *target = static_cast<T>(v); };
}
inline std::function<void(const std::string&)> text_into(std::string* target) {
  return [target](const std::string& v) { *target = v; };
}

// What kind of file this is and what it is called, for messages: {"cluster file", "a.toml"}.
struct Source {
  std::string what;
  std::string name;
};

// Parses `text` and applies every key through `fields`. `open_sections` may hold keys not in
// `fields` (the caller reads them with `extra`: section, key, text value, line), e.g. a
// workload's [params], which the parameter registry checks. Errors: TAPIO_ERR_CONFIG naming
// the line and key; the first error in file order is reported.
using Extra = std::function<Status(std::string_view section, std::string_view key,
                                   const std::string& value, int line)>;
Status read_fields(std::string_view text, const Source& source, const std::vector<Field>& fields,
                   const std::vector<std::string_view>& open_sections = {},
                   const Extra& extra = nullptr);

// One override "section.key=value" (or "key=value" at the top level) read as if it were a line
// of the file: the value is TOML ("8", "true", "\"1MiB\"") or else bare text, taken as a
// string ("1MiB"). Errors name the override ("--set 'nic.bandwith=1'").
Status read_override(const std::string& assignment, const std::string& what,
                     const std::vector<Field>& fields,
                     const std::vector<std::string_view>& open_sections = {},
                     const Extra& extra = nullptr);

// Reads a whole file into *text; TAPIO_ERR_CONFIG naming it if it cannot.
Status read_text_file(const std::string& path, const std::string& what, std::string* text);

// "cluster file 'a.toml', line 7: message".
Status at_line(const Source& source, int line, const std::string& message);

}  // namespace tapio::sim
