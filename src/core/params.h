// The parameter registry: every tunable knob of every engine, with its type, default, unit and
// documentation. Config files, program-set parameters and docs/tuning.md all use this table,
// so an unknown or misspelled key is an error with a suggestion, never silently ignored.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace tapio {

enum class ParamKind {
  kInteger,  // signed 64-bit; TOML integer or decimal string
  kSize,     // bytes; TOML integer or string with unit: "16MiB", "4k", "1GiB", "512"
  kBoolean,  // TOML boolean or "true"/"false"/"on"/"off"/"1"/"0"
  kEnum,     // one of `choices`
  kString,   // free text (paths)
};

struct ParamDef {
  std::string_view name;
  ParamKind kind;
  std::string_view default_value;    // canonical text form; "" means unset
  std::string_view unit;             // "bytes", "ranks", "" ...
  std::vector<std::string_view> choices;  // kEnum; also extra words for other kinds (e.g. "auto")
  std::string_view engines;          // which engines read it: "all", "serial", "collective,subfile"
  std::string_view doc;              // one sentence for docs/tuning.md
};

// All parameters, in documentation order.
const std::vector<ParamDef>& param_registry();
const ParamDef* find_param(std::string_view name);

// Known engine names (the value set of the `engine` key).
const std::vector<std::string_view>& engine_names();

// The candidate nearest to `word` by edit distance, or "" if none is close enough to suggest.
std::string nearest(std::string_view word, const std::vector<std::string_view>& candidates);

// Parse a size: "16MiB", "16M", "16 MB"(=MiB), "4k", "1GiB", "1048576". Binary units.
Result<uint64_t> parse_size(std::string_view text);

// Validate `value` for parameter `name` and return its canonical text (sizes in bytes,
// booleans "true"/"false"). Errors name the key and say what was expected.
Result<std::string> normalize_param(std::string_view name, std::string_view value);

// A set of parameter values (canonical text), with typed getters that fall back to defaults.
class Params {
 public:
  // Validates and stores; errors name the key (with a suggestion if unknown).
  Status set(std::string_view name, std::string_view value);
  bool has(std::string_view name) const;   // set explicitly (not default)
  std::string get(std::string_view name) const;  // value or default; "" if neither
  int64_t get_int(std::string_view name) const;
  uint64_t get_size(std::string_view name) const;
  bool get_bool(std::string_view name) const;
  const std::map<std::string, std::string>& values() const { return values_; }

 private:
  std::map<std::string, std::string> values_;
};

}  // namespace tapio
