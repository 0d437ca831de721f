// The engine interface: what every engine (serial, mpiio, collective, subfile) does, and the
// step state machine and argument checks they all share. An engine only implements the
// collective data movement (write a step, read a batch of gets) and its file lifecycle.
#pragma once
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "comm/comm.h"
#include "comm/node_memory.h"
#include "comm/topology.h"
#include "core/buffer_pool.h"
#include "core/model.h"
#include "engine/conversions.h"
#include "engine/kept_plans.h"
#include "engine/joined.h"
#include "engine/profile.h"
#include "io/filesystem.h"
#include "io/storage.h"
#include "plan/selection.h"

namespace tapio {

enum class OpenMode { kWrite, kRead, kAppend };
enum class StepStatus { kOk, kEndOfStream, kNotReady, kWriterGone };

const char* mode_name(OpenMode mode);

// A deferred put: the data pointer must stay valid until end_step (or perform_puts).
struct PutOp {
  int var = 0;
  plan::SharedSelection sel;  // never null
  const void* data = nullptr;
  uint64_t elements = 0;
};

// A deferred get of steps [step_start, step_start + step_count) (ignored for fixed vars);
// the buffer holds step_count consecutive copies of the selection.
struct GetOp {
  int var = 0;
  plan::SharedSelection sel;  // never null
  uint64_t step_start = 0;
  uint64_t step_count = 1;
  void* data = nullptr;
  uint64_t elements = 0;  // per step
};

// What an engine is asked to open: plain data, no MPI, no live handles. Each engine parses
// the parameters once, at open, into its own typed spec (CollectiveSpec, SubfileSpec, ...).
struct OpenSpec {
  std::string path;
  OpenMode mode = OpenMode::kWrite;
  std::string engine;  // resolved engine name
  Params params;       // effective parameters (program values, then config rules)
  // The Lustre layout of the files the engine creates (write, and append's new subfiles); set
  // at open from the parameters and the file system (engine/file_system_defaults.h), empty
  // elsewhere.
  std::optional<io::LustreLayout> striping;
};

// The live things an engine works with, owned by the context (or the test).
struct Resources {
  const comm::Comm* comm = nullptr;
  IoDef* io = nullptr;  // definitions; read and append modes fill them from the file
  comm::Topology topology;
  BufferPool* buffers = nullptr;  // the context's, for data-path buffers (may be null)
  // The context's node shared memory, made by the first engine that wants it for its topology
  // (collective at that engine's open; may be null). Engines share it.
  std::shared_ptr<comm::NodeMemory>* node_memory = nullptr;
  // Where the engine's files live (io/storage.h); null: the POSIX file system. Every engine
  // creates, opens, lists, locks and removes its files only through it (storage_of).
  io::Storage* storage = nullptr;
  // What the context's closed files planned (kept_plans.h; may be null: nothing is kept).
  PlanMemories* plan_memory = nullptr;
};

// The kept plans of engine kind `kind` ("collective", "subfile") in res, or null.
inline KeptPlans* kept_plans(const Resources& res, const std::string& kind) {
  return res.plan_memory ? &(*res.plan_memory)[kind] : nullptr;
}

// The storage of `res`: its own, or the POSIX file system.
inline io::Storage& storage_of(const Resources& res) {
  return res.storage ? *res.storage : io::posix_storage();
}

// Everything an engine is opened with.
struct EngineEnv {
  OpenSpec spec;
  Resources res;
};

class Engine {
 public:
  explicit Engine(EngineEnv env);
  virtual ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Collective calls. Each returns the same status on every rank, except begin_step in write
  // and append mode, which is local: it communicates nothing, and a misuse it reports (already
  // in a step, closed) also fails the step's end_step on every rank.
  Status begin_step(StepStatus* status);
  Status end_step();
  Status perform_puts();
  Status perform_gets();
  Status close();

