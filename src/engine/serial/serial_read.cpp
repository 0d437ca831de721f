// Serial engine, read path: rank 0 gathers every rank's requests, then per batch of (variable,
// step) items (batches.h) reads the one span of the file each item touches and scatters each
// rank's elements of the batch to it in one collective.
#include <algorithm>
#include <cstring>
#include <utility>

#include "core/out_of_memory.h"
#include "engine/serial/batches.h"
#include "engine/serial/serial_engine.h"

namespace tapio {
namespace {

bool covers(const plan::Request& req, uint32_t var, uint64_t step) {
  return req.var == var && step >= req.step_start && step < req.step_start + req.step_count;
}

// The (variable, step) pairs that any request touches, sorted, flattened as var, step, ...
std::vector<uint64_t> work_list(const RankRequests& all) {
  std::vector<std::pair<uint64_t, uint64_t>> items;
  for (const auto& rank_requests : all)
    for (const auto& req : rank_requests)
      for (uint64_t s = req.step_start; s < req.step_start + req.step_count; ++s)
        items.emplace_back(req.var, s);
  std::sort(items.begin(), items.end());
  items.erase(std::unique(items.begin(), items.end()), items.end());
  std::vector<uint64_t> list;
  for (const auto& [var, step] : items) list.insert(list.end(), {var, step});
  return list;
}

// What rank 0 reads of (var, step): the span of elements the requests touch, read once
// whatever the overlap between ranks, and the elements each rank gets.
struct ReadSpan {
  uint64_t lo = UINT64_MAX, hi = 0, total = 0;
  std::vector<uint64_t> counts;
};

ReadSpan read_span(const VariableDef& def, uint32_t v, uint64_t step,
                   const RequestsByVariable& requests) {
  ReadSpan s;
  s.counts.assign(requests.ranks(), 0);
  requests.for_each(v, [&](size_t r, size_t, const plan::Request& req) {
    if (!covers(req, v, step)) return;
    s.counts[r] += req.sel.elements();
    plan::for_each_run(req.sel, def.shape, [&](const plan::Run& run, uint64_t) {
      s.lo = std::min(s.lo, run.offset);
      s.hi = std::max(s.hi, run.offset + run.length);
    });
  });
  for (uint64_t c : s.counts) s.total += c;
  return s;
}

}  // namespace

Result<std::vector<size_t>> SerialEngine::plan_reads(const RequestsByVariable& all,
                                                     const std::vector<uint64_t>& list) {
  std::vector<uint64_t> packed(list.size() / 2);
  uint64_t span = 0;
  for (size_t i = 0; i < list.size(); i += 2) {
    const VariableDef& def = io().vars[list[i]];
    const ReadSpan s = read_span(def, static_cast<uint32_t>(list[i]), list[i + 1], all);
    const uint64_t esize = type_size(def.type);
    packed[i / 2] = s.total * esize;
    if (s.hi > s.lo) span = std::max(span, (s.hi - s.lo) * esize);
  }
  std::vector<size_t> bounds = batch_bounds(packed, batch_limit());
  TAPIO_RETURN_IF_ERROR(room_for({largest_batch(packed, bounds), span},
                                 fmt::format("reading {}", where())));
  return bounds;
}

Status SerialEngine::read_and_pack(int var, uint64_t step, const RequestsByVariable& requests,
                                   uint8_t* packed, std::vector<uint64_t>* at) {
  const VariableDef& def = io().vars[var];
  const size_t esize = type_size(def.type);
  const uint32_t v = static_cast<uint32_t>(var);
  const ReadSpan s = read_span(def, v, step, requests);
  const auto zeros = [&] {  // each rank's share, after an error or with nothing to read
    for (size_t r = 0; r < s.counts.size(); ++r) {
      if (s.counts[r] > 0) std::memset(packed + (*at)[r], 0, s.counts[r] * esize);
      (*at)[r] += s.counts[r] * esize;
    }
  };
  if (s.hi <= s.lo || !deferred_.ok()) {
    zeros();
    return ok_status();
  }
  PooledBuffer pooled(resources().buffers);
  uint8_t* span = pooled.get().prepare((s.hi - s.lo) * esize);
  {
    PhaseTimer t(&profile(), Phase::kRead);
    const uint64_t offset =
        nc_.header().data_offset(nc_.header().vars[var], step, record_size_) + s.lo * esize;
    const Status st = nc_.root_file()->read_exact(offset, span, (s.hi - s.lo) * esize);
    if (!st.ok()) zeros();
    TAPIO_RETURN_IF_ERROR(st.with_context(fmt::format("variable '{}', step {}", def.name, step)));
  }
  PhaseTimer t(&profile(), Phase::kSwap);
  big_endian_to_host(span, span, s.hi - s.lo, esize);
  requests.for_each(v, [&](size_t r, size_t, const plan::Request& req) {
    if (!covers(req, v, step)) return;
    plan::for_each_run(req.sel, def.shape, [&](const plan::Run& run, uint64_t) {
      std::memcpy(packed + (*at)[r], span + (run.offset - s.lo) * esize, run.length * esize);
      (*at)[r] += run.length * esize;
    });
  });
  return ok_status();
}

Status SerialEngine::read_gets(const std::vector<GetOp>& gets) {
  RankRequests mine(1);  // this rank's requests, one per get, in get order
  for (const GetOp& g : gets)
    mine[0].push_back(
        plan::Request{static_cast<uint32_t>(g.var), g.step_start, g.step_count, *g.sel});
  RankRequests all;
  // Only rank 0 decodes; agree so that a bad list never leaves the others in a collective.
  TAPIO_RETURN_IF_ERROR(comm::agree(comm(), gather_requests(comm(), mine[0], &all, &profile())));
  record_size_ = nc_.header().record_size();
  const RequestsByVariable all_by_var(all), mine_by_var(mine);
  // Rank 0 lists the (variable, step) items and their batches, within room for the largest
  // batch and span it reads: the items' count, the items (var, step, ...), the batches'
  // bounds. The list decides every rank's path: a rank whose broadcast failed must not go on
  // alone, nor a rank 0 without room.
  Status listed;
  std::vector<uint8_t> bytes;
  if (comm().rank() == 0) {
    const std::vector<uint64_t> items = work_list(all);
    auto bounds = plan_reads(all_by_var, items);
    listed = bounds.status();
    std::vector<uint64_t> words = {items.size() / 2};
    words.insert(words.end(), items.begin(), items.end());
    if (bounds.ok()) words.insert(words.end(), bounds->begin(), bounds->end());
    bytes.resize(words.size() * 8);
    std::memcpy(bytes.data(), words.data(), bytes.size());
  }
  keep(&listed, comm().bcast_bytes(bytes, 0));
  TAPIO_RETURN_IF_ERROR(agree(listed));
  std::vector<uint64_t> words(bytes.size() / 8);
  if (!words.empty()) std::memcpy(words.data(), bytes.data(), bytes.size());
  const size_t n = words[0];
  if (n == 0) return std::exchange(deferred_, Status());  // no rank gets anything
  const uint64_t* items = words.data() + 1;
  const uint64_t* bounds = items + 2 * n;
  for (const uint64_t* b = bounds; *b != n; ++b)
    TAPIO_RETURN_IF_ERROR(read_batch(items, b[0], b[1], gets, mine_by_var, all_by_var));
  return std::exchange(deferred_, Status());
}

Status SerialEngine::read_batch(const uint64_t* items, size_t first, size_t last,
                                const std::vector<GetOp>& gets, const RequestsByVariable& mine,
                                const RequestsByVariable& all) {
  const auto var_at = [&](size_t k) { return static_cast<uint32_t>(items[2 * k]); };
  const auto step_at = [&](size_t k) { return items[2 * k + 1]; };
  const auto esize_at = [&](size_t k) { return type_size(io().vars[var_at(k)].type); };
  const size_t unit = batch_unit(last - first, esize_at(first));
  uint64_t my_bytes = 0;
  for (size_t k = first; k < last; ++k)
    mine.for_each(var_at(k), [&](size_t, size_t, const plan::Request& req) {
      if (covers(req, var_at(k), step_at(k))) my_bytes += req.sel.elements() * esize_at(k);
    });
  PooledBuffer packed(resources().buffers), received(resources().buffers);
  std::vector<uint64_t> counts, displs;
  if (comm().rank() == 0) {
    // Each rank's share, item by item, back to back: its bytes of every item of the batch.
    counts.assign(comm().size(), 0);
    for (size_t k = first; k < last; ++k) {
      const ReadSpan s = read_span(io().vars[var_at(k)], var_at(k), step_at(k), all);
      for (size_t r = 0; r < counts.size(); ++r) counts[r] += s.counts[r] * esize_at(k) / unit;
    }
    displs.assign(counts.size(), 0);
    for (size_t r = 1; r < counts.size(); ++r) displs[r] = displs[r - 1] + counts[r - 1];
    uint8_t* out = packed.get().prepare((displs.back() + counts.back()) * unit);
    std::vector<uint64_t> at(counts.size());
    for (size_t r = 0; r < at.size(); ++r) at[r] = displs[r] * unit;
    for (size_t k = first; k < last; ++k)
      keep(&deferred_, read_and_pack(static_cast<int>(var_at(k)), step_at(k), all, out, &at));
  }
  uint8_t* mine_received = received.get().prepare(my_bytes);
  {
    PhaseTimer t(&profile(), Phase::kExchange);
    const Status st = comm().scatterv(packed.get().data(), counts, displs, mine_received,
                                      my_bytes / unit, unit, 0);
    if (st.agreed()) return st;
    keep(&deferred_, st);  // reported after the other batches' scatters
  }
  profile().messages.receive(my_bytes);
  uint64_t pos = 0;
  PhaseTimer t(&profile(), Phase::kCopy);
  for (size_t k = first; k < last; ++k) {
    const uint32_t v = var_at(k);
    const uint64_t step = step_at(k);
    mine.for_each(v, [&](size_t, size_t i, const plan::Request& req) {
      const GetOp& g = gets[i];  // the get of request i
      const uint64_t bytes = g.elements * esize_at(k);
      if (!covers(req, v, step) || bytes == 0) return;  // an empty get may have no buffer
      std::memcpy(static_cast<uint8_t*>(g.data) + (step - g.step_start) * bytes,
                  mine_received + pos, bytes);
      pos += bytes;
    });
  }
  return ok_status();
}

}  // namespace tapio
