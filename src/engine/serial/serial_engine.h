// The serial engine: rank 0 gathers every variable's pieces and writes one NetCDF file; in
// read mode rank 0 reads and scatters. The baseline that applications use today (LICOM3 spent
// 48% of its run time here at 2,400 ranks), kept honest: one large write per variable per
// step and one bounded read per variable and step read, with one gather (scatter) per batch of
// variables that fits in buffer_size, so that 10^5 small variables are not 10^5 collectives.
#pragma once
#include <memory>
#include <vector>

#include "engine/netcdf/netcdf_dataset.h"
#include "engine/netcdf/netcdf_requests.h"
#include "engine/serial/requests_by_variable.h"

namespace tapio {

class SerialEngine final : public Engine {
 public:
  // Collective: creates, opens for append, or opens for reading env.path.
  static Result<std::unique_ptr<Engine>> open(EngineEnv env);

 private:
  SerialEngine(EngineEnv env, io::LayerSpec layers);

  Status write_puts(const std::vector<PutOp>& puts, uint64_t step) override;
  Status write_step(const std::vector<PutOp>& puts, uint64_t step, const Status& local) override;
  Status read_gets(const std::vector<GetOp>& gets) override;
  Status close_files() override;
  uint64_t available_steps() const override;
  // Joined arrays of a NetCDF file (NetcdfDataset): one block per step, after earlier steps.
  Result<std::vector<plan::Selection>> stored_blocks(int var, uint64_t step) override {
    return nc_.stored_blocks(var, step);
  }
  uint64_t joined_rows_before(int var, uint64_t step) const override {
    return nc_.joined_rows_before(var, step);
  }
  Status background_failure() override;

  // The variables of one gather, in order: this rank's puts of each (in put order) and every
  // rank's requests of each (rank 0 only).
  struct Batch {
    std::vector<size_t> vars;
    std::vector<std::vector<const PutOp*>> my_puts;
    std::vector<RankRequests> requests;
  };
  // The most bytes one gather or scatter moves: buffer_size, at most 1 GiB (batches.h).
  uint64_t batch_limit() const;
  // The variables marked in `written`, in order, batched by their records' bytes (which every
  // rank knows: a batch's gathered pieces are at most that), and the largest record.
  struct WriteBatches {
    std::vector<size_t> vars;
    std::vector<size_t> bounds;  // batch b is vars[bounds[b], bounds[b + 1])
    uint64_t largest_record = 0;
  };
  WriteBatches write_batches(const std::vector<uint8_t>& written) const;
  // Before the agreement that precedes the gathers: the batches of `puts` (my puts of each
  // variable; rank 0: every rank's requests, from `all`), the buffer this rank packs its pieces
  // of a batch in, and on rank 0 the staging buffer of the largest batch (without async; with
  // it, room for one) and room for the largest record.
  Status prepare_batches(const std::vector<PutOp>& puts, RankRequests all,
                         std::vector<Batch>* batches, ByteBuffer* packed,
                         std::shared_ptr<PooledBuffer>* staging);
  // Rank 0: the same for a read's batches (`list`: var, step, ...), which it returns: the
  // first item of each, then the item count.
  Result<std::vector<size_t>> plan_reads(const RequestsByVariable& all,
                                         const std::vector<uint64_t>& list);
  // The most bytes this rank packs for one batch of `puts` (none: each batch has at most one
  // of its pieces), taken before the agreement that precedes the gathers.
  uint64_t pack_bound(const std::vector<PutOp>& puts) const;
  // Collective: a batch's pieces gathered to rank 0, which writes each variable of it
  // (`packed`: where this rank packs its pieces of it, room taken beforehand; `staging`: rank
  // 0's buffer for them without async, or null).
  Status gather_batch(const Batch& batch, uint64_t step, ByteBuffer* packed,
                      const std::shared_ptr<PooledBuffer>& staging);
  // This rank's pieces of `batch`, variable by variable in put order, packed in `packed` when
  // there are several; *bytes: their size. The address to send them from.
  const void* pack_mine(const Batch& batch, ByteBuffer* packed, uint64_t* bytes);
  // Rank 0: each variable of `batch` written from `staging`, where rank r's pieces begin at
  // byte at[r], variable by variable.
  void write_gathered(const Batch& batch, uint64_t step,
                      std::shared_ptr<const PooledBuffer> staging, std::vector<uint64_t> at);
  // Rank 0: byte-swap the gathered pieces of `var` (those of selection i at from[i], in
  // `staging`) into file order and write them. With async the write is queued, holding the
  // record and `staging_held` bytes.
  Status write_variable(int var, uint64_t step, std::shared_ptr<const PooledBuffer> staging,
                        std::vector<const uint8_t*> from, uint64_t staging_held,
                        const RankRequests& requests);
  // Collective: items [first, last) of a read's list (`items`: var, step, ...): rank 0 reads
  // and scatters, every rank copies (`mine`: this rank's requests, the i-th of them gets[i]'s;
  // `all`: every rank's, rank 0).
  Status read_batch(const uint64_t* items, size_t first, size_t last,
                    const std::vector<GetOp>& gets, const RequestsByVariable& mine,
                    const RequestsByVariable& all);
  // Rank 0: read the span of `var` at `step` that the requests touch, and copy each rank r's
  // elements of it to packed + (*at)[r], advancing (*at)[r].
  Status read_and_pack(int var, uint64_t step, const RequestsByVariable& requests,
                       uint8_t* packed, std::vector<uint64_t>* at);

  NetcdfDataset nc_;
  Status deferred_;  // the first local error, reported at the next agreement
  uint64_t record_size_ = 0;  // the header's, summed once per write_puts and read_gets
};

}  // namespace tapio
