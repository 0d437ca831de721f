// Which engine opens a file: the registry of built engines and the path defaults.
#include "engine/engine.h"
#include "engine/serial/serial_engine.h"

namespace tapio {

std::string default_engine_for_path(const std::string&) {
  // Until the collective and subfile engines land, every path gets the serial engine.
  return "serial";
}

Result<std::unique_ptr<Engine>> open_engine(EngineEnv env) {
  if (env.engine == "serial") return SerialEngine::open(std::move(env));
  // The name was validated against engine_names(); this build does not have it yet.
  return error(TAPIO_ERR_UNSUPPORTED, "file '{}': engine '{}' is not available in this build",
               env.path, env.engine);
}

}  // namespace tapio
