// Drives one file through the buffering layers the way a program's independent I/O would, and
// prints, per rank, one JSON line with the requests storage received (io::Counters, below the
// layers), the seconds the I/O took (open excluded, close included) and a digest of what was
// read.
//   layer_probe write PATH COUNT SIZE [key=value...]   COUNT writes of SIZE bytes, back to back
//   layer_probe read PATH COUNT SEED [key=value...]    COUNT random 8-byte reads, every rank
// The reads' offsets come from a 64-bit LCG seeded with SEED + rank, so a test can recompute
// them and check the digest (the sum of the values read, as little-endian uint64) itself.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "io/layers.h"

namespace {

using tapio::Status;

int fail(const std::string& what) {
  std::fprintf(stderr, "layer_probe: %s\n", what.c_str());
  return 1;
}

uint64_t lcg(uint64_t* x) {
  *x = *x * 6364136223846793005ull + 1442695040888963407ull;
  return *x >> 17;
}

Status write_many(tapio::io::File& f, uint64_t count, uint64_t size) {
  std::vector<uint8_t> piece(size);
  for (uint64_t i = 0; i < count; ++i) {
    for (uint64_t b = 0; b < size; ++b) piece[b] = static_cast<uint8_t>(i + b);
    TAPIO_RETURN_IF_ERROR(f.write_at(i * size, piece.data(), size));
  }
  return f.close();
}

Status read_random(tapio::io::File& f, uint64_t count, uint64_t seed, uint64_t* digest) {
  TAPIO_ASSIGN_OR_RETURN(const uint64_t bytes, f.size());
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t at = lcg(&seed) % (bytes / 8) * 8;
    uint64_t value = 0;
    TAPIO_RETURN_IF_ERROR(f.read_exact(at, &value, 8));
    *digest += value;
  }
  return f.close();
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc < 5) return fail("usage: layer_probe write|read PATH COUNT SIZE|SEED [key=value...]");
  const std::string mode = argv[1], path = argv[2];
  const uint64_t count = std::strtoull(argv[3], nullptr, 10);
  const uint64_t arg = std::strtoull(argv[4], nullptr, 10);
  tapio::Params params;
  for (int i = 5; i < argc; ++i) {
    const std::string kv = argv[i];
    const size_t eq = kv.find('=');
    const Status st = params.set(kv.substr(0, eq), eq == std::string::npos ? "" : kv.substr(eq + 1));
    if (!st.ok()) return fail(st.message());
  }
  auto spec = tapio::io::LayerSpec::parse(params, params.get_size("stripe_size"));
  if (!spec.ok()) return fail(spec.status().message());
  tapio::io::Counters counters;
  const bool writing = mode == "write";
  auto file = tapio::io::open_layered(
      tapio::io::posix_storage(), path,
      writing ? tapio::io::OpenMode::kCreate : tapio::io::OpenMode::kReadOnly, &counters, *spec);
  if (!file.ok()) return fail(file.status().message());
  uint64_t digest = 0;
  const double start = MPI_Wtime();
  const Status st = writing ? write_many(**file, count, arg)
                            : read_random(**file, count, arg + static_cast<uint64_t>(rank), &digest);
  const double seconds = MPI_Wtime() - start;
  if (!st.ok()) return fail(st.message());
  std::printf("{\"rank\": %d, \"seconds\": %.6f, \"reads\": %llu, \"bytes_read\": %llu, \"writes\": %llu, "
              "\"bytes_written\": %llu, \"digest\": %llu}\n",
              rank, seconds, static_cast<unsigned long long>(counters.reads),
              static_cast<unsigned long long>(counters.bytes_read),
              static_cast<unsigned long long>(counters.writes),
              static_cast<unsigned long long>(counters.bytes_written),
              static_cast<unsigned long long>(digest));
  MPI_Finalize();
  return 0;
}
