// tapio-bench --operator SPEC: the subfile engine with a per-variable operator against the
// same engine without, in one run of interleaved repetitions, on smooth LICOM-like fields.
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>

#include "registry.h"
#include "results.h"

namespace bench {
namespace {

constexpr const char* kPlain = "subfile";

std::string op_method(const std::string& spec) { return std::string(kPlain) + "+" + spec; }

// The absolute bound a zfp accuracy spec promises; none (infinity) for rate and precision,
// 0 for the lossless operators.
double bound_of(const std::string& spec) {
  if (spec.rfind("zfp", 0) != 0) return 0;
  const size_t at = spec.find("accuracy=");
  if (at == std::string::npos) return std::numeric_limits<double>::infinity();
  return std::strtod(spec.c_str() + at + 9, nullptr);
}

std::optional<double> median_of(const std::vector<double>& v) {
  if (v.empty()) return std::nullopt;
  return stats(v).median;
}

}  // namespace

std::optional<std::string> compare_operator(const std::string& spec, const Pattern& pattern,
                                            std::string* methods,
                                            std::vector<std::unique_ptr<Method>>* all) {
  if (pattern.name() != "licom")
    return "--operator runs on the licom pattern only (its smooth fields)";
  const json params = pattern.params();
  use_smooth_field(params["nx"].get<uint64_t>(), params["ny"].get<uint64_t>(), bound_of(spec));
  all->push_back(make_tapio_variant(op_method(spec), kPlain, {{"operator", spec}}));
  *methods = (methods->empty() ? std::string(kPlain) : *methods) + "," + op_method(spec);
  return std::nullopt;
}

json operator_summary(const RunInfo& info, const std::vector<MethodResult>& results) {
  json out = json::object();
  for (const MethodResult& m : results) {
    if (!m.ran() || m.name.rfind(kPlain, 0) != 0 || !m.extra.contains("stored_bytes")) continue;
    const double stored = m.extra["stored_bytes"].get<double>();
    const bool with_op = m.name == op_method(info.op);
    const double bound = with_op ? bound_of(info.op) : 0;
    out[m.name] = {
        {"operator", with_op ? info.op : "none"},
        {"bytes_put", info.write_bytes},
        {"bytes_stored", stored},
        {"ratio", stored > 0 ? json(double(info.write_bytes) / stored) : json(nullptr)},
        {"write_mib_s", median_of(m.write_mib_s).value_or(0)},
        {"read_mib_s", median_of(m.read_mib_s).value_or(0)},
        {"max_error", m.max_error},
        {"bound", std::isinf(bound) ? json(nullptr) : json(bound)},
        {"verified", m.verified()}};
  }
  return out;
}

void print_operator_table(const RunInfo& info, const std::vector<MethodResult>& results) {
  const json s = operator_summary(info, results);
  std::printf("operator %s on smooth LICOM-like fields (medians over %d reps; ratio = bytes put "
              "/ bytes stored):\n", info.op.c_str(), info.reps);
  std::printf("%-32s %8s %12s %12s %12s %12s %s\n", "method", "ratio", "write MiB/s",
              "read MiB/s", "max error", "bound", "within");
  for (const auto& [name, r] : s.items()) {
    char bound[32] = "none";
    if (!r["bound"].is_null()) std::snprintf(bound, sizeof bound, "%.3g", r["bound"].get<double>());
    std::printf("%-32s %8.2f %12.1f %12.1f %12.3g %12s %s\n", name.c_str(),
                r["ratio"].is_null() ? 0.0 : r["ratio"].get<double>(),
                r["write_mib_s"].get<double>(), r["read_mib_s"].get<double>(),
                r["max_error"].get<double>(), bound, r["verified"] ? "yes" : "NO");
  }
  std::fflush(stdout);
}

}  // namespace bench
