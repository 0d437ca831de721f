// Subfile engine: opening by mode, closing. The parameters are parsed in subfile_spec.cpp. Writing is in
// subfile_setup.cpp, subfile_write.cpp and subfile_commit.cpp, reading in subfile_read.cpp and
// subfile_fetch.cpp.
#include "engine/subfile/subfile_engine.h"

#include "engine/netcdf/ragged_samples.h"

namespace tapio {
namespace {

// A dataset that writes must convert (`tapio convert`, issue 29): the NetCDF file of its
// definitions, made as the collective engine makes it (joined variables as ragged arrays),
// must be valid: dimensions shared by name with one length, no count variable's name taken.
// Pure, so alike on every rank. A dataset stores no declared dimensions (tapio convert
// numbers them by use, with `time` the unlimited one): they are left out.
Status check_converts(const IoDef& io) {
  netcdf::Header h;
  IoDef undeclared = io;
  undeclared.dims.clear();
  const Status st =
      RaggedSamples::for_writing(undeclared, 5, netcdf::LayoutOptions{}, 1, &h).status();
  if (st.ok()) return st;
  return Status(st.code(), "the definitions would not convert to NetCDF (tapio convert): " +
                               st.message());
}

}  // namespace

SubfileEngine::SubfileEngine(EngineEnv env)
    : Engine(std::move(env)), spec_(SubfileSpec::parse(params())) {}

SubfileEngine::~SubfileEngine() {
  (void)writer_.drain();  // queued writes point into the round buffers
  if (!resources().buffers) return;
  for (ByteBuffer& b : round_bufs_) resources().buffers->give(std::move(b));
}

Result<std::unique_ptr<Engine>> SubfileEngine::open(EngineEnv env) {
  if (!host_is_little_endian())
    return error(TAPIO_ERR_UNSUPPORTED, "the subfile format is little-endian; this host is not");
  std::unique_ptr<SubfileEngine> e(new SubfileEngine(std::move(env)));
  TAPIO_ASSIGN_OR_RETURN(e->spec_.layers,
                         io::LayerSpec::parse(e->params(), e->params().get_size("stripe_size")));
  // Async queues rank 0's one metadata write; the log backends' writes by every rank are not.
  if (e->spec_.async && e->mode() != OpenMode::kRead &&
      e->spec_.metadata != SubfileSpec::Metadata::kGather)
    return error(TAPIO_ERR_UNSUPPORTED, "dataset '{}': async = true needs metadata = gather",
                 e->path());
  Status st;
  switch (e->mode()) {
    case OpenMode::kWrite:  // a bad operator is found (alike on every rank) before creating
      st = check_converts(e->io());
      if (st.ok()) st = e->resolve_operators();
      if (st.ok()) st = e->create();
      break;
    case OpenMode::kAppend:  // the dataset's variables and the program's
      st = e->open_append();
      if (st.ok()) st = check_converts(e->io());
      if (st.ok()) st = e->resolve_operators();
      break;
    case OpenMode::kRead: st = e->open_read(); break;
  }
  if (!st.ok()) return st.with_context(fmt::format("dataset '{}'", e->path()));
  return std::unique_ptr<Engine>(std::move(e));
}

std::string SubfileEngine::file_path(const std::string& name) const {
  return path() + "/" + name;
}

uint64_t SubfileEngine::available_steps() const {
  return mode() == OpenMode::kRead ? catalog_.steps() : current_step();
}


Status SubfileEngine::refresh_steps() { return load_metadata(); }

Status SubfileEngine::close_files() {
  const bool writing = mode() != OpenMode::kRead;
  Status local = writing ? settle_pending() : ok_status();  // async: the last step's record
  if (writer_.started()) {
    PhaseTimer t(&profile(), Phase::kWrite);
    keep(&local, writer_.drain());
  }
  // Readers following the dataset learn that it ended.
  if (writing && comm().rank() == 0 && local.ok()) local = commit_index(end_record(), md_end_);
  for (auto* f : {data_.get(), md_.get(), index_.get()})
    if (f) keep(&local, close_file(f, writing && local.ok() && spec_.sync_close));
  for (auto& [key, f] : data_files_)  // read-only: a close error loses nothing
    if (f) keep(&local, f->close());  // null: its open failed (a missing file), reported then
  return local;
}

subfile::StepRecord SubfileEngine::end_record() const {
  subfile::StepRecord end = new_record(current_step());
  end.kind = subfile::StepKind::kEnd;
  return end;
}

subfile::StepRecord SubfileEngine::open_record() const {
  subfile::StepRecord open = new_record(current_step());
  open.kind = subfile::StepKind::kOpen;
  return open;
}

subfile::StepRecord SubfileEngine::new_record(uint64_t step) const {
  subfile::StepRecord record;
  record.step = step;
  record.generation = generation_;
  if (records_writer_state()) record.time = subfile::record_time();
  return record;
}

// Zero-padded to the next metadata_chunk boundary (metadata = aligned), where the next region
// starts: no stale bytes of a failed attempt stay between the two for `tapio repair` to meet.
std::vector<uint8_t> SubfileEngine::commit_record(const subfile::StepRecord& record) const {
  if (!records_writer_state()) return {};
  auto bytes = subfile::encode_record(subfile::RecordKind::kCommit, subfile::encode_step(record));
  const uint64_t chunk = spec_.metadata_chunk;
  bytes.resize((bytes.size() + chunk - 1) / chunk * chunk, 0);
  return bytes;
}

Status SubfileEngine::close_file(io::File* f, bool sync) {
  if (sync) {
    PhaseTimer t(&profile(), Phase::kSync);
    TAPIO_RETURN_IF_ERROR(f->sync());
  }
  return f->close();
}

}  // namespace tapio
