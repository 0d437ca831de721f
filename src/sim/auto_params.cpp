#include "sim/auto_params.h"

#include <algorithm>

#include "sim/choose.h"

namespace tapio::sim {
namespace {

// What is known at open: every variable. Its decomposition is not, so each is taken as the
// usual kind, interleaved: every rank a band of columns of each row (a 2-D block
// decomposition's rows, a matrix's column bands, HPIO's regions, E3SM's scattered columns all
// interleave ranks in the file), rows being the last dimension, or 512 elements a rank for a
// 1-D variable. (Contiguous shares would make every plan direct and every candidate equal.)
// At most kRows rows a variable, longer if need be: the choice turns on rounds, aggregators
// and bytes, not on the exact piece count, and predicting 70,400 rows for each of dozens of
// candidates on every rank made the choice cost more than a small file's write.
class Bands final : public Pattern {
 public:
  static constexpr uint64_t kRows = 256;
  Bands(const IoDef& io, int ranks) : Pattern(ranks, 1) {
    const uint64_t P = static_cast<uint64_t>(ranks);
    for (const VariableDef& v : io.vars) {
      const uint64_t doubles = std::max<uint64_t>(1, v.elements() * type_size(v.type) / 8);
      const uint64_t last = v.shape.size() >= 2 ? v.shape.back() * type_size(v.type) / 8 : 0;
      uint64_t cols = std::max<uint64_t>(1, last ? last : std::min(doubles, 512 * P));
      cols = std::max(cols, (doubles + kRows - 1) / kRows);
      add_var(v.name, {(doubles + cols - 1) / cols, cols}, {"r_" + v.name, "c_" + v.name});
    }
  }
  void for_each_put(int rank, const Put& put) const override {
    const uint64_t P = static_cast<uint64_t>(ranks()), r = static_cast<uint64_t>(rank);
    for (size_t v = 0; v < io().vars.size(); ++v) {
      const std::vector<uint64_t>& shape = io().vars[v].shape;
      const uint64_t lo = shape[1] * r / P, hi = shape[1] * (r + 1) / P;
      if (hi > lo) put(static_cast<int>(v), plan::Selection::box({0, lo}, {shape[0], hi - lo}), -1);
    }
  }
};

// two_level = auto turns two-level on only when the model predicts at least this much less
// time.
constexpr double kTwoLevelMargin = 0.95;

Status take_defaults(Params* params, const std::vector<std::string>& names) {
  for (const std::string& n : names)
    if (params->get(n) == "auto") TAPIO_RETURN_IF_ERROR(params->set(n, find_param(n)->default_value));
  return ok_status();
}

// A collective file opened for reading (no variables known yet) on a described machine:
// aggregators = auto reads with as many aggregators per node as the node's client needs
// readers (Cluster::readers_per_node), unless aggregators_per_node was asked for.
Status choose_readers(const Cluster& c, Params* params) {
  if (params->get("cluster").empty() || params->get("aggregators") != "auto" ||
      params->has("aggregators_per_node"))
    return ok_status();
  return params->set("aggregators_per_node", std::to_string(c.readers_per_node()));
}

}  // namespace

Status resolve_auto(Params* params, const std::string& engine, const IoDef& io,
                    const std::vector<int>& node_of_rank, int nodes) {
  const std::string cluster_file = params->get("cluster");
  const int P = static_cast<int>(node_of_rank.size());
  // two_level = auto is the model's only for a described machine writing a collective file.
  const bool gather_free = params->get("two_level") == "auto" && !cluster_file.empty() &&
                           engine == "collective" && !io.vars.empty() && P > 0;
  if (!gather_free && params->get("two_level") == "auto")
    TAPIO_RETURN_IF_ERROR(params->set("two_level", "false"));
  std::vector<std::string> free;
  for (const char* n : {"buffer_size", "stripe_size"})
    if (params->get(n) == "auto") free.push_back(n);
  if (!cluster_file.empty() && params->get("aggregators") == "auto") free.push_back("aggregators");
  if (free.empty() && !gather_free) return ok_status();
  Cluster c;
  if (!cluster_file.empty()) {
    TAPIO_ASSIGN_OR_RETURN(c, load_cluster(cluster_file));
  }
  c.nodes = std::max(nodes, 1);
  c.ranks_per_node = (P + c.nodes - 1) / c.nodes;
  if (io.vars.empty() && P > 0 && engine == "collective")
    TAPIO_RETURN_IF_ERROR(choose_readers(c, params));
  if (io.vars.empty() || P == 0 || (engine != "collective" && engine != "subfile"))
    return take_defaults(params, {"buffer_size", "stripe_size"});
  Workload w;
  w.ranks = P;
  w.engine = engine;
  w.params = *params;
  TAPIO_RETURN_IF_ERROR(w.params.set("ranks_per_node", std::to_string(c.ranks_per_node)));
  TAPIO_RETURN_IF_ERROR(take_defaults(&w.params, {"buffer_size", "stripe_size"}));
  const Bands pattern(io, P);
  if (!free.empty()) {
    TAPIO_ASSIGN_OR_RETURN(Choice choice, choose(w, pattern, c, free));
    const Candidate& best = choice.best;
    for (const std::string& n : free) {
      const std::string value = n == "aggregators"  ? best.aggregators
                                : n == "buffer_size" ? std::to_string(best.buffer_size)
                                                     : std::to_string(best.stripe_size);
      TAPIO_RETURN_IF_ERROR(params->set(n, value));
      TAPIO_RETURN_IF_ERROR(w.params.set(n, value));
    }
  }
  if (!gather_free) return ok_status();
  // Two-level for the chosen plan when the model predicts it faster by a clear margin (its
  // extra copy is certain, its saving a prediction).
  TAPIO_ASSIGN_OR_RETURN(TwoLevel two, compare_two_level(w, pattern, c));
  const bool pays = two.two_level.total < kTwoLevelMargin * two.one_level.total;
  return params->set("two_level", pays ? "true" : "false");
}

Status AutoChoices::resolve(Params* params, const std::string& engine, const IoDef& io,
                            const std::vector<int>& node_of_rank, int nodes) {
  std::string key = engine + "|" + std::to_string(nodes) + "|";
  for (int n : node_of_rank) key += std::to_string(n) + ",";
  for (const VariableDef& v : io.vars) {
    key += "|" + std::to_string(v.type) + ":";
    for (uint64_t d : v.shape) key += std::to_string(d) + "x";
  }
  for (const auto& [name, value] : params->values()) key += "|" + name + "=" + value;
  const auto hit = made_.find(key);
  if (hit != made_.end()) {
    *params = hit->second;
    return ok_status();
  }
  TAPIO_RETURN_IF_ERROR(resolve_auto(params, engine, io, node_of_rank, nodes));
  made_.emplace(std::move(key), *params);
  return ok_status();
}

}  // namespace tapio::sim
