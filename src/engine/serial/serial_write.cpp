// Serial engine, write path: per variable, one gather of every rank's pieces to rank 0, which
// byte-swaps them into a file-order image and writes it with one request.
#include <algorithm>
#include <cstring>
#include <optional>

#include "core/out_of_memory.h"
#include "engine/serial/serial_engine.h"

namespace tapio {
namespace {

size_t var_of(const PutOp* p) { return static_cast<size_t>(p->var); }
size_t var_of(const plan::Request& r) { return r.var; }

// A variable's record in file order, `image`, at `offset`: whole, or with `only_covered` just
// the runs of `covered` (sorted by offset; touching runs merge into one request).
Status write_image(io::File& file, uint64_t offset, const ByteBuffer& image, bool only_covered,
                   const std::vector<plan::OwnedRun>& covered, size_t esize) {
  if (!only_covered) return file.write_at(offset, image.data(), image.size());
  for (size_t i = 0; i < covered.size();) {
    uint64_t start = covered[i].run.offset, end = start + covered[i].run.length;
    for (++i; i < covered.size() && covered[i].run.offset == end; ++i)
      end += covered[i].run.length;
    TAPIO_RETURN_IF_ERROR(
        file.write_at(offset + start * esize, image.data() + start * esize, (end - start) * esize));
  }
  return ok_status();
}

// How a variable's gathered pieces become its record in file order: what write_variable knows
// once the gather is done, kept by value so the background thread can use it.
struct ImagePlan {
  netcdf::Var nv;
  std::vector<uint64_t> shape;
  uint64_t total = 0;  // elements of the record
  size_t esize = 0;
  std::vector<plan::Selection> sels;  // every rank's selections of the variable, in rank order
  bool fill = false;                  // start from the fill value (some elements unwritten)

