// Parsing the `operator` parameter (grammar: operators.h).
#include <fnmatch.h>

#include <charconv>
#include <cmath>

#include <zstd.h>

#include "format/subfile/operators.h"

namespace tapio::subfile {
namespace {

constexpr std::string_view kKnown = "none, zstd, shuffle+zstd, zfp";

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

template <typename T>
bool parse_number(std::string_view s, T* out) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size();
}

Status bad(std::string_view spec, std::string_view why) {
  return error(TAPIO_ERR_CONFIG, "operator '{}': {}", spec, why);
}

Status parse_zstd_key(std::string_view spec, std::string_view key, std::string_view value,
                      Operator* op) {
  if (key != "level") return bad(spec, "zstd takes only level");
  if (!parse_number(value, &op->level) || op->level < 1 || op->level > ZSTD_maxCLevel())
    return bad(spec, fmt::format("the level must be an integer from 1 to {}", ZSTD_maxCLevel()));
  return ok_status();
}

Status parse_zfp_key(std::string_view spec, std::string_view key, std::string_view value,
                     Operator* op) {
  double v = 0;
  const bool number = parse_number(value, &v) && std::isfinite(v);
  if (key == "accuracy" && number && v > 0) {
    op->zfp_mode = Operator::ZfpMode::kAccuracy;
  } else if (key == "rate" && number && v > 0 && v <= 64) {
    op->zfp_mode = Operator::ZfpMode::kRate;
  } else if (key == "precision" && number && v >= 1 && v <= 64 && v == std::floor(v)) {
    op->zfp_mode = Operator::ZfpMode::kPrecision;
  } else {
    return bad(spec, "zfp takes one of accuracy=A (an absolute error bound > 0), rate=R "
                     "(bits per value, 0 < R <= 64) or precision=P (bits, an integer 1 to 64)");
  }
  op->zfp_value = v;
  return ok_status();
}

}  // namespace

std::string Operator::text() const {
  switch (codec) {
    case Codec::kNone: return "none";
    case Codec::kZstd: return fmt::format("zstd:level={}", level);
    case Codec::kShuffleZstd: return fmt::format("shuffle+zstd:level={}", level);
    case Codec::kZfp: break;
  }
  const char* key = zfp_mode == ZfpMode::kAccuracy ? "accuracy"
                    : zfp_mode == ZfpMode::kRate   ? "rate"
                                                   : "precision";
  return fmt::format("zfp:{}={}", key, zfp_value);
}

double Operator::error_bound() const {
  return codec == Codec::kZfp && zfp_mode == ZfpMode::kAccuracy ? zfp_value : 0;
}

Result<Operator> parse_operator(std::string_view spec) {
  spec = trim(spec);
  const size_t colon = spec.find(':');
  const std::string_view name = spec.substr(0, colon);
  Operator op;
  if (name == "zstd") op.codec = Codec::kZstd;
  else if (name == "shuffle+zstd") op.codec = Codec::kShuffleZstd;
  else if (name == "zfp") op.codec = Codec::kZfp;
  else if (name != "none") return bad(spec, fmt::format("unknown operator (known: {})", kKnown));
  const std::string_view key_value = colon == spec.npos ? "" : spec.substr(colon + 1);
  const size_t eq = key_value.find('=');
  if (key_value.empty()) {
    if (op.codec == Codec::kZfp) return parse_zfp_key(spec, "", "", &op);
    return op;
  }
  if (eq == key_value.npos || op.codec == Codec::kNone)
    return bad(spec, "parameters are written name:key=value");
  const std::string_view key = trim(key_value.substr(0, eq)), value = trim(key_value.substr(eq + 1));
  TAPIO_RETURN_IF_ERROR(op.codec == Codec::kZfp ? parse_zfp_key(spec, key, value, &op)
                                                : parse_zstd_key(spec, key, value, &op));
  return op;
}

// A rule is "glob=spec" unless it starts with an operator's name (a spec's '=' comes after
// its ':').
Result<std::vector<OperatorRule>> parse_operator_rules(std::string_view text) {
  std::vector<OperatorRule> rules;
  while (!trim(text).empty()) {
    const size_t semi = text.find(';');
    const std::string_view rule = trim(text.substr(0, semi));
    text = semi == text.npos ? "" : text.substr(semi + 1);
    const size_t eq = rule.find('='), colon = rule.find(':');
    const bool glob = eq != rule.npos && (colon == rule.npos || eq < colon);
    OperatorRule r;
    if (glob) r.glob = std::string(trim(rule.substr(0, eq)));
    TAPIO_ASSIGN_OR_RETURN(r.op, parse_operator(glob ? rule.substr(eq + 1) : rule));
    rules.push_back(std::move(r));
  }
  return rules;
}

Result<Operator> operator_for(const std::vector<OperatorRule>& rules, const std::string& name,
                              DataType type) {
  for (const OperatorRule& r : rules) {
    if (!r.glob.empty() && fnmatch(r.glob.c_str(), name.c_str(), 0) != 0) continue;
    if (r.op.codec == Codec::kZfp && type != TAPIO_FLOAT32 && type != TAPIO_FLOAT64)
      return error(TAPIO_ERR_CONFIG,
                   "variable '{}' ({}): operator '{}' compresses only float32 and float64 "
                   "variables (use zstd or shuffle+zstd)",
                   name, type_name(type), r.op.text());
    return r.op;
  }
  return Operator{};
}

}  // namespace tapio::subfile
