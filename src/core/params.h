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
  kCount,    // a number of ranks: an integer as kInteger, or a ratio "m/n" of the ranks
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
  int64_t min_value;                 // kInteger, kCount, kSize: smallest accepted number
  bool power_of_two;                 // kSize: the value must be a power of two
};

// "integer", "size", "boolean", "enum", "string" (the type column of docs/tuning.md).
std::string_view param_kind_name(ParamKind kind);

// What a value of `def` must look like, for messages: "a size like 16MiB", "one of never,
// step, close", "an integer or 'auto'".
std::string param_expected(const ParamDef& def);

// All parameters, in documentation order.
const std::vector<ParamDef>& param_registry();
const ParamDef* find_param(std::string_view name);

// Known engine names (the value set of the `engine` key).
const std::vector<std::string_view>& engine_names();

// Validate an engine name: returns it, or TAPIO_ERR_CONFIG "unknown engine 'x' (known engines:
// serial, ...); did you mean 'y'?".
Result<std::string> normalize_engine(std::string_view name);

// The candidate nearest to `word` by edit distance, or "" if none is close enough to suggest.
// Damerau (optimal string alignment) distance, case-insensitive; suggested only if the distance
// is <= max(2, word.size() / 3) and keeps at least one character of the candidate (so "3" does
// not suggest "5"); ties go to the earliest candidate.
std::string nearest(std::string_view word, const std::vector<std::string_view>& candidates);

// Parse a size: "16MiB", "16M", "16 MB"(=MiB), "4k", "1GiB", "1048576". Binary units.
// Units B, K/KB/KiB, M.., G.., T.., P.., E.. (case-insensitive; 1K = 1024). A decimal fraction
// is accepted if the result is a whole number of bytes ("1.5K"). Errors (TAPIO_ERR_CONFIG) for
// negative, too large (> 2^64-1), fractional bytes and anything else.
Result<uint64_t> parse_size(std::string_view text);

// A ratio m/n of the ranks, the form a count takes in `aggregators = "1/4"` (one aggregator per
// 4 ranks): 1 <= num <= den, in lowest terms.
struct RankRatio {
  int64_t num = 1;
  int64_t den = 1;
};

// Parse "m/n" (spaces allowed around the numbers), reduced to lowest terms: "2/8" is 1/4.
// Errors (TAPIO_ERR_CONFIG) for anything else, and for m < 1, n < 1 or m > n (more than one
// per rank).
Result<RankRatio> parse_rank_ratio(std::string_view text);

// Validate `value` for parameter `name` and return its canonical text (sizes in bytes,
// booleans "true"/"false"). Errors name the key and say what was expected.
Result<std::string> normalize_param(std::string_view name, std::string_view value);

// A set of parameter values (canonical text), with typed getters that fall back to defaults.
class Params {
 public:
  // Validates and stores; errors name the key (with a suggestion if unknown).
  Status set(std::string_view name, std::string_view value);
  bool has(std::string_view name) const;   // set explicitly (not default)
  // Value or the registry default, both canonical (sizes in bytes); "" if neither / unknown.
  std::string get(std::string_view name) const;
  // Numeric getters return 0 for an extra word such as "auto" or a ratio (check get() for
  // them) and for unknown names.
  int64_t get_int(std::string_view name) const;
  uint64_t get_size(std::string_view name) const;
  bool get_bool(std::string_view name) const;
  const std::map<std::string, std::string>& values() const { return values_; }

 private:
  std::map<std::string, std::string> values_;
};

}  // namespace tapio
