// The subfile engine: round trips with blocks and irregular maps, reader count != writer
// count, every aggregation and metadata backend, append from another rank count, checksums,
// and reading while a writer is still writing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>

#include <nlohmann/json.hpp>

#include "e3sm_check.h"
#include "test_util.h"

namespace tapio::test {
namespace {

using Params = std::map<std::string, std::string>;
const Dims kShape = {6, 10, 12};  // depth, lat, lon

int comm_rank(MPI_Comm c) { int r; MPI_Comm_rank(c, &r); return r; }
int comm_size(MPI_Comm c) { int s; MPI_Comm_size(c, &s); return s; }

// Writes steps [first, first + count) of "temp" (3-D) and "ssh" (2-D) split by latitude, with
// `engine` ("" = chosen by the path).
void write_grid(MPI_Comm comm, const std::string& path, tapio_mode mode, const Params& params,
                uint64_t first, uint64_t count, const std::string& engine = "subfile") {
  Context ctx(comm);
  IO io = ctx.declare_io("grid");
  io.set_engine(engine);
  for (const auto& [k, v] : params) io.set_parameter(k, v);
  Variable temp = io.define_variable<double>("temp", kShape, {"depth", "lat", "lon"});
  Variable ssh = io.define_variable<float>("ssh", {kShape[1], kShape[2]}, {"lat", "lon"});
  io.define_attribute("title", std::string("subfile test"));
  Engine out = io.open(path, mode);
  EXPECT_EQ(out.engine_name(), "subfile");
  EXPECT_EQ(out.current_step(), first);
  uint64_t r0, nr;
  split(kShape[1], comm_size(comm), comm_rank(comm), &r0, &nr);
  for (uint64_t s = first; s < first + count; ++s) {
    out.begin_step();
    std::vector<double> t;
    std::vector<float> h;
    for (uint64_t g : box_indices(kShape, {0, r0, 0}, {kShape[0], nr, kShape[2]})) t.push_back(value(0, s, g));
    for (uint64_t g : box_indices({kShape[1], kShape[2]}, {r0, 0}, {nr, kShape[2]}))
      h.push_back(static_cast<float>(value(1, s, g)));
    temp.set_selection({0, r0, 0}, {kShape[0], nr, kShape[2]});
    out.put(temp, t);
    ssh.set_selection({r0, 0}, {nr, kShape[2]});
    out.put(ssh, h);
    out.end_step();
  }
  out.close();
}

// Every rank reads a longitude band of every step at once with `engine` and checks it.
void check_grid(const std::string& path, const Params& params, uint64_t steps,
                const std::string& engine = "subfile") {
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("grid_read");
  io.set_engine(engine);
  for (const auto& [k, v] : params) io.set_parameter(k, v);
  Engine in = io.open(path, TAPIO_MODE_READ);
  EXPECT_EQ(in.engine_name(), "subfile");
  ASSERT_EQ(in.steps(), steps);
  EXPECT_EQ(io.read_string_attribute("title"), "subfile test");
  uint64_t c0, nc;
  split(kShape[2], size(), rank(), &c0, &nc);
  Variable temp = io.inquire_variable("temp");
  Variable ssh = io.inquire_variable("ssh");
  temp.set_selection({0, 0, c0}, {kShape[0], kShape[1], nc});
  temp.set_step_selection(0, steps);
  ssh.set_selection({0, c0}, {kShape[1], nc});
  ssh.set_step_selection(0, steps);
  std::vector<double> t(steps * kShape[0] * kShape[1] * nc);
  std::vector<float> h(steps * kShape[1] * nc);
  in.get(temp, t);
  in.get(ssh, h);
  in.perform_gets();
  const auto ti = box_indices(kShape, {0, 0, c0}, {kShape[0], kShape[1], nc});
  const auto hi = box_indices({kShape[1], kShape[2]}, {0, c0}, {kShape[1], nc});
  for (uint64_t s = 0; s < steps; ++s) {
    for (size_t i = 0; i < ti.size(); ++i) ASSERT_EQ(t[s * ti.size() + i], value(0, s, ti[i])) << s;
    for (size_t i = 0; i < hi.size(); ++i)
      ASSERT_EQ(h[s * hi.size() + i], static_cast<float>(value(1, s, hi[i]))) << s;
  }
  in.close();
}

class SubfileParams : public ::testing::TestWithParam<Params> {};

TEST_P(SubfileParams, RoundTripWithOtherReaders) {
  TempDir dir;
  const std::string path = dir.file("grid.tapio");
  write_grid(MPI_COMM_WORLD, path, TAPIO_MODE_WRITE, GetParam(), 0, 3);
  check_grid(path, GetParam(), 3);
}

INSTANTIATE_TEST_SUITE_P(
    Backends, SubfileParams,
    ::testing::Values(Params{}, Params{{"aggregators", "all"}},
                      Params{{"aggregators", "2"}, {"metadata", "log"}},
                      Params{{"ranks_per_node", "1"}, {"metadata", "aligned"},
                             {"metadata_chunk", "512"}, {"metadata_read", "all"}},
                      Params{{"ranks_per_node", "2"}, {"block_align", "1"},
                             {"metadata_prefetch", "0"}, {"fsync", "step"}}));

TEST(Subfile, FewerWritersThanReadersAndAppendFromAnotherCount) {
  TempDir dir;
  const std::string path = dir.file("append.tapio");
  // Steps 0-1 from the first half of the ranks, steps 2-3 appended by everyone.
  MPI_Comm half;
  const bool in_half = rank() < (size() + 1) / 2;
  MPI_Comm_split(MPI_COMM_WORLD, in_half ? 0 : MPI_UNDEFINED, rank(), &half);
  if (in_half) {
    write_grid(half, path, TAPIO_MODE_WRITE, {{"aggregators", "all"}}, 0, 2);
    MPI_Comm_free(&half);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  write_grid(MPI_COMM_WORLD, path, TAPIO_MODE_APPEND, {{"metadata", "log"}}, 2, 2);
  check_grid(path, {}, 4);
}

// A dataset is a directory whatever its name: one named like a NetCDF file is recognised by
// what it holds when no engine is named, for appending and for reading.
TEST(Subfile, DatasetNamedNcIsFoundWithoutNamingTheEngine) {
  TempDir dir;
  const std::string path = dir.file("grid.nc");
  write_grid(MPI_COMM_WORLD, path, TAPIO_MODE_WRITE, {}, 0, 2);
  write_grid(MPI_COMM_WORLD, path, TAPIO_MODE_APPEND, {}, 2, 1, "");
  check_grid(path, {}, 3, "");
}

TEST(Subfile, E3smMapsRoundTrip) {
  TempDir dir;
  for (const char* name : {"map_f_case_16p.nc", "map_i_case_16p.nc"}) {
    const std::string map = std::string(TAPIO_SHARED_DIR) + "/data/e3sm-io/" + name;
    const std::string path = dir.file(std::string(name) + ".tapio");
    Context ctx(MPI_COMM_WORLD);
    const auto decomps = e3sm::read_maps(ctx, map, MPI_COMM_WORLD);
    std::vector<std::vector<double>> data(decomps.size());
    {
      IO io = ctx.declare_io(std::string("w") + name);
      Engine out = io.open(path, TAPIO_MODE_WRITE);  // a path without .nc: subfile by default
      EXPECT_EQ(out.engine_name(), "subfile");
      std::vector<Variable> vars;
      for (const auto& d : decomps) {
        std::vector<std::string> dims;
        for (size_t k = 0; k < d.dims.size(); ++k) dims.push_back(d.name + "_" + std::to_string(k));
        vars.push_back(io.define_variable<double>(d.name, d.dims, dims));
      }
      out.begin_step();
      for (size_t k = 0; k < decomps.size(); ++k) {
        for (size_t i = 0; i < decomps[k].offsets.size(); ++i)
          for (uint64_t e = 0; e < decomps[k].lengths[i]; ++e)
            data[k].push_back(value(static_cast<int>(k), 0, decomps[k].offsets[i] + e));
        vars[k].set_runs(decomps[k].offsets, decomps[k].lengths);
        out.put(vars[k], data[k]);
      }
      out.end_step();
      out.close();
    }
    // Read everything on every rank: holes (I case) read as the fill value.
    IO io = ctx.declare_io(std::string("r") + name);
    Engine in = io.open(path, TAPIO_MODE_READ);
    expect_whole_e3sm_step(io, in, decomps, 0, name);
    in.close();
  }
}

// One flipped byte in the data or in the metadata is a checksum error naming file and step.
TEST(Subfile, FlippedBytesAreChecksumErrors) {
  TempDir dir;
  const std::string path = dir.file("flip.tapio");
  write_grid(MPI_COMM_WORLD, path, TAPIO_MODE_WRITE, {}, 0, 2);
  auto flip = [&](const std::string& file, uint64_t offset) {
    if (rank() == 0) {
      std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
      f.seekg(offset);
      char c;
      f.get(c);
      f.seekp(offset);
      f.put(static_cast<char>(c ^ 0x10));
    }
    MPI_Barrier(MPI_COMM_WORLD);
  };
  auto read_all = [&]() -> Outcome {
    tapio_context* ctx;
    tapio_init(MPI_COMM_WORLD, nullptr, &ctx);
    tapio_io* io;
    tapio_declare_io(ctx, "flip", &io);
    tapio_engine* e = nullptr;
    Outcome o = outcome(tapio_open(io, path.c_str(), TAPIO_MODE_READ, &e));
    if (o.code == TAPIO_OK) {
      tapio_var *v, *h;
      tapio_inquire_variable(io, "temp", &v);
      tapio_inquire_variable(io, "ssh", &h);
      tapio_var_set_step_selection(v, 0, 2);
      tapio_var_set_step_selection(h, 0, 2);
      std::vector<double> buf(2 * kShape[0] * kShape[1] * kShape[2]);
      std::vector<float> hbuf(2 * kShape[1] * kShape[2]);
      tapio_get(e, v, TAPIO_FLOAT64, buf.data());
      tapio_get(e, h, TAPIO_FLOAT32, hbuf.data());
      o = outcome(tapio_perform_gets(e));
      tapio_close(e);
    }
    tapio_finalize(ctx);
    return o;
  };
  ASSERT_EQ(read_all().code, TAPIO_OK);
  // The subfile's last byte: the last rank's ssh block of step 1 (default aggregation: one
  // writer, one subfile).
  std::error_code ec;
  const uint64_t last = std::filesystem::file_size(path + "/data.0.0", ec) - 1;
  flip(path + "/data.0.0", last);
  Outcome o = read_all();
  EXPECT_EQ(o.code, TAPIO_ERR_CHECKSUM) << o.message;
  EXPECT_TRUE(o.message.find("data.0.0") != std::string::npos) << o.message;
  EXPECT_TRUE(o.message.find("step 1") != std::string::npos) << o.message;
  flip(path + "/data.0.0", last);  // repair
  ASSERT_EQ(read_all().code, TAPIO_OK);
  flip(path + "/tapio.md", 40);
  o = read_all();
  EXPECT_EQ(o.code, TAPIO_ERR_CHECKSUM) << o.message;
  EXPECT_TRUE(o.message.find("tapio.md") != std::string::npos) << o.message;
  EXPECT_TRUE(o.message.find("step 0") != std::string::npos) << o.message;
}

// Rank 0 writes steps one by one; the other ranks read as they appear: they see a growing,
// consistent prefix, then the end of the stream.
TEST(Subfile, ReadWhileWriting) {
  if (size() < 2) GTEST_SKIP() << "needs a writer and a reader";
  TempDir dir;
  const std::string path = dir.file("live.tapio");
  const uint64_t steps = 4;
  MPI_Comm side;
  MPI_Comm_split(MPI_COMM_WORLD, rank() == 0 ? 0 : 1, rank(), &side);
  if (rank() == 0) {
    write_grid(side, path, TAPIO_MODE_WRITE, {}, 0, 1);
    MPI_Barrier(MPI_COMM_WORLD);  // the dataset exists with one step
    for (uint64_t s = 1; s < steps; ++s) {
      usleep(20000);
      write_grid(side, path, TAPIO_MODE_APPEND, {}, s, 1);
    }
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
    Context ctx(side);
    IO io = ctx.declare_io("live");
    io.set_engine("subfile");
    Engine in = io.open(path, TAPIO_MODE_READ);
    uint64_t seen = 0;
    int waits = 0;
    while (waits < 2000) {
      const tapio_step_status st = in.begin_step();
      if (st == TAPIO_STEP_NOT_READY) {
        ++waits;
        usleep(5000);
        continue;
      }
      if (st == TAPIO_STEP_END_OF_STREAM) {
        if (seen == steps) break;
        ++waits;  // a close between appends also ends the stream for a moment
        usleep(5000);
        continue;
      }
      EXPECT_EQ(in.current_step(), seen);
      Variable v = io.inquire_variable("ssh");
      std::vector<float> h(kShape[1] * kShape[2]);
      in.get(v, h);
      in.end_step();
      for (uint64_t g = 0; g < h.size(); ++g) ASSERT_EQ(h[g], static_cast<float>(value(1, seen, g)));
      ++seen;
    }
    EXPECT_EQ(seen, steps);
    in.close();
  }
  MPI_Comm_free(&side);
}

// Every rank reads the whole dataset: each subfile's bytes come from storage once in all.
TEST(Subfile, SharedReadsAreMerged) {
  TempDir dir;
  const std::string path = dir.file("shared.tapio"), profile = dir.file("profile.json");
  write_grid(MPI_COMM_WORLD, path, TAPIO_MODE_WRITE, {{"ranks_per_node", "2"}}, 0, 2);
  {
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("shared");
    io.set_parameter("profile", profile);
    Engine in = io.open(path, TAPIO_MODE_READ);
    Variable temp = io.inquire_variable("temp");
    temp.set_step_selection(0, 2);
    std::vector<double> t(2 * kShape[0] * kShape[1] * kShape[2]);
    in.get(temp, t);
    in.perform_gets();
    in.close();
    const auto idx = box_indices(kShape, {0, 0, 0}, kShape);
    for (uint64_t s = 0; s < 2; ++s)
      for (size_t i = 0; i < idx.size(); ++i) ASSERT_EQ(t[s * idx.size() + i], value(0, s, idx[i]));
  }
  if (rank() == 0) {
    uint64_t dataset_bytes = 0;
    for (const auto& f : std::filesystem::directory_iterator(path)) dataset_bytes += f.file_size();
    std::ifstream in(profile);
    const auto j = nlohmann::json::parse(in);
    EXPECT_LE(j["counters"]["POSIX_BYTES_READ"]["sum"].get<double>(), dataset_bytes) << j.dump(1);
  }
}

// The profile a run wrote (rank 0 reads it).
nlohmann::json profile_of(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}
double counter(const nlohmann::json& j, const char* name, const char* what = "sum") {
  return j.at("counters").at(name).at(what).get<double>();
}

// Blocks that overlap fail the step on every rank, naming the variable, the step and both
// ranks, and nothing of it is committed; steps before and after it are unaffected, and a rank
// returning to an earlier shape is checked again.
TEST(Subfile, OverlappingBlocksFailTheStepOnEveryRank) {
  if (size() < 2) GTEST_SKIP() << "needs two ranks to overlap";
  TempDir dir;
  const std::string path = dir.file("overlap.tapio");
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("overlap");
  io.set_engine("subfile");
  Variable x = io.define_variable<double>("x", {uint64_t(4 * size())}, {"n"});
  Engine out = io.open(path, TAPIO_MODE_WRITE);
  auto step = [&](uint64_t start, double v) {
    std::vector<double> d(4, v + rank());
    out.begin_step();
    x.set_selection({start}, {4});
    out.put(x, d);
    try {
      out.end_step();
      return std::string();
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), TAPIO_ERR_SHAPE);
      return std::string(e.what());
    }
  };
  const uint64_t mine = 4 * static_cast<uint64_t>(rank());
  EXPECT_EQ(step(mine, 0), "");
  // Rank 1 moves onto rank 0's elements: every rank fails, naming both.
  std::string msg = step(rank() == 1 ? 2 : mine, 100);
  EXPECT_NE(msg.find("variable 'x', step 1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("rank 0 writes elements [0, 4)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("rank 1 writes [2, 6)"), std::string::npos) << msg;
  EXPECT_EQ(step(mine, 200), "");  // the failed step's index is reused
  // Rank 1 puts nothing, then returns to the overlapping shape it had in the failed step.
  out.begin_step();
  const std::vector<double> d(4, 300 + rank());  // puts are read at end_step
  if (rank() != 1) {
    x.set_selection({mine}, {4});
    out.put(x, d);
  }
  out.end_step();
  msg = step(rank() == 1 ? 2 : mine, 400);
  EXPECT_NE(msg.find("step 3"), std::string::npos) << msg;
  out.close();
  Engine in = io.open(path, TAPIO_MODE_READ);
  EXPECT_EQ(in.steps(), 3u);
  std::vector<double> got(4 * size());
  x.set_selection({0}, {got.size()});
  x.set_step_selection(1, 1);
  in.get(x, got);
  in.perform_gets();
  for (int r = 0; r < size(); ++r) EXPECT_EQ(got[4 * r], 200 + r) << r;
  in.close();
}

// Variables that share a decomposition are checked for overlaps once (ranks send a reference
// instead of repeating its pieces), yet a variable that differs on one rank is checked with
// the other ranks' pieces of the variable it repeats there: its overlap is found and named.
TEST(Subfile, OverlapCheckOfSharedDecompositions) {
  if (size() < 2) GTEST_SKIP() << "needs two ranks to overlap";
  TempDir dir;
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("shared");
  io.set_engine("subfile");
  const uint64_t n = 4 * static_cast<uint64_t>(size());
  Variable x = io.define_variable<double>("x", {n}, {"n"});
  Variable y = io.define_variable<double>("y", {n}, {"n"});
  Variable z = io.define_variable<double>("z", {n}, {"n"});
  Engine out = io.open(dir.file("shared.tapio"), TAPIO_MODE_WRITE);
  // Every rank's elements as two runs, the same in x, y and z; in step 1 rank 1 moves z's
  // second run onto rank 0's first element.
  const uint64_t mine = 4 * static_cast<uint64_t>(rank());
  const std::vector<double> d(4, 1.0 + rank());
  auto step = [&](bool clash) {
    out.begin_step();
    for (Variable* v : {&x, &y, &z}) {
      const bool moved = clash && v == &z && rank() == 1;
      const std::vector<uint64_t> offsets = {mine, moved ? 0 : mine + 2}, lengths = {2, 2};
      v->set_runs(offsets, lengths);
      out.put(*v, d);
    }
    try {
      out.end_step();
      return std::string();
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), TAPIO_ERR_SHAPE);
      return std::string(e.what());
    }
  };
  EXPECT_EQ(step(false), "");
  const std::string msg = step(true);
  EXPECT_NE(msg.find("variable 'z', step 1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("rank 1 writes elements [0, 2)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("rank 0 writes [0, 4)"), std::string::npos) << msg;
  out.close();
}

// A rank's data goes from its buffers to storage without a copy and without a message, in
// one gathered write per step (each block's bytes are at most 1 MiB here).
TEST(Subfile, DirectWritesCopyAndSendNothing) {
  TempDir dir;
  for (const char* aggregators : {"auto", "all"}) {
    const std::string path = dir.file(std::string("direct.") + aggregators);
    const std::string profile = path + ".json";
    write_grid(MPI_COMM_WORLD, path, TAPIO_MODE_WRITE,
               {{"aggregators", aggregators}, {"profile", profile}}, 0, 3);
    check_grid(path, {}, 3);
    if (rank() != 0) continue;
    const auto j = profile_of(profile);
    EXPECT_EQ(counter(j, "bytes_copied"), 0) << aggregators;
    // Messages: the overlap check of the first step only, at most one per rank.
    EXPECT_LE(counter(j, "messages_sent"), size()) << aggregators;
    // Data: one gathered write per rank and step; rank 0 also writes the index header with
    // the open record, per step the metadata (with its commit record) and the index record,
    // and the end record and its copy in tapio.md.
    EXPECT_EQ(counter(j, "POSIX_WRITES", "max"), 1 + 3 * 3 + 2) << j.dump(1);
    EXPECT_EQ(counter(j, "POSIX_WRITES", "min"), size() > 1 ? 3 : 12) << j.dump(1);
  }
}

// tapio_var_blocks lists each rank's put as written (tests/py checks fixed variables, NetCDF
// files and offset lists).
TEST(Subfile, BlocksAreTheWritersPuts) {
  TempDir dir;
  const std::string path = dir.file("blocks.tapio");
  write_grid(MPI_COMM_WORLD, path, TAPIO_MODE_WRITE, {}, 0, 2);
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("blocks");
  Engine in = io.open(path, TAPIO_MODE_READ);
  Variable ssh = io.inquire_variable("ssh");
  std::vector<std::pair<Dims, Dims>> expected;
  for (int r = 0; r < size(); ++r) {
    uint64_t r0, nr;
    split(kShape[1], size(), r, &r0, &nr);
    if (nr > 0) expected.push_back({{r0, 0}, {nr, kShape[2]}});
  }
  auto blocks = in.blocks(ssh, 1);
  std::sort(blocks.begin(), blocks.end());
  EXPECT_EQ(blocks, expected);
  try {
    in.blocks(ssh, 2);
    ADD_FAILURE() << "a step past the end gave blocks";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), TAPIO_ERR_NOT_FOUND);
    EXPECT_TRUE(contains(e.what(), "step 2 requested but the file has 2 steps")) << e.what();
  }
  in.close();
}

