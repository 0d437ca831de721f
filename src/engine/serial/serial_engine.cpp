// Serial engine: construction. The data movement is in serial_write.cpp and serial_read.cpp;
// the NetCDF file lifecycle is shared with the other NetCDF engines (engine/netcdf_engine.h).
#include "engine/serial/serial_engine.h"

namespace tapio {

SerialEngine::SerialEngine(EngineEnv env) : NetcdfEngine(std::move(env)) {}

Result<std::unique_ptr<Engine>> SerialEngine::open(EngineEnv env) {
  std::unique_ptr<SerialEngine> e(new SerialEngine(std::move(env)));
  TAPIO_RETURN_IF_ERROR(e->open_file());
  return std::unique_ptr<Engine>(std::move(e));
}

}  // namespace tapio
