// Collective engine, write path: stage (byte-swap) this rank's pieces once, route them to
// aggregator windows, then per round one packed message per aggregator; aggregators assemble
// each round, fill what no rank wrote, and hand the round to the write-behind thread while
// the next round arrives.
#include <algorithm>
#include <cstring>
#include <memory>

#include "engine/collective/collective_engine.h"
#include "engine/collective/messages.h"

namespace tapio {
namespace {

// Stage this rank's puts: byte-swapped to file order into `data`, listed as segments whose mem
// fields are byte offsets in it. Consecutive runs of constant length at a constant file stride
// (a box's rows, HPIO's regions, most run lists; also across puts) are one segment: no
// per-run list is built for regular patterns.
std::vector<plan::MemSegment> stage(const std::vector<PutOp>& puts, const IoDef& io,
                                    const netcdf::Header& h, uint64_t step, ByteBuffer* data) {
  std::vector<plan::MemSegment> segs;
  uint64_t total = 0;
  for (const PutOp& p : puts) total += p.elements * type_size(io.vars[p.var].type);
  uint8_t* out = data->prepare(total);
  uint64_t pos = 0;
  for (const PutOp& p : puts) {
    const VariableDef& def = io.vars[p.var];
    const size_t esize = type_size(def.type);
    const uint64_t base = h.data_offset(h.vars[p.var], step);
    const auto* src = static_cast<const uint8_t*>(p.data);
    // Runs visited in memory order (blocks, run lists) make the whole put one swap at memory
    // speed; otherwise each run is swapped on its own.
    const uint64_t start = pos;
    bool in_order = true;
    plan::for_each_run(p.sel, def.shape, [&](const plan::Run& run, uint64_t mem) {
      in_order = in_order && mem * esize == pos - start;
      plan::append_piece(&segs, base + run.offset * esize, run.length * esize, pos);
      pos += run.length * esize;
    });
    if (in_order) {
      host_to_big_endian(out + start, src, (pos - start) / esize, esize);
      continue;
    }
    uint64_t at = start;  // the runs are staged back to back, in visiting order
    plan::for_each_run(p.sel, def.shape, [&](const plan::Run& run, uint64_t mem) {
      host_to_big_endian(out + at, src + mem * esize, run.length, esize);
      at += run.length * esize;
    });
  }
  return segs;
}

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
  TAPIO_RETURN_IF_ERROR(note_puts(puts));
  const std::vector<Target> targets = batch_targets(step);  // the same on every rank
  if (targets.empty()) return ok_status();
  uint64_t lo = UINT64_MAX, hi = 0;
  for (const Target& t : targets) {
    lo = std::min(lo, t.extent.offset);
    hi = std::max(hi, t.extent.end());
  }
  const plan::Layout layout = layout_for(lo, hi);
  std::vector<plan::RoutedSegment> routed;
  {
    ScopedTimer t(&profile().exchange_time);
    routed = plan::route_segments(stage(puts, io(), header_, step, &staging_), layout);
  }
  std::vector<uint32_t> expected;
  TAPIO_RETURN_IF_ERROR(expected_messages(layout, routed, &expected));
  profile().rounds += layout.rounds;

