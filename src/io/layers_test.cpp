// The buffering layers: what storage receives (every request's offset and size, recorded by a
// fake file below the layer) for many small writes and reads, with and without each layer; the
// bytes read back equal the bytes written; a failed background write is reported.
#include <fcntl.h>
#include <gtest/gtest.h>

#include <cerrno>

#include <cstring>
#include <filesystem>
#include <random>

#include "core/warnings.h"
#include "io/aligned_file.h"
#include "io/buffered_file.h"
#include "io/layers.h"
#include "io/read_cache.h"
#include "io/syscalls.h"
#include "io/test_util.h"

namespace tapio::io {
namespace {

using testing::pattern;

struct Request {
  uint64_t offset;
  uint64_t size;
  bool operator==(const Request& o) const { return offset == o.offset && size == o.size; }
};

// Storage as a fake: bytes in memory, every request recorded; `fail_write` makes that write
// (0-based) fail with EIO.
struct Recorded {
  std::vector<uint8_t> bytes;
  std::vector<Request> writes, reads;
  int syncs = 0;
  size_t fail_write = SIZE_MAX;
};

class RecordingFile final : public File {
 public:
  explicit RecordingFile(Recorded* r) : r_(r) {}
  Status write_at(uint64_t offset, const void* data, size_t n) override {
    if (r_->writes.size() == r_->fail_write) {
      r_->fail_write = SIZE_MAX;
      return error(TAPIO_ERR_IO, "write of {} bytes at offset {} to '{}' failed: EIO", n, offset,
                   path_);
    }
    r_->writes.push_back({offset, n});
    if (r_->bytes.size() < offset + n) r_->bytes.resize(offset + n);
    std::memcpy(r_->bytes.data() + offset, data, n);
    return ok_status();
  }
  Status read_at(uint64_t offset, void* data, size_t n, size_t* got) override {
    r_->reads.push_back({offset, n});
    const size_t k = offset >= r_->bytes.size() ? 0 : std::min<size_t>(n, r_->bytes.size() - offset);
    if (k > 0) std::memcpy(data, r_->bytes.data() + offset, k);
    if (got != nullptr) *got = k;
    return ok_status();
  }
  Status sync() override {
    r_->syncs += 1;
    return ok_status();
  }
  Status truncate(uint64_t size) override {
    r_->bytes.resize(size);
    return ok_status();
  }
  Result<uint64_t> size() override { return static_cast<uint64_t>(r_->bytes.size()); }
  Status close() override { return ok_status(); }
  const std::string& path() const override { return path_; }

