#include "sim/model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace tapio::sim {
namespace {

// The largest element of v, its index in *at.
double top(const std::vector<double>& v, size_t* at) {
  *at = 0;
  for (size_t i = 1; i < v.size(); ++i)
    if (v[i] > v[*at]) *at = i;
  return v.empty() ? 0 : v[*at];
}
double sum(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}

class RoundModel {
 public:
  RoundModel(const Traffic& t, const Cluster& c) : t_(t), c_(c), share_(c.cpu_share(t.ranks)) {}

  // Bytes copied by `active` ranks at once on one node (or on the shared host).
  double copy_time(double bytes, int active) const {
    double rate = c_.copy_bandwidth * c_.core_share(active);
    if (c_.node_bandwidth > 0) rate = std::min(rate, c_.node_bandwidth);
    return bytes / rate;
  }

  // A per-node quantity as a time: the slowest node, or all of them on a shared host.
  Term per_node(const std::string& kind, const std::vector<double>& bytes, int active,
                bool copies) const {
    size_t at = 0;
    const double worst = top(bytes, &at);
    if (c_.shared_host) {
      const int all = std::min<int>(active * t_.nodes, c_.cores);
      return {kind, "the host", copies ? copy_time(sum(bytes), all) : sum(bytes) / c_.nic_bandwidth};
    }
    return {kind, fmt::format("node {}", at), copies ? copy_time(worst, active) : worst / c_.nic_bandwidth};
  }

  Term exchange(const RoundLoad& l) const {
    std::vector<Term> terms;
    if (c_.shared_host) {
      // Messages between virtual nodes are copies by the receivers (single-copy transfers),
      // as many at once as there are cores for the aggregators.
      const int receivers = std::max(1, std::min<int>(t_.writers, c_.cores));
      terms.push_back({"message copies", "the host",
                       sum(l.nic_in) / (c_.nic_bandwidth * receivers * share_)});
    } else {
      // Waves: the messages in flight together cross the NICs together; a wave lasts as
      // long as its busiest NIC, sending or receiving (receiving named first on a tie).
      double waves = 0;
      std::map<std::string, double> worst;
      for (size_t w = 0; w < l.wave_in.size(); ++w) {
        if (l.wave_in[w].empty()) continue;
        double m = 0;
        std::string who;
        for (size_t n = 0; n < l.wave_in[w].size(); ++n)
          if (l.wave_in[w][n] > m) m = l.wave_in[w][n], who = fmt::format("node {} receiving", n);
        for (size_t n = 0; n < l.wave_out[w].size(); ++n)
          if (l.wave_out[w][n] > m) m = l.wave_out[w][n], who = fmt::format("node {} sending", n);
        worst[who] += m;
        waves += m / c_.nic_bandwidth;
      }
      const auto most = std::max_element(worst.begin(), worst.end(),
                                         [](const auto& a, const auto& b) { return a.second < b.second; });
      terms.push_back({"NIC", most == worst.end() ? "" : most->first, waves});
    }
    // An aggregator takes its messages one by one (probe, receive the list, post the data's
    // receive): each costs a latency, and its own copies follow; the bytes themselves cross
    // its NIC in the waves above, while it probes the next.
    size_t at = 0;
    std::vector<double> serial(l.agg_msgs.size());
    for (size_t a = 0; a < serial.size(); ++a)
      serial[a] = (l.agg_msgs[a] * c_.nic_latency + l.agg_copy[a] / c_.copy_bandwidth +
                   l.agg_pieces[a] * kPieceCost) / share_;
    const double worst = top(serial, &at);
    terms.push_back({"aggregator messages and copies", writer(at), worst});
    // Senders post their messages one by one too, the ranks of a node on its cores.
    const double sent = top(l.msgs_out, &at);
    terms.push_back({"sender message overheads", fmt::format("node {}", at),
                     sent * c_.nic_latency / c_.core_share(t_.ranks_per_node)});
    if (c_.shared_host)
      terms.push_back({"aggregator copies", "the host",
                       copy_time(sum(l.agg_copy), std::min<int>(t_.writers, c_.cores))});
    if (c_.message_rate > 0) {
      std::vector<double> msgs(l.msgs_out.size());
      for (size_t n = 0; n < msgs.size(); ++n) msgs[n] = std::max(l.msgs_out[n], l.msgs_in[n]);
      const double m = top(msgs, &at);
      terms.push_back({"NIC message rate", fmt::format("node {}", at), m / c_.message_rate});
    }
    Term local = per_node("node-local copies", l.shm_copy, t_.ranks_per_node, true);
    size_t most = 0;
    const double pieces = c_.shared_host ? sum(l.shm_pieces) : top(l.shm_pieces, &most);
    local.seconds += pieces * kPieceCost / c_.core_share(c_.shared_host ? t_.ranks : t_.ranks_per_node);
    terms.push_back(local);
    if (c_.topology == Topology::kSwitch && c_.bisection > 0)
      terms.push_back({"switch bisection", "", l.bisection / c_.bisection});
    const double link = c_.topology == Topology::kFatTree ? c_.uplink_bandwidth : c_.global_bandwidth;
    if (c_.topology != Topology::kSwitch && link > 0) {
      std::vector<double> up(l.up_out.size());
      for (size_t i = 0; i < up.size(); ++i) up[i] = std::max(l.up_out[i], l.up_in[i]);
      const double m = top(up, &at);
      terms.push_back({c_.topology == Topology::kFatTree ? "leaf uplinks" : "group global links",
                       fmt::format("{} {}", c_.topology == Topology::kFatTree ? "switch" : "group", at),
                       m / link});
    }
    Term best = *std::max_element(terms.begin(), terms.end(),
                                  [](const Term& a, const Term& b) { return a.seconds < b.seconds; });
    if (best.seconds > 0) best.seconds += c_.nic_latency;
    return best;
  }

