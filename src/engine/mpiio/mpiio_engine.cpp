// mpiio engine: hints, opening and closing the MPI-IO handle (comm/parallel_file.h), through
// which every batch goes. The data paths that build the extents are in mpiio_data.cpp.
#include "engine/mpiio/mpiio_engine.h"

namespace tapio {

MpiioEngine::MpiioEngine(EngineEnv env) : NetcdfEngine(std::move(env)) {}

MpiioEngine::~MpiioEngine() = default;  // close() ran (the API closes every engine it deletes)

Result<std::unique_ptr<Engine>> MpiioEngine::open(EngineEnv env) {
  std::unique_ptr<MpiioEngine> e(new MpiioEngine(std::move(env)));
  // Bad hints fail before the file is created (every rank has the same parameters; agree
  // anyway, as every collective call does).
  auto hints = comm::parse_mpiio_hints(e->env_.params.get("mpiio_hints"));
  TAPIO_RETURN_IF_ERROR(comm::agree(e->comm(), hints.status().with_context(e->where())));
  e->hints_ = std::move(hints).value();
  TAPIO_RETURN_IF_ERROR(e->open_file());
  TAPIO_RETURN_IF_ERROR(e->open_data_file());
  return std::unique_ptr<Engine>(std::move(e));
}

Status MpiioEngine::open_data_file() {
  // The file exists (open_file created it on rank 0 and agreed).
  auto opened = comm::ParallelFile::open(comm(), env_.path, env_.mode == OpenMode::kRead, hints_);
  Status st = comm::agree(comm(), opened.status());
  if (opened.ok()) fh_ = std::move(opened).value();
  // Open is collective: it failed everywhere or the agreement reported a rank's failure.
  // Close what did open (collective over the ranks holding a handle); rank 0's POSIX handle
  // closes with the engine (no fill, no sync: the open failed).
  if (!st.ok() && fh_) {
    (void)fh_->close();
    fh_.reset();
  }
  return st;
}

Status MpiioEngine::close_files() {
  Status local = ok_status();
  if (fh_) {
    // fsync = step is served by commit's fsync on rank 0's handle (data and numrecs are one
    // inode on a local file system); the data handle is synced once here, before close.
    if (env_.mode != OpenMode::kRead && env_.params.get("fsync") != "never") {
      PhaseTimer t(&profile(), Phase::kMetadata);
      local = fh_->sync();
    }
    keep(&local, fh_->close());
    fh_.reset();
  }
  const Status base = NetcdfEngine::close_files();
  return local.ok() ? base : local;
}

Status MpiioEngine::transfer(bool write, const comm::Extents& extents, uint8_t* buffer,
                             uint64_t bytes) {
  return fh_->transfer(write, extents, buffer, bytes);
}

}  // namespace tapio
