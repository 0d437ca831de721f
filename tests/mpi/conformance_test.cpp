// One conformance suite for the engines that write one NetCDF file: for every decomposition
// the file an engine writes is byte-identical to the serial engine's, and reads with another
// decomposition give back every value. New engines register in kEngines.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <map>
#include <numeric>
#include <random>

#include <nlohmann/json.hpp>

#include "e3sm_map.h"
#include "test_util.h"

namespace tapio::test {
namespace {

using Params = std::map<std::string, std::string>;
using Scenario = std::function<void(IO&, Engine&, int step)>;  // defines nothing; puts one step
using Define = std::function<void(IO&)>;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_file(const std::string& path, const std::string& engine, const Params& params,
                const Define& define, const Scenario& step_puts, int steps) {
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("conformance");
  io.set_engine(engine);
  for (const auto& [k, v] : params) io.set_parameter(k, v);
  define(io);
  Engine out = io.open(path, TAPIO_MODE_WRITE);
  EXPECT_EQ(out.engine_name(), engine);
  for (int s = 0; s < steps; ++s) {
    out.begin_step();
    step_puts(io, out, s);
    out.end_step();
  }
  out.close();
}

// Writes with `engine` and with serial (same parameters); the files must be identical byte
// for byte.
void expect_same_as_serial(const std::string& engine, const Params& params, const Define& define,
                           const Scenario& step_puts, int steps, TempDir& dir,
                           const std::string& name) {
  const std::string a = dir.file(name + ".serial.nc"), b = dir.file(name + "." + engine + ".nc");
  write_file(a, "serial", params, define, step_puts, steps);  // engines ignore what is not theirs
  write_file(b, engine, params, define, step_puts, steps);
  if (rank() == 0) {
    const std::string sa = read_file(a), sb = read_file(b);
    ASSERT_EQ(sa.size(), sb.size()) << name;
    size_t first = 0;
    while (first < sa.size() && sa[first] == sb[first]) ++first;
    EXPECT_EQ(first, sa.size()) << name << ": first differing byte " << first;
  }
}

// A LICOM-like set: 3-D and 2-D doubles on a 2-D process grid, an int field, a fixed
// coordinate written by rank 0 only, and a 0-d scalar.
struct Licom {
  uint64_t nz = 5, ny = 13, nx = 17;
  std::vector<std::vector<double>> keep;
  std::vector<std::vector<int32_t>> keep_i;
  void define(IO& io) {
    io.define_variable<double>("temp", {nz, ny, nx}, {"depth", "lat", "lon"});
    io.define_variable<double>("ssh", {ny, nx}, {"lat", "lon"});
    io.define_variable<int32_t>("mask", {ny, nx}, {"lat", "lon"});
    io.define_variable<double>("lat", {ny}, {"lat"}, TAPIO_VAR_FIXED);
    io.define_variable<double>("total", {});
  }
  void put(IO& io, Engine& out, int s) {
    int dims[2] = {0, 0};
    MPI_Dims_create(size(), 2, dims);
    uint64_t r0, nr, c0, nc;
    split(ny, dims[0], rank() / dims[1], &r0, &nr);
    split(nx, dims[1], rank() % dims[1], &c0, &nc);
    keep.assign(3, {});
    keep_i.assign(1, {});
    Variable temp = io.inquire_variable("temp"), ssh = io.inquire_variable("ssh");
    Variable mask = io.inquire_variable("mask"), lat = io.inquire_variable("lat");
    Variable total = io.inquire_variable("total");
    for (uint64_t g : box_indices({nz, ny, nx}, {0, r0, c0}, {nz, nr, nc})) keep[0].push_back(value(0, s, g));
    for (uint64_t g : box_indices({ny, nx}, {r0, c0}, {nr, nc})) {
      keep[1].push_back(value(1, s, g));
      keep_i[0].push_back(static_cast<int32_t>(g * 3 + s));
    }
    temp.set_selection({0, r0, c0}, {nz, nr, nc});
    out.put(temp, keep[0]);
    ssh.set_selection({r0, c0}, {nr, nc});
    out.put(ssh, keep[1]);
    mask.set_selection({r0, c0}, {nr, nc});
    out.put(mask, keep_i[0]);
    if (rank() == 0) {
      for (uint64_t j = 0; j < ny; ++j) keep[2].push_back(-90.0 + j);
      keep[2].push_back(42.0 + s);
      if (s == 0) out.put(lat, keep[2].data());
      out.put(total, keep[2].data() + ny);
    }
  }
};

// Reads with `engine` through rounds of 100 bytes in 64-byte stripes (many windows, cutting
// elements), with or without shared slots.
IO tiny_window_reader(Context& ctx, const std::string& engine, const char* shared_memory) {
  IO io = ctx.declare_io("tiny_windows");
  io.set_engine(engine);
  io.set_parameter("buffer_size", "100");
  io.set_parameter("stripe_size", "64");
  io.set_parameter("shared_memory", shared_memory);
  return io;
}

// A profile written at close; at() throws (failing the test) when a counter is missing.
nlohmann::json profile_of(const std::string& path) {
  return nlohmann::json::parse(read_file(path));
}
double counter(const nlohmann::json& j, const std::string& name, const char* what) {
  return j.at("counters").at(name).at(what).get<double>();
}

double phase(const nlohmann::json& j, const std::string& name, const char* what) {
  return j.at("phases").at(name).at(what).get<double>();
}

// A profile's phases are exclusive and, with "other", make up each rank's time inside tapio:
// per phase min <= median <= max <= sum, and the sums add up to time_in_calls.
void expect_phases_add_up(const nlohmann::json& j) {
  double total = 0;
  for (const char* name : {"plan", "copy", "swap", "checksum", "exchange", "write", "sync",
                           "read", "metadata", "agree", "encode", "other"}) {
    EXPECT_LE(phase(j, name, "min"), phase(j, name, "median")) << name;
    EXPECT_LE(phase(j, name, "median"), phase(j, name, "max")) << name;
    EXPECT_LE(phase(j, name, "max"), phase(j, name, "sum") + 1e-12) << name;
    total += phase(j, name, "sum");
  }
  EXPECT_NEAR(total, counter(j, "time_in_calls", "sum"), 1e-6 + 1e-6 * total) << j.dump(1);
  EXPECT_LE(counter(j, "time_in_calls", "max"), counter(j, "time_total", "max"));
}

// The bytes all ranks together read from storage when they open `path` with `engine` and
// `params` and read nothing: the header, which every read's POSIX_BYTES_READ includes.
// Collective; valid on rank 0.
double header_read_bytes(const std::string& path, const std::string& engine, Params params,
                         const std::string& profile) {
  params["profile"] = profile;
  {
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("header_only");
    io.set_engine(engine);
    for (const auto& [k, v] : params) io.set_parameter(k, v);
    Engine in = io.open(path, TAPIO_MODE_READ);
    in.close();
  }
  return rank() == 0 ? counter(profile_of(profile), "POSIX_BYTES_READ", "sum") : 0;
}

// A fixed permutation of [0, n), dealt cyclically: this rank's share, many small pieces
// scattered over the whole variable.
std::vector<uint64_t> shuffled_share(uint64_t n, uint64_t seed) {
  std::vector<uint64_t> all(n);
  std::iota(all.begin(), all.end(), 0);
  std::mt19937_64 rng(seed);
  std::shuffle(all.begin(), all.end(), rng);
  std::vector<uint64_t> mine;
  for (uint64_t i = rank(); i < n; i += size()) mine.push_back(all[i]);
  return mine;
}

// Reads both steps of each decomposition's variable (its runs) and checks every value: the
// k-th variable holds value(k, step, element).
void expect_runs_read(IO& io, Engine& in, const std::vector<e3sm::Decomposition>& decomps,
                      const std::string& label) {
  std::vector<std::vector<double>> got(decomps.size());
  for (size_t k = 0; k < decomps.size(); ++k) {
    Variable v = io.inquire_variable(decomps[k].name);
    v.set_runs(decomps[k].offsets, decomps[k].lengths);
    v.set_step_selection(0, 2);
    got[k].resize(2 * decomps[k].elements());
    in.get(v, got[k]);
  }
  in.perform_gets();
  for (size_t k = 0; k < decomps.size(); ++k) {
    size_t pos = 0;
    for (int s = 0; s < 2; ++s)
      for (size_t i = 0; i < decomps[k].offsets.size(); ++i)
        for (uint64_t e = 0; e < decomps[k].lengths[i]; ++e)
          ASSERT_EQ(got[k][pos++], value(static_cast<int>(k), s, decomps[k].offsets[i] + e))
              << label << " " << decomps[k].name;
  }
}

class Conformance : public ::testing::TestWithParam<std::string> {};
// The collective engine's own properties (aggregation, its message plan, direct I/O): tests of
// that engine alone, not cases of every engine.
const std::string kCollective = "collective";

TEST_P(Conformance, LicomBlocksAcrossParameterSets) {
  TempDir dir;
  const std::vector<Params> sets = {
      {},
      {{"buffer_size", "4096"}, {"stripe_size", "1024"}},  // many rounds, many domains
      {{"ranks_per_node", "1"}, {"aggregators", "3"}, {"buffer_size", "3000"},
       {"stripe_size", "512"}, {"placement", "rank-order"}, {"collect_order", "rank"},
       {"shared_memory", "false"}},  // every piece as a message
      {{"ranks_per_node", "2"}, {"node_layout", "cyclic"}, {"pipeline", "false"},
       {"buffer_size", "8192"}, {"stripe_size", "4096"}},
      // Two-level: each virtual node's pieces for the other nodes leave through one rank.
      {{"ranks_per_node", "2"}, {"two_level", "true"}, {"direct", "never"}},
      {{"ranks_per_node", "2"}, {"node_layout", "cyclic"}, {"two_level", "true"},
       {"shared_memory", "false"}, {"buffer_size", "4096"}, {"stripe_size", "1024"},
       {"direct", "never"}},  // many rounds, every piece a message
      {{"ranks_per_node", "3"}, {"two_level", "true"}, {"aggregators", "all"},
       {"buffer_size", "3000"}, {"stripe_size", "512"}, {"collect_order", "rank"},
       {"direct", "never"}},  // aggregators gathering too, an odd last node
  };
  int k = 0;
  for (const Params& p : sets) {
    Licom licom;
    expect_same_as_serial(
        GetParam(), p, [&](IO& io) { licom.define(io); },
        [&](IO& io, Engine& out, int s) { licom.put(io, out, s); }, 3, dir,
        "licom" + std::to_string(k++));
  }
}

TEST_P(Conformance, ShuffledOffsetsMultiplePutsAndFill) {
  TempDir dir;
  const uint64_t n = 97;
  std::vector<uint64_t> all(n);
  std::iota(all.begin(), all.end(), 0);
  std::mt19937_64 rng(11);
  std::shuffle(all.begin(), all.end(), rng);
  std::vector<uint64_t> mine;
  for (uint64_t i = rank(); i < n; i += size()) mine.push_back(all[i]);
  std::vector<int64_t> data;
  std::vector<float> half;
  auto define = [&](IO& io) {
    io.define_variable<int64_t>("shuffled", {n});
    io.define_variable<float>("half", {static_cast<uint64_t>(8 * size())});  // half unwritten
    io.define_variable<int16_t>("odd", {3});  // odd byte size: record padding
  };
  auto puts = [&](IO& io, Engine& out, int s) {
    Variable v = io.inquire_variable("shuffled"), h = io.inquire_variable("half");
    data.clear();
    for (uint64_t g : mine) data.push_back(static_cast<int64_t>(g * 100 + s));
    // Two puts per rank: the first and second half of its offsets.
    const size_t m = mine.size() / 2;
    v.set_offsets(std::vector<uint64_t>(mine.begin(), mine.begin() + m));
    out.put(v, data.data());
    v.set_offsets(std::vector<uint64_t>(mine.begin() + m, mine.end()));
    out.put(v, data.data() + m);
    half.assign(4, 1.5f + s);
    h.set_selection({8 * static_cast<uint64_t>(rank()) + 2}, {4});
    out.put(h, half);
  };
  expect_same_as_serial(GetParam(), {{"buffer_size", "100"}, {"stripe_size", "64"}}, define, puts,
                        2, dir, "shuffled");
  // Read back through the same tiny windows: with and without shared slots.
  for (const char* shm : {"true", "false"}) {
    Context ctx(MPI_COMM_WORLD);
    IO io = tiny_window_reader(ctx, GetParam(), shm);
    Engine in = io.open(dir.file("shuffled." + GetParam() + ".nc"), TAPIO_MODE_READ);
    Variable v = io.inquire_variable("shuffled");
    v.set_offsets(mine);  // another split than the writer's two puts
    v.set_step_selection(0, 2);
    std::vector<int64_t> got(2 * mine.size());
    in.get(v, got);
    in.perform_gets();
    for (int s = 0; s < 2; ++s)
      for (size_t k = 0; k < mine.size(); ++k)
        ASSERT_EQ(got[s * mine.size() + k], static_cast<int64_t>(mine[k] * 100 + s)) << shm;
    in.close();
  }
  expect_same_as_serial(GetParam(), {{"fill", "false"}}, define, puts, 2, dir, "nofill");
}

TEST_P(Conformance, E3smMapsWrittenAndRead) {
  TempDir dir;
  for (const char* name : {"map_f_case_16p.nc", "map_g_case_16p.nc", "map_i_case_16p.nc"}) {
    const std::string map = std::string(TAPIO_SHARED_DIR) + "/data/e3sm-io/" + name;
    std::vector<e3sm::Decomposition> decomps;
    {
      Context ctx(MPI_COMM_WORLD);
      decomps = e3sm::read_maps(ctx, map, MPI_COMM_WORLD);
    }
    std::vector<std::vector<double>> data(decomps.size());
    auto define = [&](IO& io) {
      for (const auto& d : decomps) {
        std::vector<std::string> dims;
        for (size_t k = 0; k < d.dims.size(); ++k) dims.push_back(d.name + "_" + std::to_string(k));
        io.define_variable<double>(d.name, d.dims, dims);
      }
    };
    auto puts = [&](IO& io, Engine& out, int s) {
      for (size_t k = 0; k < decomps.size(); ++k) {
        data[k].clear();
        for (size_t i = 0; i < decomps[k].offsets.size(); ++i)
          for (uint64_t e = 0; e < decomps[k].lengths[i]; ++e)
            data[k].push_back(value(static_cast<int>(k), s, decomps[k].offsets[i] + e));
        Variable v = io.inquire_variable(decomps[k].name);
        v.set_runs(decomps[k].offsets, decomps[k].lengths);
        out.put(v, data[k]);
      }
    };
    const Params params = {{"buffer_size", "65536"}, {"stripe_size", "4096"}};
    expect_same_as_serial(GetParam(), params, define, puts, 2, dir, name);
    // Read back with the engine, the writer's own irregular decomposition, both steps at once.
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("read");
    io.set_engine(GetParam());
    for (const auto& [k, v] : params) io.set_parameter(k, v);
    Engine in = io.open(dir.file(std::string(name) + "." + GetParam() + ".nc"), TAPIO_MODE_READ);
    expect_runs_read(io, in, decomps, name);
    in.close();
  }
}

// Reads the whole 1-D variable "x" of step 0 on `comm` with `engine`, writing a profile, and
// checks that element g holds value(0, 0, g).
void read_whole_x(MPI_Comm comm, const std::string& path, const std::string& engine,
                  const Params& params, const std::string& profile, uint64_t n) {
  Context ctx(comm);
  IO io = ctx.declare_io("read_x");
  io.set_engine(engine);
  for (const auto& [key, v] : params) io.set_parameter(key, v);
  io.set_parameter("profile", profile);
  Engine in = io.open(path, TAPIO_MODE_READ);
  Variable v = io.inquire_variable("x");
  std::vector<double> got(n);
  in.begin_step();
  in.get(v, got);
  in.end_step();
  in.close();
  for (uint64_t g = 0; g < n; ++g) ASSERT_EQ(got[g], value(0, 0, g)) << engine << " " << profile;
}

// Every rank reads the same whole variable: the aggregators read it from storage once, on
// one node (one aggregator) and on virtual nodes of one rank (every rank an aggregator).
TEST_P(Conformance, SharedReadIsReadOnce) {
  TempDir dir;
  const std::string path = dir.file("shared.nc");
  const uint64_t n = 4096, bytes = n * 8;
  {
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("shared");
    Variable v = io.define_variable<double>("x", {n});
    Engine out = io.open(path, TAPIO_MODE_WRITE);
    out.begin_step();
    std::vector<double> data(n);
    for (uint64_t g = 0; g < n; ++g) data[g] = value(0, 0, g);
    if (rank() == 0) out.put(v, data);
    out.end_step();
    out.close();
  }
  const std::vector<Params> sets = {
      {{"buffer_size", "8192"}},
      {{"buffer_size", "8192"}, {"stripe_size", "512"}, {"ranks_per_node", "1"},
       {"shared_memory", "false"}},
  };
  std::vector<double> headers;
  for (size_t k = 0; k < sets.size(); ++k) {
    const std::string profile = dir.file("read" + std::to_string(k) + ".json");
    const std::string hprofile = dir.file("header" + std::to_string(k) + ".json");
    const bool counted = GetParam() == "collective";
    headers.push_back(counted ? header_read_bytes(path, GetParam(), sets[k], hprofile) : 0);
    read_whole_x(MPI_COMM_WORLD, path, GetParam(), sets[k], profile, n);
    // The mpiio engine reads its data through MPI-IO, which POSIX counters do not see.
    if (rank() == 0 && GetParam() == "collective") {
      const auto j = profile_of(profile);
      // The data once in all, not once per rank: at 2+ ranks a read per rank is >= 2x (at one
      // rank the two are the same).
      const double data = counter(j, "POSIX_BYTES_READ", "sum") - headers[k];
      EXPECT_GE(data, bytes) << k << " " << j.dump(1);
      EXPECT_LT(data, 2.0 * bytes) << k << " header " << headers[k] << " " << j.dump(1);
    }
  }
  // What the bound rules out, measured the same way: every rank reading the variable alone
  // (on its own communicator, header included) reads ranks x bytes beyond one header.
  if (GetParam() != "collective" || size() < 2) return;
  const std::string alone = dir.file("alone" + std::to_string(rank()) + ".json");
  read_whole_x(MPI_COMM_SELF, path, GetParam(), {}, alone, n);
  double sum = counter(profile_of(alone), "POSIX_BYTES_READ", "sum");
  MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank() == 0) {
    EXPECT_GE(sum - headers[0], 2.0 * bytes) << "the bound would not catch it";
  }
}

// An aggregator issues at most ceil(domain bytes / buffer_size) data writes per step, with
// rounds of buffer_size (min_rounds = 1: a smaller domain would get smaller rounds).
TEST(CollectiveConformance, WriteRequestsPerAggregatorAreBounded) {
  TempDir dir;
  const std::string path = dir.file("bound.nc"), profile = dir.file("profile.json");
  const uint64_t rows = 64, cols = 1000;
  const uint64_t buffer = 65536;
  {
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("bound");
    io.set_engine("collective");
    io.set_parameter("buffer_size", std::to_string(buffer));
    io.set_parameter("min_rounds", "1");
    io.set_parameter("stripe_size", "4096");
    io.set_parameter("ranks_per_node", "1");
    io.set_parameter("direct", "never");  // the bound is about aggregators' requests
    io.set_parameter("profile", profile);
    Variable v = io.define_variable<double>("x", {rows, cols});
    Engine out = io.open(path, TAPIO_MODE_WRITE);
    // Rows dealt cyclically: every rank's pieces are spread over the whole file.
    std::vector<double> data;
    std::vector<uint64_t> offsets;
    for (uint64_t r = rank(); r < rows; r += size())
      for (uint64_t c = 0; c < cols; ++c) {
        offsets.push_back(r * cols + c);
        data.push_back(value(0, 0, r * cols + c));
      }
    out.begin_step();
    v.set_offsets(offsets);
    out.put(v, data);
    out.end_step();
    out.close();
  }
  if (rank() == 0) {
    const auto j = nlohmann::json::parse(read_file(profile));
    const uint64_t bytes = rows * cols * 8;
    const uint64_t aggs = static_cast<uint64_t>(size());  // one per virtual node
    const uint64_t domain = (bytes + aggs - 1) / aggs + 4096;  // at most one stripe over even
    const uint64_t bound = (domain + buffer - 1) / buffer;
    // Rank 0 also writes the header once and numrecs once.
    EXPECT_LE(j["counters"]["POSIX_WRITES"]["max"].get<double>(), bound + 2) << j.dump(1);
    EXPECT_GE(j["counters"]["POSIX_WRITES"]["sum"].get<double>(), bytes / buffer);
  }
}

// A double variable that starts 4 bytes past a multiple of 8 (after a 1-float record
// variable), read through 64-byte windows: window boundaries cut doubles in two, and both
// halves must meet before the byte swap, with and without shared slots.
TEST_P(Conformance, ReadsCutInsideElements) {
  TempDir dir;
  const std::string path = dir.file("cut.nc");
  const uint64_t n = 301;
  {
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("cut");
    io.set_engine("serial");
    Variable pad = io.define_variable<float>("pad", {1});
    Variable x = io.define_variable<double>("x", {n});
    Engine out = io.open(path, TAPIO_MODE_WRITE);
    std::vector<double> data(n);
    const float one = 1.0f;
    for (int s = 0; s < 2; ++s) {
      out.begin_step();
      for (uint64_t g = 0; g < n; ++g) data[g] = value(0, s, g);
      if (rank() == 0) {
        out.put(pad, &one);
        out.put(x, data);
      }
      out.end_step();
    }
    out.close();
  }
  std::vector<uint64_t> mine;  // every third element from this rank's start, and a block
  for (uint64_t g = rank(); g < n; g += 3) mine.push_back(g);
  for (const char* shm : {"true", "false"}) {
    Context ctx(MPI_COMM_WORLD);
    IO io = tiny_window_reader(ctx, GetParam(), shm);
    Engine in = io.open(path, TAPIO_MODE_READ);
    Variable x = io.inquire_variable("x");
    x.set_offsets(mine);
    x.set_step_selection(0, 2);
    std::vector<double> got(2 * mine.size());
    in.get(x, got);
    x.set_selection({10}, {200});
    x.set_step_selection(1, 1);
    std::vector<double> block(200);
    in.get(x, block);
    in.perform_gets();
    for (int s = 0; s < 2; ++s)
      for (size_t k = 0; k < mine.size(); ++k)
        ASSERT_EQ(got[s * mine.size() + k], value(0, s, mine[k])) << shm << " " << mine[k];
    for (uint64_t k = 0; k < 200; ++k) ASSERT_EQ(block[k], value(0, 1, 10 + k)) << shm;
    in.close();
  }
}

// On one node the ranks copy their pieces into the aggregators' round buffers in shared
// memory: only segment lists travel as messages. Without shared memory the data does.
TEST(CollectiveConformance, NodeLocalPiecesGoThroughSharedMemory) {
  if (size() < 2) GTEST_SKIP() << "needs a rank that is not the aggregator";
  TempDir dir;
  double sent[2] = {0, 0};
  for (int shm = 0; shm < 2; ++shm) {
    const std::string prof = dir.file("shm" + std::to_string(shm) + ".json");
    Licom licom;
    licom.nz = 20;  // 20 x 13 x 17 doubles: many rounds of 4 KiB, so slots are reused
    expect_same_as_serial(
        kCollective,
        {{"shared_memory", shm ? "true" : "false"}, {"buffer_size", "4096"},
         {"stripe_size", "1024"}, {"profile", prof}},
        [&](IO& io) { licom.define(io); }, [&](IO& io, Engine& out, int s) { licom.put(io, out, s); },
        3, dir, "shm" + std::to_string(shm));
    if (rank() == 0)
      sent[shm] = nlohmann::json::parse(read_file(prof))["counters"]["bytes_sent"]["sum"].get<double>();
  }
  if (rank() == 0) {
    const double data = 3.0 * (20 * 13 * 17 + 2 * 13 * 17) * 8;  // what all ranks put
    EXPECT_GT(sent[0], data / size()) << "without shared memory the data travels";
    // With it only segment lists do (32 bytes per segment: many here, with 4 KiB rounds).
    EXPECT_LT(sent[1], sent[0] / 2) << sent[1] << " bytes sent with shared memory";
  }
}

// Slabs of rows in rank order, two variables per step: each rank writes and reads its own
// (direct), with no message and one request per slab, and the file is the serial engine's.
TEST(CollectiveConformance, SlabsInRankOrderGoDirect) {
  TempDir dir;
  const uint64_t cols = 512, slab = 16, rows = slab * size();
  const std::string wprof = dir.file("direct_w.json"), rprof = dir.file("direct_r.json");
  std::vector<std::vector<double>> keep(2);
  auto define = [&](IO& io) {
    io.define_variable<double>("a", {rows, cols});
    io.define_variable<double>("b", {rows, cols});
  };
  auto puts = [&](IO& io, Engine& out, int s) {
    for (int k = 0; k < 2; ++k) {
      Variable v = io.inquire_variable(k ? "b" : "a");
      keep[k].clear();
      for (uint64_t g = rank() * slab * cols; g < (rank() + 1) * slab * cols; ++g)
        keep[k].push_back(value(k, s, g));
      v.set_selection({rank() * slab, 0}, {slab, cols});
      out.put(v, keep[k]);
    }
  };
  const Params params = {{"stripe_size", "4096"}, {"profile", wprof}};
  expect_same_as_serial(kCollective, params, define, puts, 2, dir, "slabs");
  {
    // With fsync = step every rank that wrote syncs its own descriptor at each step (on a
    // parallel file system rank 0's fsync would not flush the others' caches).
    const std::string sprof = dir.file("direct_step.json");
    write_file(dir.file("slabs_step.nc"), kCollective,
               {{"stripe_size", "4096"}, {"fsync", "step"}, {"profile", sprof}}, define, puts, 2);
    if (rank() == 0) {
      const auto j = nlohmann::json::parse(read_file(sprof));
      EXPECT_GE(j["counters"]["POSIX_FSYNCS"]["min"].get<double>(), 2) << j.dump(1);
    }
  }
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("slabs_read");
  io.set_engine(kCollective);
  io.set_parameter("stripe_size", "4096");
  io.set_parameter("profile", rprof);
  Engine in = io.open(dir.file("slabs.collective.nc"), TAPIO_MODE_READ);
  for (int s = 0; s < 2; ++s) {
    in.begin_step();
    std::vector<std::vector<double>> got(2, std::vector<double>(slab * cols));
    for (int k = 0; k < 2; ++k) {
      Variable v = io.inquire_variable(k ? "b" : "a");
      v.set_selection({rank() * slab, 0}, {slab, cols});
      in.get(v, got[k]);
    }
    in.end_step();
    for (int k = 0; k < 2; ++k)
      for (uint64_t i = 0; i < slab * cols; ++i)
        ASSERT_EQ(got[k][i], value(k, s, rank() * slab * cols + i)) << k << " " << s << " " << i;
  }
  in.close();
  if (rank() == 0) {
    const auto w = nlohmann::json::parse(read_file(wprof));
    const auto r = nlohmann::json::parse(read_file(rprof));
    EXPECT_EQ(w["counters"]["messages_sent"]["sum"].get<double>(), 0) << w.dump(1);
    EXPECT_EQ(r["counters"]["messages_sent"]["sum"].get<double>(), 0) << r.dump(1);
    // The header, numrecs twice, and at most one request per slab (adjacent slabs of one rank
    // merge).
    EXPECT_LE(w["counters"]["POSIX_WRITES"]["sum"].get<double>(), 3 + 2 * 2 * size()) << w.dump(1);
    EXPECT_LE(r["counters"]["POSIX_READS"]["sum"].get<double>(), 1 + 2 * 2 * size()) << r.dump(1);
    EXPECT_GE(w["counters"]["POSIX_BYTES_WRITTEN"]["sum"].get<double>(), 2 * 2 * rows * cols * 8);
  }
}

// Reads through several aggregators on virtual nodes (messages between nodes, shared slots
// within one), with another decomposition than the writer's: LICOM blocks read back by
// columns, rows dealt cyclically and shuffled element lists (many small pieces per window, so
// replies from another node go through the aggregator's scratch buffer), and variables every
// rank reads whole. Every value is checked.
TEST_P(Conformance, ReadsServedByManyAggregators) {
  TempDir dir;
  const std::string path = dir.file("licom.nc");
  Licom licom;
  licom.nz = 6;
  write_file(path, "serial", {}, [&](IO& io) { licom.define(io); },
             [&](IO& io, Engine& out, int s) { licom.put(io, out, s); }, 2);
  const uint64_t nz = licom.nz, ny = licom.ny, nx = licom.nx, n3 = nz * ny * nx, n2 = ny * nx;
  uint64_t c0, nc;
  split(nx, size(), rank(), &c0, &nc);
  const std::vector<uint64_t> columns = box_indices({nz, ny, nx}, {0, 0, c0}, {nz, ny, nc});
  const std::vector<uint64_t> shuffled = shuffled_share(n3, 5), mask_share = shuffled_share(n2, 6);
  std::vector<uint64_t> row_starts, row_lengths;
  for (uint64_t j = rank(); j < ny; j += size()) {
    row_starts.push_back(j * nx);
    row_lengths.push_back(nx);
  }
  const std::vector<Params> sets = {
      {{"ranks_per_node", "1"}, {"aggregators", "auto"}, {"shared_memory", "false"},
       {"buffer_size", "3000"}, {"stripe_size", "512"}},  // every aggregator remote
      {{"ranks_per_node", "2"}, {"node_layout", "cyclic"}, {"aggregators", "3"},
       {"shared_memory", "true"}, {"buffer_size", "100"}, {"stripe_size", "64"}},
      {{"ranks_per_node", "2"}, {"node_layout", "block"}, {"aggregators", "auto"},
       {"shared_memory", "true"}, {"buffer_size", "3000"}, {"stripe_size", "512"},
       {"collect_order", "rank"}},
      {{"ranks_per_node", "1"}, {"node_layout", "cyclic"}, {"aggregators", "3"},
       {"shared_memory", "true"}, {"buffer_size", "100"}, {"stripe_size", "64"},
       {"placement", "rank-order"}},
      {{"ranks_per_node", "2"}, {"node_layout", "block"}, {"aggregators", "3"},
       {"shared_memory", "false"}, {"buffer_size", "3000"}, {"stripe_size", "512"}},
      {{"ranks_per_node", "4"}, {"node_layout", "cyclic"}, {"aggregators_per_node", "2"},
       {"shared_memory", "true"}, {"buffer_size", "3000"}, {"stripe_size", "512"}},
      {{"ranks_per_node", "2"}, {"node_layout", "cyclic"}, {"aggregators", "3"},
       {"shared_memory", "true"}, {"buffer_size", "3000"}, {"stripe_size", "512"}},
  };
  // One context for all: its node window is resized and its topology changes between files.
  Context ctx(MPI_COMM_WORLD);
  for (size_t k = 0; k < sets.size(); ++k) {
    const std::string label = "set " + std::to_string(k);
    const std::string profile = dir.file("many" + std::to_string(k) + ".json");
    const bool counted = GetParam() == "collective";  // mpiio's data bypasses POSIX counters
    const std::string hprofile = dir.file("header" + std::to_string(k) + ".json");
    const double header = counted ? header_read_bytes(path, GetParam(), sets[k], hprofile) : 0;
    IO io = ctx.declare_io("many_aggregators" + std::to_string(k));
    io.set_engine(GetParam());
    for (const auto& [key, v] : sets[k]) io.set_parameter(key, v);
    io.set_parameter("profile", profile);
    Engine in = io.open(path, TAPIO_MODE_READ);
    Variable temp = io.inquire_variable("temp"), ssh = io.inquire_variable("ssh");
    Variable mask = io.inquire_variable("mask"), lat = io.inquire_variable("lat");
    Variable total = io.inquire_variable("total");
    // One batch: temp by columns, ssh by rows, mask shuffled, lat and total by every rank.
    std::vector<double> got_cols(2 * columns.size()), got_rows(2 * row_starts.size() * nx);
    std::vector<int32_t> got_mask(2 * mask_share.size());
    std::vector<double> got_lat(ny), got_total(2);
    temp.set_selection({0, 0, c0}, {nz, ny, nc});
    temp.set_step_selection(0, 2);
    in.get(temp, got_cols);
    ssh.set_runs(row_starts, row_lengths);
    ssh.set_step_selection(0, 2);
    in.get(ssh, got_rows);
    mask.set_offsets(mask_share);
    mask.set_step_selection(0, 2);
    in.get(mask, got_mask);
    in.get(lat, got_lat);
    total.set_step_selection(0, 2);
    in.get(total, got_total);
    in.perform_gets();
    // A second batch: temp again, shuffled.
    std::vector<double> got_shuffled(2 * shuffled.size());
    temp.set_offsets(shuffled);
    temp.set_step_selection(0, 2);
    in.get(temp, got_shuffled);
    in.perform_gets();
    in.close();
    for (int s = 0; s < 2; ++s) {
      for (size_t i = 0; i < columns.size(); ++i)
        ASSERT_EQ(got_cols[s * columns.size() + i], value(0, s, columns[i])) << label;
      size_t at = s * row_starts.size() * nx;
      for (uint64_t r0 : row_starts)
        for (uint64_t c = 0; c < nx; ++c) ASSERT_EQ(got_rows[at++], value(1, s, r0 + c)) << label;
      for (size_t i = 0; i < mask_share.size(); ++i)
        ASSERT_EQ(got_mask[s * mask_share.size() + i], static_cast<int32_t>(mask_share[i] * 3 + s))
            << label;
      ASSERT_EQ(got_total[s], 42.0 + s) << label;
      for (size_t i = 0; i < shuffled.size(); ++i)
        ASSERT_EQ(got_shuffled[s * shuffled.size() + i], value(0, s, shuffled[i])) << label;
    }
    for (uint64_t j = 0; j < ny; ++j) ASSERT_EQ(got_lat[j], -90.0 + j) << label;
    if (rank() == 0 && counted) {
      const auto j = profile_of(profile);
      // Each batch reads each byte at most once, the first all the data, the second temp.
      const double file_bytes = static_cast<double>(read_file(path).size());
      const double data = 2.0 * (n3 * 8 + n2 * 8 + n2 * 4 + 8) + ny * 8, temp_bytes = 2.0 * n3 * 8;
      const double got = counter(j, "POSIX_BYTES_READ", "sum") - header;
      EXPECT_GE(got, data + temp_bytes) << label << " " << j.dump(1);
      EXPECT_LE(got, 2 * file_bytes) << label << " " << j.dump(1);
      // One rank per node, one aggregator per node: every rank served some of the reads.
      if (k == 0) {
        EXPECT_GT(counter(j, "POSIX_BYTES_READ", "min"), 0) << j.dump(1);
      }
      EXPECT_EQ(counter(j, "messages_received", "sum"), counter(j, "messages_sent", "sum"))
          << label;
      EXPECT_EQ(counter(j, "bytes_received", "sum"), counter(j, "bytes_sent", "sum")) << label;
    }
  }
}

// An E3SM F-case map (D3: 62,352 single-element runs) written on one node and read back on
// virtual nodes by other ranks than the writers: rank r reads what rank r + 1 wrote.
TEST_P(Conformance, E3smMapReadByOtherRanksOnVirtualNodes) {
  TempDir dir;
  const std::string map = std::string(TAPIO_SHARED_DIR) + "/data/e3sm-io/map_f_case_16p.nc";
  const std::string path = dir.file("f.nc");
  std::vector<e3sm::Decomposition> mine, theirs;
  {
    Context ctx(MPI_COMM_WORLD);
    mine = e3sm::read_maps(ctx, map, MPI_COMM_WORLD);
    // read_maps deals by the communicator's rank: in `shifted` this rank has rank + 1's.
    MPI_Comm shifted;
    MPI_Comm_split(MPI_COMM_WORLD, 0, (rank() + 1) % size(), &shifted);
    theirs = e3sm::read_maps(ctx, map, shifted);
    MPI_Comm_free(&shifted);
  }
  std::vector<std::vector<double>> data(mine.size());
  write_file(
      path, GetParam(), {{"buffer_size", "65536"}, {"stripe_size", "4096"}},
      [&](IO& io) {
        for (const auto& d : mine) {
          std::vector<std::string> dims;
          for (size_t k = 0; k < d.dims.size(); ++k)
            dims.push_back(d.name + "_" + std::to_string(k));
          io.define_variable<double>(d.name, d.dims, dims);
        }
      },
      [&](IO& io, Engine& out, int s) {
        for (size_t k = 0; k < mine.size(); ++k) {
          data[k].clear();
          for (size_t i = 0; i < mine[k].offsets.size(); ++i)
            for (uint64_t e = 0; e < mine[k].lengths[i]; ++e)
              data[k].push_back(value(static_cast<int>(k), s, mine[k].offsets[i] + e));
          Variable v = io.inquire_variable(mine[k].name);
          v.set_runs(mine[k].offsets, mine[k].lengths);
          out.put(v, data[k]);
        }
      },
      2);
  const std::vector<Params> sets = {
      {{"ranks_per_node", "1"}, {"shared_memory", "false"}, {"buffer_size", "16384"},
       {"stripe_size", "4096"}},
      {{"ranks_per_node", "2"}, {"node_layout", "cyclic"}, {"aggregators", "3"},
       {"buffer_size", "16384"}, {"stripe_size", "4096"}},
  };
  for (size_t p = 0; p < sets.size(); ++p) {
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("read_f");
    io.set_engine(GetParam());
    for (const auto& [k, v] : sets[p]) io.set_parameter(k, v);
    Engine in = io.open(path, TAPIO_MODE_READ);
    expect_runs_read(io, in, theirs, "set " + std::to_string(p));
    in.close();
  }
}

// A write whose steps cover the variables they touch reads nothing back: no read-modify-write,
// with fill or without, through shared slots or messages.
TEST(CollectiveConformance, CoveringWritesReadNothing) {
  TempDir dir;
  const std::vector<Params> sets = {
      {{"buffer_size", "4096"}, {"stripe_size", "1024"}},
      {{"ranks_per_node", "1"}, {"shared_memory", "false"}, {"buffer_size", "3000"},
       {"stripe_size", "512"}, {"fill", "false"}},
      {{"ranks_per_node", "2"}, {"aggregators", "3"}, {"buffer_size", "100"},
       {"stripe_size", "64"}, {"direct", "never"}},
  };
  for (size_t k = 0; k < sets.size(); ++k) {
    const std::string profile = dir.file("rmw" + std::to_string(k) + ".json");
    Params params = sets[k];
    params["profile"] = profile;
    Licom licom;
    write_file(dir.file("rmw" + std::to_string(k) + ".nc"), kCollective, params,
               [&](IO& io) { licom.define(io); },
               [&](IO& io, Engine& out, int s) { licom.put(io, out, s); }, 3);
    if (rank() == 0) {
      const auto j = profile_of(profile);
      EXPECT_EQ(counter(j, "POSIX_READS", "sum"), 0) << k << " " << j.dump(1);
      EXPECT_EQ(counter(j, "POSIX_BYTES_READ", "sum"), 0) << k << " " << j.dump(1);
      EXPECT_GT(counter(j, "POSIX_BYTES_WRITTEN", "sum"), 0) << k;
    }
  }
}

// A 1-D double "x" of P x per_rank elements, rank r putting elements k * P + r (every rank a
// piece of every window), each holding value(0, 0, g), written in one step.
struct InterleavedX {
  explicit InterleavedX(uint64_t per_rank) : n(static_cast<uint64_t>(size()) * per_rank) {
    for (uint64_t k = 0; k < per_rank; ++k) {
      offsets.push_back(k * size() + rank());
      data.push_back(value(0, 0, offsets.back()));
    }
  }
  void write(const std::string& path, const std::string& engine, const Params& params,
             unsigned flags) const {
    auto define = [&](IO& io) { io.define_variable<double>("x", {n}, {"n"}, flags); };
    write_file(path, engine, params, define,
               [&](IO& io, Engine& out, int) {
                 Variable x = io.inquire_variable("x");
                 x.set_offsets(offsets);
                 out.put(x, data);
               },
               1);
  }
  uint64_t n;
  std::vector<uint64_t> offsets;
  std::vector<double> data;
};

// A read of a few elements at each end of a 1 MiB variable through one aggregator: what it
// reads is the union of the requests in 4 KiB blocks, sieved, so the hole between the ends,
// far above the sieve's 256 KiB, is not read, and every value arrives.
TEST(CollectiveConformance, ReadsSkipHolesAboveTheSieve) {
  TempDir dir;
  const uint64_t P = static_cast<uint64_t>(size()), per_rank = (1 << 17) / P;
  const InterleavedX all(per_rank);
  const std::string path = dir.file("ends.nc");
  all.write(path, kCollective, {}, TAPIO_VAR_FIXED);
  const Params params = {{"aggregators", "1"}, {"direct", "never"}, {"min_rounds", "1"}};
  const double header = header_read_bytes(path, kCollective, params, dir.file("h.json"));
  const uint64_t r = static_cast<uint64_t>(rank());
  const std::vector<uint64_t> mine = {r, all.n - 1 - r};  // one near each end
  {
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("ends");
    io.set_engine(kCollective);
    for (const auto& [k, v] : params) io.set_parameter(k, v);
    io.set_parameter("profile", dir.file("ends.json"));
    Engine in = io.open(path, TAPIO_MODE_READ);
    Variable x = io.inquire_variable("x");
    x.set_offsets(mine);
    std::vector<double> got(mine.size());
    in.get(x, got);
    in.perform_gets();
    in.close();
    for (size_t k = 0; k < mine.size(); ++k) ASSERT_EQ(got[k], value(0, 0, mine[k])) << k;
  }
  if (rank() != 0) return;
  const auto j = profile_of(dir.file("ends.json"));
  const double data = counter(j, "POSIX_BYTES_READ", "sum") - header;
  EXPECT_GE(data, 2.0 * 8 * P) << j.dump(1);
  EXPECT_LE(data, 4.0 * 4096) << j.dump(1);  // a block or two at each end, not the 1 MiB
}

// HPIO-like: every rank puts thousands of interleaved 8-byte regions; with every rank its
// own node and an aggregator, and no shared memory, a rank sends each other aggregator one
// segment list and one data message per round, never one per piece. Then the same pattern in
// many rounds, whose count the layout gives, and the mirror read.
TEST(CollectiveConformance, OnePackedMessagePerAggregatorAndRound) {
  TempDir dir;
  const uint64_t P = static_cast<uint64_t>(size()), A = P;
  auto run = [&](uint64_t per_rank, const Params& extra, const std::string& name) {
    const InterleavedX mine(per_rank);
    Params params = {{"ranks_per_node", "1"}, {"shared_memory", "false"},
                     {"aggregators", std::to_string(A)}, {"data_align", "512"},
                     {"direct", "never"},  // one rank alone would write its runs itself
                     {"profile", dir.file(name + ".w.json")}};
    for (const auto& [k, v] : extra) params[k] = v;
    mine.write(dir.file(name + ".nc"), kCollective, params, TAPIO_VAR_FIXED);
    // The mirror read, the same pieces.
    params["profile"] = dir.file(name + ".r.json");
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("hpio_read");
    io.set_engine(kCollective);
    for (const auto& [k, v] : params) io.set_parameter(k, v);
    Engine in = io.open(dir.file(name + ".nc"), TAPIO_MODE_READ);
    Variable x = io.inquire_variable("x");
    x.set_offsets(mine.offsets);
    std::vector<double> got(per_rank);
    in.get(x, got);
    in.perform_gets();
    in.close();
    for (uint64_t k = 0; k < per_rank; ++k) ASSERT_EQ(got[k], mine.data[k]) << name << " " << k;
  };
  // One round: buffer_size above any domain, and rounds of buffer_size.
  const uint64_t per_rank = 4096;
  run(per_rank, {{"buffer_size", "4MiB"}, {"min_rounds", "1"}, {"stripe_size", "512"}}, "one");
  if (rank() == 0) {
    const auto w = profile_of(dir.file("one.w.json")), r = profile_of(dir.file("one.r.json"));
    EXPECT_EQ(counter(w, "rounds", "min"), 1);
    EXPECT_EQ(counter(w, "rounds", "max"), 1);
    // Every window holds pieces of every rank: exactly a list and a data message to each other
    // aggregator.
    EXPECT_EQ(counter(w, "messages_sent", "max"), 2 * (A - 1)) << w.dump(1);
    EXPECT_EQ(counter(w, "messages_sent", "sum"), 2 * (A - 1) * P) << w.dump(1);
    EXPECT_EQ(counter(w, "messages_received", "sum"), counter(w, "messages_sent", "sum"));
    EXPECT_EQ(counter(w, "bytes_received", "sum"), counter(w, "bytes_sent", "sum"));
    // The data each rank sends away (all but the 1/P of each domain that is the aggregator's
    // own), plus segment lists of a few entries: 32 bytes per segment and 8 for the count.
    const double total = 8.0 * per_rank * P, remote = total - total / P;
    EXPECT_GE(counter(w, "bytes_sent", "sum"), remote) << w.dump(1);
    EXPECT_LE(counter(w, "bytes_sent", "sum"), remote + (A - 1) * P * (8 + 2 * 32)) << w.dump(1);
    // Reads: a request list to every aggregator (itself included) and one reply from each.
    EXPECT_EQ(counter(r, "rounds", "max"), 1);
    EXPECT_EQ(counter(r, "messages_sent", "sum"), 2 * A * P) << r.dump(1);
    EXPECT_EQ(counter(r, "messages_received", "sum"), counter(r, "messages_sent", "sum"));
    EXPECT_EQ(counter(r, "bytes_received", "sum"), counter(r, "bytes_sent", "sum"));
    for (const auto* j : {&w, &r}) {
      EXPECT_GT(counter(*j, "time_total", "min"), 0);
      expect_phases_add_up(*j);
    }
    // The byte swap to big-endian NetCDF, the storage calls and the messages are timed.
    EXPECT_GT(phase(w, "swap", "max"), 0) << w.dump(1);
    EXPECT_GT(phase(w, "write", "max"), 0) << w.dump(1);
    EXPECT_GT(phase(r, "read", "max"), 0) << r.dump(1);
    EXPECT_GT(phase(r, "swap", "max"), 0) << r.dump(1);
  }
  // Many rounds: 64 KiB in 512-byte stripes dealt to A' = min(3, P) aggregators (the first
  // 128 mod A' get one more), 1 KiB rounds: A' domains of ceil(stripes / 2) windows each.
  const uint64_t aggs = std::min<uint64_t>(3, P), stripes = 65536 / 512;
  uint64_t rounds = 0, windows = 0;
  for (uint64_t a = 0; a < aggs; ++a) {
    const uint64_t w = (stripes / aggs + (a < stripes % aggs ? 1 : 0) + 1) / 2;
    rounds = std::max(rounds, w);
    windows += w;
  }
  run(65536 / 8 / P, {{"buffer_size", "1024"}, {"stripe_size", "512"}, {"aggregators", "3"}},
      "many");
  if (rank() == 0) {
    for (const char* f : {"many.w.json", "many.r.json"}) {
      const auto j = profile_of(dir.file(f));
      EXPECT_EQ(counter(j, "rounds", "min"), rounds) << f;
      EXPECT_EQ(counter(j, "rounds", "max"), rounds) << f;
      EXPECT_EQ(counter(j, "messages_received", "sum"), counter(j, "messages_sent", "sum")) << f;
      EXPECT_EQ(counter(j, "bytes_received", "sum"), counter(j, "bytes_sent", "sum")) << f;
    }
    // Every window holds pieces of every rank. Writes: a list and the data from each rank but
    // the window's aggregator, so at most 2 x (A' - 1) per round for a rank that is an
    // aggregator and 2 x A' for one that is not.
    const auto w = profile_of(dir.file("many.w.json")), r = profile_of(dir.file("many.r.json"));
    EXPECT_EQ(counter(w, "messages_sent", "sum"), 2 * (P - 1) * windows) << w.dump(1);
    EXPECT_LE(counter(w, "messages_sent", "max"), 2 * (aggs == P ? aggs - 1 : aggs) * rounds);
    // Reads: a request from every rank to every window, and a reply to each.
    EXPECT_EQ(counter(r, "messages_sent", "sum"), 2 * P * windows) << r.dump(1);
  }
}

// Two-level aggregation: a node's pieces for another node's aggregators leave through its
// gatherer (its first rank here, as every rank aggregates), one list and one data message per
// aggregator and round for the whole node; the node's other ranks hand theirs over in one
// packet plus a data message per aggregator. Counted exactly for virtual nodes of 2 and 4
// ranks, every rank's pieces in every window of one round, and the values read back.
TEST(CollectiveConformance, TwoLevelSendsOneMessagePairPerNode) {
  TempDir dir;
  const uint64_t P = static_cast<uint64_t>(size());
  const InterleavedX mine(512);
  for (const uint64_t per_node : {uint64_t{2}, uint64_t{4}}) {
    for (const char* two_level : {"false", "true"}) {
      const std::string name = "n" + std::to_string(per_node) + two_level;
      Params params = {{"ranks_per_node", std::to_string(per_node)}, {"two_level", two_level},
                       {"shared_memory", "false"}, {"aggregators", "all"},
                       {"direct", "never"}, {"buffer_size", "4MiB"}, {"min_rounds", "1"},
                       {"stripe_size", "512"}, {"profile", dir.file(name + ".json")}};
      mine.write(dir.file(name + ".nc"), kCollective, params, 0);
      read_whole_x(MPI_COMM_WORLD, dir.file(name + ".nc"), kCollective, {},
                   dir.file(name + ".r.json"), mine.n);
      if (rank() != 0) continue;
      // One-level: a list and a data message from every rank to every other aggregator, of
      // which those on other nodes cross the network.
      double expected = 0, between = 0;
      for (uint64_t first = 0; first < P; first += per_node) {
        const uint64_t s = std::min(per_node, P - first), away = P - s;
        if (std::string(two_level) == "false" || s < 2 || away == 0) {  // nothing to combine
          expected += 2.0 * s * (P - 1);
          between += 2.0 * s * away;
          continue;
        }
        // Members: their node's aggregators as before, then a packet and a data message per
        // remote aggregator to the gatherer; the gatherer: a pair per remote aggregator, the
        // node's only messages to other nodes.
        expected += (s - 1) * (2.0 * (s - 1) + 1 + away) + 2.0 * (s - 1) + 2.0 * away;
        between += 2.0 * away;
      }
      const auto w = profile_of(dir.file(name + ".json"));
      EXPECT_EQ(counter(w, "messages_sent", "sum"), expected) << name << w.dump(1);
      EXPECT_EQ(counter(w, "messages_between_nodes", "sum"), between) << name;
      EXPECT_EQ(counter(w, "messages_received", "sum"), expected) << name;
      EXPECT_EQ(counter(w, "bytes_received", "sum"), counter(w, "bytes_sent", "sum")) << name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Engines, Conformance, ::testing::Values("collective", "mpiio"));

// Without set_engine, a `.nc` path is written (and read) by the collective engine and any other
// path becomes a subfile dataset.
TEST(EngineDefaults, NcPathsAreCollective) {
  TempDir dir;
  const uint64_t n = 8 * static_cast<uint64_t>(size());
  std::vector<double> mine(8);
  for (uint64_t k = 0; k < 8; ++k) mine[k] = value(0, 0, 8 * rank() + k);
  for (const std::string name : {"x.nc", "x"}) {
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("defaults");
    Variable v = io.define_variable<double>("v", {n});
    Engine out = io.open(dir.file(name), TAPIO_MODE_WRITE);
    EXPECT_EQ(out.engine_name(), name == "x.nc" ? "collective" : "subfile") << name;
    out.begin_step();
    v.set_selection({8 * static_cast<uint64_t>(rank())}, {8});
    out.put(v, mine);
    out.end_step();
    out.close();
  }
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("defaults_read");
  Engine in = io.open(dir.file("x.nc"), TAPIO_MODE_READ);
  EXPECT_EQ(in.engine_name(), "collective");
  Variable v = io.inquire_variable("v");
  v.set_selection({8 * static_cast<uint64_t>(rank())}, {8});
  std::vector<double> got(8);
  in.begin_step();
  in.get(v, got);
  in.end_step();
  in.close();
  EXPECT_EQ(got, mine);
}

}  // namespace
}  // namespace tapio::test