 private:
  Recorded* r_;
  std::string path_ = "fake.dat";
};

std::unique_ptr<File> recording(Recorded* r) { return std::make_unique<RecordingFile>(r); }

// n writes of `size` bytes back to back from `start`; returns the bytes written.
std::vector<unsigned char> write_small(File& f, uint64_t start, int n, size_t size) {
  std::vector<unsigned char> all = pattern(n * size, 7);
  for (int i = 0; i < n; ++i)
    EXPECT_TRUE(f.write_at(start + i * size, all.data() + i * size, size).ok());
  return all;
}

TEST(BufferedLayer, ManySmallWritesBecomeBufferSizeRequests) {
  Recorded r;
  BufferedFile f(recording(&r), 16384, 2);
  const std::vector<unsigned char> all = write_small(f, 0, 1000, 100);  // 100,000 bytes
  ASSERT_TRUE(f.sync().ok());
  // Before sync returns every byte is on storage, and storage was synced.
  ASSERT_EQ(r.writes.size(), 7u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(r.writes[i], (Request{i * 16384u, 16384u}));
  EXPECT_EQ(r.writes[6], (Request{98304, 1696}));
  EXPECT_EQ(r.syncs, 1);
  EXPECT_EQ(std::vector<unsigned char>(r.bytes.begin(), r.bytes.end()), all);
}

TEST(BufferedLayer, WithoutItStorageSeesEveryWrite) {
  Recorded r;
  RecordingFile f(&r);
  write_small(f, 0, 1000, 100);
  EXPECT_EQ(r.writes.size(), 1000u);
}

TEST(BufferedLayer, AJumpOrALargeWriteGoesOutInOrder) {
  Recorded r;
  BufferedFile f(recording(&r), 4096, 1);
  const auto a = pattern(100, 1), b = pattern(8192, 2), c = pattern(100, 3);
  ASSERT_TRUE(f.write_at(0, a.data(), a.size()).ok());
  ASSERT_TRUE(f.write_at(200, c.data(), c.size()).ok());     // a jump: the first buffer goes
  ASSERT_TRUE(f.write_at(100, b.data(), b.size()).ok());     // large: straight after the queue
  ASSERT_TRUE(f.close().ok());
  EXPECT_EQ(r.writes, (std::vector<Request>{{0, 100}, {200, 100}, {100, 8192}}));
  EXPECT_TRUE(std::equal(b.begin(), b.end(), r.bytes.begin() + 100));  // the later write wins
}

TEST(BufferedLayer, SequentialSmallReadsReadAhead) {
  Recorded r;
  r.bytes.assign(131072, 0);
  const auto want = pattern(131072, 5);
  std::memcpy(r.bytes.data(), want.data(), want.size());
  BufferedFile f(recording(&r), 16384, 2);
  std::vector<unsigned char> got(131072);
  for (size_t at = 0; at < got.size(); at += 128) ASSERT_TRUE(f.read_exact(at, got.data() + at, 128).ok());
  EXPECT_EQ(got, want);
  ASSERT_EQ(r.reads.size(), 8u);  // 1024 reads of 128 bytes
  for (uint64_t i = 0; i < 8; ++i) EXPECT_EQ(r.reads[i], (Request{i * 16384, 16384}));
}

TEST(BufferedLayer, AFailedBackgroundWriteIsReportedAndStays) {
  Recorded r;
  r.fail_write = 1;  // the second buffer's write fails, in the background
  BufferedFile f(recording(&r), 4096, 2);
  const auto bytes = pattern(4096 * 4, 9);
  Status first;
  for (size_t at = 0; at < bytes.size() && first.ok(); at += 512)
    first = f.write_at(at, bytes.data() + at, 512);
  Status synced = f.sync();
  const Status& seen = first.ok() ? synced : first;
  EXPECT_EQ(seen.code(), TAPIO_ERR_IO);
  EXPECT_NE(seen.message().find("fake.dat"), std::string::npos) << seen.message();
  EXPECT_NE(seen.message().find("offset 4096"), std::string::npos) << seen.message();
  // Nothing after the failure reports success: not sync, not close.
  EXPECT_FALSE(f.sync().ok());
  EXPECT_FALSE(f.close().ok());
}

TEST(AlignedLayer, SmallWritesBecomeWholeUnits) {
  Recorded r;
  AlignedFile f(recording(&r), 4096, nullptr);
  const std::vector<unsigned char> all = write_small(f, 1000, 1000, 100);  // [1000, 101000)
  ASSERT_TRUE(f.sync().ok());
  // [1000, 4096) is the partial head; then 23 whole units; then the tail [98304, 101000).
  ASSERT_EQ(r.writes.size(), 25u);
  EXPECT_EQ(r.writes.front(), (Request{1000, 3096}));
  for (size_t i = 1; i < 24; ++i) EXPECT_EQ(r.writes[i], (Request{i * 4096, 4096}));
  EXPECT_EQ(r.writes.back(), (Request{98304, 2696}));
  EXPECT_TRUE(std::equal(all.begin(), all.end(), r.bytes.begin() + 1000));
}

TEST(AlignedLayer, LargeWritesAndReadsAreCutAtUnits) {
  Recorded r;
  AlignedFile f(recording(&r), 4096, nullptr);
  const auto big = pattern(10000, 4);
  ASSERT_TRUE(f.write_at(1000, big.data(), big.size()).ok());
  std::vector<unsigned char> back(10000);
  ASSERT_TRUE(f.read_exact(1000, back.data(), back.size()).ok());  // flushes the tail first
  EXPECT_EQ(back, big);
  EXPECT_EQ(r.writes, (std::vector<Request>{{1000, 3096}, {4096, 4096}, {8192, 2808}}));
  EXPECT_EQ(r.reads, (std::vector<Request>{{1000, 3096}, {4096, 4096}, {8192, 2808}}));
}

TEST(ReadCacheLayer, RandomScalarsCostAFewPageReads) {
  Recorded r;
  const auto want = pattern(1 << 20, 6);
  r.bytes.assign(want.begin(), want.end());
  ReadCache cached(recording(&r), 65536, 16);  // the whole file fits
  Recorded plain_r{r.bytes, {}, {}, 0, SIZE_MAX};
  RecordingFile plain(&plain_r);
  std::mt19937_64 rng(42);
  for (int i = 0; i < 10000; ++i) {
    const uint64_t at = rng() % ((1 << 20) / 8) * 8;
    uint64_t a = 0, b = 0;
    ASSERT_TRUE(cached.read_exact(at, &a, 8).ok());
    ASSERT_TRUE(plain.read_exact(at, &b, 8).ok());
    ASSERT_EQ(a, b);
    uint64_t expect;
    std::memcpy(&expect, want.data() + at, 8);
    ASSERT_EQ(a, expect);
  }
  EXPECT_EQ(plain_r.reads.size(), 10000u);
  uint64_t bytes = 0;
  for (const Request& q : r.reads) bytes += q.size;
  EXPECT_LE(r.reads.size(), 16u);      // each page read once (runs read ahead together)
  EXPECT_EQ(bytes, uint64_t{1} << 20); // and nothing twice
}

TEST(ReadCacheLayer, SeesWritesAndDoesNotKeepTheFileEnd) {
  Recorded r;
  r.bytes = std::vector<uint8_t>(100, 1);
  ReadCache f(recording(&r), 4096, 4);
  uint8_t b = 0;
  size_t got = 0;
  ASSERT_TRUE(f.read_at(50, &b, 1, &got).ok());
  EXPECT_EQ(b, 1);
  ASSERT_TRUE(f.read_at(150, &b, 1, &got).ok());
  EXPECT_EQ(got, 0u);  // past the end
  const uint8_t two = 2;
  ASSERT_TRUE(f.write_at(50, &two, 1).ok());
  r.bytes.resize(200, 3);  // another writer appends
  ASSERT_TRUE(f.read_at(50, &b, 1, &got).ok());
  EXPECT_EQ(b, 2);
  ASSERT_TRUE(f.read_at(150, &b, 1, &got).ok());
  EXPECT_EQ(got, 1u);
  EXPECT_EQ(b, 3);
}

TEST(Layers, ParseNamesAnUnknownLayer) {
  Params p;
  ASSERT_TRUE(p.set("layers", "cache, bufferd").ok());
  const auto spec = LayerSpec::parse(p, 1 << 20);
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.status().message().find("'bufferd'"), std::string::npos);
  ASSERT_TRUE(p.set("layers", "aligned,buffered").ok());
  const auto ok = LayerSpec::parse(p, 65536);
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(ok->aligned && ok->buffered && !ok->cache);
  EXPECT_EQ(ok->align, 65536u);  // the stripe size, unless layer_align is set
  EXPECT_EQ(ok->buffer_size, 4u << 20);
}

// O_DIRECT on real files: where the file system takes it, whole units bypass the page cache;
// where it refuses (tmpfs), a warning names the file and the bytes still arrive.
void direct_round_trip(const std::string& dir, bool* warned) {
  std::vector<std::string> warnings;
  WarningSink old = set_warning_sink([&](const std::string& m) { warnings.push_back(m); });
  Params p;
  ASSERT_TRUE(p.set("layers", "buffered,aligned").ok());
  ASSERT_TRUE(p.set("layer_align", "8192").ok());
  ASSERT_TRUE(p.set("layer_direct", "true").ok());
  auto spec = LayerSpec::parse(p, 1 << 20);
  ASSERT_TRUE(spec.ok());
  const std::string path = dir + "/direct.dat";
  Counters counters;
  auto f = open_layered(posix_storage(), path, OpenMode::kCreate, &counters, *spec);
  set_warning_sink(old);
  ASSERT_TRUE(f.ok()) << f.status().message();
  const std::vector<unsigned char> all = write_small(**f, 0, 300, 100);  // 30,000 bytes
  ASSERT_TRUE((*f)->close().ok());
  EXPECT_EQ(testing::slurp(path), all);
  // Three whole units of 8192 (through either descriptor) and the 5424-byte tail.
  EXPECT_EQ(counters.writes, 4u);
  *warned = !warnings.empty();
  if (*warned) {
    EXPECT_NE(warnings[0].find(path), std::string::npos) << warnings[0];
  }
}

TEST(Layers, DirectIoOrAWarning) {
  testing::TempDir dir;
  bool warned = false;
  direct_round_trip(dir.path(), &warned);
}

// A file system that refuses O_DIRECT (tmpfs before Linux 6.6) answers EINVAL at open: the
// syscall table plays one here, whatever this machine's kernel does.
TEST(Layers, AFileSystemRefusingDirectIoGetsAWarning) {
  ScopedSyscalls restore;
  syscalls().open = [](const char* path, int flags, mode_t mode) {
    if ((flags & O_DIRECT) != 0) {
      errno = EINVAL;
      return -1;
    }
    return default_syscalls().open(path, flags, mode);
  };
  testing::TempDir dir;
  bool warned = false;
  direct_round_trip(dir.path(), &warned);
  EXPECT_TRUE(warned);
}

}  // namespace
}  // namespace tapio::io
