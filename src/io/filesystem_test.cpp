// File-system detection with faked statfs and getxattr results, the lov_user_md codec, the
// Lustre layout request of a new file through a faked fsetxattr, and the real file systems of
// this machine (/tmp, /dev/shm).
#include "io/filesystem.h"

#include <fcntl.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <vector>

#include "io/file.h"
#include "io/syscalls.h"
#include "io/test_util.h"

namespace tapio::io {
namespace {

using testing::TempDir;

// What the fakes below answer and record (plain function pointers cannot capture).
struct FakeFs {
  std::map<std::string, struct statfs> mounts;  // path -> its statfs; others ENOENT
  std::vector<std::string> statfs_calls;
  std::vector<uint8_t> lov;  // what getxattr("lustre.lov") returns; empty: ENODATA
  std::string getxattr_path;
  std::vector<uint8_t> set_lov;  // what fsetxattr was given
  std::string set_name;
  int open_flags = 0;
  int fsetxattr_errno = 0;
};
FakeFs f;

struct statfs statfs_of(uint64_t magic, long bsize) {
  struct statfs st {};
  st.f_type = static_cast<decltype(st.f_type)>(magic);
  st.f_bsize = bsize;
  return st;
}

int fake_statfs(const char* path, struct statfs* st) {
  f.statfs_calls.push_back(path);
  auto it = f.mounts.find(path);
  if (it == f.mounts.end()) {
    errno = ENOENT;
    return -1;
  }
  *st = it->second;
  return 0;
}

ssize_t fake_getxattr(const char* path, const char* name, void* value, size_t size) {
  f.getxattr_path = path;
  if (std::strcmp(name, kLustreLayoutXattr) != 0 || f.lov.empty()) {
    errno = ENODATA;
    return -1;
  }
  if (size == 0) return static_cast<ssize_t>(f.lov.size());
  if (size < f.lov.size()) {
    errno = ERANGE;
    return -1;
  }
  std::memcpy(value, f.lov.data(), f.lov.size());
  return static_cast<ssize_t>(f.lov.size());
}

int fake_fsetxattr(int, const char* name, const void* value, size_t size, int) {
  f.set_name = name;
  f.set_lov.assign(static_cast<const uint8_t*>(value), static_cast<const uint8_t*>(value) + size);
  if (f.fsetxattr_errno != 0) {
    errno = f.fsetxattr_errno;
    return -1;
  }
  return 0;
}

int recording_open(const char* path, int flags, mode_t mode) {
  f.open_flags = flags;
  return default_syscalls().open(path, flags & ~(O_NOCTTY | FASYNC), mode);
}

class FilesystemTest : public ::testing::Test {
 protected:
  void SetUp() override {
    f = FakeFs{};
    syscalls().statfs = fake_statfs;
    syscalls().getxattr = fake_getxattr;
    syscalls().fsetxattr = fake_fsetxattr;
    syscalls().open = recording_open;
  }
  ScopedSyscalls restore_;
};

TEST(FsKind, MagicNumbersMapToNames) {
  const std::pair<uint64_t, std::string_view> known[] = {
      {0x0BD00BD0, "lustre"}, {0x47504653, "gpfs"}, {0x6969, "nfs"},
      {0x01021994, "tmpfs"},  {0xEF53, "ext4"},     {0x58465342, "xfs"}};
  for (const auto& [magic, name] : known) EXPECT_EQ(fs_kind_name(fs_kind_of_magic(magic)), name);
  EXPECT_EQ(fs_kind_name(fs_kind_of_magic(0x9123683E)), "unknown");  // btrfs
}

TEST(LovUserMd, EncodesTheV1HeadLittleEndian) {
  const std::vector<uint8_t> lum = encode_lov_user_md({4u << 20, 8, LustreLayout::kAnyOst});
  const std::vector<uint8_t> expected = {
      0xD0, 0x0B, 0xD1, 0x0B,  // magic 0x0BD10BD0
      0x01, 0x00, 0x00, 0x00,  // pattern RAID0
      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  // object id
      0x00, 0x00, 0x40, 0x00,  // stripe_size 4 MiB
      0x08, 0x00,              // stripe_count 8
      0xFF, 0xFF};             // stripe_offset: any OST
  EXPECT_EQ(lum, expected);
}

TEST(LovUserMd, RoundTripsAndRejectsOtherMagics) {
  const LustreLayout in{1u << 20, 16, 3};
  std::vector<uint8_t> lum = encode_lov_user_md(in);
  lum.resize(lum.size() + 24);  // one per-OST entry, as getxattr returns them
  const auto out = decode_lov_user_md(lum.data(), lum.size());
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->stripe_size, in.stripe_size);
  EXPECT_EQ(out->stripe_count, in.stripe_count);
  EXPECT_EQ(out->stripe_offset, in.stripe_offset);
  EXPECT_FALSE(decode_lov_user_md(lum.data(), kLovUserMdV1Size - 1).has_value());
  lum[0] = 0xD0, lum[1] = 0x0B, lum[2] = 0xD6, lum[3] = 0x0B;  // composite (PFL) layout
  EXPECT_FALSE(decode_lov_user_md(lum.data(), lum.size()).has_value());
}

TEST_F(FilesystemTest, NewFileIsDetectedThroughItsNearestExistingAncestor) {
  f.mounts["/scratch/run"] = statfs_of(kGpfsMagic, 8 << 20);
  const FileSystemInfo info = detect_filesystem("/scratch/run/out/x.nc");
  EXPECT_EQ(info.kind, FsKind::kGpfs);
  EXPECT_EQ(info.block_size, 8u << 20);
  EXPECT_EQ(info.probed, "/scratch/run");
  EXPECT_EQ(f.statfs_calls,
            (std::vector<std::string>{"/scratch/run/out/x.nc", "/scratch/run/out", "/scratch/run"}));
  EXPECT_FALSE(info.layout.has_value());  // only Lustre has one
}

TEST_F(FilesystemTest, RelativePathEndsAtTheWorkingDirectory) {
  f.mounts["."] = statfs_of(kNfsMagic, 1 << 20);
  const FileSystemInfo info = detect_filesystem("x.nc");
  EXPECT_EQ(info.kind, FsKind::kNfs);
  EXPECT_EQ(info.probed, ".");
}

TEST_F(FilesystemTest, NothingAnsweringIsUnknown) {
  const FileSystemInfo info = detect_filesystem("/nowhere/x.nc");
  EXPECT_EQ(info.kind, FsKind::kUnknown);
  EXPECT_EQ(info.block_size, 0u);
  EXPECT_EQ(f.statfs_calls.back(), "/");
}

TEST_F(FilesystemTest, LustreLayoutOfAnExistingFileIsReadBack) {
  f.mounts["/lus/x.nc"] = statfs_of(kLustreMagic, 4096);
  f.lov = encode_lov_user_md({4u << 20, 8, 0});
  const FileSystemInfo info = detect_filesystem("/lus/x.nc");
  EXPECT_EQ(info.kind, FsKind::kLustre);
  EXPECT_EQ(f.getxattr_path, "/lus/x.nc");
  ASSERT_TRUE(info.layout.has_value());
  EXPECT_EQ(info.layout->stripe_size, 4u << 20);
  EXPECT_EQ(info.layout->stripe_count, 8);
}

TEST_F(FilesystemTest, WideLustreLayoutIsReadWhole) {
  f.mounts["/lus/x.nc"] = statfs_of(kLustreMagic, 4096);
  f.lov = encode_lov_user_md({2u << 20, 200, 0});
  f.lov.resize(kLovUserMdV1Size + 200 * 24);  // more than the first read's buffer
  const FileSystemInfo info = detect_filesystem("/lus/x.nc");
  ASSERT_TRUE(info.layout.has_value());
  EXPECT_EQ(info.layout->stripe_count, 200);
}

TEST_F(FilesystemTest, LustreWithoutLayoutHasNone) {
  f.mounts["/lus"] = statfs_of(kLustreMagic, 4096);
  const FileSystemInfo info = detect_filesystem("/lus/new.nc");
  EXPECT_EQ(info.kind, FsKind::kLustre);
  EXPECT_FALSE(info.layout.has_value());
}

TEST_F(FilesystemTest, CreateWithStripingRequestsTheLayout) {
  TempDir dir;
  auto file = open_posix(dir.file("x.nc"), OpenMode::kCreate, nullptr,
                         LustreLayout{2u << 20, 4, LustreLayout::kAnyOst});
  IO_ASSERT_OK(file);
  EXPECT_EQ(f.open_flags & (O_NOCTTY | FASYNC), O_NOCTTY | FASYNC);  // O_LOV_DELAY_CREATE
  EXPECT_EQ(f.set_name, "lustre.lov");
  const auto asked = decode_lov_user_md(f.set_lov.data(), f.set_lov.size());
  ASSERT_TRUE(asked.has_value());
  EXPECT_EQ(asked->stripe_count, 4);
  EXPECT_EQ(asked->stripe_size, 2u << 20);
  IO_ASSERT_OK((*file)->close());
}

TEST_F(FilesystemTest, CreateWithoutStripingLeavesTheLayoutAlone) {
  TempDir dir;
  auto file = open_posix(dir.file("x.nc"), OpenMode::kCreate, nullptr);
  IO_ASSERT_OK(file);
  EXPECT_EQ(f.open_flags & FASYNC, 0);
  EXPECT_TRUE(f.set_name.empty());
}

TEST_F(FilesystemTest, ExistingLayoutIsKeptAndOtherFailuresNameTheFile) {
  TempDir dir;
  f.fsetxattr_errno = EEXIST;  // the file had objects already
  IO_ASSERT_OK(open_posix(dir.file("a.nc"), OpenMode::kCreate, nullptr, LustreLayout{1u << 20, 2}));
  f.fsetxattr_errno = EINVAL;
  auto bad = open_posix(dir.file("b.nc"), OpenMode::kCreate, nullptr, LustreLayout{1u << 20, 2});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("b.nc"), std::string::npos) << bad.status().message();
  EXPECT_NE(bad.status().message().find("Lustre layout"), std::string::npos);
}

// The real file systems of this machine; a path on some other file system skips.
void expect_real(const char* path, FsKind kind) {
  const FileSystemInfo info = detect_filesystem(path);
  if (info.kind != kind) {
    GTEST_SKIP() << path << " is on " << fs_kind_name(info.kind) << " (magic 0x" << std::hex
                 << info.magic << "), not " << fs_kind_name(kind);
  }
  EXPECT_EQ(info.probed, path);
  EXPECT_GT(info.block_size, 0u);
}

TEST(RealFilesystem, TmpIsExt4) { expect_real("/tmp", FsKind::kExt4); }
TEST(RealFilesystem, DevShmIsTmpfs) { expect_real("/dev/shm", FsKind::kTmpfs); }

}  // namespace
}  // namespace tapio::io
