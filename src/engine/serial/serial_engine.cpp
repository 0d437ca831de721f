// Serial engine: construction and the file lifecycle (held in a NetcdfDataset). The data
// movement is in serial_write.cpp and serial_read.cpp.
#include "engine/serial/serial_engine.h"

namespace tapio {

namespace {

DatasetEnv with_layers(DatasetEnv env, io::LayerSpec layers) {
  env.layers = layers;
  return env;
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
  std::unique_ptr<SerialEngine> e(new SerialEngine(std::move(env), layers));
  uint64_t first = 0;
  TAPIO_RETURN_IF_ERROR(e->nc_.open(&first));
  e->start_at_step(first);
  return std::unique_ptr<Engine>(std::move(e));
}

Status SerialEngine::write_step(const std::vector<PutOp>& puts, uint64_t step,
                                const Status& local) {
  uint64_t redo = step;
  Status st = nc_.write_step(step, local, [&] { return write_puts(puts, step); }, &deferred_, &redo);
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
