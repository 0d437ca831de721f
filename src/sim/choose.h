// Choosing with the model: the aggregator count, buffer_size and stripe_size a workload leaves
// to "auto", picked by predicting every candidate on the cluster and keeping the fastest.
// Pure; what --explain prints and what an engine would call at open (docs/sim.md).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sim/cluster.h"
#include "sim/model.h"
#include "sim/patterns.h"
#include "sim/workload.h"

namespace tapio::sim {

struct Candidate {
  std::string aggregators;  // as the parameter takes it: "auto", "2", "1/2", "all"
  uint64_t buffer_size = 0, stripe_size = 0;
  double seconds = 0;
  Term bottleneck;
  int writers = 0;  // the aggregator count the text names (0: not known, taken as one)
};
// The buffer memory a candidate holds: buffer_size on each aggregator.
uint64_t buffer_memory(const Candidate& k);

// How least_memory_near_fastest settled on the best: the candidates it weighed at each rule.
struct TieBreak {
  size_t near = 1;          // predicted within 1% of the fastest (the fastest included)
  size_t least_memory = 1;  // of those, the ones with the best's buffer memory, the least
  size_t equal = 1;         // of those, the ones predicted exactly as fast as the best
};

struct Choice {
  Candidate best;  // one of tried, not always the first (a near tie takes less memory)
  TieBreak why;
  std::vector<Candidate> tried;  // fastest first
  std::vector<std::string> free;  // the parameters that were chosen
};

// Which of aggregators, buffer_size and stripe_size are free: those in `free` (an engine
// passes the ones its user set to "auto"); the others keep the workload's values. Candidates:
// aggregators one per node, 2 and 4 per node, and 1/8, 1/4, 1/2 of the ranks and all (each
// count once: on few nodes several name the same);
// buffer_size 1, 4, 16 and 64 MiB (not above the step); stripe_size the file system's stripe
// and 1 and 4 MiB. The best is least_memory_near_fastest(tried).
Result<Choice> choose(const Workload& w, const Pattern& p, const Cluster& c,
                      const std::vector<std::string>& free);

// Of candidates sorted fastest first (not empty): among those predicted within 1% of the
// fastest, the one holding the least buffer memory (aggregators x buffer_size; the first
// such); else the fastest.
Candidate least_memory_near_fastest(const std::vector<Candidate>& fastest_first);
TieBreak tie_break(const std::vector<Candidate>& fastest_first, const Candidate& best);
// One sentence for --explain: which rule picked the best among candidates predicted alike.
std::string describe(const TieBreak& why, const Candidate& best);

// Two-level aggregation (TAM, ADIOS2's TwoLevelShm): each node first gathers its ranks' data
// into one rank, then only those exchange. Predicted as the same step with one rank per node
// carrying its node's data: the node-local gather is a shared-memory copy (as the collective
// engine's shm path), then messages between nodes as from one rank. Returns the prediction
// of both, one-level first.
struct TwoLevel {
  Prediction one_level, two_level;
  double node_gather = 0;  // seconds of the node-local gather added to the two-level step
};
Result<TwoLevel> compare_two_level(const Workload& w, const Pattern& p, const Cluster& c);

}  // namespace tapio::sim
