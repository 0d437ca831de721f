#include <cstdio>

#include "sim/choose.h"
#include "sim/units.h"
#include "sim_commands.h"

namespace tapio::cli {

int explain(const SimOptions& o, const sim::Cluster& c, const sim::Workload& w,
            const sim::Pattern& p) {
  auto choice = sim::choose(w, p, c, o.choose);
  if (!choice.ok()) return fail(choice.status().message());
  std::printf("choosing");
  for (const std::string& f : choice->free) std::printf(" %s", f.c_str());
  std::printf(" for %s at %d ranks (%s engine): %zu candidates predicted\n",
              w.pattern.name.c_str(), w.ranks, w.engine.c_str(), choice->tried.size());
  std::printf("  %-11s %10s %10s %10s   %s\n", "aggregators", "buffer", "stripe", "time", "bottleneck");
  for (size_t i = 0; i < choice->tried.size(); ++i) {
    const sim::Candidate& k = choice->tried[i];
    if (i >= 10 && i + 1 != choice->tried.size()) continue;  // the best ten and the worst
    const bool chosen = k.aggregators == choice->best.aggregators &&
                        k.buffer_size == choice->best.buffer_size &&
                        k.stripe_size == choice->best.stripe_size;
    std::printf("%s %-11s %10s %10s %10s   %s (%s)\n", chosen ? "*" : " ", k.aggregators.c_str(),
                sim::format_bytes(static_cast<double>(k.buffer_size)).c_str(),
                sim::format_bytes(static_cast<double>(k.stripe_size)).c_str(),
                sim::format_duration(k.seconds).c_str(), k.bottleneck.kind.c_str(),
                k.bottleneck.instance.c_str());
  }
  const sim::Candidate& best = choice->best;
  const sim::Candidate& worst = choice->tried.back();
  std::printf("chosen: aggregators = %s, buffer_size = %s, stripe_size = %s: %s, %.2fx faster "
              "than the slowest candidate; what limits it: %s\n",
              best.aggregators.c_str(), sim::format_bytes(static_cast<double>(best.buffer_size)).c_str(),
              sim::format_bytes(static_cast<double>(best.stripe_size)).c_str(),
              sim::format_duration(best.seconds).c_str(), worst.seconds / best.seconds,
              best.bottleneck.kind.c_str());
  std::printf("why this one: %s\n", sim::describe(choice->why, best).c_str());
  if (w.engine == "collective") {
    sim::Workload chosen = w;  // the chosen plan, gathered per node first or not
    if (!chosen.params.set("aggregators", best.aggregators).ok() ||
        !chosen.params.set("buffer_size", std::to_string(best.buffer_size)).ok() ||
        !chosen.params.set("stripe_size", std::to_string(best.stripe_size)).ok())
      return fail("--explain: the chosen plan's parameters do not validate");
    auto two = sim::compare_two_level(chosen, p, c);
    if (two.ok())
      std::printf("two-level aggregation of that plan (each node gathers first): %s instead of "
                  "%s — %s\n",
                  sim::format_duration(two->two_level.total).c_str(),
                  sim::format_duration(two->one_level.total).c_str(),
                  two->two_level.total < two->one_level.total ? "it would pay" : "it would not pay");
  }
  return 0;
}

}  // namespace tapio::cli
