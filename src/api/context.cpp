// Library and context calls.
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "api/errors.h"
#include "api/handles.h"

using namespace tapio;
using api::ContextState;

namespace {

// Rank 0 reads the config file and broadcasts it; every rank parses the same text, so a
// config error is reported on every rank without further messages.
Status load_config(ContextState* ctx, const char* config_path) {
  std::string path = config_path ? config_path : "";
  if (path.empty()) {
    const char* env = std::getenv("TAPIO_CONFIG");
    if (env) path = env;
  }
  if (path.empty()) return ok_status();
  Status local = ok_status();
  std::vector<uint8_t> text;
  if (ctx->comm.rank() == 0) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      local = error(TAPIO_ERR_CONFIG, "cannot read config file '{}'", path);
    } else {
      std::ostringstream s;
      s << in.rdbuf();
      const std::string body = s.str();
      text.assign(body.begin(), body.end());
    }
  }
  TAPIO_RETURN_IF_ERROR(comm::agree(ctx->comm, local));
  TAPIO_RETURN_IF_ERROR(ctx->comm.bcast_bytes(text, 0));
  TAPIO_ASSIGN_OR_RETURN(Config config,
                         Config::parse(std::string_view(reinterpret_cast<const char*>(text.data()),
                                                        text.size()),
                                       path));
  ctx->config = std::move(config);
  return ok_status();
}

Status init(MPI_Comm comm, const char* config_path, tapio_context** out) {
  if (!out) return error(TAPIO_ERR_ARG, "null output handle");
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) return error(TAPIO_ERR_STATE, "MPI is not initialized");
  auto ctx = std::make_unique<ContextState>();
  TAPIO_ASSIGN_OR_RETURN(ctx->comm, comm::MpiComm::duplicate(comm));
  TAPIO_RETURN_IF_ERROR(load_config(ctx.get(), config_path));
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
  return api::guarded("tapio_init_f",
                      [&] { return init(MPI_Comm_f2c(comm), config_path, ctx); });
}

int tapio_finalize(tapio_context* handle) {
  return api::guarded("tapio_finalize", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(ContextState * ctx, api::resolve(handle));
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
