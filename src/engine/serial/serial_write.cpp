// Serial engine, write path: per batch of variables (batches.h), one gather of every rank's
// pieces to rank 0, which byte-swaps each variable into a file-order image and writes it with
// one request.
#include <algorithm>
#include <cstring>
#include <optional>

#include "core/out_of_memory.h"
#include "engine/serial/batches.h"
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
  std::vector<const uint8_t*> from;   // where each selection's elements lie, gathered
  bool fill = false;                  // start from the fill value (some elements unwritten)

  // The record, big-endian, from the gathered pieces into `out`. Not zeroed first: bytes no
  // piece covers are the fill value, or never written.
  void image(ByteBuffer* out) const {
    uint8_t* to = out->prepare(total * esize);
    if (fill) fill_image_into(nv, total, to);
    for (size_t i = 0; i < sels.size(); ++i)
      plan::for_each_run(sels[i], shape, [&](const plan::Run& run, uint64_t mem) {
        host_to_big_endian(to + run.offset * esize, from[i] + mem * esize, run.length, esize);
      });
  }
};

uint64_t bytes_of(const VariableDef& def, const plan::Request& req) {
  return req.sel.elements() * type_size(def.type);
}

}  // namespace

Status SerialEngine::write_puts(const std::vector<PutOp>& puts, uint64_t step) {
  // Which variables some rank put, summed in one agreed reduction: every rank knows the
  // batches from there.
  TAPIO_RETURN_IF_ERROR(nc_.note_puts(puts));
  // What a rank takes for the gathers it takes before the agreement that precedes them, so
  // that a lack of memory on one rank fails the call on every rank there rather than leaving
  // the others in a gather: its requests (only rank 0 decodes them), the batches and the
  // buffers of prepare_batches.
  std::vector<plan::Request> mine;
  Status local = catch_out_of_memory([&] { return writing(); }, [&] {
    for (const PutOp& p : puts)
      mine.push_back(plan::Request{static_cast<uint32_t>(p.var), step, 1, *p.sel});
    return ok_status();
  });
  RankRequests all;
  keep(&local, gather_requests(comm(), mine, &all, &profile()));
  std::vector<Batch> batches;
  PooledBuffer packed(resources().buffers);
  std::shared_ptr<PooledBuffer> staging;
  if (local.ok())
    local = catch_out_of_memory([&] { return writing(); }, [&] {
      return prepare_batches(puts, std::move(all), &batches, &packed.get(), &staging);
    });
  TAPIO_RETURN_IF_ERROR(comm::agree(comm(), local));
  record_size_ = nc_.header().record_size();
  for (const Batch& batch : batches)
    TAPIO_RETURN_IF_ERROR(gather_batch(batch, step, &packed.get(), staging));
  return ok_status();
}

Status SerialEngine::prepare_batches(const std::vector<PutOp>& puts, RankRequests all,
                                     std::vector<Batch>* batches, ByteBuffer* packed,
                                     std::shared_ptr<PooledBuffer>* staging) {
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
  const WriteBatches written = write_batches(nc_.touched());
  uint64_t largest = 0;  // rank 0: the most bytes one batch gathers
  for (size_t b = 0; b + 1 < written.bounds.size(); ++b) {
    Batch& batch = batches->emplace_back();
    uint64_t gathered = 0;
    for (size_t k = written.bounds[b]; k < written.bounds[b + 1]; ++k) {
      const size_t v = written.vars[k];
      batch.vars.push_back(v);
      batch.my_puts.emplace_back();
      for (; put != sorted.end() && var_of(*put) <= v; ++put)
        if (var_of(*put) == v) batch.my_puts.back().push_back(*put);
      batch.requests.emplace_back(all.size());
      for (size_t r = 0; r < all.size(); ++r)
        for (; next[r] < all[r].size() && var_of(all[r][next[r]]) <= v; ++next[r])
          if (var_of(all[r][next[r]]) == v) {
            gathered += bytes_of(io().vars[v], all[r][next[r]]);
            batch.requests.back()[r].push_back(std::move(all[r][next[r]]));
          }
    }
    largest = std::max(largest, gathered);
  }
  const uint64_t pack = pack_bound(puts);
  if (!packed->try_prepare(pack))
    return out_of_memory(fmt::format("packing rank {}'s pieces, {}", comm().rank(), writing()),
                         pack);
  if (comm().rank() != 0) return ok_status();
  // Rank 0 holds a batch's gathered pieces and builds a record from them. Without async one
  // staging buffer, taken here, serves every batch; with async each batch's is held by its
  // background write, so only the room for one is checked here.
  if (nc_.async()) return room_for({largest, written.largest_record}, writing());
  *staging = std::make_shared<PooledBuffer>(resources().buffers);
  if (!(*staging)->get().try_prepare(largest)) return out_of_memory(writing(), largest);
  return room_for({written.largest_record}, writing());
}