  Term write(const RoundLoad& l) const {
    std::vector<double> ost(l.ost_bytes.size());
    for (size_t i = 0; i < ost.size(); ++i)
      ost[i] = l.ost_bytes[i] / c_.target_bandwidth + l.ost_requests[i] * c_.request_cost +
               l.ost_conflicts[i] * c_.lock_cost;
    size_t at = 0;
    Term best{"storage target", "", top(ost, &at)};
    best.instance = fmt::format("target {}", at);
    const double clients = c_.shared_host ? sum(l.node_write) : top(l.node_write, &at);
    const Term client{"file-system client", c_.shared_host ? "the host" : fmt::format("node {}", at),
                      clients / (c_.client_rate() * share_)};
    if (client.seconds > best.seconds) best = client;
    const Term copies = writer_copies(l);
    return copies.seconds > best.seconds ? copies : best;
  }

  // Each writer copies its bytes into the file-system client itself (write() into the page
  // cache), at one core's rate: one writer per node cannot pass that rate, several can, up to
  // the node's client.
  Term writer_copies(const RoundLoad& l) const {
    if (c_.writer_bandwidth <= 0) return {};
    const auto cores = [&](double writers) { return std::clamp<double>(writers, 1, c_.cores); };
    if (c_.shared_host)
      return {"writers' copies", "the host",
              sum(l.node_write) / (c_.writer_bandwidth * cores(sum(t_.node_writers)) * share_)};
    std::vector<double> per_node(l.node_write.size());
    for (size_t n = 0; n < per_node.size(); ++n) {
      const double writers = n < t_.node_writers.size() ? t_.node_writers[n] : 1;
      per_node[n] = l.node_write[n] / (c_.writer_bandwidth * cores(writers));
    }
    size_t at = 0;
    const double worst = top(per_node, &at);
    return {"writers' copies", fmt::format("node {}", at), worst};
  }

 private:
  std::string writer(size_t a) const {
    return a < t_.writer_ranks.size() ? fmt::format("aggregator {} (rank {})", a, t_.writer_ranks[a])
                                      : fmt::format("aggregator {}", a);
  }
  const Traffic& t_;
  const Cluster& c_;
  double share_;  // of a core, for one rank's work while the others wait (cluster.h)
};

// Adds a term's seconds to its kind, remembering the instance that contributed most.
struct Ledger {
  std::map<std::string, std::pair<double, std::map<std::string, double>>> kinds;
  void add(const Term& t, double seconds) {
    if (seconds <= 0) return;
    auto& k = kinds[t.kind];
    k.first += seconds;
    k.second[t.instance] += seconds;
  }
  std::vector<Term> sorted() const {
    std::vector<Term> out;
    for (const auto& [kind, v] : kinds) {
      const auto worst = std::max_element(v.second.begin(), v.second.end(),
                                          [](const auto& a, const auto& b) { return a.second < b.second; });
      out.push_back({kind, worst->first, v.first});
    }
    std::sort(out.begin(), out.end(), [](const Term& a, const Term& b) { return a.seconds > b.seconds; });
    return out;
  }
};

}  // namespace

