// The POSIX file against the real file system: round trips, sparse files, end of file, open
// modes and their errors, truncate/size, close.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <limits>

#include "io/file.h"
#include "io/test_util.h"

namespace tapio::io {
namespace {

using testing::GiB;
using testing::KiB;
using testing::MiB;
using testing::pattern;
using testing::same_bytes;
using testing::slurp;
using testing::TempDir;

std::unique_ptr<File> open_ok(const std::string& path, OpenMode mode, Counters* c = nullptr) {
  auto file = open_posix(path, mode, c);
  EXPECT_TRUE(file.ok()) << file.status().message();
  return file.ok() ? std::move(file).value() : nullptr;
}

TEST(PosixFile, RoundTripByteByByte) {
  TempDir dir;
  const std::string path = dir.file("round.dat");
  const std::vector<unsigned char> a = pattern(3 * MiB + 17, 1);
  const std::vector<unsigned char> b = pattern(4093, 2);
  auto file = open_ok(path, OpenMode::kCreate);
  ASSERT_TRUE(file);
  EXPECT_EQ(file->path(), path);
  IO_ASSERT_OK(file->write_at(0, a.data(), a.size()));
  // Overwrite inside, then extend past the end leaving a hole.
  IO_ASSERT_OK(file->write_at(12345, b.data(), b.size()));
  const uint64_t far = a.size() + 1000;
  IO_ASSERT_OK(file->write_at(far, b.data(), b.size()));

  std::vector<unsigned char> expected(a);
  std::copy(b.begin(), b.end(), expected.begin() + 12345);
  expected.resize(far, 0);
  expected.insert(expected.end(), b.begin(), b.end());

  // Read back through the code under test...
  std::vector<unsigned char> back(expected.size() + 100, 0xAB);
  size_t got = 0;
  IO_ASSERT_OK(file->read_at(0, back.data(), back.size(), &got));
  ASSERT_EQ(got, expected.size());
  EXPECT_TRUE(same_bytes(expected.data(), back.data(), expected.size()));
  // ...an unaligned piece of it...
  IO_ASSERT_OK(file->read_exact(12340, back.data(), 5000));
  EXPECT_TRUE(same_bytes(expected.data() + 12340, back.data(), 5000));
  IO_ASSERT_OK(file->close());
  // ...and independently of it.
  const std::vector<unsigned char> disk = slurp(path);
  ASSERT_EQ(disk.size(), expected.size());
  EXPECT_TRUE(same_bytes(expected.data(), disk.data(), disk.size()));
}

TEST(PosixFile, SparseFileAtFiveGiB) {
  TempDir dir;
  const std::string path = dir.file("sparse.dat");
  const uint64_t offset = 5 * GiB + 3;  // beyond 32-bit offsets, unaligned
  const std::vector<unsigned char> data = pattern(8192, 3);
  auto file = open_ok(path, OpenMode::kCreate);
  ASSERT_TRUE(file);
  IO_ASSERT_OK(file->write_at(offset, data.data(), data.size()));
  auto size = file->size();
  IO_ASSERT_OK(size);
  EXPECT_EQ(*size, offset + data.size());

  std::vector<unsigned char> back(data.size());
  IO_ASSERT_OK(file->read_exact(offset, back.data(), back.size()));
  EXPECT_TRUE(same_bytes(data.data(), back.data(), data.size()));
  // The hole reads as zeros.
  std::vector<unsigned char> zeros(4096, 0), hole(4096, 0xFF);
  IO_ASSERT_OK(file->read_exact(4 * GiB, hole.data(), hole.size()));
  EXPECT_TRUE(same_bytes(zeros.data(), hole.data(), hole.size()));
  // Reopen read-only and read across the end of the data.
  IO_ASSERT_OK(file->close());
  file = open_ok(path, OpenMode::kReadOnly);
  ASSERT_TRUE(file);
  size_t got = 0;
  IO_ASSERT_OK(file->read_at(offset + 100, back.data(), back.size(), &got));
  EXPECT_EQ(got, data.size() - 100);
  EXPECT_TRUE(same_bytes(data.data() + 100, back.data(), got));
}

TEST(PosixFile, ReadPastEndOfFile) {
  TempDir dir;
  const std::string path = dir.file("short.dat");
  const std::vector<unsigned char> data = pattern(1000, 4);
  auto file = open_ok(path, OpenMode::kCreate);
  ASSERT_TRUE(file);
  IO_ASSERT_OK(file->write_at(0, data.data(), data.size()));

  std::vector<unsigned char> buf(400, 0xEE);
  size_t got = 12345;
  IO_ASSERT_OK(file->read_at(800, buf.data(), buf.size(), &got));
  EXPECT_EQ(got, 200u);
  EXPECT_TRUE(same_bytes(data.data() + 800, buf.data(), 200));
  EXPECT_EQ(buf[200], 0xEE) << "bytes past the end must not be touched";

  got = 12345;
  IO_ASSERT_OK(file->read_at(1000, buf.data(), buf.size(), &got));
  EXPECT_EQ(got, 0u);
  got = 12345;
  IO_ASSERT_OK(file->read_at(1 * GiB, buf.data(), buf.size(), &got));
  EXPECT_EQ(got, 0u);
}

TEST(PosixFile, ZeroLengthRequests) {
  TempDir dir;
  Counters c;
  auto file = open_ok(dir.file("zero.dat"), OpenMode::kCreate, &c);
  ASSERT_TRUE(file);
  IO_ASSERT_OK(file->write_at(100, nullptr, 0));
  size_t got = 7;
  IO_ASSERT_OK(file->read_at(0, nullptr, 0, &got));
  EXPECT_EQ(got, 0u);
  IO_ASSERT_OK(file->read_exact(0, nullptr, 0));
  EXPECT_EQ(c.writes, 0u);
  EXPECT_EQ(c.reads, 0u);
  EXPECT_EQ(*file->size(), 0u);  // a zero-length write does not extend the file
}

TEST(PosixFile, ReadExactTruncatedNamesPathOffsetAndSize) {
  TempDir dir;
  const std::string path = dir.file("out.nc");
  const std::vector<unsigned char> data = pattern(1200, 5);
  auto file = open_ok(path, OpenMode::kCreate);
  ASSERT_TRUE(file);
  IO_ASSERT_OK(file->write_at(0, data.data(), data.size()));

  std::vector<unsigned char> buf(400);
  Status s = file->read_exact(1000, buf.data(), 400);
  EXPECT_EQ(s.code(), TAPIO_ERR_FORMAT);
  EXPECT_EQ(s.message(),
            "'" + path + "' is truncated: needed 400 bytes at offset 1000, file has 1200");
  // Entirely past the end: the file size still comes out right.
  s = file->read_exact(5000, buf.data(), 10);
  EXPECT_EQ(s.code(), TAPIO_ERR_FORMAT);
  EXPECT_EQ(s.message(),
            "'" + path + "' is truncated: needed 10 bytes at offset 5000, file has 1200");
  // Exactly up to the end is fine.
  IO_ASSERT_OK(file->read_exact(800, buf.data(), 400));
  EXPECT_TRUE(same_bytes(data.data() + 800, buf.data(), 400));
}

TEST(PosixFile, OpenMissingFileIsNotFound) {
  TempDir dir;
  const std::string path = dir.file("missing.nc");
  for (OpenMode mode : {OpenMode::kReadOnly, OpenMode::kReadWrite}) {
    auto file = open_posix(path, mode, nullptr);
    ASSERT_FALSE(file.ok());
    EXPECT_EQ(file.status().code(), TAPIO_ERR_NOT_FOUND);
    EXPECT_NE(file.status().message().find("'" + path + "'"), std::string::npos)
        << file.status().message();
    EXPECT_NE(file.status().message().find("No such file or directory"), std::string::npos)
        << file.status().message();
  }
  auto file = open_posix(path, OpenMode::kReadOnly, nullptr);
  EXPECT_EQ(file.status().message(),
            "open of '" + path + "' for reading failed: No such file or directory");
  // Creating in a missing directory is NOT_FOUND as well.
  const std::string nested = dir.file("no/such/dir/x.nc");
  file = open_posix(nested, OpenMode::kCreate, nullptr);
  EXPECT_EQ(file.status().code(), TAPIO_ERR_NOT_FOUND);
  EXPECT_EQ(file.status().message(),
            "open of '" + nested + "' for create failed: No such file or directory");
}

TEST(PosixFile, CreateOnDirectoryIsIoError) {
  TempDir dir;
  Counters c;
  auto file = open_posix(dir.path(), OpenMode::kCreate, &c);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), TAPIO_ERR_IO);
  EXPECT_EQ(file.status().message(),
            "open of '" + dir.path() + "' for create failed: Is a directory");
  EXPECT_EQ(c.opens, 0u);  // a failed open is not an open
}

