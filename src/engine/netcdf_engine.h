// The base of every engine that writes one NetCDF file (serial, mpiio, collective): the file
// lifecycle they share. A subclass moves the data (write_puts, read_gets) and calls note_puts
// once per batch of puts so that fill and commit know what was written.
#pragma once
#include <memory>
#include <vector>

#include "engine/engine.h"
#include "format/netcdf/header.h"
#include "io/file.h"
#include "plan/coverage.h"
#include "plan/selection_codec.h"

namespace tapio {

// `total` elements of v's fill value, big-endian, as they go to the file.
std::vector<uint8_t> fill_image(const netcdf::Var& v, uint64_t total);

class NetcdfEngine : public Engine {
 protected:
  explicit NetcdfEngine(EngineEnv env);
  // Collective: create (write mode), or open and read the header (read, append).
  Status open_file();
  // Collective: which variables some rank put in this batch (sets touched_now_). Values in
  // *also_summed are summed over the ranks in the same reduction.
  Status note_puts(const std::vector<PutOp>& puts, std::vector<uint64_t>* also_summed = nullptr);
  // Rank 0: write v's fill value over record `step` (or over a fixed v).
  Status write_fill(int var, uint64_t step);
  // Collective: every rank's requests reach rank 0, in rank order (one gather; netcdf_requests.cpp).
  Status gather_requests(const std::vector<plan::Request>& mine,
                         std::vector<std::vector<plan::Request>>* all);
  // Rank 0: the runs of `var` in all ranks' requests, sorted by offset into *owned, and the
  // elements they cover; or TAPIO_ERR_SHAPE naming the file, variable and step, and two ranks
  // whose runs overlap with their elements.
  Result<uint64_t> covered(int var, uint64_t step,
                           const std::vector<std::vector<plan::Request>>& all,
                           std::vector<plan::OwnedRun>* owned) const;

  // Agrees on `local`, writes the puts (write_puts), then commits (commit_step), agreeing
  // after each.
  Status write_step(const std::vector<PutOp>& puts, uint64_t step, const Status& local) override;
  Status close_files() override;
  uint64_t available_steps() const override;

  bool has_record_vars() const;
  uint64_t data_end() const;  // where the last byte of committed data ends

  std::unique_ptr<io::File> file_;    // rank 0 only: header, numrecs, fill
  netcdf::Header header_;             // every rank
  std::vector<uint8_t> touched_now_;  // every rank: vars put in the last batch (note_puts)
  Status deferred_;                   // the first local error, reported at the next agreement

 private:
  Status create();
  Status open_existing();
  Status merge_append_definitions(const IoDef& from_file);
  // Rank 0: fill what nobody wrote, then numrecs (after a sync with fsync = step).
  Status commit_step(uint64_t step);

  std::vector<bool> fixed_written_;  // every rank: fixed vars written at least once
  std::vector<bool> step_touched_;   // every rank: vars some rank put in the current step
};

}  // namespace tapio
