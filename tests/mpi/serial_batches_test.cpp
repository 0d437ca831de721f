// The serial engine moves a batch of variables per gather and per scatter (batches.h): many
// small variables of mixed types, one larger than a batch, and one that only rank 0 writes
// (the rest is fill) write and read back exactly, in one batch and in many, with and without
// async; a default buffer_size takes a few messages per step, not one per variable; and the
// collective engine reads what the serial engine wrote the same.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "test_util.h"

namespace tapio::test {
namespace {

using Params = std::map<std::string, std::string>;

constexpr int kSmall = 300;     // small variables, 3 elements per rank each
constexpr uint64_t kBig = 2000;  // elements per rank of "big"
constexpr uint64_t kSteps = 2;

// Element i of variable v at step s (exact in every type used).
int value_of(int v, uint64_t s, uint64_t i) {
  return static_cast<int>((v * 7 + s * 3 + i) % 30000);
}

template <class T>
std::vector<T> block(int v, uint64_t s, uint64_t first, uint64_t n) {
  std::vector<T> out(n);
  for (uint64_t i = 0; i < n; ++i) out[i] = static_cast<T>(value_of(v, s, first + i));
  return out;
}

std::string small_name(int v) { return "s" + std::to_string(v); }

// Writes kSteps steps: kSmall variables (double, int32, int16 in turn) of 3 elements per rank,
// "big" of kBig doubles per rank, and "part", of which rank 0 alone writes its 3 elements.
void write_all(const std::string& path, const Params& params) {
  const uint64_t P = static_cast<uint64_t>(size()), r = static_cast<uint64_t>(rank());
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("batches");
  io.set_engine("serial");
  for (const auto& [k, v] : params) io.set_parameter(k, v);
  std::vector<Variable> vars;
  for (int v = 0; v < kSmall; ++v) {
    if (v % 3 == 0) vars.push_back(io.define_variable<double>(small_name(v), {3 * P}));
    if (v % 3 == 1) vars.push_back(io.define_variable<int32_t>(small_name(v), {3 * P}));
    if (v % 3 == 2) vars.push_back(io.define_variable<int16_t>(small_name(v), {3 * P}));
  }
  Variable big = io.define_variable<double>("big", {kBig * P});
  Variable part = io.define_variable<int32_t>("part", {3 * P});
  Engine out = io.open(path, TAPIO_MODE_WRITE);
  for (uint64_t s = 0; s < kSteps; ++s) {
    out.begin_step();
    std::vector<std::vector<double>> d;
    std::vector<std::vector<int32_t>> i32;
    std::vector<std::vector<int16_t>> i16;
    d.reserve(kSmall + 1);
    i32.reserve(kSmall + 1);
    i16.reserve(kSmall);
    const std::vector<uint64_t> start = {3 * r}, count = {3};
    for (int v = 0; v < kSmall; ++v) {
      if (v % 3 == 0) out.put(vars[v], start, count, d.emplace_back(block<double>(v, s, 3 * r, 3)).data());
      if (v % 3 == 1)
        out.put(vars[v], start, count, i32.emplace_back(block<int32_t>(v, s, 3 * r, 3)).data());
      if (v % 3 == 2)
        out.put(vars[v], start, count, i16.emplace_back(block<int16_t>(v, s, 3 * r, 3)).data());
    }
    d.push_back(block<double>(kSmall, s, kBig * r, kBig));
    out.put(big, {kBig * r}, {kBig}, d.back().data());
    if (r == 0) out.put(part, {0}, {3}, i32.emplace_back(block<int32_t>(kSmall + 1, s, 0, 3)).data());
    out.end_step();
  }
  out.close();
}

// Every variable's kSteps steps, whole, read with `engine`; the number of values that differ.
uint64_t wrong_values(const std::string& path, const std::string& engine, const Params& params) {
  const uint64_t P = static_cast<uint64_t>(size());
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("check");
  io.set_engine(engine);
  for (const auto& [k, v] : params) io.set_parameter(k, v);
  Engine in = io.open(path, TAPIO_MODE_READ);
  std::vector<std::vector<double>> got(kSmall + 2);
  std::vector<Variable> vars;
  for (int v = 0; v < kSmall + 2; ++v) {
    const std::string name = v < kSmall ? small_name(v) : v == kSmall ? "big" : "part";
    vars.push_back(io.inquire_variable(name));
    vars.back().set_step_selection(0, kSteps);
    got[v].assign(kSteps * (v == kSmall ? kBig * P : 3 * P), -1);
    in.get(vars.back(), got[v]);  // converted to double from each variable's type
  }
  in.perform_gets();
  in.close();
  uint64_t wrong = 0;
  for (int v = 0; v < kSmall + 2; ++v) {
    const uint64_t n = got[v].size() / kSteps;
    for (uint64_t s = 0; s < kSteps; ++s)
      for (uint64_t i = 0; i < n; ++i) {
        // "part": rank 0's three elements, then NetCDF's default int32 fill value.
        const double want = v == kSmall + 1 && i >= 3 ? -2147483647.0 : value_of(v, s, i);
        wrong += got[v][s * n + i] != want;
      }
  }
  return wrong;
}

double max_counter(const std::string& profile, const char* name) {
  std::ifstream in(profile);
  return nlohmann::json::parse(in).at("counters").at(name).at("max").get<double>();
}

class SerialBatches : public ::testing::TestWithParam<Params> {};

TEST_P(SerialBatches, WriteAndReadBackExactly) {
  TempDir dir;
  const std::string path = dir.file("batches.nc");
  write_all(path, GetParam());
  EXPECT_EQ(wrong_values(path, "serial", GetParam()), 0u);
  EXPECT_EQ(wrong_values(path, "collective", {}), 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Limits, SerialBatches,
    ::testing::Values(Params{},                                    // one batch of small ones
                      Params{{"buffer_size", "100"}},              // a few variables per batch
                      Params{{"buffer_size", "1"}},                // one variable per batch
                      Params{{"buffer_size", "100"}, {"async", "true"}}),
    [](const auto& info) { return "case" + std::to_string(info.index); });

// With the default buffer_size, a step's 302 variables take a few messages per rank, where one
// gather per variable sent 302 (and one scatter per variable received as many).
TEST(SerialBatches, ADefaultStepTakesAFewMessages) {
  if (size() < 2) GTEST_SKIP() << "rank 0 sends nothing to itself";
  TempDir dir;
  const std::string path = dir.file("few.nc"), written = dir.file("w.json"),
                    read = dir.file("r.json");
  write_all(path, {{"profile", written}});
  EXPECT_EQ(wrong_values(path, "serial", {{"profile", read}}), 0u);
  if (rank() != 0) return;
  EXPECT_LE(max_counter(written, "messages_sent"), 20 * kSteps);
  EXPECT_LE(max_counter(read, "messages_received"), 20);
}

}  // namespace
}  // namespace tapio::test
