// The rounds of a collective read (read_rounds.h): ask, serve, take.
#include "engine/collective/read_rounds.h"

#include <algorithm>
#include <cstring>

#include "engine/collective/datatypes.h"
#include "engine/collective/messages.h"

namespace tapio::collective {
namespace {

// Data sieving (as ROMIO's): a hole of at most this many bytes between two requested runs is
// read along rather than costing another request (read_union).
constexpr uint64_t kSieveHole = 256 * 1024;

}  // namespace

Status ReadRounds::run() {
  Status local = ok_status();
  // A batch planned in full keeps its rounds' reads afresh.
  if (p_.agg.mine >= 0 && !b_.repeat) p_.bufs.kept.assign(b_.layout.rounds, {});
  for_each_round(b_.runs, b_.layout.rounds,
                 [&](uint32_t r, RoundRuns runs) { keep(&local, round(r, runs)); });
  PhaseTimer t(&p_.profile, Phase::kSwap);
  if (!p_.agg.slots) {
    swap_into(*b_.wanted, b_.staging);
    return local;
  }
  for (const auto& [at, len] : later_) swap_span(*b_.wanted, b_.staging, at, len);
  return local;
}

Status ReadRounds::round(uint32_t r, RoundRuns runs) {
  Status local = ok_status();
  const bool together = shares_round(p_.agg, p_.spec.node_read_share, b_.layout, r);
  // Slot r % 2 held round r - 2, which this node's ranks copied out before that round
  // ended: after this barrier its aggregators may read round r into it (read_together's
  // first barrier does the same).
  if (p_.agg.slots && r >= 2 && !together) keep(&local, node_barrier());
  comm::Requests reqs;
  std::vector<FromSlot> from_slots;
  keep(&local, ask(r, runs, &reqs, &from_slots));
  if (together)
    keep(&local, read_together(r, &reqs));
  else if (p_.agg.mine >= 0)
    keep(&local, serve(r, &reqs));
  {
    PhaseTimer t(&p_.profile, Phase::kExchange);
    keep(&local, p_.comm.waitall(&reqs));
  }
  keep(&local, take(from_slots));
  return local;
}

Status ReadRounds::ask(uint32_t r, RoundRuns runs, comm::Requests* reqs,
                       std::vector<FromSlot>* from_slots) {
  Status local = ok_status();
  std::vector<int> aggs;
  for (const plan::RouteRun& run : runs) aggs.push_back(run.agg);
  aggs = plan::collection_order(std::move(aggs), p_.node, p_.spec.collect_order);
  // The round's lists, in buffers kept from round to round (its sends end with the round):
  // a fresh buffer per list cost its page faults every round.
  std::vector<ByteBuffer>& lists = p_.bufs.send[0];
  if (lists.size() < aggs.size()) lists.resize(aggs.size());
  for (size_t k = 0; k < aggs.size(); ++k) {
    const int agg = aggs[k];
    const plan::RouteRun& run = runs.to(agg);
    const size_t first = run.begin, last = run.end;
    comm::Pieces reply = comm::Pieces::bytes(b_.staging, 0);  // an empty message
    if (const uint8_t* window = p_.agg.window(agg, r % 2, b_.layout.window(agg, r))) {
      // The aggregator only reads for this rank, which takes its pieces itself: it is told
      // what to read, sieved here, not the segments it would unpack and mark one by one
      // (E3SM F: 10^4 a rank and round).
      if (b_.repeat)
        pack_same_as_before(&lists[k]);
      else
        pack_extents(plan::sieved_reads(b_.routed, first, last, b_.shift, kSieveHole),
                     &lists[k]);
      from_slots->push_back(FromSlot{window, first, last});
    } else {
      pack(b_.routed, first, last, &lists[k], b_.shift);
      const auto spans = mem_spans(b_.routed, first, last);
      later_.insert(later_.end(), spans.begin(), spans.end());  // swapped at the end
      reply = span_pieces(b_.staging, spans);
    }
    const int source = p_.agg.ranks[agg];
    const ByteBuffer& list = lists[k];
    keep(&local, p_.comm.isend(comm::Pieces::bytes(list.data(), list.size()), source,
                               static_cast<int>(2 * r), reqs));
    keep(&local, p_.comm.irecv(reply, source, static_cast<int>(2 * r + 1), reqs));
    p_.profile.messages.send(list.size());
    p_.profile.messages.receive(reply.size());
  }
  return local;
}

Status ReadRounds::take(const std::vector<FromSlot>& from_slots) {
  if (from_slots.empty()) return ok_status();
  PhaseTimer t(&p_.profile, Phase::kSwap);
  const Status st = p_.agg.node->sync();  // what the aggregators read into their slots
  size_t hint = 0;
  for (const FromSlot& f : from_slots)
    for (size_t x = f.first; x < f.last; ++x)
      take_segment(*b_.wanted, f.window, plan::shifted(b_.routed[x].seg, b_.shift),
                   b_.routed[x].mem, b_.staging, &later_, &hint);
  return st;
}

Status ReadRounds::serve(uint32_t r, comm::Requests* reqs) {
  // No request this round: nothing to read, not even a bitmap of the window.
  if (b_.expected[r] == 0) return ok_status();
  const plan::Extent w = b_.layout.window(p_.agg.mine, r);
  std::vector<Requester> requesters;
  Status local = receive_requests(r, w, &requesters);
  // Replies of this round are sent from this buffer; the caller waits for them before the
  // next round reuses it. In a shared slot, this node's requesters copy their pieces out.
  uint8_t* const buf = p_.agg.slots ? p_.agg.window(p_.agg.mine, r % 2, w) + w.offset
                                    : p_.bufs.round[0].prepare(w.length);
  if (local.ok()) local = read_union(r, w, buf);
  keep(&local, reply(r, w, buf, requesters, reqs));
  return local;
}

Status ReadRounds::node_barrier() {
  PhaseTimer t(&p_.profile, Phase::kAgree);
  const comm::NodeMemory& node = *p_.agg.node;
  Status st = node.sync();
  keep(&st, node.node().barrier());
  keep(&st, node.sync());
  return st;
}

// The serve stage when the node's ranks read together (shared_reads.h): each aggregator of the
// node publishes its union; after a barrier every rank reads its share of each into the
// aggregator's slot; after another, the aggregators reply. An aggregator whose requests failed
// publishes nothing (its failure is agreed at the end, as serve's).
Status ReadRounds::read_together(uint32_t r, comm::Requests* reqs) {
  Status local = ok_status();
  const int slot = static_cast<int>(r % 2);
  const bool serving = p_.agg.mine >= 0 && b_.expected[r] > 0;
  std::vector<Requester> requesters;
  std::vector<plan::Extent> reads;  // what this aggregator reads (alone, if not published)
  const plan::Extent w = p_.agg.mine >= 0 ? b_.layout.window(p_.agg.mine, r) : plan::Extent{};
  if (serving) {
    local = receive_requests(r, w, &requesters);
    if (local.ok()) {
      Result<std::vector<plan::Extent>> u = union_reads(r, w);
      if (u.ok())
        reads = std::move(u).value();
      else
        local = u.status();
    }
  }
  const comm::Comm& node = p_.agg.node->node();
  if (p_.agg.mine >= 0)
    p_.agg.shared_reads(p_.agg.mine, slot)->publish(reads, p_.spec.node_read_share,
                                                    p_.agg.node_readers);
  keep(&local, node_barrier());
  for (const int agg : p_.agg.here) {
    const SharedReads* table = p_.agg.shared_reads(agg, slot);
    const std::vector<plan::Extent> share =
        table->readers == 0 ? (agg == p_.agg.mine ? reads : std::vector<plan::Extent>{})
                            : table->share_of(node.rank(), p_.agg.node_rank[agg], node.size());
    if (!share.empty())
      keep(&local, read_extents(share, p_.agg.window(agg, slot, b_.layout.window(agg, r))));
  }
  keep(&local, node_barrier());
  if (serving) keep(&local, reply(r, w, p_.agg.window(p_.agg.mine, slot, w) + w.offset,
                                  requesters, reqs));
  return local;
}

Status ReadRounds::read_extents(const std::vector<plan::Extent>& reads, uint8_t* window) {
  PhaseTimer t(&p_.profile, Phase::kRead);
  TAPIO_ASSIGN_OR_RETURN(io::File * file, p_.file.get());
  for (const plan::Extent& e : reads)
    TAPIO_RETURN_IF_ERROR(file->read_exact(e.offset, window + e.offset, e.length));
  return ok_status();
}

namespace {

// What an aggregator reads is marked in blocks of 4 KiB of the file, not bytes: the sieve
// reads every hole below 256 KiB anyway, so a block costs at most a few KiB more at the edge
// of a larger hole (within the window, which lies inside what was asked), and a bit stands for
// 4 KiB. Byte by byte, a map's short strided segments (E3SM's: 14 elements 512 bytes apart)
// marked their spans over and over, one per segment of every requester: 8 ms of an
// aggregator's 45 ms read at 16 ranks.
constexpr unsigned kReadBlockShift = 12;
constexpr uint64_t kReadBlock = uint64_t{1} << kReadBlockShift;

plan::Extent blocks_of(uint64_t from, uint64_t to) {
  const uint64_t first = from >> kReadBlockShift;
  return {first, ((to + kReadBlock - 1) >> kReadBlockShift) - first};
}

// Marks the blocks s makes the aggregator read (plan::for_each_read_span).
void mark_read(plan::ByteMap* blocks, const plan::Segment& s) {
  plan::for_each_read_span(s, kSieveHole, [&](uint64_t from, uint64_t to) {
    const plan::Extent b = blocks_of(from, to);
    blocks->mark(b.offset, b.length);
  });
}

}  // namespace

// Every requester's list, marked in one bitmap of the window: the union of the requests
// (requests may overlap).
Status ReadRounds::receive_requests(uint32_t r, const plan::Extent& w,
                                    std::vector<Requester>* requesters) {
  plan::ByteMap& map = p_.bufs.covered;  // the window's blocks (mark_read)
  if (!b_.repeat) {
    const plan::Extent b = blocks_of(w.offset, w.end());
    map.reset(b.offset, b.length);
  }
  Status local = ok_status();
  if (p_.bufs.lists.size() < b_.expected[r]) p_.bufs.lists.resize(b_.expected[r]);
  for (uint32_t k = 0; k < b_.expected[r]; ++k) {
    ByteBuffer& msg = p_.bufs.lists[k];
    int source = -1;
    const Status got = p_.comm.probe_recv(comm::kAnySource, static_cast<int>(2 * r), &msg, &source);
    keep(&local, got);
    if (!got.ok()) continue;
    p_.profile.messages.receive(msg.size());
    if (b_.repeat && p_.agg.on_node(source) && is_same_as_before(msg.data(), msg.size())) {
      requesters->push_back(Requester{source, SegmentList()});  // it takes its pieces itself
      continue;
    }
    Unpacked u = unpack(msg.data(), msg.size());
    bool well_formed = u.ok;
    for (const plan::Segment s : u.segments) well_formed = well_formed && plan::segment_inside(s, w);
    if (!well_formed) {
      // An empty list stands for one its sender failed to send: the sender reports.
      if (msg.size() > 0)
        keep(&local, error(TAPIO_ERR_INTERNAL, "round {}: malformed request from rank {}", r,
                           source));
      u.segments = SegmentList();
    }
    if (!b_.repeat)
      for (const plan::Segment s : u.segments) mark_read(&map, s);
    requesters->push_back(Requester{source, u.segments});
  }
  return local;
}

// Reads the union once, sieved: a hole of at most kSieveHole bytes between two requested runs
// is read along rather than costing another request — on the page cache a request costs about
// as much as copying that many bytes, on disks and parallel file systems far more. The window
// buffer holds the holes anyway.
// A repeat batch's reads are those the round kept, at this window.
Status ReadRounds::read_union(uint32_t r, const plan::Extent& w, uint8_t* buf) {
  TAPIO_ASSIGN_OR_RETURN(const std::vector<plan::Extent> reads, union_reads(r, w));
  if (reads.empty()) return ok_status();
  return read_extents(reads, buf - w.offset);
}

Result<std::vector<plan::Extent>> ReadRounds::union_reads(uint32_t r, const plan::Extent& w) {
  std::vector<KeptRound>& kept = p_.bufs.kept;
  if (r >= kept.size() || (b_.repeat && !kept[r].kept_for(w)))
    return error(TAPIO_ERR_INTERNAL, "{}: round {} of a repeated read was not kept", p_.where, r);
  if (b_.repeat) return kept[r].extents_at(w);
  std::vector<plan::Extent> wanted;
  const plan::ByteMap& blocks = p_.bufs.covered;
  blocks.for_each_run(true, blocks.base(), blocks.base() + blocks.length(),
                      [&](uint64_t first, uint64_t n) {
                        const uint64_t from = std::max(first << kReadBlockShift, w.offset);
                        const uint64_t to = std::min((first + n) << kReadBlockShift, w.end());
                        wanted.push_back(plan::Extent{from, to - from});
                      });
  std::vector<plan::Extent> reads = plan::sieve(wanted, kSieveHole);
  kept[r].keep(w, reads);
  return reads;
}

// One reply per requester, gathered from the buffer by MPI (a few large entries) or copied
// into a reply buffer (many small ones; see worth_a_datatype). After an error the replies
// still go (nobody waits forever); the agreement reports the error. Copied replies in flight
// are bounded by two rounds' bytes: past that the round waits for those it sent before copying
// more, so many requesters of the same small pieces (a shared irregular read) cost bounded
// memory, not a window each. Every requester posted its receive before serving its own round,
// so these waits always end.
Status ReadRounds::reply(uint32_t r, const plan::Extent& w, uint8_t* buf,
                         const std::vector<Requester>& requesters, comm::Requests* reqs) {
  Status local = ok_status();
  std::vector<ByteBuffer>& scratch = p_.bufs.scratch;
  if (scratch.size() < requesters.size()) scratch.resize(requesters.size());
  const uint64_t scratch_cap = 2 * std::max<uint64_t>(p_.spec.round_bytes, w.length);
  comm::Requests copied;  // replies sent from scratch[0, copied.size())
  uint64_t copied_bytes = 0;
  if (p_.agg.slots) keep(&local, p_.agg.node->sync());
  const int tag = static_cast<int>(2 * r + 1);
  for (const Requester& q : requesters) {
    if (p_.agg.on_node(q.rank)) {  // the word that it is there
      keep(&local, p_.comm.isend(comm::Pieces::bytes(buf, 0), q.rank, tag, reqs));
      p_.profile.messages.sent += 1;
      continue;
    }
    uint64_t bytes = 0;
    for (const plan::Segment s : q.segments) bytes += s.bytes();
    const bool copy = q.segments.empty() || !worth_a_datatype(q.segments, bytes);
    comm::Pieces data;
    if (!copy) {
      data = window_pieces(buf, w.offset, q.segments);
    } else {
      if (!copied.empty() && copied_bytes + bytes > scratch_cap) {
        keep(&local, p_.comm.waitall(&copied));
        copied_bytes = 0;
      }
      uint8_t* out = scratch[copied.size()].prepare(std::max<uint64_t>(bytes, 1));
      PhaseTimer t(&p_.profile, Phase::kCopy);
      gather_pieces(buf - w.offset, q.segments, out);
      data = comm::Pieces::bytes(out, bytes);
      copied_bytes += bytes;
    }
    keep(&local, p_.comm.isend(data, q.rank, tag, copy ? &copied : reqs));
    p_.profile.messages.send(bytes);
  }
  reqs->insert(reqs->end(), copied.begin(), copied.end());
  return local;
}

}  // namespace tapio::collective
