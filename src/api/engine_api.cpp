// Engine calls: open, steps, put/get, close.
#include "api/errors.h"
#include "api/handles.h"
#include "api/open.h"
#include "api/selections.h"

using namespace tapio;
using api::EngineState;
using api::IoState;
using api::VarState;

namespace {

Status need(const void* p, const char* what) {
  return p ? ok_status() : error(TAPIO_ERR_ARG, "{} is null", what);
}

Result<Engine*> engine_of(tapio_engine* handle) {
  TAPIO_ASSIGN_OR_RETURN(EngineState * e, api::resolve(handle));
  return e->engine.get();
}

// The selection a put/get uses: the handle's, or the whole variable.
plan::SharedSelection selection_of(const VarState* var, const VariableDef& def) {
  if (var->has_selection) return var->sel;
  return plan::shared(plan::Selection::box(std::vector<uint64_t>(def.shape.size(), 0), def.shape));
}

// A variable of the engine's IO, and its index there.
struct Target {
  VarState* var;
  int index;
};

Result<Target> target_of(const EngineState* e, tapio_var* handle) {
  TAPIO_ASSIGN_OR_RETURN(VarState * var, api::resolve(handle));
  if (var->io != e->io)
    return error(TAPIO_ERR_ARG, "variable '{}' belongs to IO '{}', not to the engine's IO '{}'",
                 var->name, var->io->def.name, e->io->def.name);
  const int i = e->io->def.find_var(var->name);
  if (i < 0) return error(TAPIO_ERR_NOT_FOUND, "variable '{}' is not in the file", var->name);
  return Target{var, i};
}

Status open(tapio_io* io_handle, const char* path, tapio_mode mode, tapio_engine** out) {
  TAPIO_ASSIGN_OR_RETURN(IoState * io, api::resolve(io_handle));
  TAPIO_RETURN_IF_ERROR(need(path, "path"));
  TAPIO_RETURN_IF_ERROR(need(out, "output handle"));
  if (mode != TAPIO_MODE_WRITE && mode != TAPIO_MODE_READ && mode != TAPIO_MODE_APPEND)
    return error(TAPIO_ERR_ARG, "invalid mode {}", int(mode));
  const OpenMode open_mode = mode == TAPIO_MODE_WRITE  ? OpenMode::kWrite
                            : mode == TAPIO_MODE_READ ? OpenMode::kRead
                                                      : OpenMode::kAppend;
  TAPIO_ASSIGN_OR_RETURN(std::unique_ptr<Engine> engine,
                         api::open_engine_for(io, path, open_mode));
  auto state = std::make_unique<EngineState>();
  state->ctx = io->ctx;
  state->io = io;
  state->engine = std::move(engine);
  *out = state->registration.handle();
  io->ctx->engines.push_back(std::move(state));
  return ok_status();
}

}  // namespace

extern "C" {

int tapio_open(tapio_io* io, const char* path, tapio_mode mode, tapio_engine** engine) {
  return api::guarded("tapio_open", [&] { return open(io, path, mode, engine); });
}

int tapio_begin_step(tapio_engine* e, tapio_step_status* status) {
  return api::guarded("tapio_begin_step", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(Engine * engine, engine_of(e));
    StepStatus st = StepStatus::kOk;
    TAPIO_RETURN_IF_ERROR(engine->begin_step(&st));
    if (status) *status = static_cast<tapio_step_status>(st);
    return ok_status();
  });
}

int tapio_put(tapio_engine* handle, tapio_var* var, tapio_type memtype, const void* data) {
  return api::guarded("tapio_put", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(EngineState * e, api::resolve(handle));
    Result<Target> t = target_of(e, var);
    if (!t.ok()) return e->engine->reject_put(t.status());
    const VariableDef& def = e->io->def.vars[t->index];
    if (Status refused = api::selection_refusal(t->var); !refused.ok())
      return e->engine->reject_put(refused);
    if (def.joined && !t->var->has_selection)  // else it would put nothing, silently
      return e->engine->reject_put(
          error(TAPIO_ERR_ARG, "joined variable '{}' has no count on rank {}: call "
                "tapio_var_set_joined_count before its put", def.name, e->ctx->comm.rank())
              .with_context(fmt::format("file '{}'", e->engine->path())));
    return e->engine->put(t->index, selection_of(t->var, def), memtype, data);
  });
}

int tapio_put_sel(tapio_engine* handle, tapio_var* var, const uint64_t* start,
                  const uint64_t* count, tapio_type memtype, const void* data) {
  return api::guarded("tapio_put_sel", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(EngineState * e, api::resolve(handle));
    Result<Target> t = target_of(e, var);
    if (!t.ok()) return e->engine->reject_put(t.status());
    Result<plan::Selection> sel =
        api::checked_box(t->var, e->io->def.vars[t->index], start, count, false);
    if (!sel.ok()) return e->engine->reject_put(sel.status());
    return e->engine->put(t->index, plan::shared(std::move(*sel)), memtype, data);
  });
}

int tapio_get(tapio_engine* handle, tapio_var* var, tapio_type memtype, void* data) {
  return api::guarded("tapio_get", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(EngineState * e, api::resolve(handle));
    TAPIO_ASSIGN_OR_RETURN(Target t, target_of(e, var));
    TAPIO_RETURN_IF_ERROR(api::selection_refusal(t.var));
    return e->engine->get(t.index, selection_of(t.var, e->io->def.vars[t.index]),
                          t.var->step_start, t.var->step_count, memtype, data);
  });
}

