#include "user_config.h"

#include <algorithm>
#include <cstdlib>

#include "dataset.h"

namespace tapio::cli {

Result<UserConfig> UserConfig::load(const comm::Comm& comm) {
  UserConfig out;
  Status local;
  const char* path = std::getenv("TAPIO_CONFIG");
  if (path != nullptr && *path != '\0') {
    Result<Config> config = Config::load(path);
    if (config.ok())
      out.config_ = std::move(config).value();
    else
      local = config.status();
  }
  TAPIO_RETURN_IF_ERROR(comm::agree(comm, local));
  return out;
}

Result<std::string> UserConfig::apply(IO& io, const std::string& io_name,
                                      const std::string& path,
                                      const std::vector<std::string>& engines) const {
  if (!config_) return std::string();
  std::string engine;
  Params params;
  TAPIO_RETURN_IF_ERROR(config_->apply(io_name, path, &engine, &params));
  TAPIO_RETURN_IF_ERROR(api_call([&] {
    for (const auto& [name, value] : params.values()) io.set_parameter(name, value);
  }));
  if (engine.empty() || std::find(engines.begin(), engines.end(), engine) == engines.end())
    return engine;
  TAPIO_RETURN_IF_ERROR(api_call([&] { io.set_engine(engine); }));
  return std::string();
}

const std::string& UserConfig::source() const {
  static const std::string none;
  return config_ ? config_->source() : none;
}

}  // namespace tapio::cli