Prediction predict(const Traffic& t, const Cluster& c) {
  const RoundModel m(t, c);
  Prediction p;
  Ledger ledger;
  const double steps = static_cast<double>(t.steps);
  for (const RoundLoad& l : t.rounds) {
    RoundTime rt;
    rt.exchange_by = m.exchange(l);
    rt.write_by = m.write(l);
    rt.exchange = rt.exchange_by.seconds;
    rt.write = rt.write_by.seconds;
    p.rounds.push_back(rt);
  }
  // One step's data path: pipelined, round r's write under round r+1's exchange.
  double path = 0, exchange = 0;
  const size_t R = p.rounds.size();
  for (size_t r = 0; r < R; ++r) {
    exchange += p.rounds[r].exchange;
    if (!t.pipeline) {
      path += p.rounds[r].exchange + p.rounds[r].write;
      ledger.add(p.rounds[r].exchange_by, steps * p.rounds[r].exchange);
      ledger.add(p.rounds[r].write_by, steps * p.rounds[r].write);
      continue;
    }
    const double ex = p.rounds[r].exchange, wr_prev = r ? p.rounds[r - 1].write : 0;
    path += std::max(ex, wr_prev);
    ledger.add(ex >= wr_prev ? p.rounds[r].exchange_by : p.rounds[r - 1].write_by,
               steps * std::max(ex, wr_prev));
  }
  if (t.pipeline && R) {
    path += p.rounds[R - 1].write;
    ledger.add(p.rounds[R - 1].write_by, steps * p.rounds[R - 1].write);
  }
  // Per step, around the data path.
  // Planning: the busiest rank's segments, or on a shared host all of them over its cores.
  const double active = c.shared_host ? std::min<double>(t.ranks, c.cores) : 1.0;
  const auto per_rank = [&](uint64_t all, uint64_t most) {
    return c.shared_host ? static_cast<double>(all) / active : static_cast<double>(most);
  };
  const double describe = kDescribeCost * per_rank(t.described, t.max_rank_described);
  const double route = kRouteCost * per_rank(t.routed, t.max_rank_routed);
  p.plan_first_step = describe + route;
  p.plan_later_step = route + (t.plans_once ? 0 : describe);
  const double plan = (p.plan_first_step + (steps - 1) * p.plan_later_step) / steps;
  const Term swap = m.per_node("byte-swap and checksum copies", t.swap_bytes, t.ranks_per_node, true);
  const double hops = std::ceil(std::log2(std::max(2, t.ranks)));
  const double agree = t.collectives * 2 * hops * c.nic_latency +
                       static_cast<double>(t.reduce_scatter_bytes) / c.nic_bandwidth;
  const double metadata = t.metadata_bytes / c.nic_bandwidth + t.metadata_bytes / c.client_rate() +
                          t.metadata_requests * c.request_cost;
  const double create = static_cast<double>(t.files) * c.stripes_per_file() * c.create_cost + c.file_cost;
  // Every writer syncs its file at close: at once on their own nodes, in turn on one host,
  // where writers of one file sync it once (the first fsync writes back what the others
  // wrote too): the collective engine's aggregators pay one, subfile groups one each.
  const uint64_t synced = std::min<uint64_t>(std::max(1, t.writers), t.files);
  const double sync = c.sync_cost * (c.shared_host ? static_cast<double>(synced) : 1);
  ledger.add({"planning", "every rank", 0}, steps * plan);
  ledger.add(swap, steps * swap.seconds);
  ledger.add({"collective latency", fmt::format("{} collectives per step", t.collectives), 0}, steps * agree);
  ledger.add({"metadata", "rank 0", 0}, steps * metadata);
  ledger.add({"creating, opening and closing files", fmt::format("{} files", t.files), 0}, create);
  ledger.add({"fsync at close", fmt::format("{} writers", t.writers), 0}, sync);
  p.phases = {{"plan", steps * plan},
              {"swap", steps * swap.seconds},
              {"agree", steps * agree},
              {"exchange", steps * exchange},
              {"write", steps * (path - exchange)},
              {"metadata", steps * metadata},
              {"create", create},
              {"sync", sync}};
  for (const auto& [name, s] : p.phases) p.total += s;
  p.bandwidth = p.total > 0 ? static_cast<double>(t.bytes) * steps / p.total : 0;
  p.by_resource = ledger.sorted();
  if (!p.by_resource.empty()) p.bottleneck = p.by_resource[0];
  return p;
}

}  // namespace tapio::sim
