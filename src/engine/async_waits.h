// Asynchronous output's waits (docs/design.md, "Asynchronous output"): the engines that queue
// whole steps on an io::WriteBehind (serial, subfile) wait here, and the profile counts every
// wait that blocked (async_waits, time_async_wait) in the write phase.
#pragma once
#include <cstdint>

#include "engine/profile.h"
#include "io/background_writer.h"
#include "io/write_behind.h"

namespace tapio {

// Block until the queued jobs leave room for `bytes` more within `budget`.
void reserve_async(io::WriteBehind& behind, uint64_t bytes, uint64_t budget, Profile* profile);
// Block until every queued job has finished; the first failure since the last one reported.
Status drain_async(io::WriteBehind& behind, Profile* profile);
// The same for a background writer; drain_async returns its finish().
void reserve_async(io::BackgroundWriter& writer, uint64_t bytes, uint64_t budget,
                   Profile* profile);
Status drain_async(io::BackgroundWriter& writer, Profile* profile);

}  // namespace tapio
