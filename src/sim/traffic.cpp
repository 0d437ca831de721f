// The collective engine's step, as collective_write.cpp makes it: every rank's pieces become
// segments (engine/collective/staging.cpp's order: puts back to back, runs in visiting
// order), routed to (round, aggregator) windows; one segment list and one data message per
// remote pair and round, node-local pieces copied into the aggregator's shared slot; each
// window written by its aggregator. Direct I/O when the engine would choose it.
#include "sim/traffic.h"

#include <algorithm>

#include "engine/collective/collective_spec.h"
#include "format/netcdf/layout.h"
#include "format/netcdf/schema.h"
#include "plan/direct.h"
#include "plan/domains.h"
#include "plan/exchange.h"
#include "plan/segments.h"
#include "sim/load_book.h"
#include "sim/traffic_parts.h"

namespace tapio::sim {
namespace {

// What the aggregators are and where, for one layout.
struct Aggregation {
  plan::Layout layout;
  std::vector<int> ranks;  // per aggregator
  std::vector<int> node;   // per aggregator
  std::vector<int> agg_of_rank;
};

// The engine's direct decision, accumulated rank by rank: every rank eligible, and in every
// variable the ranks' ranges follow rank order (the engine's exscan, here a running maximum).
struct DirectVote {
  bool all = true;
  std::vector<uint64_t> lower_hi;  // per variable: the highest end of any lower rank
  uint64_t bytes = 0;
};

// The bytes of each rank's list message: the engine's packed segments (4 x 8 bytes each).
constexpr double kListEntry = 32;

class CollectiveBuilder {
 public:
  CollectiveBuilder(const Workload& w, const Pattern& p, const Cluster& c, StepLayout step,
                    Traffic* t)
      : w_(w), spec_(CollectiveSpec::parse(w.params)), p_(p), c_(c), step_(std::move(step)),
        t_(t) {}

  Status run(const Progress& progress);

 private:
  // The (round, aggregator) windows a rank sends to, with what it sends each.
  struct Entry {
    uint32_t round;
    int agg;
    double bytes, pieces, segments;
  };
  std::vector<Entry> windows_of(const RankPuts& mine) const;
  // plan::owner_of for a byte of the step, starting from where balanced domains put it
  // (domains differ by at most a stripe, so the guess is off by at most one or two).
  int owner_near(uint64_t offset) const;
  void route_rank(int rank, const RankPuts& mine);
  void direct_rank(int rank, const RankPuts& mine);
  void write_windows();
  bool direct_chosen() const;

