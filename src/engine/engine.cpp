#include "engine/engine.h"

#include "core/out_of_memory.h"

namespace tapio {

const char* mode_name(OpenMode mode) {
  switch (mode) {
    case OpenMode::kWrite: return "write";
    case OpenMode::kRead: return "read";
    case OpenMode::kAppend: return "append";
  }
  return "?";
}

Engine::Engine(EngineEnv env)
    : open_(std::move(env.spec)),
      res_(std::move(env.res)),
      conversions_(res_.buffers, &measured_.profile) {
  measured_.path = open_.params.get("profile");
}

Engine::~Engine() = default;

std::string Engine::where() const { return fmt::format("file '{}'", open_.path); }

std::string Engine::at_step(int var, uint64_t step) const {
  return fmt::format("{}, variable '{}', step {}", where(), io().vars[var].name, step);
}

std::string Engine::writing() const {
  return fmt::format("writing step {} of {}", step_, where());
}

std::string Engine::on_rank(int var) const {
  return fmt::format("{}, variable '{}', rank {}", where(), io().vars[var].name, comm().rank());
}

Status Engine::require(bool condition, const char* call, const char* what,
                       const std::string& context) const {
  if (condition) return ok_status();
  return error(TAPIO_ERR_STATE, "{}: {} (mode {}, step {}, {})", call, what,
               mode_name(open_.mode), step_, in_step_ ? "inside a step" : "outside a step")
      .with_context(context);
}

Status Engine::agree(const Status& local, const Status& then) {
  PhaseTimer t(&measured_.profile, Phase::kAgree);
  return comm::agree(comm(), local, then);
}

// Times a public call into profile.in_calls; calls made from inside another call (end_step
// performs the puts) are not counted twice.
class Engine::CallTimer {
 public:
  explicit CallTimer(Engine* e) : e_(e), start_(std::chrono::steady_clock::now()) {
    ++e_->measured_.depth;
  }
  ~CallTimer() {
    if (--e_->measured_.depth == 0)
      e_->measured_.profile.in_calls +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  Engine* e_;
  std::chrono::steady_clock::time_point start_;
};

void Engine::opened() {
  measured_.profile.in_calls +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - measured_.opened).count();
}

Status Engine::check_index(int var) const {
  if (var >= 0 && static_cast<size_t>(var) < io().vars.size()) return ok_status();
  return error(TAPIO_ERR_ARG, "variable index {} out of range", var).with_context(where());
}

Status Engine::check_type(int var, DataType memtype) const {
  const VariableDef& v = io().vars[var];
  if (!type_is_valid(memtype))
    return error(TAPIO_ERR_TYPE, "invalid buffer type {}", static_cast<int>(memtype))
        .with_context(on_rank(var));
  if (types_convert(memtype, v.type)) return ok_status();
  return error(TAPIO_ERR_TYPE, "the variable is {} but the buffer is {}: text and numbers do "
               "not convert", type_name(v.type), type_name(memtype))
      .with_context(on_rank(var));
}

Status Engine::begin_step(StepStatus* status) {
  CallTimer timed(this);
  Status local =
      require(!closed_ && !in_step_, "begin_step", "already in a step or closed", where());
  if (open_.mode != OpenMode::kRead) {  // nothing to agree on: end_step carries any misuse
    if (local.ok()) local = background_failure();
    TAPIO_RETURN_IF_ERROR(local);
    in_step_ = true;
    *status = StepStatus::kOk;
    return ok_status();
  }
  if (local.ok()) {
    local = catch_out_of_memory(fmt::format("looking for new steps of {}", where()),
                                [&] { return refresh_steps(); });
    const uint64_t next = started_ ? step_ + 1 : step_;
    if (local.ok() && next >= available_steps()) {
      TAPIO_RETURN_IF_ERROR(agree(local));
      TAPIO_ASSIGN_OR_RETURN(*status, end_of_steps());
      return ok_status();
    }
    if (local.ok()) local = size_joined_vars(next);
    if (local.ok()) {  // a step whose blocks do not tile is not entered: a retry meets it again
      step_ = next;
      started_ = true;
    }
  }
  TAPIO_RETURN_IF_ERROR(agree(local));
  in_step_ = true;
  *status = StepStatus::kOk;
  return ok_status();
}

void Engine::rewind_to(uint64_t step) {
  measured_.profile.steps -= step_ - step;
  step_ = step;
}

Status Engine::put(int var, plan::SharedSelection sel, DataType memtype, const void* data) {
  Status st = queue_put(var, std::move(sel), memtype, data);
  return st.ok() ? st : reject_put(std::move(st));
}

Status Engine::reject_put(Status rejected) {
  if (in_step_ && open_.mode != OpenMode::kRead && failed_step_.ok())
    failed_step_ = Status(rejected.code(), fmt::format("a put failed on rank {}: {}",
                                                       comm().rank(), rejected.message()));
  return rejected;
}

Status Engine::fail_step(Status why) {
  TAPIO_RETURN_IF_ERROR(require(open_.mode != OpenMode::kRead && in_step_, "fail_step",
                                "only an open write step can be failed", where()));
  if (failed_step_.ok())
    failed_step_ = Status(why.code(), fmt::format("rank {} failed it: {}", comm().rank(),
                                                  why.message()));
  return ok_status();
}

Result<uint64_t> Engine::checked_elements(int var, const plan::SharedSelection& sel,
                                         const std::string& context) {
  if (checked_.size() != io().vars.size()) checked_.assign(io().vars.size(), {});
  std::array<Checked, 2>& recent = checked_[var];
  for (const Checked& c : recent)
    if (c.sel == sel) return c.elements;
  const VariableDef& v = io().vars[var];
  TAPIO_RETURN_IF_ERROR(plan::validate(*sel, v.shape, v.dim_names).with_context(context));
  recent[1] = std::move(recent[0]);
  recent[0] = Checked{sel, sel->elements()};
  return recent[0].elements;
}

Status Engine::queue_put(int var, plan::SharedSelection sel, DataType memtype,
                         const void* data) {
  TAPIO_RETURN_IF_ERROR(check_index(var));
  const std::string ctx = on_rank(var);
  TAPIO_RETURN_IF_ERROR(
      require(open_.mode != OpenMode::kRead, "put", "the file is open for reading", ctx));
  TAPIO_RETURN_IF_ERROR(
      require(in_step_, "put", "put is only valid between begin_step and end_step", ctx));
  TAPIO_RETURN_IF_ERROR(check_type(var, memtype));
  const VariableDef& v = io().vars[var];
  uint64_t n = 0;
  if (v.joined) {
    TAPIO_RETURN_IF_ERROR(check_joined_block(v, *sel, false).with_context(ctx));
    n = sel->elements();
  } else {
    TAPIO_ASSIGN_OR_RETURN(n, checked_elements(var, sel, ctx));
  }
  if (n > 0 && data == nullptr)
    return error(TAPIO_ERR_ARG, "null data for {} elements", n).with_context(ctx);
  if (memtype != v.type && n > 0) {  // the engines see the variable's type only
    CallTimer timed(this);           // the copy is time in tapio (profile: copy)
    Result<const void*> converted = conversions_.put(data, memtype, v.type, n);
    if (!converted.ok()) return converted.status().with_context(ctx);
    data = *converted;
  }
  puts_.push_back(PutOp{var, std::move(sel), data, n});
  return ok_status();
}

namespace {
// A selection of one step's rows of a joined variable, moved `rows` rows further along
// dimension 0 (where that step lies in the stored variable).
void shift_rows(plan::Selection* sel, const std::vector<uint64_t>& shape, uint64_t rows) {
  if (rows == 0) return;
  if (sel->kind == plan::Selection::Kind::kBox) {
    sel->start[0] += rows;
    return;
  }
  uint64_t row_elements = 1;
  for (size_t d = 1; d < shape.size(); ++d) row_elements *= shape[d];
  for (plan::Run& r : sel->runs) r.offset += rows * row_elements;
}
}  // namespace

Status Engine::get(int var, plan::SharedSelection sel, uint64_t step_start, uint64_t step_count,
                   DataType memtype, void* data) {
  TAPIO_RETURN_IF_ERROR(check_index(var));
  const std::string ctx = on_rank(var);
  TAPIO_RETURN_IF_ERROR(
      require(open_.mode == OpenMode::kRead, "get", "the file is not open for reading", ctx));
  TAPIO_RETURN_IF_ERROR(check_type(var, memtype));
  const VariableDef& v = io().vars[var];
  uint64_t n = 0;  // elements per step
  if (v.joined) {  // its length changes per step: the selection is checked against the step's
    if (step_count > 1)
      return error(TAPIO_ERR_UNSUPPORTED, "a get of joined variable '{}' reads one step at a "
                   "time (its length changes per step), not {}", v.name, step_count)
          .with_context(ctx);
    if (step_count == 0 && in_step_) step_start = step_;
    if (step_count == 1 || in_step_) {
      auto length = joined_length_at(var, step_start);
      if (!length.ok()) return length.status().with_context(ctx);
      std::vector<uint64_t> shape = v.shape;
      shape[0] = *length;
      TAPIO_RETURN_IF_ERROR(plan::validate(*sel, shape, v.dim_names).with_context(
          fmt::format("{}, step {}", ctx, step_start)));
    }
    n = sel->elements();
  } else {
    TAPIO_ASSIGN_OR_RETURN(n, checked_elements(var, sel, ctx));
  }
  if (!v.record) {
    step_start = 0;
    step_count = 1;
  } else if (step_count == 0) {  // no explicit step selection: the current step
    if (!in_step_)
      return error(TAPIO_ERR_STATE, "get outside a step needs a step selection").with_context(ctx);
    step_start = step_;
    step_count = 1;
  } else if (step_start >= available_steps() || step_count > available_steps() - step_start) {
    return error(TAPIO_ERR_NOT_FOUND, "steps [{}, {}) requested but the file has {} steps",
                 step_start, step_start + step_count, available_steps())
        .with_context(ctx);
  }
  if (n > 0 && data == nullptr)
    return error(TAPIO_ERR_ARG, "null buffer for {} elements", n).with_context(ctx);
  if (memtype != v.type && n > 0) {  // read as the variable's type, converted once read
    Result<void*> read = conversions_.get(data, memtype, v.type, n * step_count, ctx);
    if (!read.ok()) return read.status().with_context(ctx);
    data = *read;
  }
  if (v.joined) {  // a copy: the handle's selection stays as the program gave it
    auto shifted = std::make_shared<plan::Selection>(*sel);
    shift_rows(shifted.get(), v.shape, joined_rows_before(var, step_start));
    sel = std::move(shifted);
  }
  gets_.push_back(GetOp{var, std::move(sel), step_start, step_count, data, n});
  return ok_status();
}

Status Engine::place_joined(bool contribute, bool last) {
  TAPIO_RETURN_IF_ERROR(joined_.place(io(), comm(), puts_, contribute, last));
  if (!joined_.active()) return ok_status();  // an IO without joined variables: no second scan
  for (PutOp& p : puts_) {
    if (!io().vars[p.var].joined) continue;
    auto placed = std::make_shared<plan::Selection>(*p.sel);  // the handle's stays as given
    placed->start[0] += joined_rows_before(p.var, step_);
    p.sel = std::move(placed);
  }
  return ok_status();
}

Status Engine::perform_puts() {
  CallTimer timed(this);
  Status local = require(open_.mode != OpenMode::kRead && in_step_, "perform_puts",
                         "perform_puts is only valid inside a write step", where());
  if (local.ok()) {
    local = place_joined(true, false);
    if (local.ok())
      local = catch_out_of_memory(writing(), [&] { return write_puts(puts_, step_); });
    puts_.clear();
    conversions_.release();
  }
  Status st = agree(local);
  if (!st.ok()) forget_failed_batch();
  return st;
}

Status Engine::perform_gets() {
  CallTimer timed(this);
  Status local = require(open_.mode == OpenMode::kRead && !closed_, "perform_gets",
                         "the file is not open for reading", where());
  if (local.ok())
    local = catch_out_of_memory(fmt::format("reading {}", where()),
                                [&] { return read_gets(gets_); });
  gets_.clear();
  // Converted gets are converted where this rank's read succeeded; a value out of range there
  // yields to another rank's failed read (which may have left this rank's data unread).
  const Status converted = local.ok() ? conversions_.finish_gets() : ok_status();
  conversions_.release();
  Status st = local.agreed() ? (local.ok() ? agree(converted) : local) : agree(local, converted);
  if (!st.ok()) forget_failed_batch();
  return st;
}

Status Engine::end_step() {
  CallTimer timed(this);
  Status local = require(in_step_, "end_step", "no step is open", where());
  // A put some rank rejected fails the step on every rank, in the agreement end_step makes
  // anyway, before any data moves.
  if (local.ok() && !failed_step_.ok())
    local = Status(failed_step_.code(),
                   fmt::format("step {} is not committed: {}", step_, failed_step_.message()));
  Status st;
  if (open_.mode == OpenMode::kRead) {
    st = agree(local);
    if (st.ok()) st = perform_gets();
    gets_.clear();
    conversions_.release();
  } else {
    Status placed = place_joined(local.ok(), true);
    if (local.ok()) local = std::move(placed);
    // One collective commit carries a local failure to every rank. A rank that runs out of
    // memory inside it meets the others in the agreement that ends it.
    bool returned = false;
    st = catch_out_of_memory(writing(), [&] {
      Status written = write_step(puts_, step_, local);
      returned = true;
      return written;
    });
    if (!returned) st = agree(st);
    puts_.clear();
    conversions_.release();
    joined_.next_step();
    if (st.ok()) {  // a failed step is not committed; the next one reuses its index
      ++measured_.profile.steps;
      ++step_;
    } else {
      forget_failed_batch();
    }
  }
  failed_step_ = ok_status();
  in_step_ = false;
  return st;
}

Status Engine::close() {
  if (closed_) return ok_status();
  Status st;
  {
    CallTimer timed(this);
    if (in_step_) st = end_step();  // an open step is completed, as ADIOS2 does
    Status closing = agree(catch_out_of_memory(fmt::format("closing {}", where()),
                                               [&] { return close_files(); }));
    closed_ = true;
    if (st.ok()) st = closing;
  }
  measured_.profile.total_time =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - measured_.opened).count();
  if (!measured_.path.empty()) {
    Status written = measured_.profile.write_json(comm(), measured_.path, open_.engine, open_.path);
    if (st.ok()) st = written;
  }
  return st;
}

}  // namespace tapio
