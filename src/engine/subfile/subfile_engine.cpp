// Subfile engine: construction, opening by mode, closing. Writing is in subfile_write.cpp,
// reading in subfile_read.cpp.
#include "engine/subfile/subfile_engine.h"

namespace tapio {

SubfileEngine::SubfileEngine(EngineEnv env) : Engine(std::move(env)) {
  delegate_reads_ = env_.params.get("metadata_read") != "all";
}

Result<std::unique_ptr<Engine>> SubfileEngine::open(EngineEnv env) {
  if (!host_is_little_endian())
    return error(TAPIO_ERR_UNSUPPORTED, "the subfile format is little-endian; this host is not");
  std::unique_ptr<SubfileEngine> e(new SubfileEngine(std::move(env)));
  Status st;
  switch (e->env_.mode) {
    case OpenMode::kWrite: st = e->create(); break;
    case OpenMode::kAppend: st = e->open_append(); break;
    case OpenMode::kRead: st = e->open_read(); break;
  }
  if (!st.ok()) return st.with_context(fmt::format("dataset '{}'", e->env_.path));
  return std::unique_ptr<Engine>(std::move(e));
}

std::string SubfileEngine::file_path(const std::string& name) const {
  return env_.path + "/" + name;
}

uint64_t SubfileEngine::available_steps() const {
  return env_.mode == OpenMode::kRead ? catalog_.steps() : step_;
}

bool SubfileEngine::stream_may_grow() const { return !catalog_.ended(); }

Status SubfileEngine::refresh_steps() { return load_metadata(); }

Status SubfileEngine::close_files() {
  Status local = ok_status();
  const bool writing = env_.mode != OpenMode::kRead;
  const bool sync = writing && env_.params.get("fsync") != "never";
  if (writing && comm().rank() == 0) {  // readers waiting for steps learn the stream ended
    subfile::StepRecord end;
    end.kind = subfile::StepKind::kEnd;
    end.step = step_;
    end.generation = generation_;
    local = append_index(end);
  }
  for (auto* f : {data_.get(), md_.get(), index_.get()}) {
    if (!f) continue;
    if (local.ok() && sync) {
      PhaseTimer t(&profile(), Phase::kSync);
      local = f->sync();
    }
    const Status closed = f->close();
    if (local.ok()) local = closed;
  }
  for (auto& [key, f] : data_files_) {  // read-only: a close error loses nothing
    const Status closed = f->close();
    if (local.ok()) local = closed;
  }
  return local;
}

}  // namespace tapio
