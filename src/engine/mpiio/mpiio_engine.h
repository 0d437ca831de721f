// The mpiio engine: the MPI-IO collective baseline (the seeds' MPI-IO method). Every rank
// opens the NetCDF file through MPI-IO (comm/parallel_file.h); a batch of puts becomes ONE
// set_view with an hindexed filetype over the rank's byte ranges and ONE write_all (reads: one
// read_all), so the MPI library (ROMIO or OMPIO) does the two-phase aggregation. The file is
// exactly the one the serial engine writes: the header, numrecs and fill stay with the
// NetcdfDataset on rank 0's POSIX handle.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "comm/parallel_file.h"
#include "engine/netcdf/netcdf_dataset.h"
#include "engine/overlap_check.h"

namespace tapio {

// The engine's parameters, parsed once at open.
struct MpiioSpec {
  NetcdfSpec file;
  comm::Hints hints;  // mpiio_hints
  static Result<MpiioSpec> parse(const Params& params);
};

class MpiioEngine final : public Engine {
 public:
  // Collective: creates, opens for append, or opens for reading env.path.
  static Result<std::unique_ptr<Engine>> open(EngineEnv env);
  ~MpiioEngine() override;

 private:
  MpiioEngine(EngineEnv env, MpiioSpec spec);

  Status open_data_file();  // collective: the MPI-IO open on every rank
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
  Status background_failure() override { return nc_.background_failure(); }

  // Before the collective write: rank 0 reserves the storage the batch writes and fills
  // variables the batch leaves partly unwritten; a barrier orders that before the data
  // (mpiio_data.cpp).
  Status prepare_file(uint64_t step, const std::vector<uint64_t>& elements, Status* local);
  // Where the data the batch of `step` writes ends: its fixed variables' ends, and the end of
  // record `step` when it touches a record variable.
  uint64_t batch_end(uint64_t step) const;
  // Rank 0: the file reaches `end`, its storage reserved with fill (see prepare_file).
  Status reserve_to(uint64_t end, uint64_t step);
  // Without fill, every rank: the storage of its own extents reserved (see prepare_file).
  Status reserve_extents(const comm::Extents& extents, uint64_t step);
  // Where the file system can reserve nothing (`refused`): OK under an MPI-IO that reports
  // failed writes, else `refused` saying why the step cannot be written and the way out.
  Status without_reservation(const Status& refused) const;
  // The batch's variables, for messages: "variable 'x'", "variables 'x', 'y' and 3 more".
  std::string batch_variables() const;
  // Async: the started write completed (timed as a write wait); its failure, or one an
  // earlier batch's wait met (kept for the commit it belongs to).
  Status finish_write();

  MpiioSpec spec_;
  NetcdfDataset nc_;
  Status deferred_;
  std::unique_ptr<comm::ParallelFile> fh_;  // every rank's MPI-IO handle
  std::unique_ptr<io::File> own_file_;      // without fill, ranks but 0: to reserve storage
  // Every rank: the file's storage is reserved up to here (0 again after a failed step).
  uint64_t reserved_end_ = 0;
  RepeatedPuts repeated_;          // this rank's previous batch (overlap checks)
  std::vector<uint64_t> elements_;  // a batch's elements per variable, taken at open
  // Async: the staging buffer of the write started last (it must outlive the write), and a
  // failure met by a batch that finished the write before it (perform_puts).
  ByteBuffer started_staging_;
  uint64_t started_step_ = 0;
  std::string started_variables_;
  Status failed_;
};

}  // namespace tapio
