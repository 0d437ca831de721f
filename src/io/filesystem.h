// What file system a path lives on, and the Lustre layout of a file: detection through the
// syscall table (statfs, getxattr), so tests fake it, and the pure decoding beside it.
#pragma once
#include <sys/statfs.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tapio::io {

enum class FsKind { kUnknown, kLustre, kGpfs, kNfs, kTmpfs, kExt4, kXfs };

// statfs f_type magic numbers (linux/magic.h; Lustre's LL_SUPER_MAGIC from lustre_user.h,
// GPFS's from its documentation: "GPFS" in ASCII).
constexpr uint64_t kLustreMagic = 0x0BD00BD0;
constexpr uint64_t kGpfsMagic = 0x47504653;
constexpr uint64_t kNfsMagic = 0x6969;
constexpr uint64_t kTmpfsMagic = 0x01021994;
constexpr uint64_t kExt4Magic = 0xEF53;  // ext2, ext3 and ext4 share it
constexpr uint64_t kXfsMagic = 0x58465342;

FsKind fs_kind_of_magic(uint64_t magic);
// "lustre", "gpfs", "nfs", "tmpfs", "ext4", "xfs", "unknown".
std::string_view fs_kind_name(FsKind kind);

// A Lustre RAID0 layout: what `lfs setstripe -S size -c count -i offset` asks for. 0 means
// "the file system's default" for size and count; kAnyOst lets Lustre pick the first OST.
struct LustreLayout {
  static constexpr uint16_t kAnyOst = 0xFFFF;
  uint32_t stripe_size = 0;
  uint16_t stripe_count = 0;
  uint16_t stripe_offset = kAnyOst;
};

// The Lustre extended attribute holding a file's layout (a struct lov_user_md).
constexpr const char* kLustreLayoutXattr = "lustre.lov";

// struct lov_user_md_v1 from Lustre's lustre_user.h (lustre/include/uapi/linux/lustre/
// lustre_user.h), little-endian and packed, 32 bytes without its per-OST array:
//   u32 lmm_magic (0x0BD10BD0)   u32 lmm_pattern (1 = RAID0)   u64 object id, u64 object seq
//   u32 lmm_stripe_size   u16 lmm_stripe_count   u16 lmm_stripe_offset
// v3 (0x0BD30BD0) has the same head followed by a pool name, so it decodes the same way.
constexpr uint32_t kLovUserMagicV1 = 0x0BD10BD0;
constexpr uint32_t kLovUserMagicV3 = 0x0BD30BD0;
constexpr size_t kLovUserMdV1Size = 32;
std::vector<uint8_t> encode_lov_user_md(const LustreLayout& layout);
// The layout in a lustre.lov value, or nothing for a value too short or of another kind (a
// composite PFL layout, magic 0x0BD60BD0, has no single stripe size).
std::optional<LustreLayout> decode_lov_user_md(const uint8_t* data, size_t size);

struct FileSystemInfo {
  FsKind kind = FsKind::kUnknown;
  uint64_t magic = 0;       // statfs f_type
  uint64_t block_size = 0;  // statfs f_bsize: the preferred transfer size
  std::optional<LustreLayout> layout;  // Lustre: the file's layout, or its directory's default
  std::string probed;       // the path statfs answered for: the target or its nearest ancestor
};

// Pure: the kind and block size a statfs result says.
FileSystemInfo describe_statfs(const struct statfs& st);

// The file system of `path`, which need not exist yet (a file about to be created): statfs of
// the path or of its nearest existing ancestor; on Lustre also the layout read back from that
// path. Nothing if no ancestor answers (kind kUnknown).
FileSystemInfo detect_filesystem(const std::string& path);

}  // namespace tapio::io
