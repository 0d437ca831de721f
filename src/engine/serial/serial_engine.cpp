// Serial engine: construction and the file lifecycle (held in a NetcdfDataset). The data
// movement is in serial_write.cpp and serial_read.cpp.
#include "engine/serial/serial_engine.h"

#include <unistd.h>

namespace tapio {

namespace {

DatasetEnv with_layers(DatasetEnv env, io::LayerSpec layers) {
  env.layers = layers;
  return env;
}

// serial_image_limit in bytes; auto: half of this node's physical memory (rank 0 holds a
// record's gathered pieces and then the record itself).
uint64_t image_limit(const Params& params) {
  if (params.get("serial_image_limit") != "auto") return params.get_size("serial_image_limit");
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) / 2
                               : UINT64_MAX;
}

// Rank 0 builds each variable's whole record in memory: a record over the limit is refused at
// open, before any step could run rank 0 out of memory. Collective (rank 0 looks).
Status check_image_limit(const comm::Comm& comm, const IoDef& io, const OpenSpec& spec) {
  Status local;
  const uint64_t limit = comm.rank() == 0 ? image_limit(spec.params) : 0;
  for (size_t v = 0; comm.rank() == 0 && v < io.vars.size() && local.ok(); ++v) {
    const VariableDef& def = io.vars[v];
    const unsigned __int128 bytes =
        static_cast<unsigned __int128>(def.elements()) * type_size(def.type);
    if (def.joined || bytes <= limit) continue;
    local = error(TAPIO_ERR_UNSUPPORTED,
                  "file '{}', variable '{}': its record of {} bytes exceeds the serial engine's "
                  "image limit of {} bytes (serial_image_limit; auto: half of rank 0's memory), "
                  "as rank 0 holds a whole record; use the mpiio, collective or subfile engine",
                  spec.path, def.name, static_cast<uint64_t>(bytes), limit);
  }
  return comm::agree(comm, local);
}

}  // namespace

SerialEngine::SerialEngine(EngineEnv env, io::LayerSpec layers)
    : Engine(std::move(env)),
      nc_(with_layers(dataset_env(resources(), open_spec(), &profile(), NetcdfSpec::parse(params())),
                      layers)) {}

Result<std::unique_ptr<Engine>> SerialEngine::open(EngineEnv env) {
  TAPIO_ASSIGN_OR_RETURN(
      io::LayerSpec layers,
      io::LayerSpec::parse(env.spec.params, env.spec.params.get_size("stripe_size")));
  if (env.spec.mode != OpenMode::kRead)
    TAPIO_RETURN_IF_ERROR(check_image_limit(*env.res.comm, *env.res.io, env.spec));
  std::unique_ptr<SerialEngine> e(new SerialEngine(std::move(env), layers));
  uint64_t first = 0;
  TAPIO_RETURN_IF_ERROR(e->nc_.open(&first));
  e->start_at_step(first);
  return std::unique_ptr<Engine>(std::move(e));
}

Status SerialEngine::write_step(const std::vector<PutOp>& puts, uint64_t step,
                                const Status& local) {
  uint64_t redo = step;
  // The engine drives the step: the outcome so far agreed, its puts written, then the commit.
  Status st = nc_.before_puts(local, &deferred_, &redo);
  if (st.ok()) st = nc_.after_puts(step, write_puts(puts, step), &deferred_);
  if (redo < step) rewind_to(redo);
  return st;
}

Status SerialEngine::background_failure() { return nc_.background_failure(); }

Status SerialEngine::close_files() {
  uint64_t redo = 0;
  Status st = nc_.async() && mode() != OpenMode::kRead ? nc_.finish_async(&redo) : ok_status();
  Status closed = nc_.close(std::exchange(deferred_, Status()));
  return st.ok() ? closed : st;
}

uint64_t SerialEngine::available_steps() const {
  return mode() == OpenMode::kRead ? nc_.header().numrecs : current_step();
}

}  // namespace tapio
