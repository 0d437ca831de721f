#include "engine/engine.h"

namespace tapio {

const char* mode_name(OpenMode mode) {
  switch (mode) {
    case OpenMode::kWrite: return "write";
    case OpenMode::kRead: return "read";
    case OpenMode::kAppend: return "append";
  }
  return "?";
}

Engine::Engine(EngineEnv env) : env_(std::move(env)) {}

Engine::~Engine() = default;

std::string Engine::where() const { return fmt::format("file '{}'", env_.path); }

Status Engine::require(bool condition, const char* call, const char* what) const {
  if (condition) return ok_status();
  return error(TAPIO_ERR_STATE, "{}: {} (mode {}, step {}, {})", call, what,
               mode_name(env_.mode), step_, in_step_ ? "inside a step" : "outside a step")
      .with_context(where());
}

Status Engine::agree(const Status& local) {
  PhaseTimer t(&profile_, Phase::kAgree);
  return comm::agree(comm(), local);
}

// Times a public call into profile.in_calls; calls made from inside another call (end_step
// performs the puts) are not counted twice.
class Engine::CallTimer {
 public:
  explicit CallTimer(Engine* e) : e_(e), start_(std::chrono::steady_clock::now()) { ++e_->depth_; }
  ~CallTimer() {
    if (--e_->depth_ == 0)
      e_->profile_.in_calls +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  Engine* e_;
  std::chrono::steady_clock::time_point start_;
};

void Engine::opened() {
  profile_.in_calls += std::chrono::duration<double>(std::chrono::steady_clock::now() - opened_).count();
}

Status Engine::check_var(int var, DataType memtype) const {
  if (var < 0 || static_cast<size_t>(var) >= io().vars.size())
    return error(TAPIO_ERR_ARG, "variable index {} out of range", var).with_context(where());
  const VariableDef& v = io().vars[var];
  if (memtype != v.type)
    return error(TAPIO_ERR_TYPE, "variable '{}' is {} but the buffer is {}", v.name,
                 type_name(v.type), type_name(memtype))
        .with_context(where());
  return ok_status();
}

Status Engine::begin_step(StepStatus* status) {
  CallTimer timed(this);
  Status local = require(!closed_ && !in_step_, "begin_step", "already in a step or closed");
  if (env_.mode != OpenMode::kRead) {  // nothing to agree on: end_step carries any misuse
    TAPIO_RETURN_IF_ERROR(local);
    in_step_ = true;
    *status = StepStatus::kOk;
    return ok_status();
  }
  if (local.ok()) {
    local = refresh_steps();
    const uint64_t next = started_ ? step_ + 1 : step_;
    if (local.ok() && next >= available_steps()) {
      TAPIO_RETURN_IF_ERROR(agree(local));
      *status = stream_may_grow() ? StepStatus::kNotReady : StepStatus::kEndOfStream;
      return ok_status();
    }
    if (local.ok()) {
      step_ = next;
      started_ = true;
    }
  }
  TAPIO_RETURN_IF_ERROR(agree(local));
  in_step_ = true;
  *status = StepStatus::kOk;
  return ok_status();
}

Status Engine::put(int var, const plan::Selection& sel, DataType memtype, const void* data) {
  TAPIO_RETURN_IF_ERROR(require(env_.mode != OpenMode::kRead, "put", "the file is open for reading"));
  TAPIO_RETURN_IF_ERROR(require(in_step_, "put", "put is only valid between begin_step and end_step"));
  TAPIO_RETURN_IF_ERROR(check_var(var, memtype));
  const VariableDef& v = io().vars[var];
  TAPIO_RETURN_IF_ERROR(plan::validate(sel, v.shape).with_context(
      fmt::format("{}, variable '{}', rank {}", where(), v.name, comm().rank())));
  const uint64_t n = sel.elements();
  if (n > 0 && data == nullptr)
    return error(TAPIO_ERR_ARG, "{}, variable '{}': null data for {} elements", where(), v.name, n);
  puts_.push_back(PutOp{var, sel, data, n});
  return ok_status();
}

Status Engine::get(int var, const plan::Selection& sel, uint64_t step_start, uint64_t step_count,
                   DataType memtype, void* data) {
  TAPIO_RETURN_IF_ERROR(require(env_.mode == OpenMode::kRead, "get", "the file is not open for reading"));
  TAPIO_RETURN_IF_ERROR(check_var(var, memtype));
  const VariableDef& v = io().vars[var];
  const std::string ctx = fmt::format("{}, variable '{}', rank {}", where(), v.name, comm().rank());
  TAPIO_RETURN_IF_ERROR(plan::validate(sel, v.shape).with_context(ctx));
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
  const uint64_t n = sel.elements();
  if (n > 0 && data == nullptr)
    return error(TAPIO_ERR_ARG, "null buffer for {} elements", n).with_context(ctx);
  gets_.push_back(GetOp{var, sel, step_start, step_count, data, n});
  return ok_status();
}

Status Engine::perform_puts() {
  CallTimer timed(this);
  Status local = require(env_.mode != OpenMode::kRead && in_step_, "perform_puts",
                         "perform_puts is only valid inside a write step");
  if (local.ok()) {
    local = write_puts(puts_, step_);
    puts_.clear();
  }
  return agree(local);
}

Status Engine::perform_gets() {
  CallTimer timed(this);
  Status local = require(env_.mode == OpenMode::kRead && !closed_, "perform_gets",
                         "the file is not open for reading");
  if (local.ok()) local = read_gets(gets_);
  gets_.clear();
  return agree(local);
}

Status Engine::end_step() {
  CallTimer timed(this);
  const Status local = require(in_step_, "end_step", "no step is open");
  if (env_.mode == OpenMode::kRead) {
    TAPIO_RETURN_IF_ERROR(agree(local));
    const Status st = perform_gets();
    in_step_ = false;
    return st;
  }
  // One collective commit carries a local misuse to every rank.
  const Status st = write_step(puts_, step_, local);
  puts_.clear();
  if (st.ok()) {  // a failed step is not committed; the next one reuses its index
    ++profile_.steps;
    ++step_;
  }
  in_step_ = false;
  return st;
}

Status Engine::close() {
  if (closed_) return ok_status();
  Status st;
  {
    CallTimer timed(this);
    if (in_step_) st = end_step();  // an open step is completed, as ADIOS2 does
    Status closing = agree(close_files());
    closed_ = true;
    if (st.ok()) st = closing;
  }
  profile_.total_time =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - opened_).count();
  const std::string profile_path = env_.params.get("profile");
  if (!profile_path.empty()) {
    Status written = profile_.write_json(comm(), profile_path, env_.engine, env_.path);
    if (st.ok()) st = written;
  }
  return st;
}

}  // namespace tapio
