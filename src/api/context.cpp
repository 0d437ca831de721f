// Library and context calls.
#include "api/config_agreement.h"
#include "api/errors.h"
#include "api/handles.h"

using namespace tapio;
using api::ContextState;

namespace {

Status init(MPI_Comm comm, const char* config_path, tapio_context** out) {
  if (!out) return error(TAPIO_ERR_ARG, "null output handle");
  TAPIO_RETURN_IF_ERROR(comm::mpi_ready("tapio_init"));
  auto ctx = std::make_unique<ContextState>();
  TAPIO_ASSIGN_OR_RETURN(ctx->comm, comm::MpiComm::duplicate(comm));
  TAPIO_ASSIGN_OR_RETURN(ctx->config, api::load_agreed_config(ctx->comm, config_path));
  *out = ctx.release()->registration.handle();
  return ok_status();
}

}  // namespace

extern "C" {

const char* tapio_version(void) { return "0.1.0"; }

int tapio_init(MPI_Comm comm, const char* config_path, tapio_context** ctx) {
  return api::guarded("tapio_init", [&] { return init(comm, config_path, ctx); });
}

int tapio_init_f(MPI_Fint comm, const char* config_path, tapio_context** ctx) {
  return api::guarded("tapio_init_f", [&]() -> Status {
    TAPIO_RETURN_IF_ERROR(comm::mpi_ready("tapio_init_f"));  // before MPI_Comm_f2c
    return init(MPI_Comm_f2c(comm), config_path, ctx);
  });
}

int tapio_finalize(tapio_context* handle) {
  return api::guarded("tapio_finalize", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(ContextState * ctx, api::resolve(handle));
    // Closing files and freeing the communicator would call MPI: the context stays as it is.
    if (Status ready = comm::mpi_ready("tapio_finalize"); !ready.ok())
      return Status(ready.code(), ready.message() + "; the context and its files are left as "
                                  "they were (nothing closed or freed)");
    Status first = ok_status();
    for (auto& e : ctx->engines) {
      if (!e) continue;
      Status st = e->engine->close();
      if (first.ok()) first = st;
    }
    delete ctx;  // retires the handles of the context, its IOs, variables and engines
    return first;
  });
}

}  // extern "C"