  // The record, big-endian, from `staging` (the pieces back to back in `sels` order) into
  // `out`. Not zeroed first: bytes no piece covers are the fill value, or never written.
  void image(const uint8_t* staging, ByteBuffer* out) const {
    uint8_t* to = out->prepare(total * esize);
    if (fill) fill_image_into(nv, total, to);
    uint64_t base = 0;  // element position of the current selection in the staging buffer
    for (const plan::Selection& sel : sels) {
      plan::for_each_run(sel, shape, [&](const plan::Run& run, uint64_t mem) {
        host_to_big_endian(to + run.offset * esize, staging + (base + mem) * esize, run.length,
                           esize);
      });
      base += sel.elements();
    }
  }
};

}  // namespace

Status SerialEngine::write_puts(const std::vector<PutOp>& puts, uint64_t step) {
  std::vector<plan::Request> mine;
  for (const PutOp& p : puts)
    mine.push_back(plan::Request{static_cast<uint32_t>(p.var), step, 1, p.sel});
  RankRequests all;
  // Only rank 0 decodes; agree so that a bad list never leaves the others in a collective,
  // nor a rank 0 without room for the largest variable's gathered pieces and record.
  Status listed = gather_requests(comm(), mine, &all, &profile());
  if (listed.ok() && comm().rank() == 0) listed = room_for_gathers(all);
  TAPIO_RETURN_IF_ERROR(comm::agree(comm(), listed));
  TAPIO_RETURN_IF_ERROR(nc_.note_puts(puts));
  // Each variable's puts, and every rank's requests of it, in put order: taken in turn from
  // lists sorted by variable once, where a scan of them all per variable would cost
  // O(variables x puts).
  const auto by_var = [](const auto& a, const auto& b) { return var_of(a) < var_of(b); };
  std::vector<const PutOp*> sorted(puts.size());
  for (size_t i = 0; i < puts.size(); ++i) sorted[i] = &puts[i];
  std::stable_sort(sorted.begin(), sorted.end(), by_var);
  for (auto& requests : all) std::stable_sort(requests.begin(), requests.end(), by_var);
  std::vector<size_t> next(all.size(), 0);
  auto put = sorted.begin();
  record_size_ = nc_.header().record_size();
  for (size_t v = 0; v < io().vars.size(); ++v) {
    std::vector<const PutOp*> mine;
    for (; put != sorted.end() && var_of(*put) == v; ++put) mine.push_back(*put);
    RankRequests of_v(all.size());
    for (size_t r = 0; r < all.size(); ++r)
      for (; next[r] < all[r].size() && var_of(all[r][next[r]]) == v; ++next[r])
        of_v[r].push_back(std::move(all[r][next[r]]));
    if (nc_.touched()[v]) TAPIO_RETURN_IF_ERROR(gather_variable(v, mine, step, of_v));
  }
  return ok_status();
}

Status SerialEngine::room_for_gathers(const RankRequests& all) const {
  uint64_t gathered = 0, record = 0;
  std::vector<uint64_t> elements(io().vars.size(), 0);
  for (const auto& rank_requests : all)
    for (const auto& req : rank_requests)
      if (req.var < elements.size()) elements[req.var] += req.sel.elements();
  for (size_t v = 0; v < elements.size(); ++v) {
    if (elements[v] == 0) continue;
    const uint64_t esize = type_size(io().vars[v].type);
    gathered = std::max(gathered, elements[v] * esize);
    record = std::max(record, io().vars[v].elements() * esize);
  }
  return room_for({gathered, record}, writing());
}

Status SerialEngine::gather_variable(size_t v, const std::vector<const PutOp*>& my_puts,
                                     uint64_t step, const RankRequests& all) {
  const size_t esize = type_size(io().vars[v].type);
  // My pieces of v, in put order: sent straight from the user's buffer when there is one.
  uint64_t my_elems = 0;
  for (const PutOp* p : my_puts) my_elems += p->elements;
  PooledBuffer packed(resources().buffers);
  const void* send = my_puts.size() == 1 ? my_puts[0]->data : nullptr;
  if (my_puts.size() > 1) {
    PhaseTimer t(&profile(), Phase::kCopy);
    uint8_t* to = packed.get().prepare(my_elems * esize);
    uint64_t pos = 0;
    for (const PutOp* p : my_puts) {
      std::memcpy(to + pos, p->data, p->elements * esize);
      pos += p->elements * esize;
    }
    send = to;
  }
  const int P = comm().size();
  std::vector<uint64_t> counts(comm().rank() == 0 ? P : 0), displs(counts.size());
  uint64_t total = 0;
  for (size_t r = 0; r < counts.size(); ++r) {
    for (const auto& req : all[r])
      if (req.var == v) counts[r] += req.sel.elements();
    displs[r] = total;
    total += counts[r];
  }
  // Async: room for this staging buffer and the image made from it, before either exists.
  if (nc_.async() && comm().rank() == 0)
    nc_.reserve(total * esize + io().vars[v].elements() * esize);
  // Pooled, not zeroed: the gather fills every byte of it.
  auto staging = std::make_shared<PooledBuffer>(resources().buffers);
  uint8_t* gathered = staging->get().prepare(total * esize);
  {
    PhaseTimer t(&profile(), Phase::kExchange);
    // An agreed error is every rank's; a local one (the gather failed here) is kept and the
    // next variables' gathers still happen: the commit's agreement reports it.
    const Status st = comm().gatherv(send, my_elems, gathered, counts, displs, esize, 0);
    if (st.agreed()) return st;
    keep(&deferred_, st);
  }
  if (comm().rank() != 0) {
    profile().messages.send(my_elems * esize);
    return ok_status();
  }
  profile().messages.receive((total - my_elems) * esize, P - 1);
  if (deferred_.ok()) deferred_ = write_variable(static_cast<int>(v), step, std::move(staging), all);
  return ok_status();
}

Status SerialEngine::write_variable(int var, uint64_t step,
                                    std::shared_ptr<const PooledBuffer> staging,
                                    const RankRequests& requests) {
  const VariableDef& def = io().vars[var];
  std::vector<plan::OwnedRun> owned;
  std::optional<PhaseTimer> planning(std::in_place, &profile(), Phase::kPlan);
  TAPIO_ASSIGN_OR_RETURN(const uint64_t elements,
                         covered(def, var, requests, at_step(var, step), &owned));
  ImagePlan plan{nc_.header().vars[var], def.shape, def.elements(), type_size(def.type), {}};
  plan.fill = elements < def.elements() && nc_.spec().fill;
  for (const auto& rank_requests : requests)
    for (const auto& req : rank_requests)
      if (req.var == static_cast<uint32_t>(var)) plan.sels.push_back(req.sel);
  planning.reset();
  const uint64_t offset = nc_.header().data_offset(plan.nv, step, record_size_);
  io::File* file = nc_.root_file();
  // Without fill, elements no rank wrote keep whatever the file holds: covered runs only.
  const bool only_covered = elements < def.elements() && !plan.fill;
  BufferPool* pool = resources().buffers;
  if (!nc_.async()) {
    PooledBuffer image(pool);
    {
      PhaseTimer swapping(&profile(), Phase::kSwap);
      plan.image(staging->get().data(), &image.get());
    }
    PhaseTimer t(&profile(), Phase::kWrite);
    return write_image(*file, offset, image.get(), only_covered, owned, plan.esize)
        .with_context(at_step(var, step));
  }
  // The staging buffer holds the step's data now: the swap into file order and the write
  // happen in the background.
  const std::string ctx = fmt::format("{} (a background write)", at_step(var, step));
  const uint64_t bytes = staging->get().size() + def.elements() * plan.esize;
  nc_.write_behind(bytes, [file, offset, ctx, only_covered, plan = std::move(plan),
                           staging = std::move(staging), owned = std::move(owned), pool] {
    PooledBuffer image(pool);  // the pool is the context's, which outlives the engine
    plan.image(staging->get().data(), &image.get());
    return write_image(*file, offset, image.get(), only_covered, owned, plan.esize)
        .with_context(ctx);
  });
  return ok_status();
}

}  // namespace tapio
