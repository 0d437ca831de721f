// The serial engine: rank 0 gathers every variable's pieces and writes one NetCDF file; in
// read mode rank 0 reads and scatters. The baseline that applications use today (LICOM3 spent
// 48% of its run time here at 2,400 ranks), kept honest: one gather and one large write per
// variable per step, one bounded read and one scatter per variable and step read.
#pragma once
#include <memory>

#include "engine/engine.h"
#include "format/netcdf/header.h"
#include "io/file.h"
#include "plan/selection_codec.h"

namespace tapio {

class SerialEngine final : public Engine {
 public:
  // Collective: creates, opens for append, or opens for reading env.path.
  static Result<std::unique_ptr<Engine>> open(EngineEnv env);

 private:
  explicit SerialEngine(EngineEnv env);
  Status create();
  Status open_existing();
  Status merge_append_definitions(const IoDef& from_file);

  Status write_puts(const std::vector<PutOp>& puts, uint64_t step) override;
  Status commit_step(uint64_t step) override;
  Status read_gets(const std::vector<GetOp>& gets) override;
  Status close_files() override;
  uint64_t available_steps() const override;

  // Rank 0: byte-swap the gathered pieces of `var` into file order and write them.
  Status write_variable(int var, uint64_t step, const uint8_t* staging,
                        const std::vector<std::vector<plan::Request>>& requests);
  Status write_fill(int var, uint64_t step);
  // Rank 0: read the span of `var` at `step` that the requests touch and pack it in rank order.
  Status read_and_pack(int var, uint64_t step,
                       const std::vector<std::vector<plan::Request>>& requests,
                       std::vector<uint8_t>* packed, std::vector<uint64_t>* counts);
  Status gather_requests(const std::vector<plan::Request>& mine,
                         std::vector<std::vector<plan::Request>>* all);
  uint64_t data_end() const;  // where the last byte of committed data ends
  bool has_record_vars() const;

  std::unique_ptr<io::File> file_;  // rank 0 only
  netcdf::Header header_;           // every rank
  std::vector<bool> fixed_written_; // rank 0: fixed vars written at least once
  std::vector<bool> step_touched_;  // every rank: vars some rank put in the current step
  Status deferred_;                 // rank 0: first I/O error, reported at the next agreement
};

}  // namespace tapio
