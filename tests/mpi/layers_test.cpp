// The buffering layers under real engines (the serial engine's file, the subfile engine's data
// files): a file written through them in many small puts reads back exactly, read with and
// without layers; the serial engine's file is byte-identical to one written without; an
// unknown layer fails the open on every rank, naming it.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>

#include "test_util.h"

namespace tapio::test {
namespace {

using Params = std::map<std::string, std::string>;

constexpr uint64_t kPerRank = 6000;
constexpr uint64_t kPiece = 100;  // elements per put: many small writes
constexpr uint64_t kSteps = 3;

const Params kLayers = {{"layers", "cache,buffered,aligned"},
                        {"layer_buffer_size", "16KiB"},
                        {"layer_align", "4096"},
                        {"read_cache_page", "8KiB"},
                        {"read_cache_size", "64KiB"}};

void write_steps(const std::string& engine, const std::string& path, const Params& params) {
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("layers");
  io.set_engine(engine);
  for (const auto& [k, v] : params) io.set_parameter(k, v);
  Variable x = io.define_variable<double>("x", {kPerRank * static_cast<uint64_t>(size())}, {"n"});
  Engine out = io.open(path, TAPIO_MODE_WRITE);
  for (uint64_t s = 0; s < kSteps; ++s) {
    const std::vector<double> values = block_values(kPerRank, s);
    out.begin_step();
    for (uint64_t at = 0; at < kPerRank; at += kPiece) {
      x.set_selection({block_start(kPerRank)[0] + at}, {kPiece});
      out.put(x, values.data() + at);
    }
    out.end_step();
  }
  out.close();
}

// Every step read back through `params`' layers, in pieces of kPiece elements.
void expect_read_through(const std::string& engine, const std::string& path, const Params& params) {
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("read");
  io.set_engine(engine);
  for (const auto& [k, v] : params) io.set_parameter(k, v);
  Engine in = io.open(path, TAPIO_MODE_READ);
  ASSERT_EQ(in.steps(), kSteps);
  Variable x = io.inquire_variable("x");
  std::vector<double> got(kPerRank);
  for (uint64_t s = 0; s < kSteps; ++s) {
    in.begin_step();
    for (uint64_t at = 0; at < kPerRank; at += kPiece) {
      x.set_selection({block_start(kPerRank)[0] + at}, {kPiece});
      in.get(x, got.data() + at);
      in.perform_gets();  // one small read per call: what the cache is for
    }
    in.end_step();
    ASSERT_EQ(got, block_values(kPerRank, s)) << engine << ", step " << s;
  }
  in.close();
}

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(Layers, SerialFileIsTheSameWithAndWithoutLayers) {
  TempDir dir;
  const std::string plain = dir.file("plain.nc"), layered = dir.file("layered.nc");
  write_steps("serial", plain, {});
  write_steps("serial", layered, kLayers);
  expect_block_steps("serial", layered, kPerRank, kSteps, "serial, written through layers");
  expect_read_through("serial", layered, kLayers);
  if (rank() == 0) {
    EXPECT_TRUE(bytes_of(plain) == bytes_of(layered));
  }
}

TEST(Layers, SubfileDatasetReadsBackThroughAndWithoutLayers) {
  TempDir dir;
  const std::string path = dir.file("layered.tapio");
  write_steps("subfile", path, kLayers);
  expect_block_steps("subfile", path, kPerRank, kSteps, "subfile, written through layers");
  expect_read_through("subfile", path, kLayers);
}

TEST(Layers, UnknownLayerFailsTheOpenEverywhere) {
  TempDir dir;
  for (const char* engine : {"serial", "subfile"}) {
    const Outcome o = attempt([&] { write_steps(engine, dir.file("bad"), {{"layers", "cache,bogus"}}); });
    EXPECT_EQ(o.code, TAPIO_ERR_CONFIG) << engine << ": " << o.message;
    EXPECT_TRUE(contains(o.message, "'bogus'")) << o.message;
    expect_same_everywhere(o.code);
  }
}

}  // namespace
}  // namespace tapio::test
