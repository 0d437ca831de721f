#include "sim/cluster.h"

#include <algorithm>
#include <cmath>

#include "sim/toml_fields.h"

namespace tapio::sim {
namespace {

using K = FieldKind;


// The schema of a cluster file: every key, its kind and its lower bound.
std::vector<Field> cluster_fields(Cluster* c) {
  return {
      {"nodes", "count", K::kInteger, "compute nodes", 1, {}, into(&c->nodes)},
      {"nodes", "ranks_per_node", K::kInteger, "MPI ranks per node", 1, {}, into(&c->ranks_per_node)},
      {"nodes", "cores", K::kInteger, "cores per node", 1, {}, into(&c->cores)},
      {"nodes", "shared_host", K::kBoolean, "all nodes are virtual nodes of one host", 0, {},
       into(&c->shared_host)},
      {"nodes", "wait_share", K::kNumber, "core share of a rank waiting in MPI", 0, {},
       into(&c->wait_share)},
      {"nic", "bandwidth", K::kRate, "each direction", 1, {}, into(&c->nic_bandwidth)},
      {"nic", "latency", K::kDuration, "per message", 0, {}, into(&c->nic_latency)},
      {"nic", "message_rate", K::kNumber, "messages per second; 0 unlimited", 0, {},
       into(&c->message_rate)},
      {"nic", "in_flight", K::kInteger, "messages in flight per rank", 1, {}, into(&c->in_flight)},
      {"network", "topology", K::kText, "switch, fat-tree or dragonfly", 0,
       {"switch", "fat-tree", "dragonfly"}, nullptr,
       [c](const std::string& t) {
         c->topology = t == "switch" ? Topology::kSwitch
                       : t == "fat-tree" ? Topology::kFatTree
                                         : Topology::kDragonfly;
       }},
      {"network", "bisection", K::kRate, "switch bisection; 0 unlimited", 0, {}, into(&c->bisection)},
      {"network", "nodes_per_switch", K::kInteger, "fat-tree leaf size", 1, {},
       into(&c->nodes_per_switch)},
      {"network", "uplink_bandwidth", K::kRate, "a leaf's uplinks", 0, {}, into(&c->uplink_bandwidth)},
      {"network", "groups", K::kInteger, "dragonfly groups", 1, {}, into(&c->groups)},
      {"network", "global_bandwidth", K::kRate, "out of one group", 0, {}, into(&c->global_bandwidth)},
      {"storage", "targets", K::kInteger, "storage targets (OSTs)", 1, {}, into(&c->targets)},
      {"storage", "target_bandwidth", K::kRate, "each target", 1, {}, into(&c->target_bandwidth)},
      {"storage", "request_cost", K::kDuration, "per request", 0, {}, into(&c->request_cost)},
      {"storage", "request_size", K::kSize, "largest request", 1, {}, into(&c->request_size)},
      {"storage", "lock_cost", K::kDuration, "per extent conflict", 0, {}, into(&c->lock_cost)},
      {"storage", "create_cost", K::kDuration, "per file and stripe", 0, {}, into(&c->create_cost)},
      {"storage", "sync_cost", K::kDuration, "per fsync", 0, {}, into(&c->sync_cost)},
      {"storage", "file_cost", K::kDuration, "per file opened and closed", 0, {}, into(&c->file_cost)},
      {"storage", "stripe_size", K::kSize, "file system stripe", 1, {}, into(&c->stripe_size)},
      {"storage", "stripe_count", K::kInteger, "targets per file; -1 all", -1, {},
       into(&c->stripe_count)},
      {"storage", "client_bandwidth", K::kRate, "one node's client; 0 the NIC's", 0, {},
       into(&c->client_bandwidth)},
      {"storage", "writer_bandwidth", K::kRate, "one writing rank's copy; 0 unlimited", 0, {},
       into(&c->writer_bandwidth)},
      {"storage", "client_read_bandwidth", K::kRate, "one node's client reading; 0 its bandwidth",
       0, {}, into(&c->client_read_bandwidth)},
      {"storage", "reader_bandwidth", K::kRate, "one reading rank's copy; 0 unlimited", 0, {},
       into(&c->reader_bandwidth)},
      {"memory", "copy_bandwidth", K::kRate, "one core's memcpy", 1, {}, into(&c->copy_bandwidth)},
      {"memory", "node_bandwidth", K::kRate, "one node's memory; 0 unlimited", 0, {},
       into(&c->node_bandwidth)},
  };
}

}  // namespace

int Cluster::readers_per_node() const {
  if (reader_bandwidth <= 0) return 1;
  const double client = client_read_bandwidth > 0 ? client_read_bandwidth : client_rate();
  // Within 10% of the client's rate is reaching it: calibrated rates vary by that much, and a
  // node of 2 cores whose readers measured 9.27 and 4.55 GiB/s needs 2, not 3.
  const double needed = std::ceil(0.9 * client / reader_bandwidth);
  return static_cast<int>(std::clamp(needed, 1.0, static_cast<double>(std::max(ranks_per_node, 1))));
}

double Cluster::cpu_share(int ranks) const {
  if (!shared_host) return 1;
  return std::min(1.0, cores / (1.0 + wait_share * std::max(0, ranks - 1)));
}

double Cluster::core_share(int active) const {
  return std::min<double>(std::max(active, 1), cores);
}

Result<Cluster> parse_cluster(std::string_view text, const std::string& source,
                              const std::vector<std::string>& overrides) {
  Cluster c;
  const std::vector<Field> fields = cluster_fields(&c);
  TAPIO_RETURN_IF_ERROR(read_fields(text, Source{"cluster file", source}, fields));
  for (const std::string& o : overrides)
    TAPIO_RETURN_IF_ERROR(read_override(o, "cluster", fields));
  if (c.stripe_count == 0)
    return error(TAPIO_ERR_CONFIG, "cluster file '{}': 'storage.stripe_count' must be -1 (all "
                 "targets) or at least 1", source);
  return c;
}

Result<Cluster> load_cluster(const std::string& path, const std::vector<std::string>& overrides) {
  std::string text;
  TAPIO_RETURN_IF_ERROR(read_text_file(path, "cluster file", &text));
  return parse_cluster(text, path, overrides);
}

}  // namespace tapio::sim
