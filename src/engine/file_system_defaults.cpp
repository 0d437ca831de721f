#include "engine/file_system_defaults.h"

#include <algorithm>
#include <array>
#include <limits>

#include "core/warnings.h"

namespace tapio {
namespace {

constexpr uint64_t kLustreStripeUnit = 64 << 10;  // Lustre stripe sizes are multiples of this
// data_align pads every fixed-size variable, so where the file system works in stripes or
// blocks (all at least 64KiB) it gets Lustre's stripe unit, not the whole stripe: files of many
// small variables stay compact (docs/tuning.md).
constexpr uint64_t kDataAlign = kLustreStripeUnit;
constexpr uint64_t kMinParallelBlock = 64 << 10;  // a GPFS block size below this is not real
// Lustre's LOV_MAX_STRIPE_COUNT (lustre_user.h); 0xFFFF in a lov_user_md would mean "all OSTs".
constexpr int64_t kMaxStripeCount = 2000;

// The size the file system works in: Lustre, the stripe size new files get or the file's (or
// directory's) layout has; GPFS, its block size. 0 when detection says nothing better than
// the registry's defaults (ext4, xfs, tmpfs, NFS, unknown).
uint64_t storage_unit(const io::FileSystemInfo& fs, const std::optional<io::LustreLayout>& asked) {
  if (fs.kind == io::FsKind::kLustre) {
    if (asked && asked->stripe_size != 0) return asked->stripe_size;
    return fs.layout ? fs.layout->stripe_size : 0;
  }
  if (fs.kind == io::FsKind::kGpfs && fs.block_size >= kMinParallelBlock) return fs.block_size;
  return 0;
}

// Where the file lives, for messages: "ext4 (/tmp)".
std::string where_stored(const io::FileSystemInfo& fs) {
  std::string s(io::fs_kind_name(fs.kind));
  return fs.probed.empty() ? s : s + " (" + fs.probed + ")";
}

Status check_stripe_count(const Params& p, const std::string& path) {
  if (!p.has("stripe_count")) return ok_status();
  const int64_t n = p.get_int("stripe_count");
  if (n >= 1 && n <= kMaxStripeCount) return ok_status();
  return error(TAPIO_ERR_CONFIG,
               "file '{}': stripe_count = {} must be between 1 and {} (leave it unset for "
               "the directory's default)",
               path, n, kMaxStripeCount);
}

// Lustre, writing: the layout new files get, if the user asked for one.
Result<std::optional<io::LustreLayout>> lustre_request(const Params& p, const std::string& path) {
  if (!p.has("stripe_count") && !p.has("stripe_size")) return std::optional<io::LustreLayout>{};
  io::LustreLayout l;
  l.stripe_count = static_cast<uint16_t>(p.has("stripe_count") ? p.get_int("stripe_count") : 0);
  if (p.has("stripe_size")) {
    const uint64_t s = p.get_size("stripe_size");
    if (s % kLustreStripeUnit != 0 || s > std::numeric_limits<uint32_t>::max())
      return error(TAPIO_ERR_CONFIG,
                   "file '{}' is on Lustre: stripe_size = {} must be a multiple of 64KiB "
                   "(65536) below 4GiB",
                   path, s);
    l.stripe_size = static_cast<uint32_t>(s);
  }
  return std::optional<io::LustreLayout>{l};
}

// The detection result travels as six numbers; the kind follows from the magic.
using Encoded = std::array<uint64_t, 6>;

Encoded encode(const io::FileSystemInfo& fs) {
  return {fs.magic,
          fs.block_size,
          fs.layout.has_value(),
          fs.layout ? fs.layout->stripe_size : 0u,
          fs.layout ? fs.layout->stripe_count : 0u,
          fs.layout ? fs.layout->stripe_offset : 0u};
}

io::FileSystemInfo decode(const Encoded& v) {
  io::FileSystemInfo fs;
  fs.magic = v[0];
  fs.kind = io::fs_kind_of_magic(v[0]);
  fs.block_size = v[1];
  if (v[2] != 0)
    fs.layout = io::LustreLayout{static_cast<uint32_t>(v[3]), static_cast<uint16_t>(v[4]),
                                 static_cast<uint16_t>(v[5])};
  return fs;
}

}  // namespace

Result<FileSystemPlan> plan_for_file_system(const io::FileSystemInfo& fs, const OpenSpec& spec) {
  const Params& p = spec.params;
  const bool writing = spec.mode != OpenMode::kRead;  // append creates new subfiles too
  TAPIO_RETURN_IF_ERROR(check_stripe_count(p, spec.path));
  FileSystemPlan plan;
  if (fs.kind == io::FsKind::kLustre && writing) {
    TAPIO_ASSIGN_OR_RETURN(plan.striping, lustre_request(p, spec.path));
  } else if (writing && p.has("stripe_count")) {
    plan.warnings.push_back(fmt::format(
        "file '{}' is on {}, not Lustre: stripe_count = {} is ignored", spec.path,
        where_stored(fs), p.get_int("stripe_count")));
  }
  if (const uint64_t unit = storage_unit(fs, plan.striping); unit != 0) {
    plan.defaults.emplace_back("stripe_size", std::to_string(unit));
    plan.defaults.emplace_back("block_align", std::to_string(unit));
    plan.defaults.emplace_back("data_align", std::to_string(kDataAlign));
  }
  if (fs.kind == io::FsKind::kNfs) {
    // Ranks writing their own runs (direct) meet at unaligned boundaries, where two NFS clients
    // writing one page can lose each other's bytes; the aggregators' domains are
    // stripe-aligned.
    plan.defaults.emplace_back("direct", "never");
    const bool shared_file = spec.engine == "collective" || spec.engine == "mpiio";
    if (spec.mode != OpenMode::kRead && shared_file)
      plan.warnings.push_back(fmt::format(
          "file '{}' is on {}: NFS keeps only close-to-open consistency, so writes from several "
          "nodes to one shared file need locking; tapio writes it through aggregators with "
          "stripe-aligned domains (direct = never unless set). For large jobs use the subfile "
          "engine or a parallel file system",
          spec.path, where_stored(fs)));
  }
  return plan;
}

Status apply_file_system(const comm::Comm& comm, io::Storage& storage, OpenSpec* spec) {
  io::FileSystemInfo fs;
  Encoded values{};
  if (comm.rank() == 0) {
    fs = storage.file_system(spec->path);
    values = encode(fs);
  }
  // Agreed at once: a rank whose broadcast failed knows nothing of the file system.
  TAPIO_RETURN_IF_ERROR(comm::agree(
      comm, comm.bcast_values(values.data(), static_cast<int>(values.size()), 0)));
  if (comm.rank() != 0) fs = decode(values);
  TAPIO_ASSIGN_OR_RETURN(FileSystemPlan plan, plan_for_file_system(fs, *spec));
  for (const auto& [name, value] : plan.defaults)
    if (!spec->params.has(name)) TAPIO_RETURN_IF_ERROR(spec->params.set(name, value));
  spec->striping = plan.striping;
  if (comm.rank() == 0)
    for (const std::string& w : plan.warnings) warn(w);
  return ok_status();
}

}  // namespace tapio
