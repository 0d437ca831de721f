// The config file at tapio_init: every rank reads the one it is given (config_path, else
// $TAPIO_CONFIG), and the ranks agree on its presence, path and contents before any parses it.
#pragma once
#include <optional>

#include "comm/comm.h"
#include "core/config.h"

namespace tapio::api {

// Collective. The config every rank was given alike (nullopt: none). A config given to some
// ranks only, at different paths, with different contents or unreadable on some ranks is
// TAPIO_ERR_CONFIG on every rank naming rank 0's and the lowest differing rank's, and how many
// ranks differ; one unreadable or invalid everywhere, its error (the file and line).
Result<std::optional<Config>> load_agreed_config(const comm::Comm& comm, const char* config_path);

}  // namespace tapio::api
