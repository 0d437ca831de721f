// --compute: a busy loop of known length between the steps (the application's compute that
// asynchronous output hides writes behind). Its length is a number of iterations, calibrated
// once before any timing, not a clock to watch: a loop that shares its core with a background
// writer takes longer, as real compute would, instead of hiding the contention.
#include <chrono>

#include "bench.h"

namespace bench {
namespace {

// One unit of work the compiler cannot drop (a xorshift whose result is kept).
uint64_t work(uint64_t units) {
  static volatile uint64_t sink = 0;
  uint64_t x = sink | 1;
  for (uint64_t i = 0; i < units * 1024; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
  }
  sink = x;
  return x;
}

}  // namespace

uint64_t calibrate_compute(double seconds, MPI_Comm comm) {
  if (seconds <= 0) return 0;
  MPI_Barrier(comm);  // every rank calibrates at once: their shares of the cores are the runs'
  const auto start = std::chrono::steady_clock::now();
  uint64_t units = 0;
  double elapsed = 0;
  while (elapsed < 0.5) {
    work(64);
    units += 64;
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  uint64_t mine = static_cast<uint64_t>(units * seconds / elapsed), fewest = 0;
  MPI_Allreduce(&mine, &fewest, 1, MPI_UINT64_T, MPI_MIN, comm);  // every rank the same work
  return fewest;
}

void compute(uint64_t units) { work(units); }

}  // namespace bench
