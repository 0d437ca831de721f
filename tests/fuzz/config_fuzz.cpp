// The run-time config parser (TOML rules) on hostile text: parsing and applying what parsed
// must not crash, and an accepted file's parameters must be accepted again by the registry
// (apply stores canonical values that Params::set takes back).
#include <cstdlib>
#include <string_view>

#include "alloc_bound.h"
#include "core/config.h"

using namespace tapio;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::AllocationBound bound;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto config = Config::parse(text, "fuzz.toml");
  // toml++ builds a node per value: a few hundred bytes for each byte of input at worst.
  bound.check(size, 512, 1 << 20, "Config::parse");
  if (!config.ok()) return 0;
  std::string engine;
  Params params;
  if (!config->apply("history", "/scratch/out.nc", &engine, &params).ok()) return 0;
  Params again;
  for (const auto& [key, value] : params.values())
    if (!again.set(key, value).ok()) std::abort();
  return 0;
}
