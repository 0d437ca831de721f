// Every engine but mpiio (MPI-IO by definition) reaches its files only through io::Storage:
// each writes three steps to an in-memory Storage on the fake communicator and reads them
// back, under a directory that does not exist on disk (a POSIX call the interface missed would
// fail there, or leave a file behind).
#include <gtest/gtest.h>

#include <filesystem>

#include "engine/fake_engines.h"
#include "io/memory_storage.h"

namespace tapio::test {
namespace {

constexpr uint64_t N = 1000;
constexpr int P = 4;
const std::string kRoot = "/tapio-memory-only";

IoDef two_variables() {
  IoDef io;
  io.name = "unit";
  io.vars = {variable("x", {N * P}), variable("y", {N * P})};
  return io;
}

// Writes steps 0..2 of both variables, each rank its block, two ranks per node.
void write(io::Storage* storage, const std::string& engine, const std::string& path,
           const ParamMap& params) {
  comm::FakeWorld world(P);
  const Status run = world.run([&](comm::Comm& c) {
    RankContext ctx;
    ctx.io = two_variables();
    ctx.storage = storage;
    auto e = open_on(c, &ctx, engine, path, OpenMode::kWrite, params, /*ranks_per_node=*/2);
    ASSERT_TRUE(e.ok()) << e.status().message();
    std::vector<std::vector<double>> data(2, std::vector<double>(N));  // a put keeps its buffer
    for (uint64_t s = 0; s < 3; ++s) {
      StepStatus ss;
      ASSERT_TRUE((*e)->begin_step(&ss).ok());
      for (int v = 0; v < 2; ++v) {
        for (uint64_t i = 0; i < N; ++i) data[v][i] = value(v, s, c.rank() * N + i);
        ASSERT_TRUE((*e)->put(v, plan::shared(plan::Selection::box({c.rank() * N}, {N})),
                              TAPIO_FLOAT64, data[v].data()).ok());
      }
      const Status ended = (*e)->end_step();
      ASSERT_TRUE(ended.ok()) << ended.message();
    }
    const Status closed = (*e)->close();
    EXPECT_TRUE(closed.ok()) << closed.message();
  });
  ASSERT_TRUE(run.ok()) << run.message();
}

// The first bytes of a file in `storage`.
std::string head(io::Storage& storage, const std::string& path, size_t n) {
  auto file = storage.open(path, io::OpenMode::kReadOnly, nullptr, {});
  if (!file.ok()) return file.status().message();
  std::string bytes(n, '\0');
  size_t got = 0;
  EXPECT_TRUE((*file)->read_at(0, bytes.data(), n, &got).ok());
  bytes.resize(got);
  return bytes;
}

struct Case {
  const char* engine;
  const char* name;  // the file or dataset, under kRoot
  ParamMap params;
};

TEST(StorageEngines, WriteAndReadBackOnlyThroughTheStorage) {
  ASSERT_FALSE(std::filesystem::exists(kRoot));
  const std::vector<Case> cases = {
      {"serial", "s.nc", {}},
      {"serial", "layered.nc", {{"layers", "cache,buffered,aligned"}, {"layer_align", "4096"}}},
      {"collective", "c.nc", {{"aggregators", "2"}}},
      {"collective", "async.nc", {{"aggregators", "2"}, {"async", "true"}}},
      {"subfile", "d.tapio", {}},
  };
  for (const Case& c : cases) {
    io::MemoryStorage storage({kRoot});
    const std::string path = kRoot + "/" + c.name;
    write(&storage, c.engine, path, c.params);
    const Steps steps = read_whole(c.engine, path, &storage);
    ASSERT_EQ(steps.size(), 3u) << c.name;
    for (uint64_t s = 0; s < 3; ++s) {
      for (int v = 0; v < 2; ++v) {
        for (uint64_t g = 0; g < N * P; ++g)
          ASSERT_EQ(steps[s][v][g], value(v, s, g)) << c.name << ": step " << s << " var " << v
                                                    << " at " << g;
      }
    }
    // Every file the engine made is in the storage, under the path it was given.
    const std::vector<std::string> paths = storage.paths();
    ASSERT_FALSE(paths.empty()) << c.name;
    for (const std::string& p : paths) EXPECT_EQ(p.rfind(path, 0), 0u) << c.name << ": " << p;
    if (std::string(c.engine) != "subfile") {  // one classic NetCDF file, CDF-5 by default
      EXPECT_EQ(head(storage, path, 4), std::string("CDF\x05", 4)) << c.name;
    }
    EXPECT_FALSE(std::filesystem::exists(kRoot)) << c.name;
  }
}

// The default-engine probe asks the storage: its dataset directory is a subfile dataset, its
// NetCDF file and a missing path are not.
TEST(StorageEngines, DefaultEngineProbeLooksInTheStorage) {
  io::MemoryStorage storage({kRoot});
  write(&storage, "subfile", kRoot + "/d.tapio", {});
  write(&storage, "serial", kRoot + "/s.nc", {});
  EXPECT_TRUE(is_subfile_dataset(storage, kRoot + "/d.tapio"));
  EXPECT_FALSE(is_subfile_dataset(storage, kRoot + "/s.nc"));
  EXPECT_FALSE(is_subfile_dataset(storage, kRoot + "/missing"));
  EXPECT_FALSE(is_subfile_dataset(io::posix_storage(), kRoot + "/d.tapio"));
}

}  // namespace
}  // namespace tapio::test
