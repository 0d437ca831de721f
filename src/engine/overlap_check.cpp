// The distributed overlap check (overlap_check.h). A rank's runs travel as segments (runs of
// one length at a constant stride: a block's rows, HPIO's regions), so a column band of a
// matrix is one entry however many rows it has. An owner's cost is bounded by the pieces it
// receives, never by its domain: where the domain is dense with pieces it marks them in a
// bitmap (one bit per element, no more words than pieces), elsewhere — a small block of a
// huge variable — it sorts them. A meeting of two pieces is named, ranks and elements, by the
// serial engine's check of the sorted runs.
#include "engine/overlap_check.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "core/out_of_memory.h"
#include "plan/coverage.h"
#include "plan/overlap.h"
#include "plan/segments.h"

namespace tapio {
namespace {

constexpr int kOverlapTag = 7201;

struct Wire {  // a segment of a variable's elements, on the wire
  uint64_t var;
  plan::Segment seg;
};

// The first rank of each node, by node.
std::vector<int> owner_ranks(const comm::Topology& t) {
  std::vector<int> owners(t.nodes, -1);
  for (int r = static_cast<int>(t.node_of_rank.size()) - 1; r >= 0; --r) owners[t.node(r)] = r;
  return owners;
}

// A variable whose pieces on this rank are another's: its puts have the same shape and the
// same selections as an earlier variable's (a model's variables share a few decompositions:
// E3SM F puts 16 variables with each). Sent as one entry (the other variable's index in
// `offset`, length 0: no piece is empty), so an owner gets a decomposition's pieces once.
bool is_reference(const Wire& w) { return w.seg.length == 0; }
Wire reference(int var, int same_as) {
  return Wire{static_cast<uint64_t>(var), plan::Segment{static_cast<uint64_t>(same_as), 0, 0, 0}};
}

// For each variable this rank puts, the first variable (in index order) with the same shape
// and selections: itself unless its pieces repeat an earlier one's.
std::map<int, int> first_alike(const IoDef& io, const std::vector<PutShape>& mine) {
  std::map<int, std::vector<const plan::Selection*>> sels;
  for (const PutShape& p : mine) sels[p.var].push_back(p.sel);
  const auto alike = [&](int a, int b) {
    const std::vector<const plan::Selection*>& x = sels[a];
    const std::vector<const plan::Selection*>& y = sels[b];
    if (io.vars[a].shape != io.vars[b].shape || x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i)
      if (x[i] != y[i] && !(*x[i] == *y[i])) return false;
    return true;
  };
  std::map<int, int> first;
  std::vector<int> firsts;
  for (const auto& [var, list] : sels) {
    int f = var;
    for (int u : firsts)
      if (alike(u, var)) {
        f = u;
        break;
      }
    if (f == var) firsts.push_back(var);
    first[var] = f;
  }
  return first;
}

// This rank's pieces, per owner of the domains they fall in; a variable alike an earlier one
// is a reference to it, sent to the owners that get that one's pieces.
std::vector<std::vector<Wire>> route(const IoDef& io, const std::vector<PutShape>& mine,
                                     int owners) {
  const std::map<int, int> first = first_alike(io, mine);
  std::map<int, std::vector<plan::MemSegment>> by_var;  // runs as segments, in elements
  std::map<int, uint64_t> counted;                     // elements appended so far, per variable
  for (const PutShape& p : mine) {
    if (first.at(p.var) != p.var) continue;
    std::vector<plan::MemSegment>& segs = by_var[p.var];
    uint64_t& at = counted[p.var];
    plan::for_each_run(*p.sel, io.vars[p.var].shape, [&](const plan::Run& r, uint64_t) {
      if (r.length == 0) return;
      plan::append_piece(&segs, r.offset, r.length, at);
      at += r.length;
    });
  }
  std::vector<std::vector<Wire>> out(owners);
  std::map<int, std::vector<bool>> sent_to;  // per first variable, the owners given its pieces
  for (const auto& [var, segs] : by_var) {
    const plan::Layout domains = plan::element_domains(io.vars[var].elements(), owners);
    std::vector<bool>& to = sent_to[var];
    to.assign(owners, false);
    for (const plan::RoutedSegment& r : plan::route_segments(segs, domains)) {
      out[r.agg].push_back(Wire{static_cast<uint64_t>(var), r.seg});
      to[r.agg] = true;
    }
  }
  for (const auto& [var, f] : first) {
    if (f == var || !sent_to.count(f)) continue;
    for (int d = 0; d < owners; ++d)
      if (sent_to[f][d]) out[d].push_back(reference(var, f));
  }
  return out;
}

// Whether one bit per element of a domain costs no more than its pieces: a bitmap then finds
// an overlap in O(pieces) word operations, faster than sorting them.
bool bitmap_pays(const plan::Extent& domain, uint64_t pieces) {
  return domain.length / 64 <= pieces;
}

// An owner's check of its domain `d` of one variable, from every rank's segments in it.
Status check_variable(const std::vector<std::pair<plan::Segment, int>>& segs,
                      const plan::Extent& d) {
  uint64_t pieces = 0;
  for (const auto& [seg, source] : segs) {
    if (!plan::segment_inside(seg, d))
      return error(TAPIO_ERR_INTERNAL, "malformed overlap check message from rank {}", source);
    pieces += seg.count;
  }
  uint64_t wanted = 0;  // the bytes of the allocation under way, for its error
  try {
    if (bitmap_pays(d, pieces)) {
      wanted = (d.length + 63) / 64 * sizeof(uint64_t);
      plan::ByteMap map;
      map.reset(d.offset, d.length);
      bool fresh = true;
      for (const auto& [seg, source] : segs) fresh = map.mark(seg) && fresh;
      if (fresh) return ok_status();
    }
    wanted = pieces * sizeof(plan::OwnedRun);
    std::vector<plan::OwnedRun> runs;
    runs.reserve(pieces);
    for (const auto& [seg, source] : segs)
      plan::for_each_piece(seg, [&](uint64_t off, uint64_t len) {
        runs.push_back(plan::OwnedRun{plan::Run{off, len}, source});
      });
    return plan::covered_elements(runs).status();
  } catch (const std::bad_alloc&) {
    return out_of_memory(fmt::format("checking {} pieces for overlaps", pieces), wanted);
  }
}

// An owner's check of its domain of each variable. A variable that every rank sent as a
// reference to the same variable, which those ranks alone sent pieces of, has exactly that
// variable's pieces: checked once. Otherwise its references are expanded into the pieces.
Status check_domains(const IoDef& io, int owners, int domain,
                     const std::vector<std::pair<Wire, int>>& got,
                     const std::function<std::string(int var)>& context) {
  using Pieces = std::vector<std::pair<plan::Segment, int>>;
  std::map<uint64_t, Pieces> by_var;
  std::map<uint64_t, std::vector<std::pair<uint64_t, int>>> refs;  // var: (same as, source)
  for (const auto& [w, source] : got) {
    if (w.var >= io.vars.size())
      return error(TAPIO_ERR_INTERNAL, "malformed overlap check message from rank {}", source);
    if (!is_reference(w)) {
      by_var[w.var].emplace_back(w.seg, source);
      continue;
    }
    const uint64_t to = w.seg.offset;
    if (to >= io.vars.size() || to == w.var || io.vars[to].shape != io.vars[w.var].shape)
      return error(TAPIO_ERR_INTERNAL, "malformed overlap check message from rank {}", source);
    refs[w.var].emplace_back(to, source);
  }
  // The ranks that sent a variable's pieces, worked out once per variable (the 15 others of
  // an E3SM decomposition refer to one) from its pieces, which come a message at a time.
  std::map<uint64_t, std::vector<int>> senders;
  const auto sources = [&](uint64_t var) -> const std::vector<int>& {
    const auto [it, fresh] = senders.try_emplace(var);
    if (!fresh) return it->second;
    std::vector<int>& s = it->second;
    for (const auto& piece : by_var[var])
      if (s.empty() || s.back() != piece.second) s.push_back(piece.second);
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
    return s;
  };
  for (const auto& [var, list] : refs) {
    const uint64_t to = list.front().first;
    const bool one_target = std::all_of(list.begin(), list.end(),
                                        [&](const auto& ref) { return ref.first == to; });
    if (!by_var.count(var) && !refs.count(to) && one_target && by_var.count(to)) {
      std::vector<int> from;
      for (const auto& ref : list) from.push_back(ref.second);
      std::sort(from.begin(), from.end());
      if (from == sources(to)) continue;  // the same pieces as `to`: checked there
    }
    Pieces& pieces = by_var[var];
    for (const auto& [same_as, source] : list)
      for (const auto& piece : by_var[same_as])
        if (piece.second == source) pieces.push_back(piece);
  }
  for (const auto& [var, segs] : by_var) {
    const plan::Extent d = plan::element_domains(io.vars[var].elements(), owners).domains[domain];
    const Status st = check_variable(segs, d);
    if (!st.ok()) return st.with_context(context(static_cast<int>(var)));
  }
  return ok_status();
}

// An owner's share: every other rank's pieces of its domain (`incoming` messages).
Status receive_pieces(const comm::Comm& comm, uint32_t incoming,
                      std::vector<std::pair<Wire, int>>* got, Profile* profile) {
  Status local = ok_status();
  ByteBuffer message;
  for (uint32_t k = 0; k < incoming; ++k) {
    int source = -1;
    const Status st = comm.probe_recv(comm::kAnySource, kOverlapTag, &message, &source);
    keep(&local, st);
    if (!st.ok()) continue;
    profile->messages.receive(message.size());
    const size_t n = message.size() / sizeof(Wire);
    keep(&local, catch_out_of_memory("receiving pieces for the overlap check", [&] {
      for (size_t i = 0; i < n; ++i) {
        Wire w;
        std::memcpy(&w, message.data() + i * sizeof(Wire), sizeof w);
        got->emplace_back(w, source);
      }
      return ok_status();
    }));
  }
  return local;
}

// How many messages each owner receives: one flag per owner, in rank order of the owners as
// the reduce-scatter deals its result out. An owner's receives depend on its count: agreed on
// before any message moves.
Status count_messages(const comm::Comm& comm, const std::vector<int>& owners,
                      const std::vector<std::vector<Wire>>& out, uint32_t* incoming) {
  const int A = static_cast<int>(owners.size());
  std::vector<int> by_rank(A), recv_counts(comm.size(), 0);
  for (int d = 0; d < A; ++d) by_rank[d] = d;
  std::sort(by_rank.begin(), by_rank.end(), [&](int a, int b) { return owners[a] < owners[b]; });
  std::vector<uint32_t> flags(A), expected;
  for (int i = 0; i < A; ++i) flags[i] = out[by_rank[i]].empty() ? 0 : 1;
  for (int r : owners) recv_counts[r] = 1;
  TAPIO_RETURN_IF_ERROR(comm::agree(comm, comm.reduce_scatter_sum(flags, recv_counts, &expected)));
  *incoming = expected.empty() ? 0 : expected[0];
  return ok_status();
}

}  // namespace

Status check_overlaps(const comm::Comm& comm, const comm::Topology& topology, const IoDef& io,
                      const std::vector<PutShape>& mine,
                      const std::function<std::string(int var)>& context, Profile* profile) {
  const std::vector<int> owners = owner_ranks(topology);
  const int A = static_cast<int>(owners.size());
  std::vector<std::vector<Wire>> out(A);
  // A rank short of memory here still enters the exchange, with nothing to send.
  Status local = catch_out_of_memory("routing this rank's pieces to the overlap check", [&] {
    PhaseTimer t(profile, Phase::kPlan);
    out = route(io, mine, A);
    return ok_status();
  });
  if (!local.ok()) out.assign(A, {});
  PhaseTimer t(profile, Phase::kExchange);
  uint32_t incoming = 0;
  TAPIO_RETURN_IF_ERROR(count_messages(comm, owners, out, &incoming));
  comm::Requests sends;
  for (int d = 0; d < A; ++d) {
    if (out[d].empty() || owners[d] == comm.rank()) continue;
    keep(&local, comm.isend(comm::Pieces::bytes(out[d].data(), out[d].size() * sizeof(Wire)),
                            owners[d], kOverlapTag, &sends));
    profile->messages.send(out[d].size() * sizeof(Wire));
  }
  // An owner: every rank's pieces of its domain, its own included.
  const int domain = static_cast<int>(std::find(owners.begin(), owners.end(), comm.rank()) -
                                      owners.begin());
  std::vector<std::pair<Wire, int>> got;
  if (domain < A && !out[domain].empty()) {
    for (const Wire& w : out[domain]) got.emplace_back(w, comm.rank());
    --incoming;
  }
  keep(&local, receive_pieces(comm, incoming, &got, profile));
  if (domain < A && local.ok()) {
    PhaseTimer c(profile, Phase::kPlan);
    local = check_domains(io, A, domain, got, context);
  }
  keep(&local, comm.waitall(&sends));
  return local;
}

bool RepeatedPuts::same_as_last(const std::vector<PutOp>& puts, uint64_t step) {
  bool same = (any_step_ || last_step_ + 1 == step) && puts.size() == last_.size();
  any_step_ = false;
  for (size_t i = 0; same && i < puts.size(); ++i)
    same = puts[i].var == last_[i].first &&
           (puts[i].sel == last_[i].second || *puts[i].sel == *last_[i].second);
  // The same selections are kept as this batch's objects, so that the next batch, which
  // passes them again, is known by their addresses.
  last_.clear();
  for (const PutOp& p : puts) last_.emplace_back(p.var, p.sel);
  last_step_ = step;
  return same;
}

}  // namespace tapio
