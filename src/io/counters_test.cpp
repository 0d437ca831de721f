// Counters: Darshan size bins, the flat names()/values() view, operator+=, and exact counts for
// a known sequence of calls on a real file.
#include "io/counters.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "io/file.h"
#include "io/test_util.h"

namespace tapio::io {
namespace {

using testing::GiB;
using testing::KiB;
using testing::MiB;
using testing::expect_counts_eq;
using testing::pattern;
using testing::TempDir;

TEST(SizeBin, DarshanBoundariesAreInclusiveUpperBounds) {
  struct Case {
    uint64_t bytes;
    int bin;
  };
  const Case cases[] = {
      {0, 0},           {1, 0},           {100, 0},           {101, 1},
      {1024, 1},        {1025, 2},        {10 * KiB, 2},      {10 * KiB + 1, 3},
      {100 * KiB, 3},   {100 * KiB + 1, 4}, {MiB, 4},         {MiB + 1, 5},
      {4 * MiB, 5},     {4 * MiB + 1, 6}, {10 * MiB, 6},      {10 * MiB + 1, 7},
      {100 * MiB, 7},   {100 * MiB + 1, 8}, {GiB, 8},         {GiB + 1, 9},
      {UINT64_MAX, 9},
  };
  for (const Case& c : cases) EXPECT_EQ(size_bin(c.bytes), c.bin) << c.bytes << " bytes";
}

TEST(SizeBin, Suffixes) {
  const char* expected[kSizeBins] = {"0_100",  "100_1K", "1K_10K",   "10K_100K", "100K_1M",
                                     "1M_4M",  "4M_10M", "10M_100M", "100M_1G",  "1G_PLUS"};
  for (int bin = 0; bin < kSizeBins; ++bin) EXPECT_STREQ(size_bin_suffix(bin), expected[bin]);
  EXPECT_STREQ(size_bin_suffix(-1), "INVALID");
  EXPECT_STREQ(size_bin_suffix(kSizeBins), "INVALID");
}

TEST(Counters, NamesAreDarshansInOrder) {
  const std::vector<std::string> expected = {
      "POSIX_OPENS",
      "POSIX_READS",
      "POSIX_WRITES",
      "POSIX_FSYNCS",
      "POSIX_BYTES_READ",
      "POSIX_BYTES_WRITTEN",
      "POSIX_MAX_BYTE_READ",
      "POSIX_MAX_BYTE_WRITTEN",
      "POSIX_F_READ_TIME",
      "POSIX_F_WRITE_TIME",
      "POSIX_F_META_TIME",
      "POSIX_SIZE_READ_0_100",
      "POSIX_SIZE_READ_100_1K",
      "POSIX_SIZE_READ_1K_10K",
      "POSIX_SIZE_READ_10K_100K",
      "POSIX_SIZE_READ_100K_1M",
      "POSIX_SIZE_READ_1M_4M",
      "POSIX_SIZE_READ_4M_10M",
      "POSIX_SIZE_READ_10M_100M",
      "POSIX_SIZE_READ_100M_1G",
      "POSIX_SIZE_READ_1G_PLUS",
      "POSIX_SIZE_WRITE_0_100",
      "POSIX_SIZE_WRITE_100_1K",
      "POSIX_SIZE_WRITE_1K_10K",
      "POSIX_SIZE_WRITE_10K_100K",
      "POSIX_SIZE_WRITE_100K_1M",
      "POSIX_SIZE_WRITE_1M_4M",
      "POSIX_SIZE_WRITE_4M_10M",
      "POSIX_SIZE_WRITE_10M_100M",
      "POSIX_SIZE_WRITE_100M_1G",
      "POSIX_SIZE_WRITE_1G_PLUS",
  };
  EXPECT_EQ(Counters::names(), expected);
  EXPECT_EQ(Counters{}.values().size(), expected.size());
  EXPECT_EQ(Counters::reductions().size(), expected.size());
}

TEST(Counters, ValuesFollowNames) {
  // Give every field a distinct value and find it again through its name.
  Counters c;
  c.opens = 1;
  c.reads = 2;
  c.writes = 3;
  c.fsyncs = 4;
  c.bytes_read = 5;
  c.bytes_written = 6;
  c.max_byte_read = 7;
  c.max_byte_written = 8;
  c.read_time = 9.5;
  c.write_time = 10.5;
  c.meta_time = 11.5;
  for (int bin = 0; bin < kSizeBins; ++bin) {
    c.read_size_hist[bin] = 100 + bin;
    c.write_size_hist[bin] = 200 + bin;
  }
  const std::vector<std::string> names = Counters::names();
  const std::vector<double> values = c.values();
  auto value_of = [&](const std::string& name) {
    auto it = std::find(names.begin(), names.end(), name);
    EXPECT_NE(it, names.end()) << name;
    return it == names.end() ? -1.0 : values[it - names.begin()];
  };
  EXPECT_EQ(value_of("POSIX_OPENS"), 1);
  EXPECT_EQ(value_of("POSIX_READS"), 2);
  EXPECT_EQ(value_of("POSIX_WRITES"), 3);
  EXPECT_EQ(value_of("POSIX_FSYNCS"), 4);
  EXPECT_EQ(value_of("POSIX_BYTES_READ"), 5);
  EXPECT_EQ(value_of("POSIX_BYTES_WRITTEN"), 6);
  EXPECT_EQ(value_of("POSIX_MAX_BYTE_READ"), 7);
  EXPECT_EQ(value_of("POSIX_MAX_BYTE_WRITTEN"), 8);
  EXPECT_EQ(value_of("POSIX_F_READ_TIME"), 9.5);
  EXPECT_EQ(value_of("POSIX_F_WRITE_TIME"), 10.5);
  EXPECT_EQ(value_of("POSIX_F_META_TIME"), 11.5);
  for (int bin = 0; bin < kSizeBins; ++bin) {
    EXPECT_EQ(value_of(std::string("POSIX_SIZE_READ_") + size_bin_suffix(bin)), 100 + bin);
    EXPECT_EQ(value_of(std::string("POSIX_SIZE_WRITE_") + size_bin_suffix(bin)), 200 + bin);
  }
}

TEST(Counters, ReductionsTakeMaxOnlyForMaxByte) {
  const std::vector<std::string> names = Counters::names();
  const std::vector<Counters::Reduction> reductions = Counters::reductions();
  for (size_t i = 0; i < names.size(); ++i) {
    const bool is_max = names[i] == "POSIX_MAX_BYTE_READ" || names[i] == "POSIX_MAX_BYTE_WRITTEN";
    EXPECT_EQ(reductions[i], is_max ? Counters::Reduction::kMax : Counters::Reduction::kSum)
        << names[i];
  }
}

TEST(Counters, RecordBinsBytesTimeAndExtent) {
  Counters c;
  c.record_write(1000, 50, 0.25);
  c.record_write(0, 4 * MiB, 0.5);
  c.record_write(9000, 0, 0.125);  // counted and binned, but moves no extent
  c.record_read(10, 101, 1.0);
  c.record_read(5, 0, 0.0);

  Counters expected;
  expected.writes = 3;
  expected.bytes_written = 50 + 4 * MiB;
  expected.max_byte_written = 4 * MiB;
  expected.write_size_hist[0] = 2;
  expected.write_size_hist[5] = 1;
  expected.reads = 2;
  expected.bytes_read = 101;
  expected.max_byte_read = 111;
  expected.read_size_hist[0] = 1;
  expected.read_size_hist[1] = 1;
  expect_counts_eq(expected, c);
  EXPECT_DOUBLE_EQ(c.write_time, 0.875);
  EXPECT_DOUBLE_EQ(c.read_time, 1.0);
  EXPECT_DOUBLE_EQ(c.meta_time, 0.0);
}

TEST(Counters, PlusEqualsSumsAndTakesMaxOfExtents) {
  Counters a, b;
  a.opens = 1;
  a.record_write(0, 200, 1.0);
  a.record_read(500, 10, 2.0);
  a.meta_time = 0.5;
  b.opens = 2;
  b.fsyncs = 3;
  b.record_write(100, 50, 4.0);
  b.record_read(0, 2 * GiB, 8.0);
  b.meta_time = 0.25;

  a += b;
  Counters expected;
  expected.opens = 3;
  expected.fsyncs = 3;
  expected.writes = 2;
  expected.bytes_written = 250;
  expected.max_byte_written = 200;  // max(200, 150), not 350
  expected.write_size_hist[1] = 1;
  expected.write_size_hist[0] = 1;
  expected.reads = 2;
  expected.bytes_read = 10 + 2 * GiB;
  expected.max_byte_read = 2 * GiB;  // max(510, 2 GiB)
  expected.read_size_hist[0] = 1;
  expected.read_size_hist[9] = 1;
  expect_counts_eq(expected, a);
  EXPECT_DOUBLE_EQ(a.write_time, 5.0);
  EXPECT_DOUBLE_EQ(a.read_time, 10.0);
  EXPECT_DOUBLE_EQ(a.meta_time, 0.75);
}

// A known sequence of File calls on a real file gives exactly these counters. Each pread and
// pwrite the file issues is one count, so this also pins down how many calls each File call
// makes.
TEST(Counters, ExactForKnownSequenceOfCalls) {
  TempDir dir;
  const std::string path = dir.file("counted.dat");
  const std::vector<unsigned char> data = pattern(MiB + 1, 7);
  Counters c;
  {
    auto file = open_posix(path, OpenMode::kCreate, &c);
    IO_ASSERT_OK(file);
    IO_ASSERT_OK((*file)->write_at(0, data.data(), 100));            // bin 0_100
    IO_ASSERT_OK((*file)->write_at(100, data.data(), 101));          // bin 100_1K
    IO_ASSERT_OK((*file)->write_at(4096, data.data(), MiB));         // bin 100K_1M
    IO_ASSERT_OK((*file)->write_at(2 * MiB, data.data(), MiB + 1));  // bin 1M_4M
    IO_ASSERT_OK((*file)->write_at(10, data.data(), 0));             // no call at all
    IO_ASSERT_OK((*file)->sync());
    IO_ASSERT_OK((*file)->close());
  }
  const uint64_t file_size = 3 * MiB + 1;

  Counters expected;
  expected.opens = 1;
  expected.fsyncs = 1;
  expected.writes = 4;
  expected.bytes_written = 100 + 101 + MiB + MiB + 1;
  expected.max_byte_written = file_size;
  expected.write_size_hist[0] = 1;
  expected.write_size_hist[1] = 1;
  expected.write_size_hist[4] = 1;
  expected.write_size_hist[5] = 1;
  expect_counts_eq(expected, c);
  EXPECT_GT(c.write_time, 0.0);
  EXPECT_GT(c.meta_time, 0.0);
  EXPECT_EQ(c.read_time, 0.0);

  {
    auto file = open_posix(path, OpenMode::kReadOnly, &c);
    IO_ASSERT_OK(file);
    std::vector<unsigned char> buf(2000);
    size_t got = 0;
    IO_ASSERT_OK((*file)->read_at(0, buf.data(), 50, &got));  // one pread of 50
    EXPECT_EQ(got, 50u);
    // 1000 bytes remain: one pread returns them, a second returns 0 (end of file).
    IO_ASSERT_OK((*file)->read_at(file_size - 1000, buf.data(), 2000, &got));
    EXPECT_EQ(got, 1000u);
    // Past the end: one pread returning 0.
    IO_ASSERT_OK((*file)->read_at(file_size + 10, buf.data(), 2000, &got));
    EXPECT_EQ(got, 0u);
    auto size = (*file)->size();  // fstat: meta time only
    IO_ASSERT_OK(size);
    EXPECT_EQ(*size, file_size);
  }  // closed by the destructor
  expected.opens = 2;
  expected.reads = 4;
  expected.bytes_read = 1050;
  expected.max_byte_read = file_size;
  expected.read_size_hist[0] = 3;  // 50 bytes, and the two reads that returned 0
  expected.read_size_hist[1] = 1;  // 1000 bytes
  expect_counts_eq(expected, c);
  EXPECT_GT(c.read_time, 0.0);
}

}  // namespace
}  // namespace tapio::io
