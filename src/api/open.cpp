#include "api/open.h"

#include "api/definitions_check.h"
#include "core/out_of_memory.h"

namespace tapio::api {
namespace {

// The nodes of the job: MPI's, found once per context, or virtual nodes the parameters ask for.
Result<comm::Topology> topology_for(ContextState* ctx, const Params& params) {
  const int ranks_per_node = static_cast<int>(params.get_int("ranks_per_node"));
  if (ranks_per_node == 0 && ctx->detected) return *ctx->detected;
  TAPIO_ASSIGN_OR_RETURN(comm::Topology t,
                         comm::detect_topology(ctx->comm, ranks_per_node,
                                               params.get("node_layout") == "cyclic"));
  if (ranks_per_node == 0) ctx->detected = t;
  return t;
}

}  // namespace

Result<std::unique_ptr<Engine>> open_engine_for(IoState* io, const std::string& path,
                                                OpenMode mode) {
  ContextState* ctx = io->ctx;
  EngineEnv env;
  OpenSpec& spec = env.spec;
  spec.path = path;
  spec.mode = mode;
  spec.engine = io->def.engine;
  spec.params = io->def.params;
  env.res.comm = &ctx->comm;
  env.res.io = &io->def;
  env.res.buffers = &ctx->buffers;
  env.res.node_memory = &ctx->node_memory;
  env.res.plan_memory = &ctx->plan_memory;
  if (ctx->config)
    TAPIO_RETURN_IF_ERROR(ctx->config->apply(io->def.name, spec.path, &spec.engine, &spec.params));
  if (spec.engine.empty()) {
    TAPIO_ASSIGN_OR_RETURN(spec.engine,
                           default_engine(ctx->comm, storage_of(env.res), spec.path, spec.mode));
  }
  TAPIO_RETURN_IF_ERROR(check_same_definitions(ctx->comm, io->def, spec.path, spec.engine,
                                               spec.params, spec.mode));
  TAPIO_ASSIGN_OR_RETURN(env.res.topology, topology_for(ctx, spec.params));
  // "auto" sizes (and, with a cluster file, the aggregator count) chosen by the cluster model.
  static const IoDef kNoDefinitions;  // not a copy of a file's thousands of definitions
  // Agreed: a cluster file some rank cannot read, or an allocation, fails the open everywhere.
  const std::string doing = fmt::format("choosing the parameters of '{}'", spec.path);
  TAPIO_RETURN_IF_ERROR(comm::agree(ctx->comm, catch_out_of_memory(doing, [&] {
    return ctx->auto_choices.resolve(
        &spec.params, spec.engine, spec.mode == OpenMode::kWrite ? io->def : kNoDefinitions,
        env.res.topology.node_of_rank, env.res.topology.nodes);
  })));
  return open_engine(std::move(env));
}

}  // namespace tapio::api
