// mpiio engine: its spec, opening and closing the MPI-IO handle (comm/parallel_file.h),
// through which every batch goes. The data paths that build the extents are in mpiio_data.cpp.
#include "engine/mpiio/mpiio_engine.h"

#include "core/out_of_memory.h"

namespace tapio {

Result<MpiioSpec> MpiioSpec::parse(const Params& params) {
  MpiioSpec s;
  s.file = NetcdfSpec::parse(params);
  TAPIO_ASSIGN_OR_RETURN(s.hints, comm::parse_mpiio_hints(params.get("mpiio_hints")));
  return s;
}

MpiioEngine::MpiioEngine(EngineEnv env, MpiioSpec spec)
    : Engine(std::move(env)),
      spec_(std::move(spec)),
      nc_(dataset_env(resources(), open_spec(), &profile(), spec_.file)) {
  if (nc_.async() && mode() != OpenMode::kRead)
    nc_.set_engine_writes([this] { return finish_write(); });
}

MpiioEngine::~MpiioEngine() = default;  // close() ran (the API closes every engine it deletes)

Result<std::unique_ptr<Engine>> MpiioEngine::open(EngineEnv env) {
  // Bad hints fail before the file is created (every rank has the same parameters; agree
  // anyway, as every collective call does).
  auto spec = MpiioSpec::parse(env.spec.params);
  TAPIO_RETURN_IF_ERROR(comm::agree(
      *env.res.comm, spec.status().with_context(fmt::format("file '{}'", env.spec.path))));
  std::unique_ptr<MpiioEngine> e(new MpiioEngine(std::move(env), std::move(spec).value()));
  uint64_t first = 0;
  TAPIO_RETURN_IF_ERROR(e->nc_.open(&first));
  e->start_at_step(first);
  TAPIO_RETURN_IF_ERROR(e->open_data_file());
  return std::unique_ptr<Engine>(std::move(e));
}

Status MpiioEngine::open_data_file() {
  // The file exists (the dataset created it on rank 0 and agreed). The per-variable list a
  // batch sums is taken here, and its failure agreed with the open.
  const Status listed = catch_out_of_memory(fmt::format("opening {}", where()), [&] {
    elements_.reserve(io().vars.size() + 1);
    return ok_status();
  });
  auto opened = comm::ParallelFile::open(comm(), path(), mode() == OpenMode::kRead, spec_.hints);
  Status st = comm::agree(comm(), listed, opened.status());
  if (opened.ok()) fh_ = std::move(opened).value();
  // Open is collective: it failed everywhere or the agreement reported a rank's failure.
  // Close what did open (collective over the ranks holding a handle); rank 0's POSIX handle
  // closes with the engine (no fill, no sync: the open failed).
  if (!st.ok() && fh_) {
    keep(&st, fh_->close());
    fh_.reset();
  }
  return st;
}

Status MpiioEngine::write_step(const std::vector<PutOp>& puts, uint64_t step,
                               const Status& local) {
  uint64_t redo = step;
  // The engine drives the step: the outcome so far agreed, its puts written, then the commit.
  Status st = nc_.before_puts(local, &deferred_, &redo);
  if (st.ok()) st = nc_.after_puts(step, write_puts(puts, step), &deferred_);
  if (redo < step) rewind_to(redo);
  // Agreed: a failed step may have left its reservation short, the next one makes it again.
  if (!st.ok()) reserved_end_ = 0;
  return st;
}

Status MpiioEngine::finish_write() {
  Status st = std::exchange(failed_, Status());
  PhaseTimer t(&profile(), Phase::kWrite);
  if (fh_)
    keep(&st, fh_->finish_write().with_context(
                  fmt::format("step {} (a background write), {}", started_step_,
                              started_variables_)));
  return st;
}

uint64_t MpiioEngine::available_steps() const {
  return mode() == OpenMode::kRead ? nc_.header().numrecs : current_step();
}

Status MpiioEngine::close_files() {
  uint64_t redo = 0;
  const Status finished =  // agreed on every rank: the last step's write and its commit
      nc_.async() && mode() != OpenMode::kRead ? nc_.finish_async(&redo) : ok_status();
  Status local = ok_status();
  if (fh_) {
    // fsync = step is served by commit's fsync on rank 0's handle (data and numrecs are one
    // inode on a local file system); the data handle is synced once here, before close.
    if (mode() != OpenMode::kRead && spec_.file.fsync != Fsync::kNever) {
      PhaseTimer t(&profile(), Phase::kMetadata);
      local = fh_->sync();
    }
    keep(&local, fh_->close());
    fh_.reset();
  }
  if (own_file_) keep(&local, own_file_->close());
  const Status base = nc_.close(std::exchange(deferred_, Status()));
  if (!finished.ok()) return finished;
  return local.ok() ? base : local;
}

}  // namespace tapio
