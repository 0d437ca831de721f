// Subfile engine: opening by mode, and each call handed to the writer or the reader. The
// parameters are parsed in subfile_spec.cpp. Writing is in subfile_setup.cpp,
// subfile_write.cpp, subfile_rounds.cpp, subfile_async.cpp and subfile_commit.cpp, reading in
// subfile_read_metadata.cpp, subfile_read.cpp and subfile_fetch.cpp; operators (both) in
// subfile_operators.cpp.
#include "engine/subfile/subfile_engine.h"

#include "core/out_of_memory.h"

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

// Append: the program's variables that the dataset has must be declared as the dataset has
// them; new variables are fine (the definitions record describes them).
Status check_redeclared(const IoDef& dataset, const IoDef& program) {
  for (const VariableDef& v : program.vars) {
    const int i = dataset.find_var(v.name);
    if (i < 0) continue;
    const VariableDef& f = dataset.vars[i];
    if (f.type != v.type || f.shape != v.shape || f.record != v.record || f.joined != v.joined)
      return error(TAPIO_ERR_SHAPE, "variable '{}' is declared differently from the dataset",
                   v.name);
  }
  return ok_status();
}

// Append: the dataset's definitions with the program's engine, parameters, attributes and new
// variables.
IoDef merged_definitions(IoDef merged, const IoDef& program) {
  merged.engine = program.engine;
  merged.params = program.params;
  for (const auto& a : program.attrs) set_attribute(merged.attrs, a);
  for (const VariableDef& v : program.vars) {
    const int i = merged.find_var(v.name);
    if (i < 0) {
      merged.vars.push_back(v);
    } else {
      for (const auto& a : v.attrs) set_attribute(merged.vars[i].attrs, a);
    }
  }
  return merged;
}

}  // namespace

SubfileEngine::SubfileEngine(EngineEnv env)
    : Engine(std::move(env)), spec_(SubfileSpec::parse(params())) {}

SubfileEngine::~SubfileEngine() = default;

SubfileParts SubfileEngine::parts() {
  return SubfileParts{comm(),
                      profile(),
                      spec_,
                      resources(),
                      open_spec(),
                      [this] { return current_step(); },
                      [this](uint64_t step) { rewind_to(step); },
                      [this](int var, uint64_t step) { return at_step(var, step); }};
}

Result<std::unique_ptr<Engine>> SubfileEngine::open(EngineEnv env) {
  if (!host_is_little_endian())
    return error(TAPIO_ERR_UNSUPPORTED, "the subfile format is little-endian; this host is not");
  std::unique_ptr<SubfileEngine> e(new SubfileEngine(std::move(env)));
  TAPIO_ASSIGN_OR_RETURN(e->spec_.layers,
                         io::LayerSpec::parse(e->params(), e->params().get_size("stripe_size")));
  // Async queues rank 0's one metadata write; the log backends' writes by every rank are not.
  if (e->spec_.async && e->mode() != OpenMode::kRead &&
      e->spec_.metadata.mode != SubfileSpec::Metadata::kGather)
    return error(TAPIO_ERR_UNSUPPORTED, "dataset '{}': async = true needs metadata = gather",
                 e->path());
  Status st;
  switch (e->mode()) {
    case OpenMode::kWrite: st = e->create(); break;
    case OpenMode::kAppend: st = e->open_append(); break;
    case OpenMode::kRead: st = e->open_read(); break;
  }
  if (!st.ok()) return st.with_context(fmt::format("dataset '{}'", e->path()));
  return std::unique_ptr<Engine>(std::move(e));
}

Status SubfileEngine::create() {
  writer_ = std::make_unique<SubfileWriter>(parts());
  // A bad operator or name is found alike on every rank, before creating; an allocation that
  // fails on one rank only, in the creation's agreement.
  const Status prepared = catch_out_of_memory("checking the names and operators", [&] {
    TAPIO_RETURN_IF_ERROR(check_converts(io()));
    return writer_->resolve_operators();
  });
  if (prepared.code() != TAPIO_OK && prepared.code() != TAPIO_ERR_NOMEM) return prepared;
  return writer_->create(prepared);
}

Status SubfileEngine::open_append() {
  writer_ = std::make_unique<SubfileWriter>(parts());
  // Before the catalog is read: no other writer may add to it or recreate the dataset.
  TAPIO_RETURN_IF_ERROR(
      agree(comm().rank() == 0 ? writer_->lock_dataset(false) : ok_status()));
  SubfileReader::Tail tail;
  {  // the catalog: definitions, steps, generations; its files closed before the writer's open
    SubfileReader reader(parts());
    TAPIO_RETURN_IF_ERROR(reader.open());
    tail = reader.tail();
  }
  TAPIO_RETURN_IF_ERROR(check_redeclared(tail.definitions, io()));
  TAPIO_RETURN_IF_ERROR(check_declared_dims_kept(io(), tail.definitions));
  *mutable_io() = merged_definitions(tail.definitions, io());
  start_at_step(tail.steps);
  TAPIO_RETURN_IF_ERROR(writer_->open_append(tail));
  TAPIO_RETURN_IF_ERROR(check_converts(io()));
  return writer_->resolve_operators();
}

Status SubfileEngine::open_read() {
  reader_ = std::make_unique<SubfileReader>(parts());
  return reader_->open();
}

Status SubfileEngine::write_puts(const std::vector<PutOp>& puts, uint64_t) {
  return writer_->write_puts(puts);
}

Status SubfileEngine::write_step(const std::vector<PutOp>& puts, uint64_t step,
                                 const Status& local) {
  return writer_->write_step(puts, step, local);
}

Status SubfileEngine::read_gets(const std::vector<GetOp>& gets) {
  return reader_->read_gets(gets);
}

Result<std::vector<plan::Selection>> SubfileEngine::stored_blocks(int var, uint64_t step) {
  return reader_->stored_blocks(var, step);
}

Result<Engine::StoredSize> SubfileEngine::sum_stored(int var) { return reader_->sum_stored(var); }

Status SubfileEngine::refresh_steps() { return reader_->refresh(); }

Result<StepStatus> SubfileEngine::end_of_steps() { return reader_->end_of_steps(); }

uint64_t SubfileEngine::available_steps() const {
  return reader_ ? reader_->steps() : current_step();
}

Status SubfileEngine::close_files() { return reader_ ? reader_->close() : writer_->close(); }

}  // namespace tapio
