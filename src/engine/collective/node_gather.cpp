// Two-level aggregation in a collective write's round (round_pipeline.h, parts.h NodeGather):
// the ranks of a node hand their pieces for aggregators on other nodes to the node's
// gatherer over the node's communicator (a packet of segment lists, then one data message per
// aggregator); the gatherer sends each of those aggregators the node's pieces as one segment
// list and one data message, which the aggregator receives exactly as a one-level sender's.
// So an aggregator's messages per round fall from one pair per rank to one pair per node, for
// one more copy of the node's outgoing bytes (the hand-over, through the node's memory).
//
// A failure never leaves a peer waiting: a rank whose packet could not be sent sends no data
// after it (the gatherer gets an empty packet and expects none), and a gatherer that lost any
// of its node's pieces in a round sends every aggregator it owes an empty list and empty data,
// which the aggregator takes as "lost" (the failing rank reports, and the step fails on every
// rank at its agreement).
#include <algorithm>
#include <cstring>
#include <numeric>

#include "engine/collective/datatypes.h"
#include "engine/collective/round_pipeline.h"

namespace tapio::collective {

// This rank's groups of a round's runs for aggregators on other nodes, in aggregator order,
// and each group's (mem, bytes) spans in the staging buffer.
std::vector<Group> RoundPipeline::remote_groups(RoundRuns runs,
                                                std::vector<Spans>* spans) const {
  std::vector<Group> groups;
  spans->clear();
  for (const plan::RouteRun& run : runs) {
    if (!p_.agg.gather.through(run.agg)) continue;
    groups.push_back(Group{static_cast<uint64_t>(run.agg), {}, 0, 0});
    for (size_t i = run.begin; i < run.end; ++i) {
      const plan::RoutedSegment& x = b_.routed[i];
      plan::append_segment(&groups.back().segments, plan::shifted(x.seg, b_.shift));
      groups.back().bytes += x.seg.bytes();
    }
    spans->push_back(mem_spans(b_.routed, run.begin, run.end));
  }
  return groups;
}

void RoundPipeline::hand_over(uint32_t r, RoundRuns runs, Status* local) {
  std::vector<Spans> spans;
  const std::vector<Group> groups = remote_groups(runs, &spans);
  if (groups.empty()) return;  // the node's reduction counted this rank out of this round
  const int set = r % 2;
  const comm::Comm& node = p_.agg.gather.node->node();
  const int to = p_.agg.gather.gatherer, tag = static_cast<int>(2 * r);
  ByteBuffer& packet = p_.bufs.handed[set];
  pack_groups(groups, &packet);
  const Status sent = node.isend(comm::Pieces::bytes(packet.data(), packet.size()), to, tag,
                                 &node_requests_[set]);
  p_.profile.messages.send(packet.size());
  if (!sent.ok()) {  // the gatherer got an empty packet instead and expects no data
    keep(local, sent);
    return;
  }
  for (const Spans& s : spans) {
    const comm::Pieces data = span_pieces(p_.bufs.staging.data(), s);
    keep(local, node.isend(data, to, tag + 1, &node_requests_[set]));
    p_.profile.messages.send(data.size());
  }
}

void RoundPipeline::forward(uint32_t r, RoundRuns runs, Status* local) {
  std::vector<Spans> own_spans;
  std::vector<Group> groups = remote_groups(runs, &own_spans);
  bool lost = !gather_node_pieces(r, &groups, groups.size(), own_spans, local);
  if (p_.agg.gather.poisoned) {
    keep(local, error(TAPIO_ERR_INTERNAL, "{}: this node's gatherer received a malformed "
                      "hand-over; two-level writes through it fail from then on (reopen the "
                      "file, or set two_level = false)", p_.where));
    lost = true;
  }
  send_forward(r, groups, lost, local);
}

// The gatherer's collection of round r: its own groups (the first `own` of *groups) copied
// into the gathered buffer, then every other node rank's packet and data received after them.
// False when any of the node's pieces is missing (the round is then lost).
bool RoundPipeline::gather_node_pieces(uint32_t r, std::vector<Group>* groups, size_t own,
                                       const std::vector<Spans>& own_spans, Status* local) {
  std::vector<int> source(own, -1);  // per group: the node rank its data comes from
  bool complete = receive_hand_overs(r, groups, &source, local);
  uint64_t total = 0;
  for (Group& g : *groups) {
    g.at = total;
    total += g.bytes;
  }
  ByteBuffer& gathered = p_.bufs.gathered[r % 2];
  const bool room = gathered.try_prepare(std::max<uint64_t>(total, 1));
  if (room) {
    copy_own_groups(*groups, own, own_spans, gathered.data());
  } else {
    keep(local, error(TAPIO_ERR_NOMEM, "{}: cannot allocate {} bytes to gather this node's "
                      "pieces of round {}; lower buffer_size or set two_level = false",
                      p_.where, total, r));
    complete = false;
  }
  const bool arrived =
      receive_node_data(r, *groups, own, source, room ? gathered.data() : nullptr, local);
  return complete && arrived;
}

// The packets of the node's other senders in round r: their groups appended to *groups, and
// each group's sender to *source. False when a packet is missing, empty or malformed.
bool RoundPipeline::receive_hand_overs(uint32_t r, std::vector<Group>* groups,
                                       std::vector<int>* source, Status* local) {
  const comm::Comm& node = p_.agg.gather.node->node();
  const uint64_t aggregators = p_.agg.ranks.size();
  bool complete = true;
  std::vector<Group> theirs;
  for (uint32_t k = 0; k < b_.node_senders[r]; ++k) {
    int from = -1;
    ByteBuffer& packet = p_.bufs.recv;
    const Status got = node.probe_recv(comm::kAnySource, static_cast<int>(2 * r), &packet, &from);
    if (!got.ok()) {
      keep(local, got);
      complete = false;
      continue;
    }
    p_.profile.messages.receive(packet.size());
    if (packet.size() == 0) {  // its sender failed to send it, reports, and sends no data
      complete = false;
      continue;
    }
    bool ok = unpack_groups(packet.data(), packet.size(), aggregators, &theirs);
    for (const Group& g : theirs) ok = ok && p_.agg.gather.through(static_cast<int>(g.agg));
    if (!ok) {
      p_.agg.gather.poisoned = true;
      complete = false;
      continue;
    }
    for (Group& g : theirs) {
      groups->push_back(std::move(g));
      source->push_back(from);
    }
  }
  return complete;
}

// This rank's own groups, from the staging buffer to their places in the gathered buffer.
void RoundPipeline::copy_own_groups(const std::vector<Group>& groups, size_t own,
                                    const std::vector<Spans>& own_spans, uint8_t* gathered) {
  PhaseTimer t(&p_.profile, Phase::kCopy);
  for (size_t g = 0; g < own; ++g) {
    uint8_t* to = gathered + groups[g].at;
    for (const auto& [mem, bytes] : own_spans[g]) {
      std::memcpy(to, p_.bufs.staging.data() + mem, bytes);
      to += bytes;
    }
    p_.profile.bytes_copied += groups[g].bytes;
  }
}

// The other senders' data, in the order each sent it (one tag: MPI keeps the order), into
// `gathered`; without it (no room), each message is still received (into scratch) so that none
// is left for a later round. False when a sender's data does not match its hand-over.
bool RoundPipeline::receive_node_data(uint32_t r, const std::vector<Group>& groups, size_t own,
                                      const std::vector<int>& source, uint8_t* gathered,
                                      Status* local) {
  const comm::Comm& node = p_.agg.gather.node->node();
  const int tag = static_cast<int>(2 * r) + 1;
  comm::Requests reqs;
  for (size_t g = own; g < groups.size(); ++g) {
    const Group& x = groups[g];
    if (gathered) {
      keep(local, node.irecv(comm::Pieces::bytes(gathered + x.at, x.bytes), source[g], tag,
                             &reqs));
    } else {
      comm::Envelope e;
      const Status probed = node.probe(source[g], tag, &e);
      keep(local, probed);
      if (probed.ok() && p_.bufs.recv.try_prepare(std::max<uint64_t>(e.bytes, 1)))
        keep(local, node.recv(p_.bufs.recv.data(), e.bytes, source[g], tag));
    }
    p_.profile.messages.receive(x.bytes);
  }
  std::vector<uint64_t> received;
  keep(local, node.waitall(&reqs, &received));
  bool complete = true;
  for (size_t k = 0; k < received.size(); ++k) {
    if (received[k] == groups[own + k].bytes) continue;
    complete = false;
    if (received[k] != 0)  // an empty message: its sender failed, and reports
      keep(local, error(TAPIO_ERR_INTERNAL,
                        "round {}: the data from node rank {} does not match its hand-over", r,
                        source[own + k]));
  }
  return complete;
}

// One segment list and one data message to each aggregator on another node that this node's
// ranks have pieces for in round r (the node's reduction says which, so it is known even when
// a packet was lost), in the collection order: the node's groups for it, back to back.
void RoundPipeline::send_forward(uint32_t r, const std::vector<Group>& groups, bool lost,
                                 Status* local) {
  const int set = r % 2;
  const uint32_t rounds = b_.layout.rounds;
  std::vector<int> aggs;
  for (size_t a = 0; a < p_.agg.ranks.size(); ++a)
    if (p_.agg.gather.through(static_cast<int>(a)) && b_.node_pieces[a * rounds + r] > 0)
      aggs.push_back(static_cast<int>(a));
  aggs = plan::collection_order(std::move(aggs), p_.node, p_.spec.collect_order);
  std::vector<size_t> by_agg(groups.size());
  std::iota(by_agg.begin(), by_agg.end(), 0);
  std::stable_sort(by_agg.begin(), by_agg.end(),
                   [&](size_t x, size_t y) { return groups[x].agg < groups[y].agg; });
  std::vector<ByteBuffer>& lists = p_.bufs.forward[set];
  if (lists.size() < aggs.size()) lists.resize(aggs.size());
  uint8_t* base = p_.bufs.gathered[set].data();
  for (size_t k = 0; k < aggs.size(); ++k) {
    const uint64_t agg = static_cast<uint64_t>(aggs[k]);
    std::vector<plan::Segment> segs;
    comm::Pieces data{base, {}};
    auto it = std::lower_bound(by_agg.begin(), by_agg.end(), agg,
                               [&](size_t g, uint64_t a) { return groups[g].agg < a; });
    for (; !lost && it != by_agg.end() && groups[*it].agg == agg; ++it) {
      const Group& g = groups[*it];
      for (const plan::Segment& s : g.segments) plan::append_segment(&segs, s);
      if (!data.blocks.empty() && data.blocks.back().offset + data.blocks.back().length == g.at)
        data.blocks.back().length += g.bytes;
      else
        data.blocks.push_back(comm::Block{g.at, g.bytes, g.bytes, 1});
    }
    if (segs.empty()) {  // lost: an empty list and empty data
      lists[k].prepare(0);
      data = comm::Pieces::bytes(base, 0);
    } else {
      for (comm::Block& b : data.blocks) b.stride = b.length;
      pack_list(segs, &lists[k]);
    }
    const int dest = p_.agg.ranks[agg], tag = static_cast<int>(2 * r);
    const comm::Pieces list = comm::Pieces::bytes(lists[k].data(), lists[k].size());
    keep(local, p_.comm.isend(list, dest, tag, &requests_[set]));
    keep(local, p_.comm.isend(data, dest, tag + 1, &requests_[set]));
    p_.profile.messages.sent += 2;
    p_.profile.messages.between_nodes += 2;
    p_.profile.messages.bytes_sent += list.size() + data.size();
  }
}

}  // namespace tapio::collective