  std::vector<MPI_Request> requests[2];
  Status local = ok_status();
  size_t i = 0;
  for (uint32_t r = 0; r < layout.rounds; ++r) {
    const int slot = r % 2;
    {
      ScopedTimer t(&profile().exchange_time);
      // The sends of round r-2 used this slot's buffers: wait for them before reusing them.
      MPI_Waitall(static_cast<int>(requests[slot].size()), requests[slot].data(),
                  MPI_STATUSES_IGNORE);
      requests[slot].clear();
      size_t j = i;
      while (j < routed.size() && routed[j].round == r) ++j;
      const std::vector<int> order = send_order(routed, i, j);
      if (send_bufs_[slot].size() < order.size()) send_bufs_[slot].resize(order.size());
      for (size_t k = 0; k < order.size(); ++k) {
        const int agg = order[k];
        const auto first = std::find_if(routed.begin() + i, routed.begin() + j,
                                        [&](const plan::RoutedSegment& x) { return x.agg == agg; });
        auto last = first;
        while (last != routed.begin() + j && last->agg == agg) ++last;
        ByteBuffer& msg = send_bufs_[slot][k];
        collective::pack(routed, first - routed.begin(), last - routed.begin(), staging_.data(),
                         &msg);
        if (aggregators_[agg] == comm().rank()) {  // to myself: handed over, not sent
          self_message_ = &msg;
          continue;
        }
        requests[slot].emplace_back();
        MPI_Isend(msg.data(), static_cast<int>(msg.size()), MPI_BYTE, aggregators_[agg],
                  static_cast<int>(r), comm().raw(), &requests[slot].back());
        profile().messages_sent += 1;
        profile().bytes_sent += msg.size();
      }
      i = j;
    }
    if (my_agg_ >= 0) {
      const Status st = receive_write_round(r, layout, expected[r], targets, &round_bufs_[slot]);
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

Status CollectiveEngine::receive_write_round(uint32_t r, const plan::Layout& layout,
                                             uint32_t expected,
                                             const std::vector<Target>& targets,
                                             ByteBuffer* buf) {
  const plan::Extent w = layout.window(my_agg_, r);
  Status local = ok_status();
  // This buffer was last used two rounds ago: at most one write (the previous round's) may
  // still be in flight.
  if (writer_) local = writer_->drain(1);
  buf->prepare(w.length);
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
    for (uint32_t k = 0; k < expected; ++k) {
      const ByteBuffer* msg = self_message_;
      int source = comm().rank();
      if (msg) {
        self_message_ = nullptr;
      } else {
        MPI_Status status;
        MPI_Probe(MPI_ANY_SOURCE, static_cast<int>(r), comm().raw(), &status);
        int n = 0;
        MPI_Get_count(&status, MPI_BYTE, &n);
        source = status.MPI_SOURCE;
        MPI_Recv(recv_buf_.prepare(n), n, MPI_BYTE, source, static_cast<int>(r), comm().raw(),
                 MPI_STATUS_IGNORE);
        profile().messages_received += 1;
        profile().bytes_received += n;
        msg = &recv_buf_;
      }
      collective::Unpacked u = collective::unpack(msg->data(), msg->size(), true);
      bool well_formed = u.ok;
      for (const plan::Segment& s : u.segments)
        well_formed = well_formed && s.offset >= w.offset && s.last_end() <= w.end() &&
                      s.offset + s.length <= w.end();
      if (!well_formed) {
        local = error(TAPIO_ERR_INTERNAL, "round {}: malformed message from rank {}", r, source);
        continue;
      }
      const uint8_t* data = u.data;
      uint8_t* const out = buf->data() - w.offset;
      for (const plan::Segment& s : u.segments) {
        if (s.stride == s.length) {  // back to back: one copy, one mark
          std::memcpy(out + s.offset, data, s.bytes());
          overlap |= !map.mark(s.offset, s.bytes());
          data += s.bytes();
          continue;
        }
        overlap |= !map.mark(s);
        collective::for_each_piece_fixed(s, [&](uint64_t off, auto len) {
          std::memcpy(out + off, data, len);
          data += len;
        });
      }
      received.push_back(Received{source, std::move(u.segments)});
    }
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
        fill_bytes(buf->data() + (off - w.offset), t.extent.offset, off, off + len, t.fill,
                   t.esize);
      });
    }
    writes = plan::coalesce(std::move(writes));
  } else {
    map.for_each_run(true, w.offset, w.end(),
                     [&](uint64_t off, uint64_t len) { writes.push_back(plan::Extent{off, len}); });
  }
  if (writes.empty() || !local.ok() || !deferred_.ok()) return local;
  io::File* file = data_file_.get();
  const uint8_t* data = buf->data();
  const uint64_t base = w.offset;
  double* write_time = &profile().write_time;
  auto job = [file, writes, data, base, write_time] {
    ScopedTimer t(write_time);
    return write_extents(file, writes, data, base);
  };
  if (writer_) {
    writer_->submit(job);
    return local;
  }
  return job();
}

}  // namespace tapio