// Groups that span nodes send their data to the group's first rank, which writes it in
// rounds: many rounds of 1 KiB here, so round parts cut blocks and elements anywhere.
TEST(Subfile, AggregatedGroupsRoundTrip) {
  if (size() < 2) GTEST_SKIP() << "needs a group of two ranks on two virtual nodes";
  TempDir dir;
  const std::string path = dir.file("aggregate.tapio"), profile = dir.file("aggregate.json");
  const Params params = {{"ranks_per_node", "1"}, {"aggregators", "1/2"}, {"buffer_size", "1000"},
                         {"profile", profile}, {"metadata", "log"}};
  write_grid(MPI_COMM_WORLD, path, TAPIO_MODE_WRITE, params, 0, 3);
  check_grid(path, {}, 3);
  write_grid(MPI_COMM_WORLD, path, TAPIO_MODE_APPEND, params, 3, 2);  // another generation
  check_grid(path, {}, 5);
  if (rank() == 0) {
    const auto j = profile_of(profile);
    // Only the groups' first ranks copy (their own bytes), and only they write data.
    const double total = 2.0 * kShape[1] * kShape[2] * (kShape[0] * 8 + 4);
    EXPECT_GT(counter(j, "bytes_copied"), 0);
    EXPECT_LT(counter(j, "bytes_copied"), total);
    EXPECT_GE(counter(j, "messages_sent"), 2 * (size() / 2));
  }
}