  // Local calls: check and queue. A buffer of another numeric type than the variable's is
  // converted (conversions.h): a put at once, a get when the gets are performed.
  Status put(int var, plan::SharedSelection sel, DataType memtype, const void* data);
  // Local: a put this rank could not queue (the API's checks of the variable handle go through
  // here too). Inside a write step it fails that step at end_step, on every rank: committing
  // it would leave fill values where the program meant data. Returns `rejected`.
  Status reject_put(Status rejected);
  // Local, a write step: the program's own reason not to commit it (tapio_fail_step). Like a
  // rejected put, it fails that step's end_step on every rank.
  Status fail_step(Status why);
  Status get(int var, plan::SharedSelection sel, uint64_t step_start, uint64_t step_count,
             DataType memtype, void* data);
  // Local, read mode: the blocks the file stores of `var` at `step` (a fixed variable's,
  // whatever the step), as the writers' selections. What a reader needs to split work the
  // way the data was written (xarray's dask chunks, ADIOS2's BlocksInfo).
  Result<std::vector<plan::Selection>> blocks(int var, uint64_t step);
  // Local, read mode: the bytes of `var` over every step, as put and as stored (they differ
  // where an operator encoded its blocks: subfile datasets); what `tapio ls` shows as a ratio.
  struct StoredSize {
    uint64_t bytes = 0, stored = 0;
  };
  Result<StoredSize> stored_size(int var);

  uint64_t current_step() const { return step_; }
  uint64_t steps() const { return available_steps(); }
  const std::string& path() const { return open_.path; }
  const std::string& name() const { return open_.engine; }
  OpenMode mode() const { return open_.mode; }
  // Whether the program may define variables in the IO while this engine is open: a NetCDF
  // header is laid out at open, and a reader's definitions are the file's.
  virtual bool takes_new_variables() const { return false; }
  // open_engine calls this once the engine is open: the open counts as time inside tapio.
  void opened();

 protected:
  // Collective hooks. They must enter the same collectives on every rank even after a local
  // error (keep the error, move zero bytes), and return their local status; the base agrees.
  // write_puts writes a batch of puts (perform_puts).
  virtual Status write_puts(const std::vector<PutOp>& puts, uint64_t step) = 0;
  // The end of a write step: write its remaining puts and make the step durable and visible.
  // `local` is this rank's failure so far (a misused call, a failed put); the step must then
  // fail on every rank and not be committed. Returns the agreed status.
  virtual Status write_step(const std::vector<PutOp>& puts, uint64_t step, const Status& local) = 0;
  // Reads a batch of gets. A status it returns agreed (the same on every rank, say because
  // the hook's own last collective carried every rank's outcome) is not agreed on again.
  virtual Status read_gets(const std::vector<GetOp>& gets) = 0;
  // A batch (a step's puts, a perform_gets) failed on every rank: nothing planned or kept
  // from it may be reused by the next one.
  virtual void forget_failed_batch() {}
  virtual Status close_files() = 0;
  virtual uint64_t available_steps() const = 0;
  // Read mode, a valid var and step: the stored blocks. A NetCDF file holds a variable's
  // step as one block, its whole shape.
  virtual Result<std::vector<plan::Selection>> stored_blocks(int var, uint64_t step);
  // Read mode, a valid var: stored_size's sums. A NetCDF file stores every byte as put.
  virtual Result<StoredSize> sum_stored(int var);
  // Where joined variable `var`'s rows of `step` start in the stored variable: 0 where each
  // step is stored apart (subfile datasets); after the earlier steps' rows in a NetCDF ragged
  // array. Puts and gets of joined variables reach the engine hooks shifted by it.
  virtual uint64_t joined_rows_before(int /*var*/, uint64_t /*step*/) const { return 0; }
  // Write mode: the placement of the batch being written (joined.h); an engine that calls
  // keep_joined_totals at open also learns each step's rows after its last batch.
  const JoinedPlacer& joined() const { return joined_; }
  void keep_joined_totals() { joined_.keep_totals(); }
  // Write mode, async output: a background failure this rank already knows of, which
  // begin_step reports at once (the next end_step or close reports it on every rank).
  virtual Status background_failure() { return ok_status(); }
  // Async output: steps from `step` on were not committed after all (a background write
  // failed), so the next step is `step` again.
  void rewind_to(uint64_t step);
  // Read mode only: look for steps that appeared since open (read while writing).
  virtual Status refresh_steps() { return ok_status(); }
  // Read mode only, collective: what begin_step answers after the last available step:
  // kEndOfStream once the writer closed (a NetCDF file: always), kNotReady while it may still
  // add steps, kWriterGone when it stopped without closing.
  virtual Result<StepStatus> end_of_steps() { return StepStatus::kEndOfStream; }

