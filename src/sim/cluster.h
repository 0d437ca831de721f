// The machine the model predicts for, as a plain struct read from TOML (docs/sim.md has the
// file format). Rates are bytes per second, times seconds. Pure.
//
//   [nodes]    count, ranks_per_node, cores, shared_host, wait_share
//   [nic]      bandwidth, latency, message_rate, in_flight
//   [network]  topology = "switch" | "fat-tree" | "dragonfly", bisection, nodes_per_switch,
//              uplink_bandwidth, groups, global_bandwidth
//   [storage]  targets, target_bandwidth, request_cost, request_size, lock_cost, create_cost,
//              sync_cost, file_cost, stripe_size, stripe_count, client_bandwidth,
//              writer_bandwidth, client_read_bandwidth, reader_bandwidth
//   [memory]   copy_bandwidth, node_bandwidth
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace tapio::sim {

enum class Topology { kSwitch, kFatTree, kDragonfly };

struct Cluster {
  // [nodes]
  int nodes = 1;
  int ranks_per_node = 1;
  int cores = 1;             // per node: ranks beyond it share cores (copies, overheads)
  bool shared_host = false;  // every node is a virtual node of one host: one set of cores
  // On a shared host, the part of a core a rank waiting inside MPI still takes (Open MPI
  // yields when oversubscribed, but each waiting rank is scheduled in turn).
  double wait_share = 0;
  // [nic] (LogGP: latency L, 1/message_rate the gap g, 1/bandwidth the gap per byte G)
  double nic_bandwidth = 10e9;  // each direction
  double nic_latency = 2e-6;    // a message's latency and overhead
  double message_rate = 0;      // messages per second one NIC injects; 0: unlimited
  int in_flight = 16;           // messages a rank has in flight at once (posted sends served)
  // [network]
  Topology topology = Topology::kSwitch;
  double bisection = 0;         // bytes/s across the switch's bisection; 0: unlimited
  int nodes_per_switch = 32;    // fat-tree leaf size
  double uplink_bandwidth = 0;  // fat-tree: a leaf switch's uplinks together; 0: unlimited
  int groups = 1;               // dragonfly groups (nodes dealt in blocks)
  double global_bandwidth = 0;  // dragonfly: bytes/s out of (and into) one group; 0: unlimited
  // [storage]
  int targets = 1;                // storage targets (Lustre OSTs)
  double target_bandwidth = 1e9;  // each
  double request_cost = 0;        // per request an OST serves (seek, RPC)
  uint64_t request_size = 1 << 20;  // the most one request carries (Lustre's RPC size)
  double lock_cost = 0;           // per extra client writing one stripe in a round
  double create_cost = 0;         // per file and stripe at creation (the metadata server)
  double sync_cost = 0;           // a writer's fsync of its file, beyond writing its bytes
  double file_cost = 0;           // opening, describing and closing a file, beyond its data
  uint64_t stripe_size = 1 << 20;
  int stripe_count = 1;           // OSTs per file; -1: all
  double client_bandwidth = 0;    // one node's file-system client; 0: the NIC's
  // One writing rank's copy into the client (a core's write() into the page cache): a node
  // whose writers together copy faster than one writes faster with more writers; 0: unlimited.
  double writer_bandwidth = 0;
  // Reading: one node's client, and one reading rank's copy out of it (a core's read() from the
  // page cache). A node reads at its client's rate with enough readers; 0: the client's
  // bandwidth, and unlimited (one reader is enough).
  double client_read_bandwidth = 0;
  double reader_bandwidth = 0;
  // [memory]
  double copy_bandwidth = 5e9;  // one core's memcpy
  double node_bandwidth = 0;    // one node's (or the shared host's) memory; 0: unlimited

  int ranks() const { return nodes * ranks_per_node; }
  int stripes_per_file() const { return stripe_count < 0 || stripe_count > targets ? targets : stripe_count; }
  double client_rate() const { return client_bandwidth > 0 ? client_bandwidth : nic_bandwidth; }
  // The readers a node needs to read within 10% of its client's rate, each at
  // reader_bandwidth: at least one, at most the node's ranks.
  int readers_per_node() const;
  // The part of a core one rank's work gets while `ranks` - 1 others wait inside MPI: all of
  // it, unless on a shared host the waiting outnumber the cores.
  double cpu_share(int ranks) const;
  // Cores that `active` busy ranks of one node (of the host, when shared) run on at once.
  double core_share(int active) const;
};

// Reads a cluster file, then `overrides` ("storage.targets=8", as tapio sim --set gives them).
// Errors (TAPIO_ERR_CONFIG) name the file, the line and the key.
Result<Cluster> parse_cluster(std::string_view text, const std::string& source,
                              const std::vector<std::string>& overrides = {});
Result<Cluster> load_cluster(const std::string& path,
                             const std::vector<std::string>& overrides = {});

}  // namespace tapio::sim
