// The contention model: a step's traffic (traffic.h) on a cluster, round by round, to times.
// Per round, the exchange takes as long as its slowest resource: a NIC sending or receiving
// the bytes of each wave of messages in flight (so the collection order shows), the switch's
// bisection or a leaf's uplinks, an aggregator taking its messages one by one (IDDIO's
// per-message Tdelay + S/Bnet, equation 2, plus its own copies), a NIC's message rate, or the
// ranks of a node copying into shared slots. The write takes as long as its slowest storage
// target (bytes / bandwidth, a cost per request, a lock cost per extra writer of a stripe) or
// node client. With pipelining, round r's write overlaps round r+1's exchange (IDDIO's
// pipeline mode, equation 8: the slower stage sets the pace). Pure.
#pragma once
#include <string>
#include <vector>

#include "sim/cluster.h"
#include "sim/traffic.h"

namespace tapio::sim {

// A resource's share of the time: its kind ("NIC in", "storage target", "aggregator
// messages", ...), the instance that cost most ("node 12", "target 3"), and seconds.
struct Term {
  std::string kind;
  std::string instance;
  double seconds = 0;
};

struct RoundTime {
  double exchange = 0, write = 0;
  Term exchange_by, write_by;  // the slowest resource of each
};

struct Prediction {
  // Seconds for the whole run (every step), by phase: plan, swap, agree, exchange, write,
  // metadata, create, sync. "write" is the part of the writes the exchange did not hide.
  std::vector<std::pair<std::string, double>> phases;
  double total = 0;      // seconds
  // The plan phase of the first step and of each later one (the profile's plan_per_batch):
  // later steps reuse the first step's plans (traffic.h).
  double plan_first_step = 0, plan_later_step = 0;
  double bandwidth = 0;  // bytes written / total
  std::vector<RoundTime> rounds;  // one step's
  std::vector<Term> by_resource;  // critical-path seconds per kind, largest first
  Term bottleneck;                // by_resource[0]
};

Prediction predict(const Traffic& t, const Cluster& c);

// Seconds of one rank's CPU the planner spends per segment, constants of the model fitted to
// the collective engine's plan phase in CPU time for E3SM F at 4 ranks (docs/sim.md): each
// step places the plans at their variables' offsets and routes them into the windows (2.4 ms
// for 79,000 segments); the first step also describes each distinct decomposition, visiting
// its runs (3.1 ms more for 5,000 segments, since E3SM's segments are many short runs).
inline constexpr double kDescribeCost = 600e-9;
inline constexpr double kRouteCost = 30e-9;
// Seconds a copy spends per piece beyond its bytes (finding the piece's source, swapping the
// elements cut at its ends): E3SM's 8-byte pieces cost far more than their bytes.
inline constexpr double kPieceCost = 100e-9;

}  // namespace tapio::sim
