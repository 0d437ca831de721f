// Opening a file, between tapio_open's handles and an engine: the run-time config rule, the
// default engine, the definitions every rank must share, the node topology and the cluster
// model's "auto" parameters, in that order (docs/design.md, "An engine, composed").
#pragma once
#include <memory>
#include <string>

#include "api/handles.h"
#include "engine/engine.h"

namespace tapio::api {

// Collective over the communicator of the IO's context; an error is returned on every rank.
Result<std::unique_ptr<Engine>> open_engine_for(IoState* io, const std::string& path,
                                                OpenMode mode);

}  // namespace tapio::api
