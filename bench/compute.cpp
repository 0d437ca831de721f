// --compute: a busy loop of known length between the steps (the application's compute that
// asynchronous output hides writes behind). Its length is wall-clock time on the steady clock,
// spun without sleeping: on a shared, loaded machine a loop calibrated in iterations once runs
// for anything from a tenth to twice its target, so the comparison would not be of equal
// compute. CPU taken from the loop by a background writer then shows as fewer iterations, not
// a longer compute: the rank's own share of a core is what the "hidden" figure assumes free.
#include <chrono>

#include "bench.h"

namespace bench {

void compute(double seconds) {
  if (seconds <= 0) return;
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  static volatile uint64_t sink = 0;
  uint64_t x = sink | 1;
  while (std::chrono::steady_clock::now() < until)
    for (int i = 0; i < 4096; ++i) {  // xorshift: work the compiler cannot drop
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
    }
  sink = x;
}

}  // namespace bench
