// The NetCDF file that the serial, mpiio and collective engines each hold (composition, not a
// base class): the header every rank knows, rank 0's POSIX handle to it, and the record
// bookkeeping — which variables a batch touched, which a step touched, which fixed variables
// were ever written — with the file's lifecycle: create / append / read opening, committing a
// step (fill, then numrecs) and closing. The engines move the data; this object keeps the
// file consistent around it.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/netcdf/netcdf_spec.h"
#include "engine/netcdf/ragged_samples.h"
#include "format/netcdf/header.h"
#include "io/file.h"
#include "io/layers.h"
#include "io/background_writer.h"
#include "io/write_lock.h"

namespace tapio {

// `total` elements of v's fill value, big-endian, as they go to the file.
std::vector<uint8_t> fill_image(const netcdf::Var& v, uint64_t total);
// The same into `out` (room for total elements).
void fill_image_into(const netcdf::Var& v, uint64_t total, uint8_t* out);

// What a NetcdfDataset works with: the engine's resources, the file and its spec.
struct DatasetEnv {
  const comm::Comm* comm = nullptr;
  IoDef* io = nullptr;
  std::string path;
  OpenMode mode = OpenMode::kWrite;
  Profile* profile = nullptr;
  NetcdfSpec spec;
  std::optional<io::LustreLayout> striping;  // the new file's layout (OpenSpec::striping)
  // Buffering layers of rank 0's file: the serial engine's only, since elsewhere MPI-IO or
  // aggregators write the same file through other descriptors (docs/design.md).
  io::LayerSpec layers;
  io::Storage* storage = nullptr;  // where the file lives: every rank opens it through this
};

// Which variables some rank put: in the last batch, and in the current step.
struct RecordStep {
  std::vector<uint8_t> batch;  // 1 for a variable put in the last batch (note_puts)
  std::vector<bool> step;      // variables put in the step being written
};

// Where the data of a header's `numrecs` records ends: the exact bytes (not vsize, which pads
// to 4: a file whose last variable has an odd size legitimately ends before the padding).
uint64_t data_end_of(const netcdf::Header& h);

// Rank 0: commit record h.numrecs - 1 of `file`: fill the record variables `touched` leaves
// out (with fill), make the file reach the record's end, then numrecs, synced around it with
// fsync = step. `profile` null: a background thread, which times no phase. `shown` (a file
// with joined arrays): the header as the file shows it once the record is committed, written
// whole instead of numrecs alone (its sample dimensions grew with the record).
Status commit_record(io::File& file, const netcdf::Header& h, const std::vector<bool>& touched,
                     const NetcdfSpec& spec, Profile* profile,
                     const netcdf::Header* shown = nullptr);
// Rank 0: v's fill value over record `step` (or over a fixed v); `profile` as above;
// `record_size` is h.record_size(), computed once by a caller looping over variables.
Status write_fill_at(io::File& file, const netcdf::Header& h, int var, uint64_t step,
                     Profile* profile, uint64_t record_size);

// The dataset of an engine: its resources and profile, and the file's spec.
DatasetEnv dataset_env(const Resources& res, const OpenSpec& open, Profile* profile,
                       NetcdfSpec spec);

class NetcdfDataset {
 public:
  explicit NetcdfDataset(DatasetEnv env) : env_(std::move(env)) {}

  // Collective: create (write mode), or open and read the header (read, append). Append
  // returns the step to continue from in *first_step.
  Status open(uint64_t* first_step);
  // Collective: which variables some rank put in this batch (RecordStep::batch). Values in
  // *also_summed are summed over the ranks in the same reduction.
  // `local`: this rank's outcome so far, agreed on in the same reduction.
  Status note_puts(const std::vector<PutOp>& puts, std::vector<uint64_t>* also_summed = nullptr,
                   const Status& local = ok_status());
  // The same from sums an engine reduced itself: `puts_per_var[v]` is how many puts of
  // variable v the ranks made in this batch (the same on every rank).
  void note_batch(const uint64_t* puts_per_var);
  // A step of an engine that writes its puts between two calls (serial, mpiio), in order:
  // before_puts (collective) agrees on `local`; with `async` (netcdf_async.cpp) it first
  // settles the previous step, whose background writes' failure fails this call on every rank
  // and sets *redo to that step, which the next step rewrites. after_puts (collective) agrees
  // on `written` and *deferred (an engine's first local error, taken after the puts), then
  // commits step `step`, or with `async` holds its commit until the next before_puts.
  Status before_puts(const Status& local, Status* deferred, uint64_t* redo);
  Status after_puts(uint64_t step, Status written, Status* deferred);
  // Collective, not async: commits step `step`, whose data every rank has written (agreed on
  // by the caller), unless `local` (every rank's outcome so far) failed; agreed.
  Status commit(uint64_t step, const Status& local);
  // Async, for an engine that drives its steps (before_puts' and after_puts' parts):
  // collective, the pending step's background writes agreed on (a failure sets *redo),
  // then rank 0 queues its commit; and, once step `step`'s writes are queued and agreed on,
  // that step pending until the next call.
  Status settle_pending(uint64_t* redo);
  void hold_commit(uint64_t step);
  // Async, rank 0: queue a write of the step being written that holds `bytes` until it has run
  // (timed as a background write); waits first while the queued writes hold more than
  // async_buffer allows (counted in the profile). The job runs on the background thread: it
  // must not touch this object or call MPI.
  void write_behind(uint64_t bytes, std::function<Status()> job);
  // Async, rank 0: room for `bytes` more in the background writes, waiting if needed; call
  // before building the buffer a write_behind job will hold.
  void reserve(uint64_t bytes);
  bool async() const { return env_.spec.async; }
  // Async: a step's writes are queued and its commit waits; the next before_puts agrees on
  // them first (so every background write has finished when its puts are written).
  bool has_pending_step() const { return pending_.has_value(); }
  // Async: the engine's own background writes of a step on this rank (the collective engine's
  // aggregators and direct writers), finished with their first failure; waited for with rank
  // 0's before a step's commit is queued.
  void set_engine_writes(std::function<Status()> finish) { engine_writes_ = std::move(finish); }
  // Async: a background failure this rank already knows of (begin_step reports it early).
  Status background_failure();
  // Collective, async: close's part: the last step's writes finished everywhere, then its
  // commit (agreed). Sets *redo on a failure, as before_puts does.
  Status finish_async(uint64_t* redo);
  // This rank's part of close (rank 0: fill unwritten fixed variables, sync, close); the
  // caller agrees.
  Status close(Status deferred);
  // Rank 0: write v's fill value over record `step` (or over a fixed v).
  Status write_fill(int var, uint64_t step);

