#include "engine/async_waits.h"

#include <chrono>

namespace tapio {
namespace {

void count_wait(std::chrono::steady_clock::time_point start, Profile* profile) {
  ++profile->async.waits;
  profile->async.wait +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

void reserve_async(io::BackgroundWriter& writer, uint64_t bytes, uint64_t budget,
                   Profile* profile) {
  PhaseTimer t(profile, Phase::kWrite);
  const auto start = std::chrono::steady_clock::now();
  if (writer.reserve(bytes, budget)) count_wait(start, profile);
}

Status drain_async(io::BackgroundWriter& writer, Profile* profile) {
  PhaseTimer t(profile, Phase::kWrite);
  if (!writer.busy()) return writer.finish();
  const auto start = std::chrono::steady_clock::now();
  Status st = writer.finish();
  count_wait(start, profile);
  return st;
}

}  // namespace tapio