  const comm::Comm& comm() const { return *res_.comm; }
  const Resources& resources() const { return res_; }
  io::Storage& storage() const { return storage_of(res_); }
  // Every rank's status, agreed (timed as the agree phase); `then` counts where no rank
  // failed `local` (comm::agree).
  Status agree(const Status& local, const Status& then = ok_status());
  const IoDef& io() const { return *res_.io; }
  IoDef* mutable_io() { return res_.io; }  // read and append: the file's definitions
  const Params& params() const { return open_.params; }  // for the engines' spec parsing
  const OpenSpec& open_spec() const { return open_; }
  Profile& profile() { return measured_.profile; }
  // Append: the first step to write is the file's step count.
  void start_at_step(uint64_t step) { step_ = step; }
  // Prefix for errors: "file 'x.nc'".
  std::string where() const;
  // Prefix for errors about one variable in a collective call: "file 'x.nc', variable 'v',
  // step s" (comm::agree adds the failing rank).
  std::string at_step(int var, uint64_t step) const;
  // What an allocation failure in a write step was doing: "writing step s of file 'x.nc'".
  std::string writing() const;

 private:
  OpenSpec open_;
  Resources res_;
  uint64_t step_ = 0;  // write: step being written; read: current step

  // Prefix for errors about one variable in a local call: "file 'x.nc', variable 'v', rank r".
  std::string on_rank(int var) const;
  Status check_index(int var) const;
  Status check_type(int var, DataType memtype) const;
  Status require(bool condition, const char* call, const char* what,
                 const std::string& context) const;
  Status queue_put(int var, plan::SharedSelection sel, DataType memtype, const void* data);
  // The elements of `sel`, checked against the shape of `var` (not joined) once per selection
  // object: a program giving the same map every step pays one check, not one per put, and so
  // does one alternating two (a PIO darray's map and its holes' fill).
  Result<uint64_t> checked_elements(int var, const plan::SharedSelection& sel,
                                    const std::string& context);
  // Places this batch's joined puts (collective), then shifts them by joined_rows_before.
  Status place_joined(bool contribute, bool last);
  // Read mode: a joined variable's length at `step`, from its stored blocks.
  Result<uint64_t> joined_length_at(int var, uint64_t step);
  // Read mode: the joined variables' shape[0] becomes `step`'s length.
  Status size_joined_vars(uint64_t step);
  class CallTimer;

  // What this engine measures, and where close writes it.
  struct Measured {
    Profile profile;
    std::string path;  // the `profile` parameter
    int depth = 0;     // nesting of public calls (CallTimer)
    std::chrono::steady_clock::time_point opened = std::chrono::steady_clock::now();
  } measured_;
  bool in_step_ = false;
  bool closed_ = false;
  bool started_ = false;  // read mode: a first begin_step happened
  std::vector<PutOp> puts_;
  std::vector<GetOp> gets_;
  struct Checked {
    plan::SharedSelection sel;
    uint64_t elements = 0;
  };
  // By variable: the last two selections checked_elements passed, the latest first.
  std::vector<std::array<Checked, 2>> checked_;
  JoinedPlacer joined_;  // write: where this rank's blocks of joined variables go
  // Why this rank fails the open write step: its first rejected put, or the program's reason.
  Status failed_step_;
  Conversions conversions_;  // the buffers of puts and gets of another type than their variable's
};

// What an engine offers beyond the Engine interface, which every engine implements in full
// (async included).
struct EngineCapabilities {
  bool operators = false;  // its format stores coded blocks (the `operator` parameter)
};

// One built engine: its name (a value of the `engine` key), capabilities and factory.
struct EngineEntry {
  std::string_view name;
  EngineCapabilities capabilities;
  Result<std::unique_ptr<Engine>> (*open)(EngineEnv env);
};

// Every built engine, in the order of engine_names().
const std::vector<EngineEntry>& engine_registry();

// Open an engine by env.engine. Collective; returns the same status on every rank.
Result<std::unique_ptr<Engine>> open_engine(EngineEnv env);

// Whether `path` in `storage` is a subfile dataset: a directory holding its index (tapio.idx),
// whatever its name. Local.
bool is_subfile_dataset(io::Storage& storage, const std::string& path);

// The engine a path gets when neither the program nor the config names one: to read or append,
// an existing dataset gets "subfile" whatever its name (`x.nc` too); otherwise paths ending in
// `.nc` get "collective" and others "subfile". Collective: rank 0 looks, the others are told.
Result<std::string> default_engine(const comm::Comm& comm, io::Storage& storage,
                                   const std::string& path, OpenMode mode);

}  // namespace tapio
