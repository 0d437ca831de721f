// File-system detection: statfs and the Lustre layout xattr through the syscall table, and
// the lov_user_md codec.
#include "io/filesystem.h"

#include <cerrno>
#include <filesystem>

#include "io/syscalls.h"

namespace tapio::io {
namespace {

constexpr uint32_t kLovPatternRaid0 = 1;

void put_le(std::vector<uint8_t>* out, size_t at, uint64_t value, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i) (*out)[at + i] = static_cast<uint8_t>(value >> (8 * i));
}

uint64_t get_le(const uint8_t* in, size_t bytes) {
  uint64_t v = 0;
  for (size_t i = 0; i < bytes; ++i) v |= uint64_t(in[i]) << (8 * i);
  return v;
}

// The path to ask about, then its parents, up to the root ("" once there is none left).
std::string parent_of(const std::string& path) {
  const std::filesystem::path p(path);
  if (!p.has_relative_path()) return "";  // "/" (or "") has no parent to try
  const std::string parent = p.parent_path().empty() ? "." : p.parent_path().string();
  return parent == path ? "" : parent;  // "." is its own parent
}

std::optional<LustreLayout> read_layout(const std::string& path) {
  uint8_t value[256];  // v1 and v3 heads; a wider striped file's OST list is cut (ERANGE)
  ssize_t n = syscalls().getxattr(path.c_str(), kLustreLayoutXattr, value, sizeof value);
  if (n < 0 && errno == ERANGE) {
    // Many OSTs: the head is what we need, so ask for the exact size and read it whole.
    const ssize_t need = syscalls().getxattr(path.c_str(), kLustreLayoutXattr, nullptr, 0);
    if (need <= 0) return std::nullopt;
    std::vector<uint8_t> big(static_cast<size_t>(need));
    n = syscalls().getxattr(path.c_str(), kLustreLayoutXattr, big.data(), big.size());
    return n < 0 ? std::nullopt : decode_lov_user_md(big.data(), static_cast<size_t>(n));
  }
  return n < 0 ? std::nullopt : decode_lov_user_md(value, static_cast<size_t>(n));
}

}  // namespace

FsKind fs_kind_of_magic(uint64_t magic) {
  switch (magic) {
    case kLustreMagic: return FsKind::kLustre;
    case kGpfsMagic: return FsKind::kGpfs;
    case kNfsMagic: return FsKind::kNfs;
    case kTmpfsMagic: return FsKind::kTmpfs;
    case kExt4Magic: return FsKind::kExt4;
    case kXfsMagic: return FsKind::kXfs;
    default: return FsKind::kUnknown;
  }
}

std::string_view fs_kind_name(FsKind kind) {
  switch (kind) {
    case FsKind::kLustre: return "lustre";
    case FsKind::kGpfs: return "gpfs";
    case FsKind::kNfs: return "nfs";
    case FsKind::kTmpfs: return "tmpfs";
    case FsKind::kExt4: return "ext4";
    case FsKind::kXfs: return "xfs";
    case FsKind::kUnknown: break;
  }
  return "unknown";
}

std::vector<uint8_t> encode_lov_user_md(const LustreLayout& layout) {
  std::vector<uint8_t> out(kLovUserMdV1Size, 0);
  put_le(&out, 0, kLovUserMagicV1, 4);
  put_le(&out, 4, kLovPatternRaid0, 4);
  // Bytes 8..23, the object id, stay zero: a request names no object.
  put_le(&out, 24, layout.stripe_size, 4);
  put_le(&out, 28, layout.stripe_count, 2);
  put_le(&out, 30, layout.stripe_offset, 2);
  return out;
}

std::optional<LustreLayout> decode_lov_user_md(const uint8_t* data, size_t size) {
  if (data == nullptr || size < kLovUserMdV1Size) return std::nullopt;
  const uint64_t magic = get_le(data, 4);
  if (magic != kLovUserMagicV1 && magic != kLovUserMagicV3) return std::nullopt;
  LustreLayout l;
  l.stripe_size = static_cast<uint32_t>(get_le(data + 24, 4));
  l.stripe_count = static_cast<uint16_t>(get_le(data + 28, 2));
  l.stripe_offset = static_cast<uint16_t>(get_le(data + 30, 2));
  return l;
}

FileSystemInfo describe_statfs(const struct statfs& st) {
  FileSystemInfo info;
  // f_type is signed on some ABIs; the magic numbers are 32-bit.
  info.magic = static_cast<uint64_t>(st.f_type) & 0xFFFFFFFFu;
  info.kind = fs_kind_of_magic(info.magic);
  info.block_size = st.f_bsize > 0 ? static_cast<uint64_t>(st.f_bsize) : 0;
  return info;
}

FileSystemInfo detect_filesystem(const std::string& path) {
  for (std::string p = path.empty() ? "." : path; !p.empty(); p = parent_of(p)) {
    struct statfs st {};
    if (syscalls().statfs(p.c_str(), &st) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) continue;  // not created yet: ask its parent
      break;
    }
    FileSystemInfo info = describe_statfs(st);
    info.probed = p;
    if (info.kind == FsKind::kLustre) info.layout = read_layout(p);
    return info;
  }
  return FileSystemInfo{};
}

}  // namespace tapio::io
