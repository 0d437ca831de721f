// Asynchronous output's waits (docs/design.md, "Asynchronous output"): the engines' background
// writers (io::BackgroundWriter) are waited for here, and the profile counts every wait that
// blocked (async_waits, time_async_wait) in the write phase.
#pragma once
#include <cstdint>

#include "engine/profile.h"
#include "io/background_writer.h"

namespace tapio {

// Block until the queued jobs leave room for `bytes` more within `budget`.
void reserve_async(io::BackgroundWriter& writer, uint64_t bytes, uint64_t budget,
                   Profile* profile);
// Block until every queued job has finished; the writer's finish(): the first failure since
// the last one reported.
Status drain_async(io::BackgroundWriter& writer, Profile* profile);

}  // namespace tapio
