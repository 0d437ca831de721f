// Collective engine, write path: describe this rank's pieces (staging.h), route them to
// aggregator windows, then per round and aggregator: to an aggregator on this node, swap the
// pieces straight into its round buffer in shared memory and send the segment list; to one
// elsewhere, the segment list and one data message from the (byte-swapped) staging buffer,
// which the aggregator receives straight into the round's buffer. Aggregators fill what no
// rank wrote and hand the round to the write-behind thread while the next round arrives.
#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>

#include "engine/collective/collective_engine.h"
#include "engine/collective/datatypes.h"
#include "engine/collective/messages.h"
#include "engine/collective/staging.h"

namespace tapio {

std::vector<CollectiveEngine::Target> CollectiveEngine::batch_targets(uint64_t step) const {
  std::vector<Target> out;
  for (size_t v = 0; v < header_.vars.size(); ++v) {
    if (!touched_now_[v]) continue;
    const netcdf::Var& nv = header_.vars[v];
    Target t;
    t.var = static_cast<int>(v);
    t.esize = netcdf::nc_type_size(nv.type);
    t.extent = plan::Extent{header_.data_offset(nv, step), header_.elements(nv) * t.esize};
    const auto image = fill_image(nv, 1);
    std::memcpy(t.fill, image.data(), t.esize);
    out.push_back(t);
  }
  std::sort(out.begin(), out.end(),
            [](const Target& a, const Target& b) { return a.extent.offset < b.extent.offset; });
  return out;
}

uint64_t CollectiveEngine::step_span(uint64_t step) const {
  uint64_t lo = UINT64_MAX, hi = 0;
  for (const netcdf::Var& v : header_.vars) {
    const uint64_t at = header_.data_offset(v, step);
    lo = std::min(lo, at);
    hi = std::max(hi, at + header_.elements(v) * netcdf::nc_type_size(v.type));
  }
  return hi > lo ? hi - lo : 0;
}

bool CollectiveEngine::may_stage(const plan::DirectPlan& direct) const {
  return direct.eligible || !node_ ||
         std::any_of(agg_node_rank_.begin(), agg_node_rank_.end(), [](int nr) { return nr < 0; });
}

Status CollectiveEngine::write_puts(const std::vector<PutOp>& puts, uint64_t step) {
  std::optional<collective::Staged> described;
  {
    PhaseTimer t(&profile(), Phase::kPlan);
    described.emplace(puts, io(), header_, step);
  }
  const collective::Staged& staged = *described;
  // Summed with the touched variables: ranks that cannot write directly, bytes put, ranks out
  // of memory, ranks whose puts differ from their previous batch's, elements put per variable.
  enum { kCannotDirect, kBytes, kOutOfMemory, kChanged, kElements };
  std::vector<uint64_t> votes(kElements + io().vars.size(), 0);
  votes[kCannotDirect] = 1;
  plan::DirectPlan direct;
  if (direct_allowed())
    TAPIO_RETURN_IF_ERROR(plan_direct(staged.segments(), staged.ranges(), &direct, &votes));
  const uint64_t staging = may_stage(direct) ? staged.bytes() : 0;
  const uint64_t round = std::min(round_bytes(), step_span(step));
  const bool reserved = reserve(staging, 2, round);
  votes[kOutOfMemory] = reserved ? 0 : 1;
  votes[kChanged] = repeated_.same_as_last(puts, step) ? 0 : 1;
  for (const PutOp& p : puts) votes[kElements + p.var] += p.elements;
  TAPIO_RETURN_IF_ERROR(note_puts(puts, &votes));
  if (votes[kOutOfMemory] > 0) return reserved ? ok_status() : out_of_memory(staging, 2, round);
  // The batch's pieces provably tile every variable they touch — the same puts as a
  // committed batch (whose overlap check passed), and as many elements as the variable has —
  // so the aggregators skip the coverage bitmap, its overlap check and the fill pass.
  tiled_ = votes[kChanged] == 0;
  for (size_t v = 0; v < io().vars.size(); ++v)
    if (touched_now_[v]) tiled_ = tiled_ && votes[kElements + v] == io().vars[v].elements();
  const std::vector<Target> targets = batch_targets(step);  // the same on every rank
  if (targets.empty()) return ok_status();
  uint64_t lo = UINT64_MAX, hi = 0, target_bytes = 0;
  for (const Target& t : targets) {
    lo = std::min(lo, t.extent.offset);
    hi = std::max(hi, t.extent.end());
    target_bytes += t.extent.length;
  }
  // Direct when every rank can, and (with fill) the ranks' disjoint pieces cover every
  // variable written, so there is no gap to fill.
  if (votes[kCannotDirect] == 0 &&
      (!env_.params.get_bool("fill") || votes[kBytes] == target_bytes)) {
    {
      PhaseTimer t(&profile(), Phase::kSwap);
      staged.swap_all(staging_.prepare(staged.bytes()));
    }
    return write_direct(direct);
  }
  const plan::Layout layout = layout_for(lo, hi);
  std::vector<plan::RoutedSegment> routed;
  {
    PhaseTimer t(&profile(), Phase::kPlan);
    routed = plan::route_segments(staged.segments(), layout);
  }
  std::vector<uint32_t> expected;
  TAPIO_RETURN_IF_ERROR(expected_messages(layout, routed, &expected));
  TAPIO_RETURN_IF_ERROR(prepare_node_slots(layout));
  profile().rounds += layout.rounds;
  // The staging buffer holds what goes as messages (or, without shared slots, what an
  // aggregator copies from itself); pieces for this node's slots are swapped in directly.
  {
    PhaseTimer t(&profile(), Phase::kSwap);
    const bool messages =
        std::any_of(routed.begin(), routed.end(), [&](const plan::RoutedSegment& x) {
          return !node_slots_ || agg_node_rank_[x.agg] < 0;
        });
    if (messages) staged.swap_all(staging_.prepare(staged.bytes()));
  }

  comm::Requests requests[2];
  Status local = ok_status();
  size_t i = 0;
  for (uint32_t r = 0; r < layout.rounds; ++r) {
    const int slot = r % 2;
    SelfPart self;
    // Slot r % 2 held round r - 2: an aggregator waits for the write that last read it before
    // round r lands in it (by this node's ranks, after the barrier, or by messages).
    const Status slot_ready = my_agg_ >= 0 ? slot_free(slot) : ok_status();
    if (node_slots_ && r >= 2) {
      PhaseTimer t(&profile(), Phase::kAgree);
      keep(&local, node_->node().barrier());
    }
    {
      PhaseTimer t(&profile(), Phase::kExchange);
      // The sends of round r-2 used this slot's segment lists: wait for them before reuse.
      keep(&local, comm().waitall(&requests[slot]));
      size_t j = i;
      while (j < routed.size() && routed[j].round == r) ++j;
      self = send_write_round(r, layout, routed, i, j, staged, &requests[slot], &local);
      i = j;
    }
    if (my_agg_ >= 0) {
      const uint32_t others = expected[r] - (self.begin != self.end ? 1 : 0);
      const plan::Extent w = layout.window(my_agg_, r);
      uint8_t* buf = node_slots_ ? node_window(my_agg_, slot, w) + w.offset
                                 : round_bufs_[slot].prepare(w.length);
      keep(&local, receive_write_round(r, layout, others, self, staged, targets, buf, slot_ready));
    }
  }
  for (auto& reqs : requests) keep(&local, comm().waitall(&reqs));
  if (writer_) {
    PhaseTimer t(&profile(), Phase::kWrite);
    keep(&local, writer_->drain());
  }
  return local.ok() ? sync_for_step() : local;
}

// Round r's pieces (routed[begin, end)) to their aggregators: swapped into the shared slot of
// those on this node (then the segment list), the segment list and a data message from the
// staging buffer to the others. Returns this rank's part for its own window; a failed send
// goes to *local (the aggregator gets an empty message instead, which it reports).
CollectiveEngine::SelfPart CollectiveEngine::send_write_round(
    uint32_t r, const plan::Layout& layout, const std::vector<plan::RoutedSegment>& routed,
    size_t begin, size_t end, const collective::Staged& staged, comm::Requests* requests,
    Status* local) {
  SelfPart self;
  const int slot = r % 2;
  const std::vector<int> order = send_order(routed, begin, end);
  if (send_bufs_[slot].size() < order.size()) send_bufs_[slot].resize(order.size());
  for (size_t k = 0; k < order.size(); ++k) {
    const int agg = order[k];
    size_t first = begin;
    while (routed[first].agg != agg) ++first;
    size_t last = first;
    while (last < end && routed[last].agg == agg) ++last;
    if (aggregators_[agg] == comm().rank()) {  // to myself: copied, not sent
      self = SelfPart{routed.data() + first, routed.data() + last};
      continue;
    }
    ByteBuffer& list = send_bufs_[slot][k];
    collective::pack(routed, first, last, &list);
    const int dest = aggregators_[agg];
    const int tag = static_cast<int>(2 * r);
    if (uint8_t* window = node_window(agg, slot, layout.window(agg, r))) {
      {
        PhaseTimer t(&profile(), Phase::kSwap);
        for (size_t x = first; x < last; ++x) staged.scatter(routed[x].seg, routed[x].mem, window);
      }
      keep(local, node_->sync());
      keep(local, comm().isend(comm::Pieces::bytes(list.data(), list.size()), dest, tag, requests));
      profile().messages_sent += 1;
      profile().bytes_sent += list.size();
      continue;
    }
    const comm::Pieces data =
        collective::span_pieces(staging_.data(), collective::mem_spans(routed, first, last));
    keep(local, comm().isend(comm::Pieces::bytes(list.data(), list.size()), dest, tag, requests));
    keep(local, comm().isend(data, dest, tag + 1, requests));
    profile().messages_sent += 2;
    profile().bytes_sent += list.size() + data.size();
  }
  return self;
}

Status CollectiveEngine::write_direct(const plan::DirectPlan& direct) {
  if (direct.requests.empty()) return ok_status();
  TAPIO_ASSIGN_OR_RETURN(io::File * file, own_file());
  PhaseTimer t(&profile(), Phase::kWrite);
  for (const plan::DirectRequest& q : direct.requests) {
    TAPIO_RETURN_IF_ERROR(file->write_at(q.file.offset, staging_.data() + q.mem, q.file.length));
    if (eager_writeback()) file->start_writeback(q.file.offset, q.file.length);
  }
  return sync_for_step();
}

bool CollectiveEngine::eager_writeback() const { return env_.params.get("fsync") != "never"; }

Status CollectiveEngine::sync_for_step() {
  // Each rank that wrote syncs its own descriptor: on a parallel file system rank 0's fsync
  // flushes only its own node's cache, and numrecs must not get ahead of the data.
  if (!data_file_ || env_.params.get("fsync") != "step") return ok_status();
  PhaseTimer t(&profile(), Phase::kSync);
  return data_file_->sync();
}

}  // namespace tapio
