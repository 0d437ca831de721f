// The serial engine: rank 0 gathers every variable's pieces and writes one NetCDF file; in
// read mode rank 0 reads and scatters. The baseline that applications use today (LICOM3 spent
// 48% of its run time here at 2,400 ranks), kept honest: one gather and one large write per
// variable per step, one bounded read and one scatter per variable and step read.
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

  // Rank 0: whether the largest gather of a batch (`all`) and the largest record it writes
  // fit in memory together, checked before the batch's first gather.
  Status room_for_gathers(const RankRequests& all) const;
  // Rank 0: the same for a read's largest packed reply and span (`list`: var, step, ...).
  Status room_for_reads(const RequestsByVariable& all, const std::vector<uint64_t>& list);
  // Collective: variable v's pieces (this rank's puts of it), gathered to rank 0 (which writes
  // them; `all`: every rank's requests of v, rank 0 only).
  Status gather_variable(size_t v, const std::vector<const PutOp*>& my_puts, uint64_t step,
                         const RankRequests& all);
  // Rank 0: byte-swap the gathered pieces of `var` into file order and write them (with
  // async, queue the write).
  Status write_variable(int var, uint64_t step, std::shared_ptr<const PooledBuffer> staging,
                        const RankRequests& requests);
  // Collective: one (variable, step) of a read: rank 0 reads and scatters, every rank copies
  // (`mine`: this rank's requests, the i-th of them gets[i]'s; `all`: every rank's, rank 0).
  Status read_item(int var, uint64_t step, const std::vector<GetOp>& gets,
                   const RequestsByVariable& mine, const RequestsByVariable& all);
  // Rank 0: read the span of `var` at `step` that the requests touch and pack it in rank order.
  Status read_and_pack(int var, uint64_t step, const RequestsByVariable& requests,
                       ByteBuffer* packed, std::vector<uint64_t>* counts);

  NetcdfDataset nc_;
  Status deferred_;  // the first local error, reported at the next agreement
  uint64_t record_size_ = 0;  // the header's, summed once per batch of puts (write_puts)
};

}  // namespace tapio