uint64_t SerialEngine::pack_bound(const std::vector<PutOp>& puts) const {
  // A batch of several variables holds records of at most the limit together, and this rank's
  // pieces of them at most those records' bytes, plus what its own overlapping pieces (an error
  // rank 0 finds after the gather) put beyond a record; a variable alone in its batch is packed
  // when this rank put it in several pieces.
  std::vector<uint64_t> bytes(io().vars.size(), 0), pieces(io().vars.size(), 0);
  uint64_t total = 0, beyond = 0, alone = 0;
  for (const PutOp& p : puts) {
    bytes[p.var] += p.elements * type_size(io().vars[p.var].type);
    pieces[p.var] += 1;
    total += p.elements * type_size(io().vars[p.var].type);
  }
  for (size_t v = 0; v < bytes.size(); ++v) {
    const uint64_t record = io().vars[v].elements() * type_size(io().vars[v].type);
    beyond += bytes[v] > record ? bytes[v] - record : 0;
    if (pieces[v] > 1) alone = std::max(alone, bytes[v]);
  }
  return puts.size() > 1 ? std::max(std::min(total, batch_limit() + beyond), alone) : 0;
}

uint64_t SerialEngine::batch_limit() const {
  return std::max<uint64_t>(1, std::min<uint64_t>(params().get_size("buffer_size"), 1u << 30));
}

SerialEngine::WriteBatches SerialEngine::write_batches(const std::vector<uint8_t>& written) const {
  WriteBatches w;
  std::vector<uint64_t> record_bytes;
  for (size_t v = 0; v < written.size(); ++v) {
    if (!written[v]) continue;
    w.vars.push_back(v);
    record_bytes.push_back(io().vars[v].elements() * type_size(io().vars[v].type));
  }
  w.largest_record = record_bytes.empty()
                         ? 0
                         : *std::max_element(record_bytes.begin(), record_bytes.end());
  w.bounds = batch_bounds(record_bytes, batch_limit());
  return w;
}

const void* SerialEngine::pack_mine(const Batch& batch, ByteBuffer* packed, uint64_t* bytes) {
  const auto bytes_of_put = [&](size_t k, const PutOp* p) {
    return p->elements * type_size(io().vars[batch.vars[k]].type);
  };
  const PutOp* only = nullptr;
  size_t pieces = 0;
  *bytes = 0;
  for (size_t k = 0; k < batch.vars.size(); ++k)
    for (const PutOp* p : batch.my_puts[k]) {
      *bytes += bytes_of_put(k, p);
      only = p;
      ++pieces;
    }
  if (pieces <= 1) return only ? only->data : nullptr;
  PhaseTimer t(&profile(), Phase::kCopy);
  uint8_t* to = packed->prepare(*bytes);  // within the pack bound taken before the agreement
  for (size_t k = 0; k < batch.vars.size(); ++k)
    for (const PutOp* p : batch.my_puts[k]) {
      std::memcpy(to, p->data, bytes_of_put(k, p));
      to += bytes_of_put(k, p);
    }
  return packed->data();
}

