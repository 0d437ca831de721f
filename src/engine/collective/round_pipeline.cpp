// The round pipeline of a collective write (round_pipeline.h): the loop, the send stage and
// the write stage. The receive stage is in collective_assemble.cpp.
#include "engine/collective/round_pipeline.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "core/out_of_memory.h"
#include "engine/collective/datatypes.h"
#include "engine/collective/messages.h"

namespace tapio::collective {
namespace {

// The bytes of `extents` (file offsets) in a round buffer that starts at file offset `base`.
std::vector<io::Piece> pieces_of(const std::vector<plan::Extent>& extents, const uint8_t* buf,
                                 uint64_t base) {
  std::vector<io::Piece> pieces;
  pieces.reserve(extents.size());
  for (const plan::Extent& e : extents)
    pieces.push_back(io::Piece{e.offset, buf + (e.offset - base), e.length});
  return pieces;
}

// Fill [from, to) of a variable whose data starts at `var_start` with its fill pattern.
void fill_bytes(uint8_t* dst, uint64_t var_start, uint64_t from, uint64_t to,
                const uint8_t* pattern, size_t esize) {
  for (uint64_t f = from; f < to;) {
    const size_t phase = (f - var_start) % esize;
    const size_t n = std::min<uint64_t>(esize - phase, to - f);
    std::memcpy(dst + (f - from), pattern + phase, n);
    f += n;
  }
}

}  // namespace

Status RoundPipeline::run() {
  Status local = ok_status();
  // A batch assembled in full keeps its rounds afresh (a round with nothing to write keeps
  // none: a repeat of it has nothing either).
  if (p_.agg.mine >= 0 && !b_.repeat && !b_.tiled) p_.bufs.kept.assign(b_.layout.rounds, {});
  for_each_round(b_.runs, b_.layout.rounds,
                 [&](uint32_t r, RoundRuns runs) { round(r, runs, &local); });
  for (auto& reqs : requests_) keep(&local, p_.comm.waitall(&reqs));
  if (p_.agg.gather.on())
    for (auto& reqs : node_requests_) keep(&local, p_.agg.gather.node->node().waitall(&reqs));
  if (p_.file.writer().started() && !p_.file.async()) {
    PhaseTimer t(&p_.profile, Phase::kWrite);
    keep(&local, p_.file.writer().drain());
  }
  return local.ok() ? p_.file.sync_for_step() : local;
}

void RoundPipeline::round(uint32_t r, RoundRuns runs, Status* local) {
  const uint32_t slots = static_cast<uint32_t>(p_.agg.slot_count);
  const int slot = static_cast<int>(r % slots);
  // The slot held round r - slots: an aggregator waits for the write that last read it before
  // round r lands in it (by this node's ranks, after the barrier, or by messages).
  const Status slot_ready = p_.agg.mine >= 0 ? slot_free(slot) : ok_status();
  if (p_.agg.slots && r >= slots) {
    PhaseTimer t(&p_.profile, Phase::kAgree);
    keep(local, p_.agg.node->node().barrier());
  }
  SelfPart self;
  {
    PhaseTimer t(&p_.profile, Phase::kExchange);
    // The sends of round r-2 used this set of segment lists: wait for them before reuse.
    keep(local, p_.comm.waitall(&requests_[r % 2]));
    if (p_.agg.gather.on())
      keep(local, p_.agg.gather.node->node().waitall(&node_requests_[r % 2]));
    self = send(r, runs, local);
  }
  if (p_.agg.mine < 0) return;
  const plan::Extent w = b_.layout.window(p_.agg.mine, r);
  uint8_t* buf = p_.agg.slots ? p_.agg.window(p_.agg.mine, slot, w) + w.offset
                              : p_.bufs.round[slot].prepare(w.length);
  keep(local, receive(r, self, buf, slot_ready));
}

Status RoundPipeline::slot_free(int slot) {
  PhaseTimer t(&p_.profile, Phase::kWrite);
  return p_.file.writer().wait(slot_write_[slot]);
}

// The aggregators this rank sends to in a round, in the collection order.
std::vector<int> RoundPipeline::send_order(RoundRuns runs) const {
  std::vector<int> aggs;
  for (const plan::RouteRun& run : runs) aggs.push_back(run.agg);
  return plan::collection_order(std::move(aggs), p_.node, p_.spec.collect_order);
}

RoundPipeline::SelfPart RoundPipeline::send(uint32_t r, RoundRuns runs, Status* local) {
  SelfPart self;
  const int set = r % 2;  // this rank's segment lists and sends
  const int slot = static_cast<int>(r % static_cast<uint32_t>(p_.agg.slot_count));
  const std::vector<plan::RoutedSegment>& routed = b_.routed;
  const std::vector<int> order = send_order(runs);
  std::vector<ByteBuffer>& lists = p_.bufs.send[set];
  if (lists.size() < order.size()) lists.resize(order.size());
  for (size_t k = 0; k < order.size(); ++k) {
    const int agg = order[k];
    if (p_.agg.gather.through(agg)) continue;  // through the node's gatherer, below
    const plan::RouteRun& run = runs.to(agg);
    const size_t first = run.begin, last = run.end;
    const int dest = p_.agg.ranks[agg];
    if (dest == p_.comm.rank()) {  // to myself: copied, not sent
      self = SelfPart{routed.data() + first, routed.data() + last};
      continue;
    }
    const int tag = static_cast<int>(2 * r);
    if (uint8_t* window = p_.agg.window(agg, slot, b_.layout.window(agg, r))) {
      if (b_.repeat)
        pack_same_as_before(&lists[k]);
      else
        pack(routed, first, last, &lists[k], b_.shift);
      const comm::Pieces list = comm::Pieces::bytes(lists[k].data(), lists[k].size());
      {
        PhaseTimer t(&p_.profile, Phase::kSwap);
        b_.staged->scatter(routed.data() + first, routed.data() + last, window, b_.shift);
      }
      keep(local, p_.agg.node->sync());
      keep(local, p_.comm.isend(list, dest, tag, &requests_[set]));
      p_.profile.messages.send(list.size());
      continue;
    }
    pack(routed, first, last, &lists[k], b_.shift);
    const comm::Pieces list = comm::Pieces::bytes(lists[k].data(), lists[k].size());
    const comm::Pieces data =
        span_pieces(p_.bufs.staging.data(), mem_spans(routed, first, last));
    keep(local, p_.comm.isend(list, dest, tag, &requests_[set]));
    keep(local, p_.comm.isend(data, dest, tag + 1, &requests_[set]));
    p_.profile.messages.send(list.size() + data.size(), 2);
    if (p_.node_of_rank[dest] != p_.node) p_.profile.messages.between_nodes += 2;
  }
  if (p_.agg.gather.gathering)
    forward(r, runs, local);
  else if (p_.agg.gather.on())
    hand_over(r, runs, local);
  return self;
}

// What to write: with fill (or when the batch tiles what it touches), every written variable's
// bytes in this window, the gaps filled; without, only what the ranks sent (no
// read-modify-write either way).
// A repeat batch's round r: the extents and gaps the round kept from the last batch
// assembled in full, at this window; the gaps filled.
Result<std::vector<plan::Extent>> RoundPipeline::kept_extents(uint32_t r, const plan::Extent& w,
                                                              uint8_t* buf) const {
  const std::vector<KeptRound>& kept = p_.bufs.kept;
  if (r >= kept.size() || !kept[r].kept_for(w))
    return error(TAPIO_ERR_INTERNAL, "{}: round {} of a repeated batch was not kept", p_.where, r);
  for (const KeptRound::Gap& g : kept[r].gaps) {
    const Target& t = b_.targets[g.target];
    const uint64_t off = w.offset + g.offset;
    fill_bytes(buf + g.offset, t.extent.offset, off, off + g.length, t.fill, t.esize);
  }
  return kept[r].extents_at(w);
}

Result<std::vector<plan::Extent>> RoundPipeline::extents_to_write(uint32_t r,
                                                                  const plan::Extent& w,
                                                                  uint8_t* buf) {
  if (b_.repeat && !b_.tiled) return kept_extents(r, w, buf);
  std::vector<plan::Extent> writes;
  plan::ByteMap& covered = p_.bufs.covered;
  // What this round writes and fills is kept for a repeat of it (not when tiled: a tiled
  // repeat needs none).
  KeptRound* keep = !b_.tiled && r < p_.bufs.kept.size() ? &p_.bufs.kept[r] : nullptr;
  if (keep) keep->gaps.clear();
  const auto kept = [&](std::vector<plan::Extent> extents) {
    if (keep) keep->keep(w, extents);
    return extents;
  };
  if (!b_.tiled && !p_.spec.file.fill) {
    covered.for_each_run(true, w.offset, w.end(), [&](uint64_t off, uint64_t len) {
      writes.push_back(plan::Extent{off, len});
    });
    return kept(std::move(writes));
  }
  for (size_t i = 0; i < b_.targets.size(); ++i) {
    const Target& t = b_.targets[i];
    const uint64_t from = std::max(t.extent.offset, w.offset);
    const uint64_t to = std::min(t.extent.end(), w.end());
    if (from >= to) continue;
    writes.push_back(plan::Extent{from, to - from});
    if (b_.tiled) continue;  // nothing to fill
    covered.for_each_run(false, from, to, [&](uint64_t off, uint64_t len) {
      fill_bytes(buf + (off - w.offset), t.extent.offset, off, off + len, t.fill, t.esize);
      if (keep) keep->gaps.push_back({off - w.offset, len, static_cast<uint32_t>(i)});
    });
  }
  return kept(plan::coalesce(std::move(writes)));
}

Status RoundPipeline::write(uint32_t r, const plan::Extent& w, uint8_t* buf) {
  // An aggregator's failure here is kept like a failed write: the rounds go on.
  return catch_out_of_memory([&] { return fmt::format("{}: writing round {}", p_.where, r); },
                             [&] { return write_round(r, w, buf); });
}

Status RoundPipeline::write_round(uint32_t r, const plan::Extent& w, uint8_t* buf) {
  TAPIO_ASSIGN_OR_RETURN(const std::vector<plan::Extent> writes, extents_to_write(r, w, buf));
  if (writes.empty()) return ok_status();
  TAPIO_ASSIGN_OR_RETURN(io::File * file, p_.file.get());
  std::vector<io::Piece> pieces = pieces_of(writes, buf, w.offset);
  // Pipelining needs a next round to overlap with; a one-round step writes in place, unless
  // its writes go behind end_step (async).
  const bool async = p_.file.async();
  if (!async && (b_.layout.rounds <= 1 || !p_.spec.pipeline)) {
    PhaseTimer t(&p_.profile, Phase::kWrite);
    return io::write_pieces(*file, pieces, p_.file.eager());
  }
  const std::string ctx =
      async ? background_write_context(p_.where, b_.step, p_.comm.rank()) : std::string();
  slot_write_[r % slot_write_.size()] =
      p_.file.writer().write(file, std::move(pieces), p_.file.eager(), ctx);
  return ok_status();
}

}  // namespace tapio::collective
