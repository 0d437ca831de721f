// The mpiio engine: the MPI-IO collective baseline (the seeds' MPI-IO method). Every rank
// opens the NetCDF file through MPI-IO (comm/parallel_file.h); a batch of puts becomes ONE
// set_view with an hindexed filetype over the rank's byte ranges and ONE write_all (reads: one
// read_all), so the MPI library (ROMIO or OMPIO) does the two-phase aggregation. The
// file is exactly the one the serial engine writes: the header, numrecs and fill stay with the
// NetcdfEngine base on rank 0's POSIX handle.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "comm/parallel_file.h"
#include "engine/netcdf_engine.h"
#include "engine/overlap_check.h"

namespace tapio {

class MpiioEngine final : public NetcdfEngine {
 public:
  // Collective: creates, opens for append, or opens for reading env.path.
  static Result<std::unique_ptr<Engine>> open(EngineEnv env);
  ~MpiioEngine() override;

 private:
  explicit MpiioEngine(EngineEnv env);

  Status open_data_file();  // collective: the MPI-IO open on every rank
  Status write_puts(const std::vector<PutOp>& puts, uint64_t step) override;
  Status read_gets(const std::vector<GetOp>& gets) override;
  Status close_files() override;

  // Collective: one set_view and one write_all / read_all (comm/parallel_file.h).
  Status transfer(bool write, const comm::Extents& extents, uint8_t* buffer, uint64_t bytes);

  // Rank 0: make the file reach the end of record `step` before the data of a new record is
  // written (see write_puts).
  Status extend_to_record(uint64_t step);

  comm::Hints hints_;                     // parsed at open
  std::unique_ptr<comm::ParallelFile> fh_;  // every rank's MPI-IO handle
  uint64_t extended_records_ = 0;  // every rank: the file reaches the end of this many records
  RepeatedPuts repeated_;          // this rank's previous batch (overlap checks)
};

}  // namespace tapio
