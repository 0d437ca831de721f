#include "sim/choose.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "plan/domains.h"
#include "sim/traffic.h"
#include "sim/units.h"

namespace tapio::sim {
namespace {

bool is_free(const std::vector<std::string>& free, const std::string& name) {
  return std::find(free.begin(), free.end(), name) != free.end();
}

Result<Candidate> try_one(Workload w, const Pattern& p, const Cluster& c, const Candidate& cand) {
  TAPIO_RETURN_IF_ERROR(w.params.set("aggregators", cand.aggregators));
  TAPIO_RETURN_IF_ERROR(w.params.set("buffer_size", std::to_string(cand.buffer_size)));
  TAPIO_RETURN_IF_ERROR(w.params.set("stripe_size", std::to_string(cand.stripe_size)));
  TAPIO_ASSIGN_OR_RETURN(Traffic t, plan_traffic(w, p, c, nullptr));
  const Prediction pr = predict(t, c);
  Candidate out = cand;
  out.seconds = pr.total;
  out.bottleneck = pr.bottleneck;
  return out;
}

// Plans predicted within kTie of the fastest are ones the model cannot tell apart; of those
// take the least buffer memory (aggregators x buffer_size), which the model does not charge
// for (on this machine 1 MiB rounds beat 4 MiB ones by 2-3x where the model sees 0.1%:
// docs/sim.md, "Choosing"; and an aggregator predicted to gain 0.1% still holds a buffer).
constexpr double kTie = 0.01;

bool near_fastest(const Candidate& k, const std::vector<Candidate>& fastest_first) {
  return k.seconds <= fastest_first.front().seconds * (1 + kTie);
}

}  // namespace

uint64_t buffer_memory(const Candidate& k) {
  return k.buffer_size * static_cast<uint64_t>(std::max(1, k.writers));
}

Candidate least_memory_near_fastest(const std::vector<Candidate>& fastest_first) {
  Candidate best = fastest_first.front();
  for (const Candidate& k : fastest_first)
    if (near_fastest(k, fastest_first) && buffer_memory(k) < buffer_memory(best)) best = k;
  return best;
}

TieBreak tie_break(const std::vector<Candidate>& fastest_first, const Candidate& best) {
  TieBreak why{0, 0, 0};
  for (const Candidate& k : fastest_first) {
    if (!near_fastest(k, fastest_first)) continue;
    ++why.near;
    if (buffer_memory(k) != buffer_memory(best)) continue;
    ++why.least_memory;
    if (k.seconds == best.seconds) ++why.equal;
  }
  return why;
}

std::string describe(const TieBreak& why, const Candidate& best) {
  if (why.near <= 1) return "the fastest; no other candidate is predicted within 1% of it";
  std::string out = fmt::format("{} candidates are predicted within 1% of the fastest, which the "
                                "model cannot tell apart", why.near);
  std::string memory = format_bytes(static_cast<double>(best.buffer_size));
  if (best.writers > 1) memory = fmt::format("{} aggregators x {}", best.writers, memory);
  if (why.least_memory < why.near)
    out += fmt::format("; the least buffer memory among them ({}) wins: the model does not "
                       "charge for memory", memory);
  else
    out += fmt::format(", all holding {} of buffers", memory);
  if (why.least_memory > why.equal)
    out += fmt::format("; the fastest of the {} holding that much", why.least_memory);
  if (why.equal > 1)
    out += fmt::format("; {} are predicted exactly as fast ({}): the first tried wins "
                       "(aggregators in the order auto, 2 and 4 per node, 1/8, 1/4, 1/2 and all "
                       "of the ranks, then the smaller stripe)",
                       why.equal, format_duration(best.seconds));
  return out;
}

Result<Choice> choose(const Workload& w, const Pattern& p, const Cluster& c,
                      const std::vector<std::string>& free) {
  int nodes = 0;
  (void)node_of_ranks(w, c, &nodes);
  std::vector<std::string> aggs = {w.params.get("aggregators")};
  if (is_free(free, "aggregators")) {
    aggs = {"auto"};
    for (int per : {2, 4}) aggs.push_back(std::to_string(std::min(nodes * per, w.ranks)));
    for (const char* ratio : {"1/8", "1/4", "1/2"}) aggs.push_back(ratio);
    aggs.push_back("all");
  }
  std::vector<uint64_t> buffers = {w.params.get_size("buffer_size")};
  if (is_free(free, "buffer_size")) buffers = {1u << 20, 4u << 20, 16u << 20, 64u << 20};
  std::vector<uint64_t> stripes = {w.params.get_size("stripe_size")};
  if (is_free(free, "stripe_size")) {
    std::set<uint64_t> s = {c.stripe_size, 1u << 20, 4u << 20};
    stripes.assign(s.begin(), s.end());
  }
  // Texts that name the same aggregator count plan alike: predict one of them.
  const int per_node = static_cast<int>(w.params.get_int("aggregators_per_node"));
  std::set<int> counts;
  std::vector<std::pair<std::string, int>> distinct;
  for (const std::string& a : aggs) {
    const int n = plan::aggregator_count(w.ranks, nodes, a, per_node);
    if (counts.insert(n).second) distinct.emplace_back(a, n);
  }
  Choice choice;
  choice.free = free;
  for (const auto& [a, n] : distinct)
    for (uint64_t b : buffers)
      for (uint64_t s : stripes) {
        TAPIO_ASSIGN_OR_RETURN(Candidate got, try_one(w, p, c, Candidate{a, b, s, 0, {}, n}));
        choice.tried.push_back(got);
      }
  std::stable_sort(choice.tried.begin(), choice.tried.end(),
                   [](const Candidate& x, const Candidate& y) { return x.seconds < y.seconds; });
  choice.best = least_memory_near_fastest(choice.tried);
  choice.why = tie_break(choice.tried, choice.best);
  return choice;
}

Result<TwoLevel> compare_two_level(const Workload& w, const Pattern& p, const Cluster& c) {
  TwoLevel out;
  Workload one_level = w;
  TAPIO_RETURN_IF_ERROR(one_level.params.set("two_level", "false"));
  TAPIO_ASSIGN_OR_RETURN(Traffic one, plan_traffic(one_level, p, c, nullptr));
  out.one_level = predict(one, c);
  Traffic two = std::move(one);
  gather_per_node(&two);
  out.two_level = predict(two, c);
  double before = 0, after = 0;
  for (const auto& [name, s] : out.one_level.phases) before += name == "exchange" ? s : 0;
  for (const auto& [name, s] : out.two_level.phases) after += name == "exchange" ? s : 0;
  out.node_gather = after - before;
  return out;
}

}  // namespace tapio::sim