// Stored once and compactly, an irregular map costs little metadata: for the E3SM F map
// (16 variables per decomposition), every step after the first stores at most 2% of its data.
TEST(Subfile, MapMetadataStaysSmall) {
  TempDir dir;
  const std::string map = std::string(TAPIO_SHARED_DIR) + "/data/e3sm-io/map_f_case_16p.nc";
  const std::string path = dir.file("f.tapio");
  Context ctx(MPI_COMM_WORLD);
  const auto decomps = e3sm::read_maps(ctx, map, MPI_COMM_WORLD);
  IO io = ctx.declare_io("f");
  std::vector<Variable> vars;
  std::vector<std::vector<double>> data;
  for (const auto& d : decomps)
    for (int k = 0; k < 16; ++k) {
      std::vector<std::string> dims;
      for (size_t i = 0; i < d.dims.size(); ++i) dims.push_back(d.name + "_" + std::to_string(i));
      vars.push_back(io.define_variable<double>(d.name + "_" + std::to_string(k), d.dims, dims));
      data.emplace_back(std::accumulate(d.lengths.begin(), d.lengths.end(), uint64_t{0}), k);
      vars.back().set_runs(d.offsets, d.lengths);
    }
  Engine out = io.open(path, TAPIO_MODE_WRITE);
  std::vector<uint64_t> md_size;
  uint64_t data_per_step = 0;
  for (const auto& d : data) data_per_step += 8 * d.size();
  MPI_Allreduce(MPI_IN_PLACE, &data_per_step, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  for (int s = 0; s < 3; ++s) {
    out.begin_step();
    for (size_t v = 0; v < vars.size(); ++v) out.put(vars[v], data[v]);
    out.end_step();
    md_size.push_back(std::filesystem::file_size(path + "/tapio.md"));
  }
  out.close();
  if (rank() == 0) {
    EXPECT_LE(md_size[2] - md_size[1], data_per_step / 50) << md_size[1] << " " << md_size[2];
    EXPECT_LE(md_size[1] - md_size[0], data_per_step / 50);
    EXPECT_LE(md_size[0], data_per_step / 10) << "the first step stores the maps once";
  }
}

// A rank's 2^16 regions one element apart (HPIO's interleaved pattern) are one segment.
TEST(Subfile, InterleavedRegionsStoreTinyMetadata) {
  TempDir dir;
  const std::string path = dir.file("hpio.tapio");
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("hpio");
  const uint64_t n = 1 << 16, P = static_cast<uint64_t>(size());
  Variable x = io.define_variable<double>("x", {n * P}, {"n"});
  std::vector<uint64_t> offsets(n), lengths(n, 1);
  for (uint64_t k = 0; k < n; ++k) offsets[k] = k * P + static_cast<uint64_t>(rank());
  x.set_runs(offsets, lengths);
  std::vector<double> d(n, 1.5);
  Engine out = io.open(path, TAPIO_MODE_WRITE);
  out.begin_step();
  out.put(x, d);
  out.end_step();
  out.close();
  if (rank() == 0) {
    EXPECT_LE(std::filesystem::file_size(path + "/tapio.md"), 8 * n * P / 20);
  }
}

}  // namespace
}  // namespace tapio::test