TEST(PosixFile, CreateTruncatesAndUsesUmask) {
  TempDir dir;
  const std::string path = dir.file("perm.dat");
  const mode_t old_umask = umask(022);
  {
    auto file = open_ok(path, OpenMode::kCreate);
    ASSERT_TRUE(file);
    const std::vector<unsigned char> data = pattern(5000, 6);
    IO_ASSERT_OK(file->write_at(0, data.data(), data.size()));
  }
  umask(old_umask);
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(st.st_size, 5000);

  auto file = open_ok(path, OpenMode::kCreate);
  ASSERT_TRUE(file);
  EXPECT_EQ(*file->size(), 0u) << "kCreate must truncate an existing file";
}

TEST(PosixFile, ReadWriteKeepsContentsAndWritesAtOffsets) {
  TempDir dir;
  const std::string path = dir.file("rw.dat");
  const std::vector<unsigned char> a = pattern(3000, 7), b = pattern(500, 8);
  {
    auto file = open_ok(path, OpenMode::kCreate);
    ASSERT_TRUE(file);
    IO_ASSERT_OK(file->write_at(0, a.data(), a.size()));
  }
  auto file = open_ok(path, OpenMode::kReadWrite);
  ASSERT_TRUE(file);
  EXPECT_EQ(*file->size(), 3000u);
  // pwrite honours the offset (the file is not O_APPEND): overwrite in place, then append.
  IO_ASSERT_OK(file->write_at(100, b.data(), b.size()));
  IO_ASSERT_OK(file->write_at(3000, b.data(), b.size()));
  IO_ASSERT_OK(file->close());
  std::vector<unsigned char> expected(a);
  std::copy(b.begin(), b.end(), expected.begin() + 100);
  expected.insert(expected.end(), b.begin(), b.end());
  const std::vector<unsigned char> disk = slurp(path);
  ASSERT_EQ(disk.size(), expected.size());
  EXPECT_TRUE(same_bytes(expected.data(), disk.data(), disk.size()));
}