  const Workload& w_;
  const CollectiveSpec spec_;  // the engine's own parse of the workload's parameters
  const Pattern& p_;
  const Cluster& c_;
  StepLayout step_;
  Traffic* t_;
  Aggregation agg_;
  std::vector<int> node_of_;
  std::unique_ptr<LoadBook> book_, direct_book_;
  Traffic direct_;  // the same step if every rank wrote directly
  DirectVote vote_;
  bool per_piece_ = false;
  uint64_t in_flight_ = 1;
};

Status CollectiveBuilder::run(const Progress& progress) {
  const int P = w_.ranks;
  node_of_ = node_of_ranks(w_, c_, &t_->nodes);
  const int A =
      plan::aggregator_count(P, t_->nodes, spec_.aggregators, spec_.aggregators_per_node);
  agg_.ranks = plan::place_aggregators(node_of_, t_->nodes, A, spec_.placement);
  agg_.agg_of_rank.assign(P, -1);
  for (size_t a = 0; a < agg_.ranks.size(); ++a) {
    agg_.node.push_back(node_of_[agg_.ranks[a]]);
    agg_.agg_of_rank[agg_.ranks[a]] = static_cast<int>(a);
  }
  agg_.layout =
      plan::make_layout(step_.lo, step_.hi, A, spec_.stripe_size, spec_.round_bytes, 16000,
                        {spec_.min_rounds, plan::messages_floor(node_of_, t_->nodes)});
  per_piece_ = w_.messages == "per-piece";
  in_flight_ = static_cast<uint64_t>(c_.in_flight);
  t_->writers = A;
  t_->writer_ranks = agg_.ranks;
  t_->window = agg_.layout.round_bytes;
  t_->pipeline = spec_.pipeline;
  t_->swap_bytes.assign(t_->nodes, 0);
  t_->node_writers.assign(t_->nodes, 0);
  for (int n : agg_.node) t_->node_writers[n] += 1;
  book_ = std::make_unique<LoadBook>(c_, t_->nodes, A, t_);
  direct_ = *t_;
  direct_.node_writers.assign(t_->nodes, 0);
  direct_book_ = std::make_unique<LoadBook>(c_, t_->nodes, 0, &direct_);
  vote_.all = spec_.direct;
  vote_.lower_hi.assign(p_.io().vars.size(), 0);
  for (int r = 0; r < P; ++r) {
    const RankPuts mine = puts_of(p_, r, spec_.stripe_size);
    t_->segments += mine.segments;
    t_->max_rank_segments = std::max<uint64_t>(t_->max_rank_segments, mine.segments);
    t_->described += mine.described;
    t_->max_rank_described = std::max(t_->max_rank_described, mine.described);
    t_->max_rank_bytes = std::max(t_->max_rank_bytes, mine.bytes);
    t_->bytes += mine.bytes;
    if (vote_.all) direct_rank(r, mine);
    route_rank(r, mine);
    if (progress && (r % 1024 == 0 || r + 1 == P)) progress(static_cast<double>(r + 1) / P);
  }
  t_->routed = t_->segments;
  t_->max_rank_routed = t_->max_rank_segments;
  if (direct_chosen()) {
    direct_.segments = t_->segments;
    direct_.max_rank_segments = t_->max_rank_segments;
    direct_.described = t_->described;
    direct_.max_rank_described = t_->max_rank_described;
    direct_.routed = t_->routed;
    direct_.max_rank_routed = t_->max_rank_routed;
    direct_.max_rank_bytes = t_->max_rank_bytes;
    direct_.bytes = t_->bytes;
    direct_.mode = "direct";
    direct_.writers = P;
    direct_.writer_ranks.clear();
    direct_.swap_bytes = t_->swap_bytes;
    direct_.collectives = 2;
    *t_ = std::move(direct_);
    return ok_status();
  }
  write_windows();
  t_->mode = "two-phase";
  // The touched-variable reduction (with the direct vote), the reduce-scatter of message
  // counts, the node barrier per round from the third on, and the call's agreement.
  t_->collectives = 3 + (spec_.shared_memory ? static_cast<int>(std::max<uint32_t>(agg_.layout.rounds, 2) - 2) : 0);
  t_->reduce_scatter_bytes = static_cast<uint64_t>(A) * agg_.layout.rounds * 4;
  return ok_status();
}

bool CollectiveBuilder::direct_chosen() const {
  // With fill, the ranks' disjoint pieces must add up to the variables' bytes.
  return vote_.all && (!spec_.file.fill || vote_.bytes == step_.hi_bytes);
}

void CollectiveBuilder::direct_rank(int rank, const RankPuts& mine) {
  // Strided small pieces cannot go direct: no need to list them.
  for (const Put& put : mine.puts) vote_.all = vote_.all && !put.shape->small_pieces;
  if (!vote_.all) return;
  std::vector<plan::MemSegment> segs;
  std::vector<plan::Extent> ranges(p_.io().vars.size());
  uint64_t mem = 0;
  for (const Put& put : mine.puts) {
    const plan::SegmentMark before = plan::mark_of(segs);
    place(*put.shape, step_.base[put.var], mem, &segs);
    plan::widen_since(&ranges[put.var], segs, before);
    mem += put.shape->bytes;
  }
  const plan::DirectPlan plan = plan::plan_direct(segs, spec_.stripe_size);
  vote_.all = vote_.all && plan.eligible && plan::in_rank_order(ranges, vote_.lower_hi);
  if (!vote_.all) return;
  for (size_t v = 0; v < ranges.size(); ++v)
    if (ranges[v].length) vote_.lower_hi[v] = std::max(vote_.lower_hi[v], ranges[v].end());
  vote_.bytes += plan.bytes;
  const int node = node_of_[rank];
  direct_.swap_bytes[node] += static_cast<double>(plan.bytes);
  if (!plan.requests.empty()) direct_.node_writers[node] += 1;
  for (const plan::DirectRequest& q : plan.requests) {
    direct_book_->write(0, node, 0, q.file.offset, q.file.length);
    direct_book_->claim(0, node, 0, q.file.offset, q.file.length);
  }
}

std::vector<CollectiveBuilder::Entry> CollectiveBuilder::windows_of(const RankPuts& mine) const {
  const plan::Layout& L = agg_.layout;
  std::vector<Entry> out;
  const auto add = [&](uint32_t r, int a, double bytes, double pieces, double segments) {
    if (!out.empty() && out.back().round == r && out.back().agg == a) {
      out.back().bytes += bytes;
      out.back().pieces += pieces;
      out.back().segments += segments;
      return;
    }
    out.push_back(Entry{r, a, bytes, pieces, segments});
  };
  // The window holding a byte: the last one found, usually (groups come in file order), else
  // the owner's domain by binary search.
  plan::Extent last{0, 0};
  int last_agg = 0;
  uint32_t last_round = 0;
  const auto window_of = [&](uint64_t offset, uint32_t* r) {
    if (offset < last.offset || offset >= last.end()) {
      last_agg = owner_near(offset);
      last_round = static_cast<uint32_t>((offset - L.domains[last_agg].offset) / L.round_bytes);
      last = L.window(last_agg, last_round);
    }
    *r = last_round;
    return last_agg;
  };
  std::vector<plan::MemSegment> straddling;
  for (const Put& put : mine.puts) {
    const uint64_t base = step_.base[put.var];
    for (const Group& g : put.shape->groups) {
      uint32_t r0 = 0, r1 = 0;
      const int a0 = window_of(base + g.lo, &r0), a1 = window_of(base + g.hi - 1, &r1);
      if (a0 == a1 && r0 == r1) {  // the usual case: a group inside one window
        add(r0, a0, static_cast<double>(g.bytes), static_cast<double>(g.pieces),
            static_cast<double>(g.last - g.first));
        continue;
      }
      // Across a window's edge: the planner cuts it (plan/segments.h).
      straddling.clear();
      for (size_t i = g.first; i < g.last; ++i) {
        plan::MemSegment m = put.shape->segments[i];
        m.seg.offset += base;
        straddling.push_back(m);
      }
      for (const plan::RoutedSegment& x : plan::route_segments(straddling, L))
        add(x.round, x.agg, static_cast<double>(x.seg.bytes()), static_cast<double>(x.seg.count), 1);
    }
  }
  // By (round, aggregator), as the engine sends: one message per window. In file order a
  // round's windows come in aggregator order, so a stable split by round is enough unless
  // some put went backwards (unsorted runs), which a sort then repairs.
  std::vector<size_t> first(L.rounds + 1, 0);
  for (const Entry& e : out) ++first[e.round + 1];
  for (uint32_t r = 0; r < L.rounds; ++r) first[r + 1] += first[r];
  std::vector<Entry> by_round(out.size());
  for (const Entry& e : out) by_round[first[e.round]++] = e;
  const auto in_order = [](const Entry& a, const Entry& b) {
    return a.round != b.round ? a.round < b.round : a.agg < b.agg;
  };
  if (!std::is_sorted(by_round.begin(), by_round.end(), in_order))
    std::sort(by_round.begin(), by_round.end(), in_order);
  std::vector<Entry> merged;
  for (const Entry& e : by_round) {
    if (!merged.empty() && merged.back().round == e.round && merged.back().agg == e.agg) {
      merged.back().bytes += e.bytes;
      merged.back().pieces += e.pieces;
      merged.back().segments += e.segments;
    } else {
      merged.push_back(e);
    }
  }
  return merged;
}

int CollectiveBuilder::owner_near(uint64_t offset) const {
  const std::vector<plan::Extent>& d = agg_.layout.domains;
  const uint64_t span = step_.hi - step_.lo;
  int a = static_cast<int>(static_cast<unsigned __int128>(offset - step_.lo) * d.size() / span);
  a = std::min<int>(a, static_cast<int>(d.size()) - 1);
  while (a > 0 && (d[a].length == 0 || offset < d[a].offset)) --a;
  while (a + 1 < static_cast<int>(d.size()) && d[a + 1].length && offset >= d[a + 1].offset) ++a;
  return a;
}

void CollectiveBuilder::route_rank(int rank, const RankPuts& mine) {
  const std::vector<Entry> windows = windows_of(mine);
  const int node = node_of_[rank];
  bool staged = false;  // something goes as a message: the rank swaps all its bytes to staging
  std::vector<int> aggs;
  for (size_t i = 0; i < windows.size();) {
    const uint32_t r = windows[i].round;
    size_t j = i;
    aggs.clear();
    for (; j < windows.size() && windows[j].round == r; ++j) aggs.push_back(windows[j].agg);
    const std::vector<int> order = plan::collection_order(aggs, node, spec_.collect_order);
    RoundLoad& load = book_->round(r);
    uint32_t position = 0;
    for (int a : order) {
      const Entry& e = windows[i + static_cast<size_t>(std::lower_bound(aggs.begin(), aggs.end(), a) - aggs.begin())];
      const double list = kListEntry * e.segments;
      const int to = agg_.node[a];
      if (agg_.ranks[a] == rank) {  // its own pieces: copied into its window
        load.agg_copy[a] += e.bytes;
        load.agg_pieces[a] += e.pieces;
        continue;
      }
      if (to == node && spec_.shared_memory) {  // swapped straight into the shared slot; the list follows
        load.shm_copy[node] += e.bytes;
        load.shm_pieces[node] += e.pieces;
        load.agg_msgs[a] += 1;
        continue;
      }
      staged = true;
      if (per_piece_) {  // DDIO: every piece its own message, nothing packed or listed
        load.agg_msgs[a] += e.pieces;
        load.agg_bytes_in[a] += e.bytes;
        book_->message(r, node, to, e.bytes, static_cast<uint32_t>(position++ / in_flight_), e.pieces);
        continue;
      }
      load.agg_msgs[a] += 2;
      if (to == node) {  // a message inside the node: the receiver's one copy
        load.agg_copy[a] += e.bytes;
        load.agg_pieces[a] += e.pieces;
        continue;
      }
      load.agg_bytes_in[a] += e.bytes + list;
      // Scattered pieces are copied into place at the aggregator: by MPI through a datatype,
      // or, for many small entries, from scratch piece by piece (collective/datatypes.h).
      if (e.pieces > 1) {
        load.agg_copy[a] += e.bytes;
        load.agg_pieces[a] += e.pieces;
      }
      const uint32_t wave = static_cast<uint32_t>(position++ / in_flight_);
      book_->message(r, node, to, list + e.bytes, wave, 2);  // the list, then the data
    }
    i = j;
  }
  if (staged) t_->swap_bytes[node] += static_cast<double>(mine.bytes);
}

void CollectiveBuilder::write_windows() {
  // Each window is written by its aggregator: with fill the whole window (gaps filled), one
  // request per stripe; domains in file order, so neighbours share at most one stripe.
  for (size_t a = 0; a < agg_.ranks.size(); ++a) {
    for (uint32_t r = 0; r < agg_.layout.rounds; ++r) {
      const plan::Extent w = agg_.layout.window(static_cast<int>(a), r);
      if (w.length == 0) continue;
      book_->write(r, agg_.node[a], 0, w.offset, w.length);
      book_->claim(r, agg_.node[a], 0, w.offset, w.length);
    }
  }
  book_->round(agg_.layout.rounds ? agg_.layout.rounds - 1 : 0);
}

}  // namespace

std::vector<int> node_of_ranks(const Workload& w, const Cluster& c, int* nodes) {
  const int P = w.ranks;
  const int64_t virt = w.params.get_int("ranks_per_node");
  const int rpn = virt > 0 ? static_cast<int>(virt) : c.ranks_per_node;
  *nodes = (P + rpn - 1) / rpn;
  std::vector<int> node(P);
  const bool cyclic = virt > 0 && w.params.get("node_layout") == "cyclic";
  for (int r = 0; r < P; ++r) node[r] = cyclic ? r % *nodes : r / rpn;
  return node;
}

void gather_per_node(Traffic* t) {
  const double ranks = std::max(1, (t->ranks + t->nodes - 1) / std::max(t->nodes, 1));
  for (RoundLoad& l : t->rounds) {
    for (size_t n = 0; n < l.msgs_out.size(); ++n) {
      l.msgs_out[n] /= ranks;
      l.msgs_in[n] /= ranks;
    }
    for (double& m : l.agg_msgs) m /= ranks;
    for (size_t n = 0; n < l.shm_copy.size(); ++n) l.shm_copy[n] += l.nic_out[n];
  }
}

Result<Traffic> plan_traffic(const Workload& w, const Pattern& p, const Cluster& c,
                             const Progress& progress) {
  TAPIO_ASSIGN_OR_RETURN(StepLayout step, step_layout(w, p));
  Traffic t;
  t.ranks = w.ranks;
  t.steps = p.steps();
  t.pipeline = w.params.get_bool("pipeline");
  if (w.engine == "collective") {
    CollectiveBuilder b(w, p, c, std::move(step), &t);
    TAPIO_RETURN_IF_ERROR(b.run(progress));
    if (CollectiveSpec::parse(w.params).two_level) gather_per_node(&t);
  } else if (w.engine == "subfile") {
    TAPIO_RETURN_IF_ERROR(subfile_traffic(w, p, c, step, progress, &t));
  } else {
    TAPIO_RETURN_IF_ERROR(serial_traffic(w, p, c, step, progress, &t));
  }
  t.ranks_per_node = (t.ranks + t.nodes - 1) / std::max(t.nodes, 1);
  return t;
}

}  // namespace tapio::sim
