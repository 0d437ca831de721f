// Collective engine, read path: each rank sends each aggregator one request list per round;
// an aggregator reads the union of what its requesters want once (a region many ranks share
// is read from storage once, as Cray FFIO's `global` layer did) and replies to each requester
// with one message that MPI gathers from the round buffer and scatters into the requester's
// staging buffer; the requester byte-swaps into the user's buffers at the end.
#include <algorithm>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>

#include "engine/collective/collective_engine.h"
#include "engine/collective/datatypes.h"
#include "engine/collective/messages.h"

namespace tapio {
namespace {

struct Destination {
  uint8_t* dst;
  uint64_t mem;  // where the bytes land in the staging buffer
  uint64_t bytes;
  size_t esize;
};

struct Wanted {
  std::vector<plan::MemSegment> segments;  // mem = byte offset in the staging buffer
  std::vector<plan::Extent> ranges;        // per variable, the file range its pieces span
  std::vector<Destination> dests;  // one per get and step when its runs are in memory order
  uint64_t bytes = 0;
};

Wanted want(const std::vector<GetOp>& gets, const IoDef& io, const netcdf::Header& h) {
  Wanted w;
  w.ranges.assign(io.vars.size(), plan::Extent{});
  for (const GetOp& g : gets) {
    const VariableDef& def = io.vars[g.var];
    const size_t esize = type_size(def.type);
    auto* out = static_cast<uint8_t*>(g.data);
    for (uint64_t s = g.step_start; s < g.step_start + g.step_count; ++s) {
      const uint64_t base = h.data_offset(h.vars[g.var], s);
      uint8_t* step_out = out + (s - g.step_start) * g.elements * esize;
      const uint64_t start = w.bytes;
      const plan::SegmentMark before = plan::mark_of(w.segments);
      bool in_order = true;
      plan::for_each_run(g.sel, def.shape, [&](const plan::Run& run, uint64_t mem) {
        const uint64_t n = run.length * esize;
        in_order = in_order && mem * esize == w.bytes - start;
        plan::append_piece(&w.segments, base + run.offset * esize, n, w.bytes);
        w.bytes += n;
      });
      plan::widen_since(&w.ranges[g.var], w.segments, before);
      if (in_order) {  // the whole get-step is one swap
        if (w.bytes > start)
          w.dests.push_back(Destination{step_out, start, w.bytes - start, esize});
        continue;
      }
      uint64_t at = start;  // otherwise one swap per run
      plan::for_each_run(g.sel, def.shape, [&](const plan::Run& run, uint64_t mem) {
        w.dests.push_back(Destination{step_out + mem * esize, at, run.length * esize, esize});
        at += run.length * esize;
      });
    }
  }
  return w;
}

// The staged bytes (file order, big-endian) into the user's buffers.
void swap_into(const Wanted& w, const uint8_t* staging) {
  for (const Destination& d : w.dests)
    big_endian_to_host(d.dst, staging + d.mem, d.bytes / d.esize, d.esize);
}

// The destination whose staging bytes contain staging offset `at`.
const Destination& dest_of(const Wanted& w, uint64_t at) {
  auto it = std::upper_bound(w.dests.begin(), w.dests.end(), at,
                             [](uint64_t a, const Destination& d) { return a < d.mem; });
  return *(it - 1);
}

// Staging bytes [at, at + len), widened to whole elements, into the user's buffers. Every
// element they touch is whole in staging: a piece that starts or ends inside an element (a
// window boundary cut it) always goes through staging, whichever way it came.
void swap_span(const Wanted& w, const uint8_t* staging, uint64_t at, uint64_t len) {
  const uint64_t end = at + len;
  while (at < end) {
    const Destination& d = dest_of(w, at);
    const uint64_t from = d.mem + (at - d.mem) / d.esize * d.esize;
    const uint64_t to = std::min(end, d.mem + d.bytes);
    const uint64_t whole_to = d.mem + (to - d.mem + d.esize - 1) / d.esize * d.esize;
    big_endian_to_host(d.dst + (from - d.mem), staging + from, (whole_to - from) / d.esize,
                       d.esize);
    at = to;
  }
}

// A piece of a shared slot (`window` indexed by file offset) that this rank asked for: swapped
// straight into the user's buffer when it is whole elements, else copied to staging and noted
// in *later for swap_span.
void take_piece(const Wanted& w, const uint8_t* window, uint64_t offset, uint64_t len,
                uint64_t mem, uint8_t* staging,
                std::vector<std::pair<uint64_t, uint64_t>>* later) {
  const Destination& d = dest_of(w, mem);
  if ((mem - d.mem) % d.esize == 0 && len % d.esize == 0) {
    big_endian_to_host(d.dst + (mem - d.mem), window + offset, len / d.esize, d.esize);
    return;
  }
  std::memcpy(staging + mem, window + offset, len);
  later->emplace_back(mem, len);
}

}  // namespace

Status CollectiveEngine::read_gets(const std::vector<GetOp>& gets) {
  std::optional<Wanted> planned;
  {
    PhaseTimer t(&profile(), Phase::kPlan);
    planned = want(gets, io(), header_);
  }
  const Wanted& wanted = *planned;
  // Every byte wanted is read or replied into staging; an aggregator without shared slots
  // reads its rounds into a private buffer.
  const bool reserved = reserve(wanted.bytes, 1, round_bytes());
  uint8_t* const staging = staging_.data();
  // Direct when every rank can (its pieces large, the ranks' ranges disjoint in rank order:
  // then no two ranks want the same bytes, and reading them once each is the minimum).
  std::vector<uint64_t> direct_votes = {1, 0};
  plan::DirectPlan direct;
  if (direct_allowed())
    TAPIO_RETURN_IF_ERROR(plan_direct(wanted.segments, wanted.ranges, &direct, &direct_votes));
  // The global range, the one input no rank knows without asking, whether some rank cannot
  // read directly and whether one is out of memory: {kTop - lo, hi, cannot, short}, one MAX
  // reduces all four. Every value stays below 2^63 (file offsets do: off_t), so the reduction
  // is right where a MAX compares uint64 values as signed (MPICH 4.0 does; with UINT64_MAX
  // - lo, a rank reading nothing won and nobody read anything).
  constexpr uint64_t kTop = INT64_MAX;
  uint64_t range[4] = {0, 0, direct_votes[0], reserved ? 0u : 1u};
  for (const plan::MemSegment& m : wanted.segments) {
    range[0] = std::max(range[0], kTop - m.seg.offset);
    range[1] = std::max(range[1], m.seg.last_end());
  }
  {
    PhaseTimer t(&profile(), Phase::kAgree);
    TAPIO_RETURN_IF_ERROR(comm().allreduce_max(range, 4));
  }
  if (range[3] > 0) return reserved ? ok_status() : out_of_memory(wanted.bytes, 1, round_bytes());
  const uint64_t lo = kTop - range[0], hi = range[1];
  if (hi <= lo) return ok_status();  // nobody reads anything
  if (range[2] == 0) {
    const Status st = read_direct(direct, staging);
    PhaseTimer t(&profile(), Phase::kSwap);
    if (st.ok()) swap_into(wanted, staging);
    return st;
  }

  const plan::Layout layout = layout_for(lo, hi);
  std::vector<plan::RoutedSegment> routed;
  {
    PhaseTimer t(&profile(), Phase::kPlan);
    routed = plan::route_segments(wanted.segments, layout);
  }
  std::vector<uint32_t> expected;
  TAPIO_RETURN_IF_ERROR(expected_messages(layout, routed, &expected));
  TAPIO_RETURN_IF_ERROR(prepare_node_slots(layout));
  profile().rounds += layout.rounds;

  Status local = ok_status();
  // With shared slots, pieces from this node's slots go straight to the user's buffers; these
  // staging spans (replies from other nodes, pieces cut inside an element) are swapped last.
  std::vector<std::pair<uint64_t, uint64_t>> later;
  size_t i = 0;
  for (uint32_t r = 0; r < layout.rounds; ++r) {
    size_t j = i;
    while (j < routed.size() && routed[j].round == r) ++j;
    // Slot r % 2 held round r - 2, which this node's ranks copied out before that round
    // ended: after this barrier its aggregators may read round r into it.
    if (node_slots_ && r >= 2) {
      PhaseTimer t(&profile(), Phase::kAgree);
      keep(&local, node_->node().barrier());
    }
    // Ask every aggregator this round touches, and post the receive of its reply: the data,
    // or from an aggregator on this node a word that the data is in its slot.
    std::deque<ByteBuffer> lists;  // stable addresses while the sends are in flight
    comm::Requests reqs;
    struct FromSlot {
      const uint8_t* window;  // indexed by file offset
      size_t first, last;
    };
    std::vector<FromSlot> from_slots;
    for (int agg : send_order(routed, i, j)) {
      size_t first = i;
      while (routed[first].agg != agg) ++first;
      size_t last = first;
      while (last < j && routed[last].agg == agg) ++last;
      lists.emplace_back();
      collective::pack(routed, first, last, &lists.back());
      comm::Pieces reply = comm::Pieces::bytes(staging, 0);  // an empty message
      if (const uint8_t* window = node_window(agg, r % 2, layout.window(agg, r))) {
        from_slots.push_back(FromSlot{window, first, last});
      } else {
        const auto spans = collective::mem_spans(routed, first, last);
        later.insert(later.end(), spans.begin(), spans.end());  // swapped at the end
        reply = collective::span_pieces(staging, spans);
      }
      const int source = aggregators_[agg];
      keep(&local, comm().isend(comm::Pieces::bytes(lists.back().data(), lists.back().size()),
                                source, static_cast<int>(2 * r), &reqs));
      keep(&local, comm().irecv(reply, source, static_cast<int>(2 * r + 1), &reqs));
      profile().messages_sent += 1;
      profile().bytes_sent += lists.back().size();
      profile().messages_received += 1;
      profile().bytes_received += reply.size();
    }
    if (my_agg_ >= 0) {
      const Status st = serve_read_round(r, layout, expected[r], &reqs);
      if (local.ok()) local = st;
    }
    {
      PhaseTimer t(&profile(), Phase::kExchange);
      keep(&local, comm().waitall(&reqs));
    }
    if (!from_slots.empty()) {
      PhaseTimer t(&profile(), Phase::kSwap);
      keep(&local, node_->sync());  // what the aggregators read into their slots is visible now
      for (const FromSlot& f : from_slots)
        for (size_t x = f.first; x < f.last; ++x) {
          uint64_t mem = routed[x].mem;
          plan::for_each_piece(routed[x].seg, [&](uint64_t off, uint64_t len) {
            take_piece(wanted, f.window, off, len, mem, staging, &later);
            mem += len;
          });
        }
    }
    i = j;
  }
  PhaseTimer t(&profile(), Phase::kSwap);
  if (!node_slots_) {
    swap_into(wanted, staging);
    return local;
  }
  for (const auto& [at, len] : later) swap_span(wanted, staging, at, len);
  return local;
}

Status CollectiveEngine::read_direct(const plan::DirectPlan& direct, uint8_t* staging) {
  if (direct.requests.empty()) return ok_status();
  TAPIO_ASSIGN_OR_RETURN(io::File * file, own_file());
  PhaseTimer t(&profile(), Phase::kRead);
  for (const plan::DirectRequest& q : direct.requests)
    TAPIO_RETURN_IF_ERROR(file->read_exact(q.file.offset, staging + q.mem, q.file.length));
  return ok_status();
}

Status CollectiveEngine::serve_read_round(uint32_t r, const plan::Layout& layout,
                                          uint32_t expected, comm::Requests* reqs) {
  struct Requester {
    int rank;
    std::vector<plan::Segment> segments;
  };
  std::vector<Requester> requesters;
  const plan::Extent w = layout.window(my_agg_, r);
  // The union of the requests, one bit per byte of the window (requests may overlap).
  plan::ByteMap& map = covered_map_;
  map.reset(w.offset, w.length);
  Status local = ok_status();
  for (uint32_t k = 0; k < expected; ++k) {
    int source = -1;
    const Status got = comm().probe_recv(comm::kAnySource, static_cast<int>(2 * r), &recv_buf_,
                                         &source);
    keep(&local, got);
    if (!got.ok()) continue;
    profile().messages_received += 1;
    profile().bytes_received += recv_buf_.size();
    collective::Unpacked u = collective::unpack(recv_buf_.data(), recv_buf_.size());
    bool well_formed = u.ok;
    for (const plan::Segment& s : u.segments)
      well_formed = well_formed && plan::segment_inside(s, w);
    if (!well_formed) {
      // An empty list stands for one its sender failed to send: the sender reports.
      if (local.ok() && recv_buf_.size() > 0)
        local = error(TAPIO_ERR_INTERNAL, "round {}: malformed request from rank {}", r,
                      source);
      u.segments.clear();
    }
    for (const plan::Segment& s : u.segments) map.mark(s);
    requesters.push_back(Requester{source, std::move(u.segments)});
  }
  // Read the union once. Data sieving (as ROMIO's): a hole of at most kSieveHole bytes between
  // two requested runs is read along rather than costing another request — on the page cache
  // a request costs about as much as copying that many bytes, on disks and parallel file
  // systems far more. The window buffer holds the holes anyway.
  constexpr uint64_t kSieveHole = 256 * 1024;
  std::vector<plan::Extent> wanted;
  map.for_each_run(true, w.offset, w.end(),
                   [&](uint64_t off, uint64_t len) { wanted.push_back(plan::Extent{off, len}); });
  const std::vector<plan::Extent> reads = plan::sieve(wanted, kSieveHole);
  // Replies of this round are sent from this buffer; the caller waits for them before the
  // next round reuses it. In a shared slot, this node's requesters copy their pieces out.
  uint8_t* const buf = node_slots_ ? node_window(my_agg_, r % 2, w) + w.offset
                                   : round_bufs_[0].prepare(w.length);
  if (!reads.empty() && local.ok()) {
    PhaseTimer t(&profile(), Phase::kRead);
    auto opened = own_file();
    local = opened.status();
    for (const plan::Extent& e : reads) {
      if (!local.ok()) break;
      local = (*opened)->read_exact(e.offset, buf + (e.offset - w.offset), e.length);
    }
  }
  // One reply per requester, gathered from the buffer by MPI (a few large entries) or copied
  // into a reply buffer (many small ones; see worth_a_datatype). After an error the replies
  // still go (nobody waits forever); the agreement reports the error. Copied replies in
  // flight are bounded by two rounds' bytes: past that the round waits for those it sent
  // before copying more, so many requesters of the same small pieces (a shared irregular
  // read) cost bounded memory, not a window each. Every requester posted its receive before
  // serving its own round, so these waits always end.
  if (scratch_.size() < requesters.size()) scratch_.resize(requesters.size());
  const uint64_t scratch_cap = 2 * std::max<uint64_t>(round_bytes(), w.length);
  comm::Requests copied;  // replies sent from scratch_[0, copied.size())
  uint64_t copied_bytes = 0;
  if (node_slots_) keep(&local, node_->sync());
  for (size_t k = 0; k < requesters.size(); ++k) {
    const Requester& q = requesters[k];
    const int tag = static_cast<int>(2 * r + 1);
    if (node_slots_ && node_->node_rank_of(q.rank) >= 0) {  // the word that it is there
      keep(&local, comm().isend(comm::Pieces::bytes(buf, 0), q.rank, tag, reqs));
      profile().messages_sent += 1;
      continue;
    }
    uint64_t bytes = 0;
    for (const plan::Segment& s : q.segments) bytes += s.bytes();
    const bool copy = q.segments.empty() || !collective::worth_a_datatype(q.segments, bytes);
    comm::Pieces reply;
    if (!copy) {
      reply = collective::window_pieces(buf, w.offset, q.segments);
    } else {
      if (!copied.empty() && copied_bytes + bytes > scratch_cap) {
        keep(&local, comm().waitall(&copied));
        copied_bytes = 0;
      }
      uint8_t* out = scratch_[copied.size()].prepare(std::max<uint64_t>(bytes, 1));
      reply = comm::Pieces::bytes(out, bytes);
      PhaseTimer t(&profile(), Phase::kCopy);
      collective::gather_pieces(buf - w.offset, q.segments, out);
      copied_bytes += bytes;
    }
    keep(&local, comm().isend(reply, q.rank, tag, copy ? &copied : reqs));
    profile().messages_sent += 1;
    profile().bytes_sent += bytes;
  }
  reqs->insert(reqs->end(), copied.begin(), copied.end());
  return local;
}

}  // namespace tapio