TEST(PosixFile, WriteToReadOnlyFileFails) {
  TempDir dir;
  const std::string path = dir.file("ro.dat");
  { ASSERT_TRUE(open_ok(path, OpenMode::kCreate)); }
  auto file = open_ok(path, OpenMode::kReadOnly);
  ASSERT_TRUE(file);
  const char data[10] = {};
  Status s = file->write_at(0, data, sizeof data);
  EXPECT_EQ(s.code(), TAPIO_ERR_IO);
  EXPECT_EQ(s.message(),
            "write of 10 bytes at offset 0 to '" + path + "' failed: Bad file descriptor");
}

TEST(PosixFile, TruncateAndSize) {
  TempDir dir;
  const std::string path = dir.file("trunc.dat");
  const std::vector<unsigned char> data = pattern(10000, 9);
  auto file = open_ok(path, OpenMode::kCreate);
  ASSERT_TRUE(file);
  IO_ASSERT_OK(file->write_at(0, data.data(), data.size()));
  EXPECT_EQ(*file->size(), 10000u);
  IO_ASSERT_OK(file->truncate(4000));
  EXPECT_EQ(*file->size(), 4000u);
  IO_ASSERT_OK(file->truncate(6 * GiB));  // extend: sparse
  EXPECT_EQ(*file->size(), 6 * GiB);
  std::vector<unsigned char> back(4000);
  IO_ASSERT_OK(file->read_exact(0, back.data(), back.size()));
  EXPECT_TRUE(same_bytes(data.data(), back.data(), back.size()));
  IO_ASSERT_OK(file->truncate(0));
  EXPECT_EQ(*file->size(), 0u);
}

