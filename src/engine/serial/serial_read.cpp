// Serial engine, read path: rank 0 gathers every rank's requests, then per (variable, step)
// reads the one span of the file they touch and scatters each rank's elements to it.
#include <algorithm>
#include <cstring>
#include <utility>

#include "core/out_of_memory.h"
#include "engine/serial/serial_engine.h"

namespace tapio {
namespace {

bool covers(const plan::Request& req, uint32_t var, uint64_t step) {
  return req.var == var && step >= req.step_start && step < req.step_start + req.step_count;
}

// The (variable, step) pairs that any request touches, sorted, flattened as var, step, ...
std::vector<uint8_t> work_list(const RankRequests& all) {
  std::vector<std::pair<uint64_t, uint64_t>> items;
  for (const auto& rank_requests : all)
    for (const auto& req : rank_requests)
      for (uint64_t s = req.step_start; s < req.step_start + req.step_count; ++s)
        items.emplace_back(req.var, s);
  std::sort(items.begin(), items.end());
  items.erase(std::unique(items.begin(), items.end()), items.end());
  std::vector<uint8_t> bytes(items.size() * 16);
  if (!items.empty()) std::memcpy(bytes.data(), items.data(), bytes.size());  // none: null data
  return bytes;
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

Status SerialEngine::room_for_reads(const RequestsByVariable& all,
                                    const std::vector<uint64_t>& list) {
  uint64_t packed = 0, span = 0;
  for (size_t i = 0; i < list.size(); i += 2) {
    const VariableDef& def = io().vars[list[i]];
    const ReadSpan s = read_span(def, static_cast<uint32_t>(list[i]), list[i + 1], all);
    const uint64_t esize = type_size(def.type);
    packed = std::max(packed, s.total * esize);
    if (s.hi > s.lo) span = std::max(span, (s.hi - s.lo) * esize);
  }
  return room_for({packed, span}, fmt::format("reading {}", where()));
}

Status SerialEngine::read_and_pack(int var, uint64_t step, const RequestsByVariable& requests,
                                   ByteBuffer* packed, std::vector<uint64_t>* counts) {
  const VariableDef& def = io().vars[var];
  const size_t esize = type_size(def.type);
  const uint32_t v = static_cast<uint32_t>(var);
  ReadSpan s = read_span(def, v, step, requests);
  const uint64_t lo = s.lo, hi = s.hi, total = s.total;
  *counts = std::move(s.counts);
  uint8_t* out = packed->prepare(total * esize);
  if (hi <= lo || !deferred_.ok()) {  // after an error: move zeros (none: out may be null)
    if (packed->size() > 0) std::memset(out, 0, packed->size());
    return ok_status();
  }
  PooledBuffer pooled(resources().buffers);
  uint8_t* span = pooled.get().prepare((hi - lo) * esize);
  {
    PhaseTimer t(&profile(), Phase::kRead);
    const uint64_t offset = nc_.header().data_offset(nc_.header().vars[var], step) + lo * esize;
    const Status st = nc_.root_file()->read_exact(offset, span, (hi - lo) * esize);
    if (!st.ok()) std::memset(out, 0, packed->size());
    TAPIO_RETURN_IF_ERROR(st.with_context(fmt::format("variable '{}', step {}", def.name, step)));
  }
  PhaseTimer t(&profile(), Phase::kSwap);
  big_endian_to_host(span, span, hi - lo, esize);
  uint64_t pos = 0;
  requests.for_each(v, [&](size_t, size_t, const plan::Request& req) {
    if (!covers(req, v, step)) return;
    plan::for_each_run(req.sel, def.shape, [&](const plan::Run& run, uint64_t) {
      std::memcpy(out + pos, span + (run.offset - lo) * esize, run.length * esize);
      pos += run.length * esize;
    });
  });
  return ok_status();
}

Status SerialEngine::read_gets(const std::vector<GetOp>& gets) {
  RankRequests mine(1);  // this rank's requests, one per get, in get order
  for (const GetOp& g : gets)
    mine[0].push_back(
        plan::Request{static_cast<uint32_t>(g.var), g.step_start, g.step_count, g.sel});
  RankRequests all;
  // Only rank 0 decodes; agree so that a bad list never leaves the others in a collective.
  TAPIO_RETURN_IF_ERROR(comm::agree(comm(), gather_requests(comm(), mine[0], &all, &profile())));
  std::vector<uint8_t> items;
  if (comm().rank() == 0) items = work_list(all);
  // The list decides every rank's path: a rank whose broadcast failed must not go on alone,
  // nor a rank 0 without room for the largest reply and span it reads.
  Status listed = comm().bcast_bytes(items, 0);
  std::vector<uint64_t> list(items.size() / 8);
  if (!items.empty()) std::memcpy(list.data(), items.data(), items.size());
  const RequestsByVariable all_by_var(all), mine_by_var(mine);
  if (listed.ok() && comm().rank() == 0) listed = room_for_reads(all_by_var, list);
  TAPIO_RETURN_IF_ERROR(agree(listed));
  if (items.empty()) return std::exchange(deferred_, Status());  // no rank gets anything
  for (size_t i = 0; i < list.size(); i += 2)
    TAPIO_RETURN_IF_ERROR(
        read_item(static_cast<int>(list[i]), list[i + 1], gets, mine_by_var, all_by_var));
  return std::exchange(deferred_, Status());
}

Status SerialEngine::read_item(int var, uint64_t step, const std::vector<GetOp>& gets,
                               const RequestsByVariable& mine, const RequestsByVariable& all) {
  const size_t esize = type_size(io().vars[var].type);
  const uint32_t v = static_cast<uint32_t>(var);
  uint64_t my_count = 0;
  mine.for_each(v, [&](size_t, size_t, const plan::Request& req) {
    if (covers(req, v, step)) my_count += req.sel.elements();
  });
  PooledBuffer packed(resources().buffers), received(resources().buffers);
  std::vector<uint64_t> counts, displs;
  if (comm().rank() == 0) {
    keep(&deferred_, read_and_pack(var, step, all, &packed.get(), &counts));
    displs.resize(counts.size());
    for (size_t r = 1; r < counts.size(); ++r) displs[r] = displs[r - 1] + counts[r - 1];
  }
  uint8_t* mine_received = received.get().prepare(my_count * esize);
  {
    PhaseTimer t(&profile(), Phase::kExchange);
    const Status st =
        comm().scatterv(packed.get().data(), counts, displs, mine_received, my_count, esize, 0);
    if (st.agreed()) return st;
    keep(&deferred_, st);  // reported after the other variables' scatters
  }
  profile().messages.receive(my_count * esize);
  uint64_t pos = 0;
  PhaseTimer t(&profile(), Phase::kCopy);
  mine.for_each(v, [&](size_t, size_t i, const plan::Request& req) {
    const GetOp& g = gets[i];  // the get of request i
    const uint64_t bytes = g.elements * esize;
    if (!covers(req, v, step) || bytes == 0) return;  // an empty get may have no buffer
    std::memcpy(static_cast<uint8_t*>(g.data) + (step - g.step_start) * bytes,
                mine_received + pos, bytes);
    pos += bytes;
  });
  return ok_status();
}

}  // namespace tapio
