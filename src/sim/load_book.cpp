#include "sim/load_book.h"

#include <algorithm>
#include <cmath>

namespace tapio::sim {

LoadBook::LoadBook(const Cluster& c, int nodes, int aggregators, Traffic* t)
    : c_(c), nodes_(nodes), aggregators_(aggregators), t_(t) {
  leaves_ = 1;
  if (c.topology == Topology::kFatTree) leaves_ = (nodes + c.nodes_per_switch - 1) / c.nodes_per_switch;
  if (c.topology == Topology::kDragonfly) leaves_ = std::min(c.groups, nodes);
  leaf_.resize(nodes);
  for (int n = 0; n < nodes; ++n)
    leaf_[n] = c.topology == Topology::kFatTree    ? n / c.nodes_per_switch
               : c.topology == Topology::kDragonfly ? static_cast<int>(static_cast<int64_t>(n) * leaves_ / nodes)
                                                    : 0;
}

RoundLoad& LoadBook::round(uint32_t r) {
  while (t_->rounds.size() <= r) {
    RoundLoad l;
    for (auto* v : {&l.nic_out, &l.nic_in, &l.msgs_out, &l.msgs_in, &l.shm_copy, &l.shm_pieces,
                    &l.node_write})
      v->assign(nodes_, 0);
    for (auto* v : {&l.agg_copy, &l.agg_pieces, &l.agg_bytes_in, &l.agg_msgs})
      v->assign(aggregators_, 0);
    for (auto* v : {&l.ost_bytes, &l.ost_requests, &l.ost_conflicts}) v->assign(c_.targets, 0);
    l.up_out.assign(leaves_, 0);
    l.up_in.assign(leaves_, 0);
    t_->rounds.push_back(std::move(l));
  }
  return t_->rounds[r];
}

void LoadBook::message(uint32_t r, int from, int to, double bytes, uint32_t wave, double count) {
  if (from == to) return;
  RoundLoad& l = round(r);
  l.nic_out[from] += bytes;
  l.nic_in[to] += bytes;
  l.msgs_out[from] += count;
  l.msgs_in[to] += count;
  if (l.wave_out.size() <= wave) {
    l.wave_out.resize(wave + 1);
    l.wave_in.resize(wave + 1);
  }
  if (l.wave_out[wave].empty()) {
    l.wave_out[wave].assign(nodes_, 0);
    l.wave_in[wave].assign(nodes_, 0);
  }
  l.wave_out[wave][from] += static_cast<float>(bytes);
  l.wave_in[wave][to] += static_cast<float>(bytes);
  if (c_.topology == Topology::kSwitch) {
    if ((from < nodes_ / 2) != (to < nodes_ / 2)) l.bisection += bytes;
  } else if (const int a = leaf_of(from), b = leaf_of(to); a != b) {
    l.up_out[a] += bytes;
    l.up_in[b] += bytes;
  }
}

int LoadBook::target_of(uint64_t file, uint64_t stripe) const {
  const uint64_t per_file = static_cast<uint64_t>(c_.stripes_per_file());
  return static_cast<int>((file * per_file + stripe % per_file) % static_cast<uint64_t>(c_.targets));
}

void LoadBook::write(uint32_t r, int node, uint64_t file, uint64_t offset, uint64_t length) {
  if (length == 0) return;
  RoundLoad& l = round(r);
  l.node_write[node] += static_cast<double>(length);
  // The stripes of a contiguous range that land on one target are contiguous in its object:
  // add up each target's bytes, then cut them into requests of at most request_size.
  const uint64_t S = c_.stripe_size, per = static_cast<uint64_t>(c_.stripes_per_file());
  const uint64_t end = offset + length, first = offset / S, last = (end - 1) / S;
  share_.assign(per, 0);
  const auto add = [&](uint64_t stripe, uint64_t bytes) { share_[stripe % per] += static_cast<double>(bytes); };
  add(first, std::min(end, (first + 1) * S) - offset);
  if (last != first) add(last, end - last * S);
  const uint64_t inner = last > first + 1 ? last - first - 1 : 0;  // whole stripes between
  for (uint64_t k = 0; k < std::min(inner, per); ++k)
    add(first + 1 + k, S * (inner / per + (k < inner % per ? 1 : 0)));
  for (uint64_t k = 0; k < per; ++k) {
    if (share_[k] == 0) continue;
    const int t = target_of(file, k);
    l.ost_bytes[t] += share_[k];
    l.ost_requests[t] += std::ceil(share_[k] / static_cast<double>(c_.request_size));
  }
}

void LoadBook::claim_stripe(uint32_t r, int node, uint64_t file, uint64_t stripe) {
  const uint64_t key = file << 40 ^ stripe;
  const auto [it, fresh] = stripe_owner_.emplace(key, node);
  if (fresh || it->second == node) return;
  it->second = node;  // the lock moves to the new writer
  round(r).ost_conflicts[target_of(file, stripe)] += 1;
}

void LoadBook::claim(uint32_t r, int node, uint64_t file, uint64_t offset, uint64_t length) {
  if (length == 0) return;
  const uint64_t S = c_.stripe_size;
  claim_stripe(r, node, file, offset / S);
  if ((offset + length - 1) / S != offset / S) claim_stripe(r, node, file, (offset + length - 1) / S);
}

}  // namespace tapio::sim