TEST(PosixFile, OffsetsBeyondOffTAreRejectedBeforeAnyCall) {
  TempDir dir;
  const std::string path = dir.file("big.dat");
  Counters c;
  auto file = open_ok(path, OpenMode::kCreate, &c);
  ASSERT_TRUE(file);
  const uint64_t max_off = static_cast<uint64_t>(std::numeric_limits<off_t>::max());
  char buf[16] = {};
  size_t got = 99;

  Status s = file->write_at(max_off + 1, buf, 1);
  EXPECT_EQ(s.code(), TAPIO_ERR_ARG);
  EXPECT_NE(s.message().find("write of 1 bytes at offset " + std::to_string(max_off + 1) +
                             " to '" + path + "'"),
            std::string::npos)
      << s.message();
  // The offset fits but the end does not.
  EXPECT_EQ(file->write_at(max_off - 4, buf, 16).code(), TAPIO_ERR_ARG);
  EXPECT_EQ(file->write_at(UINT64_MAX, buf, 16).code(), TAPIO_ERR_ARG);  // would wrap around
  EXPECT_EQ(file->read_at(max_off + 1, buf, 1, &got).code(), TAPIO_ERR_ARG);
  EXPECT_EQ(got, 0u);
  EXPECT_EQ(file->read_exact(UINT64_MAX - 2, buf, 8).code(), TAPIO_ERR_ARG);
  EXPECT_EQ(file->truncate(max_off + 1).code(), TAPIO_ERR_ARG);
  EXPECT_EQ(c.writes, 0u);
  EXPECT_EQ(c.reads, 0u);
}

TEST(PosixFile, CloseIsIdempotentAndLaterCallsFail) {
  TempDir dir;
  const std::string path = dir.file("closed.dat");
  auto file = open_ok(path, OpenMode::kCreate);
  ASSERT_TRUE(file);
  IO_ASSERT_OK(file->close());
  IO_ASSERT_OK(file->close());
  EXPECT_EQ(file->path(), path);
  char buf[4] = {};
  size_t got = 0;
  Status s = file->write_at(0, buf, 4);
  EXPECT_EQ(s.code(), TAPIO_ERR_STATE);
  EXPECT_EQ(s.message(), "write of 4 bytes at offset 0 to '" + path + "' failed: '" + path +
                             "' is closed");
  EXPECT_EQ(file->read_at(0, buf, 4, &got).code(), TAPIO_ERR_STATE);
  EXPECT_EQ(file->read_exact(0, buf, 4).code(), TAPIO_ERR_STATE);
  EXPECT_EQ(file->sync().code(), TAPIO_ERR_STATE);
  EXPECT_EQ(file->truncate(0).code(), TAPIO_ERR_STATE);
  EXPECT_EQ(file->size().status().code(), TAPIO_ERR_STATE);
}

TEST(PosixFile, WorksWithoutCounters) {
  TempDir dir;
  auto file = open_ok(dir.file("uncounted.dat"), OpenMode::kCreate, nullptr);
  ASSERT_TRUE(file);
  const std::vector<unsigned char> data = pattern(100, 10);
  IO_ASSERT_OK(file->write_at(0, data.data(), data.size()));
  IO_ASSERT_OK(file->sync());
  std::vector<unsigned char> back(100);
  IO_ASSERT_OK(file->read_exact(0, back.data(), back.size()));
  EXPECT_TRUE(same_bytes(data.data(), back.data(), back.size()));
  IO_ASSERT_OK(file->truncate(10));
  IO_ASSERT_OK(file->close());
}

}  // namespace
}  // namespace tapio::io