Status SerialEngine::gather_batch(const Batch& batch, uint64_t step, ByteBuffer* packed,
                                  const std::shared_ptr<PooledBuffer>& staging) {
  uint64_t my_bytes = 0;
  const void* send = pack_mine(batch, packed, &my_bytes);
  const size_t unit = batch_unit(batch.vars.size(), type_size(io().vars[batch.vars[0]].type));
  const int P = comm().size();
  std::vector<uint64_t> counts(comm().rank() == 0 ? P : 0), displs(counts.size());
  uint64_t total = 0, largest_record = 0;
  for (size_t r = 0; r < counts.size(); ++r) {
    for (size_t k = 0; k < batch.vars.size(); ++k)
      for (const auto& req : batch.requests[k][r])
        counts[r] += bytes_of(io().vars[batch.vars[k]], req) / unit;
    displs[r] = total;
    total += counts[r];
  }
  for (size_t v : batch.vars)
    largest_record = std::max(largest_record, io().vars[v].elements() * type_size(io().vars[v].type));
  // Async: room for this staging buffer and a record made from it, before either exists.
  if (nc_.async() && comm().rank() == 0) nc_.reserve(total * unit + largest_record);
  // Pooled, not zeroed: the gather fills every byte of it. Without async rank 0's was taken
  // for the largest batch before the agreement: this takes no memory.
  std::shared_ptr<PooledBuffer> held =
      staging ? staging : std::make_shared<PooledBuffer>(resources().buffers);
  uint8_t* gathered = held->get().prepare(total * unit);
  {
    PhaseTimer t(&profile(), Phase::kExchange);
    // An agreed error is every rank's; a local one (the gather failed here) is kept and the
    // next batches' gathers still happen: the commit's agreement reports it.
    const Status st = comm().gatherv(send, my_bytes / unit, gathered, counts, displs, unit, 0);
    if (st.agreed()) return st;
    keep(&deferred_, st);
  }
  if (comm().rank() != 0) {
    profile().messages.send(my_bytes);
    return ok_status();
  }
  profile().messages.receive(total * unit - my_bytes, P - 1);
  for (uint64_t& d : displs) d *= unit;
  // Rank 0 alone, between gathers: a failure is kept for the commit's agreement, and the next
  // batches' gathers still happen.
  keep(&deferred_, catch_out_of_memory([&] { return writing(); }, [&] {
    write_gathered(batch, step, std::move(held), displs);
    return ok_status();
  }));
  return ok_status();
}

void SerialEngine::write_gathered(const Batch& batch, uint64_t step,
                                  std::shared_ptr<const PooledBuffer> staging,
                                  std::vector<uint64_t> at) {
  const uint8_t* gathered = staging->get().data();
  const uint64_t held = staging->get().size();
  for (size_t k = 0; k < batch.vars.size(); ++k) {
    std::vector<const uint8_t*> from;
    for (size_t r = 0; r < at.size(); ++r)
      for (const auto& req : batch.requests[k][r]) {
        from.push_back(gathered + at[r]);
        at[r] += bytes_of(io().vars[batch.vars[k]], req);
      }
    // The last variable's background write also holds the batch's staging buffer.
    if (deferred_.ok())
      deferred_ = write_variable(static_cast<int>(batch.vars[k]), step, staging, std::move(from),
                                 k + 1 == batch.vars.size() ? held : 0, batch.requests[k]);
  }
}

Status SerialEngine::write_variable(int var, uint64_t step,
                                    std::shared_ptr<const PooledBuffer> staging,
                                    std::vector<const uint8_t*> from, uint64_t staging_held,
                                    const RankRequests& requests) {
  const VariableDef& def = io().vars[var];
  std::vector<plan::OwnedRun> owned;
  std::optional<PhaseTimer> planning(std::in_place, &profile(), Phase::kPlan);
  TAPIO_ASSIGN_OR_RETURN(const uint64_t elements,
                         covered(def, var, requests, at_step(var, step), &owned));
  ImagePlan plan{nc_.header().vars[var], def.shape, def.elements(), type_size(def.type), {},
                 std::move(from)};
  plan.fill = elements < def.elements() && nc_.spec().fill;
  for (const auto& rank_requests : requests)
    for (const auto& req : rank_requests) plan.sels.push_back(req.sel);
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
      plan.image(&image.get());
    }
    PhaseTimer t(&profile(), Phase::kWrite);
    return write_image(*file, offset, image.get(), only_covered, owned, plan.esize)
        .with_context(at_step(var, step));
  }
  // The staging buffer holds the step's data now: the swap into file order and the write
  // happen in the background.
  const std::string ctx = fmt::format("{} (a background write)", at_step(var, step));
  const uint64_t bytes = staging_held + def.elements() * plan.esize;
  nc_.write_behind(bytes, [file, offset, ctx, only_covered, plan = std::move(plan),
                           staging = std::move(staging), owned = std::move(owned), pool] {
    PooledBuffer image(pool);  // the pool is the context's, which outlives the engine
    plan.image(&image.get());
    return write_image(*file, offset, image.get(), only_covered, owned, plan.esize)
        .with_context(ctx);
  });
  return ok_status();
}

}  // namespace tapio
