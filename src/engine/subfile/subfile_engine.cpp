// Subfile engine: the parameters parsed once, opening by mode, closing. Writing is in
// subfile_setup.cpp, subfile_write.cpp and subfile_commit.cpp, reading in subfile_read.cpp and
// subfile_fetch.cpp.
#include "engine/subfile/subfile_engine.h"

namespace tapio {
namespace {

SubfileSpec parse_spec(const Params& p) {
  SubfileSpec s;
  s.fpp = p.get("aggregators") == "all";
  s.block_align = std::max<uint64_t>(1, p.get_size("block_align"));
  s.round = std::max<uint64_t>(1, std::min<uint64_t>(p.get_size("buffer_size"), 1ull << 30));
  s.stats = p.get("statistics") == "minmax";
  const std::string md = p.get("metadata");
  s.metadata = md == "log"       ? SubfileSpec::Metadata::kLog
               : md == "aligned" ? SubfileSpec::Metadata::kAligned
                                 : SubfileSpec::Metadata::kGather;
  s.metadata_chunk = s.metadata == SubfileSpec::Metadata::kAligned
                         ? std::max<uint64_t>(1, p.get_size("metadata_chunk"))
                         : 1;
  s.delegate_reads = p.get("metadata_read") != "all";
  s.prefetch = p.get_size("metadata_prefetch");
  s.merge_below = p.get_size("read_merge_below");
  s.sync_step = p.get("fsync") == "step";
  s.sync_close = p.get("fsync") != "never";
  return s;
}

}  // namespace

SubfileEngine::SubfileEngine(EngineEnv env)
    : Engine(std::move(env)), spec_(parse_spec(env_.params)) {}

SubfileEngine::~SubfileEngine() {
  if (writer_) (void)writer_->drain();
  if (!env_.buffers) return;
  for (ByteBuffer& b : round_bufs_) env_.buffers->give(std::move(b));
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
  if (writer_) {
    PhaseTimer t(&profile(), Phase::kWrite);
    local = writer_->drain();
  }
  // Readers following the dataset learn that it ended.
  if (writing && comm().rank() == 0 && local.ok()) {
    subfile::StepRecord end;
    end.kind = subfile::StepKind::kEnd;
    end.step = step_;
    end.generation = generation_;
    local = append_index(end);
  }
  for (auto* f : {data_.get(), md_.get(), index_.get()}) {
    if (!f) continue;
    if (local.ok() && writing && spec_.sync_close) {
      PhaseTimer t(&profile(), Phase::kSync);
      local = f->sync();
    }
    const Status closed = f->close();
    if (local.ok()) local = closed;
  }
  for (auto& [key, f] : data_files_) {  // read-only: a close error loses nothing
    if (!f) continue;  // its open failed (a missing data file), and that was reported
    const Status closed = f->close();
    if (local.ok()) local = closed;
  }
  return local;
}

}  // namespace tapio
