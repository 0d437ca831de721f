// Collective engine, write path: describe this rank's pieces (staging.h), route them to
// aggregator windows, then per round and aggregator: to an aggregator on this node, swap the
// pieces straight into its round buffer in shared memory and send the segment list; to one
// elsewhere, the segment list and one data message from the (byte-swapped) staging buffer,
// which the aggregator receives straight into the round's buffer. Aggregators fill what no
// rank wrote and hand the round to the write-behind thread while the next round arrives.
#include <algorithm>
#include <cstring>
#include <memory>

#include "engine/collective/collective_engine.h"
#include "engine/collective/datatypes.h"
#include "engine/collective/messages.h"
#include "engine/collective/staging.h"

namespace tapio {
namespace {

// Write `extents` (file offsets) of a round buffer that starts at file offset `base`.
Status write_extents(io::File* file, const std::vector<plan::Extent>& extents,
                     const uint8_t* buf, uint64_t base) {
  for (const plan::Extent& e : extents)
    TAPIO_RETURN_IF_ERROR(file->write_at(e.offset, buf + (e.offset - base), e.length));
  return ok_status();
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

// Two ranks (or one rank twice) writing the same bytes is an error, as in the serial engine.
Status CollectiveEngine::check_overlap(const std::vector<plan::Extent>& extents,
                                       const std::vector<int>& sources,
                                       const std::vector<Target>& targets) const {
  std::vector<size_t> order(extents.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return extents[a].offset < extents[b].offset; });
  for (size_t k = 1; k < order.size(); ++k) {
    const plan::Extent& prev = extents[order[k - 1]];
    const plan::Extent& cur = extents[order[k]];
    if (prev.end() <= cur.offset) continue;
    std::string var = "?";
    for (const Target& t : targets)
      if (cur.offset >= t.extent.offset && cur.offset < t.extent.end()) var = io().vars[t.var].name;
    return error(TAPIO_ERR_SHAPE,
                 "{}, variable '{}': blocks overlap: rank {} and rank {} both write file bytes "
                 "[{}, {})",
                 where(), var, sources[order[k - 1]], sources[order[k]], cur.offset,
                 std::min(prev.end(), cur.end()));
  }
  return ok_status();
}

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

Status CollectiveEngine::write_puts(const std::vector<PutOp>& puts, uint64_t step) {
  const collective::Staged staged(puts, io(), header_, step);
  // {ranks that cannot write directly, bytes put}: summed with the touched variables.
  std::vector<uint64_t> direct_votes = {1, 0};
  plan::DirectPlan direct;
  if (direct_allowed())
    TAPIO_RETURN_IF_ERROR(plan_direct(staged.segments(), staged.ranges(), &direct, &direct_votes));
  TAPIO_RETURN_IF_ERROR(note_puts(puts, &direct_votes));
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
  if (direct_votes[0] == 0 && (!env_.params.get_bool("fill") || direct_votes[1] == target_bytes)) {
    staged.swap_all(staging_.prepare(staged.bytes()));
    return write_direct(direct);
  }
  const plan::Layout layout = layout_for(lo, hi);
  std::vector<plan::RoutedSegment> routed;
  {
    ScopedTimer t(&profile().exchange_time);
    routed = plan::route_segments(staged.segments(), layout);
  }
  std::vector<uint32_t> expected;
  TAPIO_RETURN_IF_ERROR(expected_messages(layout, routed, &expected));
  TAPIO_RETURN_IF_ERROR(prepare_node_slots(layout));
  profile().rounds += layout.rounds;
  // The staging buffer holds what goes as messages (or, without shared slots, what an
  // aggregator copies from itself); pieces for this node's slots are swapped in directly.
  {
    ScopedTimer t(&profile().exchange_time);
    const bool messages = std::any_of(routed.begin(), routed.end(), [&](const plan::RoutedSegment& x) {
      return !node_slots_ || agg_node_rank_[x.agg] < 0;
    });
    if (messages) staged.swap_all(staging_.prepare(staged.bytes()));
  }

  std::vector<MPI_Request> requests[2];
  Status local = ok_status();
  size_t i = 0;
  for (uint32_t r = 0; r < layout.rounds; ++r) {
    const int slot = r % 2;
    SelfPart self;
    if (node_slots_ && r >= 2) {
      // Slot r % 2 held round r - 2: its aggregators finish writing it before this node's
      // ranks copy round r in. (Rounds 0 and 1 find both slots free: each step ends drained.)
      if (my_agg_ >= 0 && writer_) {
        const Status st = writer_->drain(1);
        if (local.ok()) local = st;
      }
      MPI_Barrier(node_->node().raw());
    }
    {
      ScopedTimer t(&profile().exchange_time);
      // The sends of round r-2 used this slot's segment lists: wait for them before reuse.
      MPI_Waitall(static_cast<int>(requests[slot].size()), requests[slot].data(),
                  MPI_STATUSES_IGNORE);
      requests[slot].clear();
      size_t j = i;
      while (j < routed.size() && routed[j].round == r) ++j;
      const std::vector<int> order = send_order(routed, i, j);
      if (send_bufs_[slot].size() < order.size()) send_bufs_[slot].resize(order.size());
      for (size_t k = 0; k < order.size(); ++k) {
        const int agg = order[k];
        size_t first = i;
        while (routed[first].agg != agg) ++first;
        size_t last = first;
        while (last < j && routed[last].agg == agg) ++last;
        if (aggregators_[agg] == comm().rank()) {  // to myself: copied, not sent
          self = SelfPart{routed.data() + first, routed.data() + last};
          continue;
        }
        ByteBuffer& list = send_bufs_[slot][k];
        collective::pack(routed, first, last, &list);
        const int dest = aggregators_[agg];
        if (uint8_t* window = node_window(agg, slot, layout.window(agg, r))) {
          // On my node: copied straight into its round buffer; the list says it is there.
          for (size_t x = first; x < last; ++x) staged.scatter(routed[x].seg, routed[x].mem, window);
          node_->sync();
          requests[slot].emplace_back();
          MPI_Isend(list.data(), static_cast<int>(list.size()), MPI_BYTE, dest,
                    static_cast<int>(2 * r), comm().raw(), &requests[slot].back());
          profile().messages_sent += 1;
          profile().bytes_sent += list.size();
          continue;
        }
        const collective::Transfer data =
            collective::spans_transfer(staging_.data(), collective::mem_spans(routed, first, last));
        requests[slot].resize(requests[slot].size() + 2);
        MPI_Request* req = &requests[slot].back() - 1;
        MPI_Isend(list.data(), static_cast<int>(list.size()), MPI_BYTE, dest,
                  static_cast<int>(2 * r), comm().raw(), req);
        MPI_Isend(data.buf, data.count, data.type, dest, static_cast<int>(2 * r + 1),
                  comm().raw(), req + 1);
        profile().messages_sent += 2;
        profile().bytes_sent += list.size() + data.bytes();
      }
      i = j;
    }
    if (my_agg_ >= 0) {
      const uint32_t others = expected[r] - (self.begin != self.end ? 1 : 0);
      const plan::Extent w = layout.window(my_agg_, r);
      uint8_t* buf = node_slots_ ? node_window(my_agg_, slot, w) + w.offset
                                 : round_bufs_[slot].prepare(w.length);
      const Status st = receive_write_round(r, layout, others, self, staged, targets, buf);
      if (local.ok()) local = st;
    }
  }
  for (auto& reqs : requests)
    MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  if (writer_) {
    const Status st = writer_->drain();
    if (local.ok()) local = st;
  }
  return local;
}

Status CollectiveEngine::write_direct(const plan::DirectPlan& direct) {
  if (direct.requests.empty()) return ok_status();
  TAPIO_ASSIGN_OR_RETURN(io::File * file, own_file());
  ScopedTimer t(&profile().write_time);
  for (const plan::DirectRequest& q : direct.requests)
    TAPIO_RETURN_IF_ERROR(file->write_at(q.file.offset, staging_.data() + q.mem, q.file.length));
  return ok_status();
}

Status CollectiveEngine::receive_write_round(uint32_t r, const plan::Layout& layout,
                                             uint32_t others, const SelfPart& self,
                                             const collective::Staged& staged,
                                             const std::vector<Target>& targets,
                                             uint8_t* buf) {
  const plan::Extent w = layout.window(my_agg_, r);
  Status local = ok_status();
  // This buffer was last used two rounds ago: at most one write (the previous round's) may
  // still be in flight.
  if (writer_) local = writer_->drain(1);
  uint8_t* const out = buf - w.offset;  // indexed by file offset
  // Which bytes of the window the ranks sent: one bit per byte, no per-piece lists or sorts.
  plan::ByteMap& map = covered_map_;
  map.reset(w.offset, w.length);
  struct Received {
    int source;
    std::vector<plan::Segment> segments;
  };
  std::vector<Received> received;  // kept to name the ranks if two pieces overlap
  bool overlap = false;
  {
    ScopedTimer t(&profile().exchange_time);
    if (self.begin != self.end) {
      Received mine{comm().rank(), {}};
      for (const plan::RoutedSegment* x = self.begin; x != self.end; ++x) {
        overlap |= !map.mark(x->seg);
        if (node_slots_)
          staged.scatter(x->seg, x->mem, out);
        else
          collective::scatter_pieces(staging_.data() + x->mem, x->seg, out);
        mine.segments.push_back(x->seg);
      }
      received.push_back(std::move(mine));
    }
    // Each sender's segment list, then its data: nothing more from a rank on my node (it
    // copied its pieces in already); from others straight into the buffer by a datatype when
    // the list is a few large entries, else into a scratch buffer and copied piece by piece
    // (and dropped when the list is malformed or overlaps what arrived already).
    struct Incoming {
      int source = -1;
      uint64_t bytes = 0;   // announced by the segment list (or probed, when dropped)
      int scratch = -1;     // index in scratch_, or -1 when received in place
      bool keep = false;    // scatter the scratch into the window after the wait
      std::vector<plan::Segment> segments;
    };
    std::vector<Incoming> incoming;
    std::vector<MPI_Request> reqs;
    std::vector<collective::Transfer> transfers;  // their types live until the waits end
    incoming.reserve(others);
    transfers.reserve(others);
    if (scratch_.size() < others) scratch_.resize(others);
    for (uint32_t k = 0; k < others; ++k) {
      MPI_Status status;
      MPI_Probe(MPI_ANY_SOURCE, static_cast<int>(2 * r), comm().raw(), &status);
      int list_bytes = 0;
      MPI_Get_count(&status, MPI_BYTE, &list_bytes);
      const int source = status.MPI_SOURCE;
      MPI_Recv(recv_buf_.prepare(list_bytes), list_bytes, MPI_BYTE, source,
               static_cast<int>(2 * r), comm().raw(), MPI_STATUS_IGNORE);
      collective::Unpacked u = collective::unpack(recv_buf_.data(), recv_buf_.size());
      bool well_formed = u.ok;
      for (const plan::Segment& s : u.segments)
        well_formed = well_formed && s.offset >= w.offset && s.last_end() <= w.end() &&
                      s.offset + s.length <= w.end();
      bool fresh = well_formed;
      for (const plan::Segment& s : u.segments) fresh = map.mark(s) && fresh;
      if (!well_formed && local.ok())
        local = error(TAPIO_ERR_INTERNAL, "round {}: malformed message from rank {}", r, source);
      overlap |= well_formed && !fresh;
      Incoming in;
      in.source = source;
      in.bytes = u.bytes;
      if (node_slots_ && node_->node_rank_of(source) >= 0) {
        profile().messages_received += 1;
        profile().bytes_received += static_cast<uint64_t>(list_bytes);
        if (well_formed) received.push_back(Received{source, std::move(u.segments)});
        continue;
      }
      if (fresh && collective::worth_a_datatype(u.segments, u.bytes)) {
        transfers.push_back(collective::pieces_transfer(buf, w.offset, u.segments));
      } else {
        if (!fresh) {  // its size from the message itself
          int n = 0;
          MPI_Probe(source, static_cast<int>(2 * r + 1), comm().raw(), &status);
          MPI_Get_count(&status, MPI_BYTE, &n);
          in.bytes = static_cast<uint64_t>(n);
        }
        in.scratch = static_cast<int>(k);
        in.keep = fresh;
        collective::Transfer t;
        t.buf = scratch_[k].prepare(std::max<uint64_t>(in.bytes, 1));
        t.count = static_cast<int>(in.bytes);
        transfers.push_back(std::move(t));
      }
      const collective::Transfer& t = transfers.back();
      reqs.emplace_back();
      MPI_Irecv(t.buf, t.count, t.type, source, static_cast<int>(2 * r + 1), comm().raw(),
                &reqs.back());
      profile().messages_received += 2;
      profile().bytes_received += static_cast<uint64_t>(list_bytes) + in.bytes;
      if (well_formed) in.segments = std::move(u.segments);
      incoming.push_back(std::move(in));
    }
    std::vector<MPI_Status> statuses(reqs.size());
    const int rc = MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), statuses.data());
    if (node_slots_) node_->sync();  // what this node's ranks copied in is visible now
    for (size_t k = 0; k < incoming.size(); ++k) {
      const Incoming& in = incoming[k];
      int got = -1;
      if (rc == MPI_SUCCESS) MPI_Get_count(&statuses[k], MPI_BYTE, &got);
      if (static_cast<uint64_t>(got) != in.bytes) {
        if (local.ok())
          local = error(TAPIO_ERR_INTERNAL,
                        "round {}: the data from rank {} does not match its segment list", r,
                        in.source);
        continue;
      }
      if (in.keep) collective::scatter_pieces(scratch_[in.scratch].data(), in.segments, out);
    }
    for (Incoming& in : incoming)
      if (!in.segments.empty()) received.push_back(Received{in.source, std::move(in.segments)});
  }
  if (overlap && local.ok()) {  // rare: name the ranks as the per-piece check does
    std::vector<plan::Extent> extents;
    std::vector<int> sources;
    for (const Received& m : received)
      for (const plan::Segment& s : m.segments)
        plan::for_each_piece(s, [&](uint64_t off, uint64_t len) {
          extents.push_back(plan::Extent{off, len});
          sources.push_back(m.source);
        });
    local = check_overlap(extents, sources, targets);
    if (local.ok())
      local = error(TAPIO_ERR_SHAPE, "{}: blocks overlap in file bytes [{}, {})", where(),
                    w.offset, w.end());
  }
  // What to write: with fill, every written variable's bytes in this window, the gaps filled;
  // without, only what the ranks sent (no read-modify-write either way).
  std::vector<plan::Extent> writes;
  if (env_.params.get_bool("fill")) {
    for (const Target& t : targets) {
      const uint64_t from = std::max(t.extent.offset, w.offset);
      const uint64_t to = std::min(t.extent.end(), w.end());
      if (from >= to) continue;
      writes.push_back(plan::Extent{from, to - from});
      map.for_each_run(false, from, to, [&](uint64_t off, uint64_t len) {
        fill_bytes(buf + (off - w.offset), t.extent.offset, off, off + len, t.fill,
                   t.esize);
      });
    }
    writes = plan::coalesce(std::move(writes));
  } else {
    map.for_each_run(true, w.offset, w.end(),
                     [&](uint64_t off, uint64_t len) { writes.push_back(plan::Extent{off, len}); });
  }
  if (writes.empty() || !local.ok() || !deferred_.ok()) return local;
  auto opened = own_file();
  if (!opened.ok()) return opened.status();
  io::File* file = *opened;
  // Pipelining needs a next round to overlap with; a one-round step writes in place.
  if (!writer_ && layout.rounds > 1 && env_.params.get_bool("pipeline"))
    writer_ = std::make_unique<io::WriteBehind>();
  const uint8_t* data = buf;
  const uint64_t base = w.offset;
  double* write_time = &profile().write_time;
  auto job = [file, writes, data, base, write_time] {
    ScopedTimer t(write_time);
    return write_extents(file, writes, data, base);
  };
  if (writer_ && layout.rounds > 1) {
    writer_->submit(job);
    return local;
  }
  return job();
}

}  // namespace tapio
