// Collective engine, read path: each rank sends each aggregator one request list per round;
// an aggregator reads the union of what its requesters want once (a region many ranks share
// is read from storage once, as Cray FFIO's `global` layer did) and replies with one packed
// message per requester; the requester byte-swaps into the user's buffers at the end.
#include <algorithm>
#include <cstring>
#include <deque>
#include <memory>

#include "engine/collective/collective_engine.h"
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
  std::vector<Destination> dests;  // one per get and step when its runs are in memory order
  uint64_t bytes = 0;
};

Wanted want(const std::vector<GetOp>& gets, const IoDef& io, const netcdf::Header& h) {
  Wanted w;
  for (const GetOp& g : gets) {
    const VariableDef& def = io.vars[g.var];
    const size_t esize = type_size(def.type);
    auto* out = static_cast<uint8_t*>(g.data);
    for (uint64_t s = g.step_start; s < g.step_start + g.step_count; ++s) {
      const uint64_t base = h.data_offset(h.vars[g.var], s);
      uint8_t* step_out = out + (s - g.step_start) * g.elements * esize;
      const uint64_t start = w.bytes;
      bool in_order = true;
      plan::for_each_run(g.sel, def.shape, [&](const plan::Run& run, uint64_t mem) {
        const uint64_t n = run.length * esize;
        in_order = in_order && mem * esize == w.bytes - start;
        plan::append_piece(&w.segments, base + run.offset * esize, n, w.bytes);
        w.bytes += n;
      });
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

}  // namespace

Status CollectiveEngine::read_gets(const std::vector<GetOp>& gets) {
  const Wanted wanted = want(gets, io(), header_);
  // The global range: the one step input no rank knows without asking.
  uint64_t range[2] = {0, 0};  // {UINT64_MAX - lo, hi}: one MAX reduces both
  for (const plan::MemSegment& m : wanted.segments) {
    range[0] = std::max(range[0], UINT64_MAX - m.seg.offset);
    range[1] = std::max(range[1], m.seg.last_end());
  }
  TAPIO_RETURN_IF_ERROR(comm::mpi_status(
      MPI_Allreduce(MPI_IN_PLACE, range, 2, MPI_UINT64_T, MPI_MAX, comm().raw()),
      "MPI_Allreduce"));
  const uint64_t lo = UINT64_MAX - range[0], hi = range[1];
  if (hi <= lo) return ok_status();  // nobody reads anything

  const plan::Layout layout = layout_for(lo, hi);
  const std::vector<plan::RoutedSegment> routed = plan::route_segments(wanted.segments, layout);
  std::vector<uint32_t> expected;
  TAPIO_RETURN_IF_ERROR(expected_messages(layout, routed, &expected));
  profile().rounds += layout.rounds;

  std::unique_ptr<uint8_t[]> staging(new uint8_t[wanted.bytes]);  // every byte is replied
  Status local = ok_status();
  size_t i = 0;
  for (uint32_t r = 0; r < layout.rounds; ++r) {
    size_t j = i;
    while (j < routed.size() && routed[j].round == r) ++j;
    // Ask every aggregator this round touches.
    struct Asked {
      int agg;
      size_t first, last;
    };
    std::vector<Asked> asked;
    std::deque<ByteBuffer> out_msgs;  // stable addresses while the sends are in flight
    std::vector<std::vector<uint8_t>> replies;
    std::vector<MPI_Request> reqs;
    for (int agg : send_order(routed, i, j)) {
      size_t first = i;
      while (routed[first].agg != agg) ++first;
      size_t last = first;
      while (last < j && routed[last].agg == agg) ++last;
      asked.push_back(Asked{agg, first, last});
      out_msgs.emplace_back();
      collective::pack(routed, first, last, nullptr, &out_msgs.back());
      reqs.emplace_back();
      MPI_Isend(out_msgs.back().data(), static_cast<int>(out_msgs.back().size()), MPI_BYTE,
                aggregators_[agg], static_cast<int>(2 * r), comm().raw(), &reqs.back());
      profile().messages_sent += 1;
      profile().bytes_sent += out_msgs.back().size();
    }
    if (my_agg_ >= 0) {
      const Status st = serve_read_round(r, layout, expected[r], &replies, &reqs);
      if (local.ok()) local = st;
    }
    // Collect the replies, straight into the staging buffer.
    std::vector<uint8_t> reply;
    for (const Asked& a : asked) {
      MPI_Status status;
      MPI_Probe(aggregators_[a.agg], static_cast<int>(2 * r + 1), comm().raw(), &status);
      int n = 0;
      MPI_Get_count(&status, MPI_BYTE, &n);
      reply.resize(n);
      MPI_Recv(reply.data(), n, MPI_BYTE, aggregators_[a.agg], static_cast<int>(2 * r + 1),
               comm().raw(), MPI_STATUS_IGNORE);
      profile().messages_received += 1;
      profile().bytes_received += n;
      uint64_t pos = 0;
      collective::for_each_mem_span(routed, a.first, a.last, [&](uint64_t mem, uint64_t len) {
        if (pos + len > reply.size()) return;  // the aggregator failed; it reports why
        std::memcpy(staging.get() + mem, reply.data() + pos, len);
        pos += len;
      });
    }
    MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
    i = j;
  }
  for (const Destination& d : wanted.dests)
    big_endian_to_host(d.dst, staging.get() + d.mem, d.bytes / d.esize, d.esize);
  return local;
}

Status CollectiveEngine::serve_read_round(uint32_t r, const plan::Layout& layout,
                                          uint32_t expected,
                                          std::vector<std::vector<uint8_t>>* replies,
                                          std::vector<MPI_Request>* reqs) {
  struct Requester {
    int rank;
    std::vector<plan::Segment> segments;
    uint64_t bytes;
  };
  std::vector<Requester> requesters;
  const plan::Extent w = layout.window(my_agg_, r);
  // The union of the requests, one bit per byte of the window (requests may overlap).
  plan::ByteMap& map = covered_map_;
  map.reset(w.offset, w.length);
  std::vector<uint8_t> msg;
  Status local = ok_status();
  for (uint32_t k = 0; k < expected; ++k) {
    MPI_Status status;
    MPI_Probe(MPI_ANY_SOURCE, static_cast<int>(2 * r), comm().raw(), &status);
    int n = 0;
    MPI_Get_count(&status, MPI_BYTE, &n);
    msg.resize(n);
    MPI_Recv(msg.data(), n, MPI_BYTE, status.MPI_SOURCE, static_cast<int>(2 * r), comm().raw(),
             MPI_STATUS_IGNORE);
    profile().messages_received += 1;
    profile().bytes_received += n;
    collective::Unpacked u = collective::unpack(msg.data(), msg.size(), false);
    bool well_formed = u.ok;
    for (const plan::Segment& s : u.segments)
      well_formed = well_formed && s.offset >= w.offset && s.last_end() <= w.end();
    if (!well_formed) {
      if (local.ok())
        local = error(TAPIO_ERR_INTERNAL, "round {}: malformed request from rank {}", r,
                      status.MPI_SOURCE);
      u.segments.clear();
      u.bytes = 0;
    }
    for (const plan::Segment& s : u.segments) map.mark(s);
    requesters.push_back(Requester{status.MPI_SOURCE, std::move(u.segments), u.bytes});
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
  std::vector<uint8_t> buf(w.length);
  {
    ScopedTimer t(&profile().read_time);
    for (const plan::Extent& e : reads) {
      if (!local.ok()) break;
      local = data_file_->read_exact(e.offset, buf.data() + (e.offset - w.offset), e.length);
    }
  }
  // One reply per requester, its pieces in its order (zeros after an error: the error is
  // reported by the agreement, and nobody waits forever).
  for (const Requester& q : requesters) {
    replies->emplace_back(q.bytes);
    uint8_t* out = replies->back().data();
    const uint8_t* in = buf.data() - w.offset;
    for (const plan::Segment& s : q.segments) {
      if (!local.ok()) break;
      if (s.stride == s.length) {
        std::memcpy(out, in + s.offset, s.bytes());
        out += s.bytes();
        continue;
      }
      collective::for_each_piece_fixed(s, [&](uint64_t off, auto len) {
        std::memcpy(out, in + off, len);
        out += len;
      });
    }
    reqs->emplace_back();
    MPI_Isend(replies->back().data(), static_cast<int>(q.bytes), MPI_BYTE, q.rank,
              static_cast<int>(2 * r + 1), comm().raw(), &reqs->back());
    profile().messages_sent += 1;
    profile().bytes_sent += q.bytes;
  }
  return local;
}

}  // namespace tapio
