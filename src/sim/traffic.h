// What one step of a workload puts on the machine, round by round: the messages and bytes
// between nodes, the copies, and the requests each storage target serves, computed by running
// the real planner (plan/: aggregator_count, place_aggregators, make_layout, route_segments,
// collection_order, plan_direct, layout_group) on every rank's pieces, one rank at a time.
// Memory is O(ranks + rounds x (nodes + aggregators + targets)), never O(ranks^2): each rank's
// routed segments are folded into the round totals and dropped.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/cluster.h"
#include "sim/patterns.h"
#include "sim/workload.h"

namespace tapio::sim {

// One round's load. Per node unless said otherwise; "remote" means between two nodes.
struct RoundLoad {
  std::vector<double> nic_out, nic_in;    // remote bytes (data and segment lists)
  std::vector<double> msgs_out, msgs_in;  // remote messages
  std::vector<double> shm_copy;           // bytes the node's ranks copy into node-local slots
  std::vector<double> shm_pieces;         // and the pieces they come in
  std::vector<double> agg_copy;           // per aggregator: bytes it copies itself
  std::vector<double> agg_pieces;         // and the pieces they come in
  std::vector<double> agg_bytes_in;       // per aggregator: bytes it receives over the network
  std::vector<double> agg_msgs;           // per aggregator: messages it takes one by one
  std::vector<double> node_write;         // bytes the node's writers hand to the file system
  std::vector<double> ost_bytes, ost_requests, ost_conflicts;  // per storage target
  std::vector<double> up_out, up_in;      // per leaf switch (fat-tree) or group (dragonfly)
  double bisection = 0;                   // bytes crossing the switch's halves
  // Per wave (the messages ranks have in flight together: positions [w*k, (w+1)*k) of each
  // rank's collection order, k = nic.in_flight), remote bytes sent and received per node.
  std::vector<std::vector<float>> wave_out, wave_in;
};

struct Traffic {
  std::string mode;  // "two-phase", "direct", "subfile direct", "subfile aggregate", "serial"
  int ranks = 0, nodes = 0, ranks_per_node = 0;
  int writers = 0;    // aggregators, subfile groups, or ranks writing directly
  uint64_t steps = 1;
  uint64_t bytes = 0;     // data per step
  uint64_t window = 0;    // bytes per aggregator and round (buffer_size as used)
  uint64_t segments = 0;  // all ranks' segments (what the planner routed)
  uint64_t max_rank_segments = 0, max_rank_bytes = 0;
  // Planning as the engines plan (docs/design.md, "Decompositions are planned once"): the
  // first step describes each distinct decomposition of a rank once (its runs visited into
  // segments), later steps reuse the plans; the collective engine still places and routes
  // every segment each step (file domains move with each record): `routed`. The serial
  // engine keeps no plans: it describes every step (plans_once false).
  uint64_t described = 0, max_rank_described = 0;  // segments, all ranks / the most of one
  uint64_t routed = 0, max_rank_routed = 0;
  bool plans_once = true;
  std::vector<double> swap_bytes;  // per node: bytes its ranks byte-swap into staging
  std::vector<int> writer_ranks;   // aggregator (or group leader) ranks, in domain order
  std::vector<double> node_writers;  // per node: its ranks that issue writes
  std::vector<RoundLoad> rounds;
  uint64_t files = 1;              // files created per run
  double metadata_bytes = 0;       // per step, gathered to rank 0 (subfile gather)
  double metadata_requests = 0;    // per step, small writes of metadata records
  bool pipeline = true;
  int collectives = 0;             // small collectives per step (agreements, reductions)
  uint64_t reduce_scatter_bytes = 0;
};

// Reports progress (0..1) as ranks are planned; may be empty.
using Progress = std::function<void(double)>;

// The node of each rank: the workload's ranks_per_node parameter (a virtual layout) when set,
// else the cluster's; node_layout block or cyclic.
std::vector<int> node_of_ranks(const Workload& w, const Cluster& c, int* nodes);

// Two-level aggregation (the collective engine's two_level = true) applied to one-level
// traffic: every remote message of a node's ranks leaves as one message per (node,
// aggregator, round) — what the node's gatherer sends — and the node's outgoing bytes are
// copied once more, to the gatherer, in the node's memory.
void gather_per_node(Traffic* t);

// The load of one step of `w` on `c` (two_level = true applied). Errors: a workload the
// engine would reject.
Result<Traffic> plan_traffic(const Workload& w, const Pattern& p, const Cluster& c,
                             const Progress& progress);

}  // namespace tapio::sim
