// Collective engine, an aggregator's round of a write: its own pieces copied in, every
// other sender's segment list (pieces from this node's ranks are in the shared slot already;
// others' data arrives by message, straight into place or through a scratch buffer), the
// bitmap of what arrived (overlaps, gaps to fill), then the round's write requests, queued
// behind the next round when there is one.
#include <algorithm>
#include <cstring>
#include <memory>

#include "engine/collective/collective_engine.h"
#include "engine/collective/datatypes.h"
#include "engine/collective/messages.h"
#include "engine/collective/staging.h"
#include "format/netcdf/layout.h"
#include "plan/coverage.h"

namespace tapio {
namespace {

// Write `extents` (file offsets) of a round buffer that starts at file offset `base`; with
// `eager`, start their writeback at once (the data must reach storage by the sync anyway, and
// the disk can work while the next rounds arrive).
Status write_extents(io::File* file, const std::vector<plan::Extent>& extents,
                     const uint8_t* buf, uint64_t base, bool eager) {
  for (const plan::Extent& e : extents) {
    TAPIO_RETURN_IF_ERROR(file->write_at(e.offset, buf + (e.offset - base), e.length));
    if (eager) file->start_writeback(e.offset, e.length);
  }
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

// Two ranks (or one rank twice) writing the same bytes is an error, named as the serial
// engine names it: the header maps the bytes back to the variable, step and elements.
Status CollectiveEngine::check_overlap(const std::vector<plan::Extent>& extents,
                                       const std::vector<int>& sources) const {
  std::vector<size_t> order(extents.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return extents[a].offset < extents[b].offset; });
  for (size_t k = 1; k < order.size(); ++k) {
    const plan::Extent& prev = extents[order[k - 1]];
    const plan::Extent& cur = extents[order[k]];
    if (prev.end() <= cur.offset) continue;
    const netcdf::DataPlace a = netcdf::locate(header_, prev.offset, prev.length);
    const netcdf::DataPlace b = netcdf::locate(header_, cur.offset, cur.length);
    if (a.var < 0)
      return error(TAPIO_ERR_INTERNAL, "{}: ranks {} and {} both write file bytes [{}, {})",
                   where(), sources[order[k - 1]], sources[order[k]], cur.offset, prev.end());
    const bool record = header_.is_record(header_.vars[a.var]);
    return plan::overlap_error(plan::OwnedRun{{a.first, a.end - a.first}, sources[order[k - 1]]},
                               plan::OwnedRun{{b.first, b.end - b.first}, sources[order[k]]})
        .with_context(at_step(a.var, record ? a.record : step_));
  }
  return ok_status();
}

Status CollectiveEngine::receive_write_round(uint32_t r, const plan::Layout& layout,
                                             uint32_t others, const SelfPart& self,
                                             const collective::Staged& staged,
                                             const std::vector<Target>& targets,
                                             uint8_t* buf, const Status& slot_ready) {
  const plan::Extent w = layout.window(my_agg_, r);
  Status local = slot_ready;  // a failed earlier write: collect this round, write nothing
  // Which bytes of the window arrived: one bit per byte, no per-piece lists or sorts (not
  // needed when the batch provably tiles what it touches).
  if (!tiled_) covered_map_.reset(w.offset, w.length);
  std::vector<Arrived> arrived;  // kept to name the ranks if two pieces overlap
  bool overlap = false, lost = false;
  {
    PhaseTimer t(&profile(), Phase::kExchange);
    if (self.begin != self.end) overlap |= !copy_own_pieces(self, staged, buf - w.offset, &arrived);
    keep(&local, collect_senders(r, w, others, buf, &arrived, &overlap, &lost));
  }
  if (overlap && local.ok()) local = name_overlap(w, arrived);
  // A lost message: its sender reports the failure; the round is not written.
  if (!local.ok() || !deferred_.ok() || lost) return local;
  return write_round(layout, r % 2, w, targets, buf);
}

bool CollectiveEngine::copy_own_pieces(const SelfPart& self, const collective::Staged& staged,
                                       uint8_t* out, std::vector<Arrived>* arrived) {
  bool fresh = true;
  Arrived mine{comm().rank(), {}};
  PhaseTimer t(&profile(), node_slots_ ? Phase::kSwap : Phase::kCopy);
  for (const plan::RoutedSegment* x = self.begin; x != self.end; ++x) {
    if (!tiled_) fresh = covered_map_.mark(x->seg) && fresh;
    if (node_slots_)
      staged.scatter(x->seg, x->mem, out);
    else
      collective::scatter_pieces(staging_.data() + x->mem, x->seg, out);
    mine.segments.push_back(x->seg);
  }
  arrived->push_back(std::move(mine));
  return fresh;
}

Status CollectiveEngine::collect_senders(uint32_t r, const plan::Extent& w, uint32_t others,
                                         uint8_t* buf, std::vector<Arrived>* arrived,
                                         bool* overlap, bool* lost) {
  // Each sender's segment list, then its data: nothing more from a rank on my node (it
  // copied its pieces in already); from others straight into the buffer by a datatype when
  // the list is a few large entries, else into a scratch buffer and copied piece by piece
  // (and dropped when the list is malformed or overlaps what arrived already).
  Status local = ok_status();
  std::vector<Incoming> incoming;
  comm::Requests reqs;
  incoming.reserve(others);
  if (scratch_.size() < others) scratch_.resize(others);
  for (uint32_t k = 0; k < others; ++k) {
    Incoming in;
    const Status st = receive_list(r, w, k, buf, &in, overlap, &reqs);
    keep(&local, st);
    *lost |= in.lost;
    if (in.source < 0) continue;  // no list came
    if (in.local_node) {
      if (!in.segments.empty()) arrived->push_back(Arrived{in.source, std::move(in.segments)});
      continue;
    }
    incoming.push_back(std::move(in));
  }
  std::vector<uint64_t> received;
  keep(&local, comm().waitall(&reqs, &received));
  if (node_slots_) keep(&local, node_->sync());  // what this node's ranks copied in is visible now
  for (size_t k = 0; k < incoming.size(); ++k) {
    const Incoming& in = incoming[k];
    if (received[k] == 0 && in.bytes > 0) {  // an empty message: its sender failed, and reports
      *lost = true;
      continue;
    }
    if (received[k] != in.bytes) {
      keep(&local, error(TAPIO_ERR_INTERNAL,
                         "round {}: the data from rank {} does not match its segment list", r,
                         in.source));
      continue;
    }
    if (!in.keep) continue;
    PhaseTimer t(&profile(), Phase::kCopy);
    collective::scatter_pieces(scratch_[in.scratch].data(), in.segments, buf - w.offset);
  }
  for (Incoming& in : incoming)
    if (!in.segments.empty()) arrived->push_back(Arrived{in.source, std::move(in.segments)});
  return local;
}

// One sender's segment list of round r, checked against window w and marked in the bitmap,
// and the receive of its data posted (unless it is on this node: its pieces are in the slot).
Status CollectiveEngine::receive_list(uint32_t r, const plan::Extent& w, uint32_t k,
                                      uint8_t* buf, Incoming* in, bool* overlap,
                                      comm::Requests* reqs) {
  const int tag = static_cast<int>(2 * r);
  TAPIO_RETURN_IF_ERROR(comm().probe_recv(comm::kAnySource, tag, &recv_buf_, &in->source));
  const uint64_t list_bytes = recv_buf_.size();
  // An empty list stands for one its sender failed to send (comm.h): the sender reports.
  in->lost = list_bytes == 0;
  collective::Unpacked u = collective::unpack(recv_buf_.data(), recv_buf_.size());
  bool well_formed = u.ok;
  for (const plan::Segment& s : u.segments) well_formed = well_formed && plan::segment_inside(s, w);
  bool fresh = well_formed;
  if (well_formed && !tiled_)  // a malformed list never touches the map (it could point anywhere)
    for (const plan::Segment& s : u.segments) fresh = covered_map_.mark(s) && fresh;
  Status local = well_formed || in->lost
                     ? ok_status()
                     : error(TAPIO_ERR_INTERNAL, "round {}: malformed message from rank {}", r,
                             in->source);
  *overlap |= well_formed && !fresh;
  in->local_node = node_slots_ && node_->node_rank_of(in->source) >= 0;
  if (in->local_node) {
    profile().messages_received += 1;
    profile().bytes_received += list_bytes;
    if (well_formed) in->segments = std::move(u.segments);
    return local;
  }
  in->bytes = u.bytes;
  comm::Pieces into;
  if (fresh && collective::worth_a_datatype(u.segments, u.bytes)) {
    into = collective::window_pieces(buf, w.offset, u.segments);
  } else {
    if (!fresh) {  // its size from the message itself
      comm::Envelope e;
      keep(&local, comm().probe(in->source, tag + 1, &e));
      in->bytes = e.bytes;
    }
    in->scratch = static_cast<int>(k);
    in->keep = fresh;
    into = comm::Pieces::bytes(scratch_[k].prepare(std::max<uint64_t>(in->bytes, 1)), in->bytes);
  }
  keep(&local, comm().irecv(into, in->source, tag + 1, reqs));
  profile().messages_received += 2;
  profile().bytes_received += list_bytes + in->bytes;
  if (well_formed) in->segments = std::move(u.segments);
  return local;
}

// Rare: some bytes arrived twice; name the ranks as the per-piece check does.
Status CollectiveEngine::name_overlap(const plan::Extent& w,
                                      const std::vector<Arrived>& arrived) const {
  std::vector<plan::Extent> extents;
  std::vector<int> sources;
  for (const Arrived& m : arrived)
    for (const plan::Segment& s : m.segments)
      plan::for_each_piece(s, [&](uint64_t off, uint64_t len) {
        extents.push_back(plan::Extent{off, len});
        sources.push_back(m.source);
      });
  TAPIO_RETURN_IF_ERROR(check_overlap(extents, sources));
  return error(TAPIO_ERR_SHAPE, "{}: blocks overlap in file bytes [{}, {})", where(), w.offset,
               w.end());
}

Status CollectiveEngine::slot_free(int slot) {
  PhaseTimer t(&profile(), Phase::kWrite);
  return writer_ ? writer_->wait(slot_write_[slot]) : ok_status();
}

Status CollectiveEngine::write_round(const plan::Layout& layout, int slot, const plan::Extent& w,
                                     const std::vector<Target>& targets, uint8_t* buf) {
  // What to write: with fill (or when the batch tiles what it touches), every written
  // variable's bytes in this window, the gaps filled; without, only what the ranks sent (no
  // read-modify-write either way).
  std::vector<plan::Extent> writes;
  if (tiled_ || env_.params.get_bool("fill")) {
    for (const Target& t : targets) {
      const uint64_t from = std::max(t.extent.offset, w.offset);
      const uint64_t to = std::min(t.extent.end(), w.end());
      if (from >= to) continue;
      writes.push_back(plan::Extent{from, to - from});
      if (tiled_) continue;  // nothing to fill
      covered_map_.for_each_run(false, from, to, [&](uint64_t off, uint64_t len) {
        fill_bytes(buf + (off - w.offset), t.extent.offset, off, off + len, t.fill, t.esize);
      });
    }
    writes = plan::coalesce(std::move(writes));
  } else {
    covered_map_.for_each_run(true, w.offset, w.end(), [&](uint64_t off, uint64_t len) {
      writes.push_back(plan::Extent{off, len});
    });
  }
  if (writes.empty()) return ok_status();
  TAPIO_ASSIGN_OR_RETURN(io::File * file, own_file());
  // Pipelining needs a next round to overlap with; a one-round step writes in place.
  const bool behind = layout.rounds > 1 && env_.params.get_bool("pipeline");
  if (behind && !writer_) writer_ = std::make_unique<io::WriteBehind>();
  const uint8_t* data = buf;
  const uint64_t base = w.offset;
  const bool eager = eager_writeback();
  if (!behind) {
    PhaseTimer t(&profile(), Phase::kWrite);
    return write_extents(file, writes, data, base, eager);
  }
  std::atomic<int64_t>* background = &profile().background_write_ns;
  slot_write_[slot] = writer_->submit([file, writes, data, base, eager, background] {
    AtomicTimer t(background);
    return write_extents(file, writes, data, base, eager);
  });
  return ok_status();
}

}  // namespace tapio
