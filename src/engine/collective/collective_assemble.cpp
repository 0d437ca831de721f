// The receive stage of a collective write's round (round_pipeline.h): an aggregator's own
// pieces copied in, every other sender's segment list (pieces from this node's ranks are in
// the shared slot already; others' data arrives by message, straight into place or through a
// scratch buffer), the bitmap of what arrived (overlaps, gaps to fill); then the write stage.
#include <algorithm>
#include <cstring>
#include <memory>

#include "engine/collective/datatypes.h"
#include "engine/collective/messages.h"
#include "engine/collective/round_pipeline.h"
#include "format/netcdf/layout.h"
#include "plan/coverage.h"

namespace tapio::collective {

Status RoundPipeline::receive(uint32_t r, const SelfPart& self, uint8_t* buf,
                              const Status& slot_ready) {
  const plan::Extent w = b_.layout.window(p_.agg.mine, r);
  const uint32_t others = b_.expected[r] - (self.empty() ? 0 : 1);
  Status local = slot_ready;  // a failed earlier write: collect this round, write nothing
  // Nothing arrives and nothing is to be filled: the round costs nothing, not even its bitmap
  // (a small block of a huge variable leaves most rounds of its span empty).
  if (others == 0 && self.empty() && !b_.tiled && !p_.spec.file.fill) return local;
  // Which bytes of the window arrived: one bit per byte, no per-piece lists or sorts (not
  // needed when the batch provably tiles what it touches).
  if (!b_.tiled && !b_.repeat) p_.bufs.covered.reset(w.offset, w.length);
  std::vector<Arrived> arrived;  // kept to name the ranks if two pieces overlap
  bool overlap = false, lost = false;
  {
    PhaseTimer t(&p_.profile, Phase::kExchange);
    if (!self.empty()) overlap |= !copy_own_pieces(self, buf - w.offset);
    keep(&local, collect_senders(r, w, buf, others, &arrived, &overlap, &lost));
  }
  if (overlap && local.ok()) local = name_overlap(w, self, arrived);
  // A lost message: its sender reports the failure; the round is not written.
  if (!local.ok() || lost) return local;
  return write(r, w, buf);
}

bool RoundPipeline::copy_own_pieces(const SelfPart& self, uint8_t* out) {
  bool fresh = true;
  PhaseTimer t(&p_.profile, p_.agg.slots ? Phase::kSwap : Phase::kCopy);
  if (!b_.tiled && !b_.repeat)
    for (const plan::RoutedSegment* x = self.begin; x != self.end; ++x)
      fresh = p_.bufs.covered.mark(plan::shifted(x->seg, b_.shift)) && fresh;
  if (p_.agg.slots) {
    b_.staged->scatter(self.begin, self.end, out, b_.shift);
    return fresh;
  }
  for (const plan::RoutedSegment* x = self.begin; x != self.end; ++x)
    scatter_pieces(p_.bufs.staging.data() + x->mem, plan::shifted(x->seg, b_.shift), out);
  return fresh;
}

// Each sender's segment list, then its data: nothing more from a rank on my node (it copied
// its pieces in already); from others straight into the buffer by a datatype when the list is
// a few large entries, else into a scratch buffer and copied piece by piece (and dropped when
// the list is malformed or overlaps what arrived already).
Status RoundPipeline::collect_senders(uint32_t r, const plan::Extent& w, uint8_t* buf,
                                      uint32_t others, std::vector<Arrived>* arrived,
                                      bool* overlap, bool* lost) {
  Status local = ok_status();
  std::vector<Incoming> incoming;
  comm::Requests reqs;
  incoming.reserve(others);
  if (p_.bufs.scratch.size() < others) p_.bufs.scratch.resize(others);
  if (p_.bufs.lists.size() < others) p_.bufs.lists.resize(others);
  for (uint32_t k = 0; k < others; ++k) {
    Incoming in;
    keep(&local, receive_list(r, w, k, buf, &in, overlap, &reqs));
    *lost |= in.lost;
    if (in.source < 0) continue;  // no list came
    if (!in.local_node) {
      incoming.push_back(std::move(in));
      continue;
    }
    if (!in.segments.empty()) arrived->push_back(Arrived{in.source, in.segments});
  }
  keep(&local, finish_receives(r, w, buf, &incoming, &reqs, lost));
  for (const Incoming& in : incoming)
    if (!in.segments.empty()) arrived->push_back(Arrived{in.source, in.segments});
  return local;
}

// One sender's segment list of round r, checked against window w and marked in the bitmap,
// and the receive of its data posted (unless it is on this node: its pieces are in the slot).
Status RoundPipeline::receive_list(uint32_t r, const plan::Extent& w, uint32_t k, uint8_t* buf,
                                   Incoming* in, bool* overlap, comm::Requests* reqs) {
  const int tag = static_cast<int>(2 * r);
  ByteBuffer& msg = p_.bufs.lists[k];
  TAPIO_RETURN_IF_ERROR(p_.comm.probe_recv(comm::kAnySource, tag, &msg, &in->source));
  // An empty list stands for one its sender failed to send (comm.h): the sender reports.
  in->lost = msg.size() == 0;
  in->local_node = p_.agg.on_node(in->source);
  if (b_.repeat && in->local_node && is_same_as_before(msg.data(), msg.size())) {
    p_.profile.messages.receive(msg.size());
    return ok_status();  // its pieces are in the slot, where they were one record ago
  }
  const Unpacked u = unpack(msg.data(), msg.size());
  bool well_formed = u.ok;
  for (const plan::Segment s : u.segments) well_formed = well_formed && plan::segment_inside(s, w);
  bool fresh = well_formed;
  // A malformed list never touches the map (it could point anywhere); a repeat batch has none.
  if (well_formed && !b_.tiled && !b_.repeat)
    for (const plan::Segment s : u.segments) fresh = p_.bufs.covered.mark(s) && fresh;
  Status local = well_formed || in->lost
                     ? ok_status()
                     : error(TAPIO_ERR_INTERNAL, "round {}: malformed message from rank {}", r,
                             in->source);
  *overlap |= well_formed && !fresh;
  const uint64_t list_bytes = msg.size();
  if (in->local_node) {
    p_.profile.messages.receive(list_bytes);
    if (well_formed) in->segments = u.segments;
    return local;
  }
  in->bytes = u.bytes;
  comm::Pieces into;
  if (fresh && worth_a_datatype(u.segments, u.bytes)) {
    into = window_pieces(buf, w.offset, u.segments);
  } else {
    if (!fresh) {  // its size from the message itself
      comm::Envelope e;
      keep(&local, p_.comm.probe(in->source, tag + 1, &e));
      in->bytes = e.bytes;
    }
    in->scratch = static_cast<int>(k);
    in->keep = fresh;
    uint8_t* scratch = p_.bufs.scratch[k].prepare(std::max<uint64_t>(in->bytes, 1));
    into = comm::Pieces::bytes(scratch, in->bytes);
  }
  keep(&local, p_.comm.irecv(into, in->source, tag + 1, reqs));
  p_.profile.messages.receive(list_bytes + in->bytes, 2);
  if (well_formed) in->segments = u.segments;
  return local;
}

// The data receives of a round, completed; what came through scratch copied into place.
Status RoundPipeline::finish_receives(uint32_t r, const plan::Extent& w, uint8_t* buf,
                                      std::vector<Incoming>* incoming, comm::Requests* reqs,
                                      bool* lost) {
  std::vector<uint64_t> received;
  Status local = p_.comm.waitall(reqs, &received);
  if (p_.agg.slots) keep(&local, p_.agg.node->sync());  // this node's ranks' copies are visible
  for (size_t k = 0; k < incoming->size(); ++k) {
    const Incoming& in = (*incoming)[k];
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
    PhaseTimer t(&p_.profile, Phase::kCopy);
    scatter_pieces(p_.bufs.scratch[in.scratch].data(), in.segments, buf - w.offset);
  }
  return local;
}

// Rare: some bytes arrived twice; name the ranks as the per-piece check does.
Status RoundPipeline::name_overlap(const plan::Extent& w, const SelfPart& self,
                                   const std::vector<Arrived>& arrived) const {
  std::vector<plan::Extent> extents;
  std::vector<int> sources;
  const auto add = [&](const plan::Segment& s, int source) {
    plan::for_each_piece(s, [&](uint64_t off, uint64_t len) {
      extents.push_back(plan::Extent{off, len});
      sources.push_back(source);
    });
  };
  for (const plan::RoutedSegment* x = self.begin; x != self.end; ++x)
    add(plan::shifted(x->seg, b_.shift), p_.comm.rank());
  for (const Arrived& m : arrived)
    for (const plan::Segment s : m.segments) add(s, m.source);
  TAPIO_RETURN_IF_ERROR(check_overlap(extents, sources));
  return error(TAPIO_ERR_SHAPE, "{}: blocks overlap in file bytes [{}, {})", p_.where, w.offset,
               w.end());
}

// Two ranks (or one rank twice) writing the same bytes is an error, named as the serial
// engine names it: the header maps the bytes back to the variable, step and elements.
Status RoundPipeline::check_overlap(const std::vector<plan::Extent>& extents,
                                    const std::vector<int>& sources) const {
  std::vector<size_t> order(extents.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return extents[a].offset < extents[b].offset; });
  for (size_t k = 1; k < order.size(); ++k) {
    const plan::Extent& prev = extents[order[k - 1]];
    const plan::Extent& cur = extents[order[k]];
    if (prev.end() <= cur.offset) continue;
    const netcdf::DataPlace a = netcdf::locate(p_.header, prev.offset, prev.length);
    const netcdf::DataPlace b = netcdf::locate(p_.header, cur.offset, cur.length);
    if (a.var < 0)
      return error(TAPIO_ERR_INTERNAL, "{}: ranks {} and {} both write file bytes [{}, {})",
                   p_.where, sources[order[k - 1]], sources[order[k]], cur.offset, prev.end());
    const bool record = p_.header.is_record(p_.header.vars[a.var]);
    return plan::overlap_error(plan::OwnedRun{{a.first, a.end - a.first}, sources[order[k - 1]]},
                               plan::OwnedRun{{b.first, b.end - b.first}, sources[order[k]]})
        .with_context(p_.at_step(a.var, record ? a.record : b_.step));
  }
  return ok_status();
}

}  // namespace tapio::collective