int tapio_get_sel(tapio_engine* handle, tapio_var* var, const uint64_t* start,
                  const uint64_t* count, tapio_type memtype, void* data) {
  return api::guarded("tapio_get_sel", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(EngineState * e, api::resolve(handle));
    TAPIO_ASSIGN_OR_RETURN(Target t, target_of(e, var));
    TAPIO_ASSIGN_OR_RETURN(
        plan::Selection sel,
        api::checked_box(t.var, e->io->def.vars[t.index], start, count, true));
    return e->engine->get(t.index, plan::shared(std::move(sel)), t.var->step_start,
                          t.var->step_count, memtype, data);
  });
}

int tapio_fail_step(tapio_engine* handle, tapio_status code, const char* message) {
  return api::guarded("tapio_fail_step", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(EngineState * e, api::resolve(handle));
    if (code == TAPIO_OK)
      return error(TAPIO_ERR_ARG, "tapio_fail_step needs an error code, not TAPIO_OK");
    return e->engine->fail_step(
        Status(code, fmt::format("file '{}': {}", e->engine->path(),
                                 message ? message : "the program failed the step")));
  });
}

int tapio_perform_puts(tapio_engine* e) {
  return api::guarded("tapio_perform_puts", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(Engine * engine, engine_of(e));
    return engine->perform_puts();
  });
}

int tapio_perform_gets(tapio_engine* e) {
  return api::guarded("tapio_perform_gets", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(Engine * engine, engine_of(e));
    return engine->perform_gets();
  });
}

int tapio_end_step(tapio_engine* e) {
  return api::guarded("tapio_end_step", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(Engine * engine, engine_of(e));
    return engine->end_step();
  });
}

int tapio_current_step(tapio_engine* e, uint64_t* step) {
  return api::guarded("tapio_current_step", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(Engine * engine, engine_of(e));
    TAPIO_RETURN_IF_ERROR(need(step, "step"));
    *step = engine->current_step();
    return ok_status();
  });
}

int tapio_steps(tapio_engine* e, uint64_t* steps) {
  return api::guarded("tapio_steps", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(Engine * engine, engine_of(e));
    TAPIO_RETURN_IF_ERROR(need(steps, "steps"));
    *steps = engine->steps();
    return ok_status();
  });
}

int tapio_var_blocks(tapio_engine* handle, tapio_var* var, uint64_t step, size_t capacity,
                     uint64_t* starts, uint64_t* counts, size_t* nblocks) {
  return api::guarded("tapio_var_blocks", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(EngineState * e, api::resolve(handle));
    TAPIO_ASSIGN_OR_RETURN(Target t, target_of(e, var));
    TAPIO_RETURN_IF_ERROR(need(nblocks, "nblocks"));
    if (capacity > 0 && !e->io->def.vars[t.index].shape.empty()) {  // 0-d: nothing to give
      TAPIO_RETURN_IF_ERROR(need(starts, "starts"));
      TAPIO_RETURN_IF_ERROR(need(counts, "counts"));
    }
    TAPIO_ASSIGN_OR_RETURN(std::vector<plan::Selection> blocks,
                           e->engine->blocks(t.index, step));
    for (size_t i = 0; i < blocks.size(); ++i)
      if (blocks[i].kind != plan::Selection::Kind::kBox)
        return error(TAPIO_ERR_UNSUPPORTED,
                     "file '{}', variable '{}', step {}: block {} was written as an offset "
                     "list, not a box",
                     e->engine->path(), t.var->name, step, i);
    const size_t ndims = e->io->def.vars[t.index].shape.size();
    for (size_t i = 0; ndims > 0 && i < std::min(capacity, blocks.size()); ++i) {
      std::copy(blocks[i].start.begin(), blocks[i].start.end(), starts + i * ndims);
      std::copy(blocks[i].count.begin(), blocks[i].count.end(), counts + i * ndims);
    }
    *nblocks = blocks.size();
    return ok_status();
  });
}

int tapio_var_stored_bytes(tapio_engine* handle, tapio_var* var, uint64_t* bytes,
                           uint64_t* stored) {
  return api::guarded("tapio_var_stored_bytes", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(EngineState * e, api::resolve(handle));
    TAPIO_ASSIGN_OR_RETURN(Target t, target_of(e, var));
    TAPIO_RETURN_IF_ERROR(need(bytes, "bytes"));
    TAPIO_RETURN_IF_ERROR(need(stored, "stored"));
    TAPIO_ASSIGN_OR_RETURN(const Engine::StoredSize size, e->engine->stored_size(t.index));
    *bytes = size.bytes;
    *stored = size.stored;
    return ok_status();
  });
}

int tapio_engine_name(tapio_engine* e, const char** name) {
  return api::guarded("tapio_engine_name", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(Engine * engine, engine_of(e));
    TAPIO_RETURN_IF_ERROR(need(name, "name"));
    *name = engine->name().c_str();
    return ok_status();
  });
}

int tapio_close(tapio_engine* handle) {
  return api::guarded("tapio_close", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(EngineState * e, api::resolve(handle));
    Status st = e->engine->close();
    for (auto& owned : e->ctx->engines)
      if (owned.get() == e) owned.reset();  // frees e and retires its handle
    return st;
  });
}

}  // extern "C"
