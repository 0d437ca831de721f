// Which engine opens a file: the registry of built engines and the path defaults.
#include "engine/collective/collective_engine.h"
#include "engine/engine.h"
#include "engine/mpiio/mpiio_engine.h"
#include "engine/serial/serial_engine.h"
#include "engine/subfile/subfile_engine.h"

namespace tapio {

std::string default_engine_for_path(const std::string& path) {
  // One standard NetCDF file for `.nc` paths, a subfile dataset (a directory) otherwise.
  const bool netcdf = path.size() >= 3 && path.compare(path.size() - 3, 3, ".nc") == 0;
  return netcdf ? "collective" : "subfile";
}

namespace {

Result<std::unique_ptr<Engine>> open_by_name(EngineEnv env) {
  if (env.engine == "serial") return SerialEngine::open(std::move(env));
  if (env.engine == "collective") return CollectiveEngine::open(std::move(env));
  if (env.engine == "subfile") return SubfileEngine::open(std::move(env));
  if (env.engine == "mpiio") return MpiioEngine::open(std::move(env));
  // The name was validated against engine_names(); this build does not have it yet.
  return error(TAPIO_ERR_UNSUPPORTED, "file '{}': engine '{}' is not available in this build",
               env.path, env.engine);
}

}  // namespace

Result<std::unique_ptr<Engine>> open_engine(EngineEnv env) {
  auto engine = open_by_name(std::move(env));
  if (engine.ok()) (*engine)->opened();
  return engine;
}

}  // namespace tapio