  // Joined arrays (ragged_samples.h). Where joined variable `var`'s rows of `step` start in
  // its NetCDF variable, and a read step's block of it (else the whole shape, as any NetCDF
  // variable stores one block per step).
  uint64_t joined_rows_before(int var, uint64_t step) const {
    return ragged_.rows_before(var, step);
  }
  std::vector<plan::Selection> stored_blocks(int var, uint64_t step) const;
  // Write, every rank: the rows step `step` adds to each sample dimension, from each joined
  // variable's; checked (variables sharing a dimension agree, the rows fit the reservation)
  // before any data of the step's last batch moves. Committed with the step.
  Status plan_joined_step(const std::function<uint64_t(int)>& rows_of_var, uint64_t step);
  bool has_joined() const { return !ragged_.empty(); }
  // Collective, write, before a batch of step `step` moves: the sample dimensions' room holds
  // the step's rows so far (`rows_of_var`: each joined variable's, this batch's included);
  // else the file makes more (RaggedSamples::grown), every rank copies its share of the data
  // laid out after it (`written_of_var` rows of each joined variable that moves having been
  // written in this step's earlier batches), and, once all have, rank 0 writes the header that
  // points to the new place.
  Status fit_joined(const std::function<uint64_t(int)>& rows_of_var,
                    const std::function<uint64_t(int)>& written_of_var, uint64_t step);

  const netcdf::Header& header() const { return header_; }
  // A buffer of 2 x variables + 8 values taken at open (write mode), for a batch's reduction
  // of per-variable sums, so that a step takes no memory for it (note_puts uses it too).
  std::vector<uint64_t>& sums() { return sums_; }
  const std::vector<uint8_t>& touched() const { return record_.batch; }
  io::File* root_file() { return file_.get(); }  // rank 0 only
  const NetcdfSpec& spec() const { return env_.spec; }
  bool has_record_vars() const { return header_.record_dimid() >= 0; }
  uint64_t data_end() const;  // where the last byte of committed data ends
  std::string where() const { return fmt::format("file '{}'", env_.path); }

 private:
  const comm::Comm& comm() const { return *env_.comm; }
  Status agree(const Status& local);
  Status create();
  Status build_header();
  // Rank 0, write and append: the writer's lock on the file (io/write_lock.h), before anything
  // in it changes; `create` (write mode) makes a missing file.
  Status lock_file(bool create);
  Status lock_and_create();  // rank 0, write: the lock, then the file created or truncated
  Status create_on_root();
  Status open_existing(uint64_t* first_step);
  Status check_size();
  // Read and append: the counts of the file's ragged arrays, read by rank 0 and shared.
  Status read_samples();
  // Rank 0, write: the header as the file shows it (ragged_samples.h), written at 0.
  Status write_shown_header();
  // Write (fit_joined), every rank: its share of each move (an equal slice, in MiB), through
  // its own handle to the file, synced as fsync asks.
  Status copy_share(const std::vector<RaggedSamples::Move>& moves);
  Status merge_append_definitions(const IoDef& from_file);
  Result<netcdf::Header> appended_header(const IoDef& merged) const;
  // Rank 0: fill what nobody wrote, then numrecs (after a sync with fsync = step).
  Status commit_step(uint64_t step, Status local);
  Status sync_file();  // timed as the sync phase
  // This rank's background writes (rank 0's queue, the engine's) finished; the first error.
  Status wait_behind();

  DatasetEnv env_;
  // Rank 0, write and append: held until the dataset is destroyed, after every handle to the
  // file (declared before them, so destroyed after them).
  std::unique_ptr<io::WriteLock> lock_;
  std::unique_ptr<io::File> file_;   // rank 0 only: header, numrecs, fill
  netcdf::Header header_;            // every rank
  RecordStep record_;                // every rank
  std::vector<uint64_t> sums_;       // note_puts' reduction, taken at open: a step's takes none
  std::vector<bool> fixed_written_;  // every rank: fixed vars written at least once
  RaggedSamples ragged_;             // every rank: the joined arrays' rows per step
  std::vector<uint64_t> joined_rows_;  // write: the rows the step being written adds
  // Async: rank 0's background thread (the data file's only user while it runs), and the
  // step written but not yet committed, with the record variables it touched.
  uint64_t committed_ = 0;  // rank 0, async: steps whose commit finished (the thread's)
  // Its thread starts at the first use; declared after what its jobs use: destroyed first.
  io::BackgroundWriter behind_{
      {false, env_.profile ? &env_.profile->async.background_write_ns : nullptr}};
  std::function<Status()> engine_writes_;
  struct Pending {
    uint64_t step;
    std::vector<bool> touched;  // the record variables it wrote
  };
  std::optional<Pending> pending_;
};

}  // namespace tapio
