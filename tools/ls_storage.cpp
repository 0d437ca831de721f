// tapio ls --storage PATH: the file system tapio detects under a path and the defaults it uses
// there (engine/file_system_defaults.h), without MPI.
#include <fmt/format.h>

#include "commands.h"
#include "engine/file_system_defaults.h"

namespace tapio::cli {
namespace {

// The parameters the file system can change, with what this path gets and why.
constexpr const char* kShown[] = {"stripe_size", "block_align", "data_align", "direct"};

}  // namespace

int run_ls_storage(const std::string& path) {
  const io::FileSystemInfo fs = io::detect_filesystem(path);
  fmt::print("path:          {}\n", path);
  fmt::print("file system:   {} (statfs magic {:#x}, from {})\n", io::fs_kind_name(fs.kind),
             fs.magic, fs.probed.empty() ? "nothing: no ancestor answered" : fs.probed);
  fmt::print("block size:    {}\n", fs.block_size);
  if (fs.layout) {
    fmt::print("stripe size:   {}\n", fs.layout->stripe_size);
    fmt::print("stripe count:  {}\n", fs.layout->stripe_count);
  } else if (fs.kind == io::FsKind::kLustre) {
    fmt::print("stripe layout: none readable (a composite layout, or no default set)\n");
  }
  // What a program writing here without setting these parameters gets.
  OpenSpec spec;
  spec.path = path;
  spec.engine = "collective";
  Result<FileSystemPlan> plan = plan_for_file_system(fs, spec);
  if (!plan.ok()) return fail(plan.status().message());
  fmt::print("defaults here:\n");
  for (const char* name : kShown) {
    std::string value = spec.params.get(name), source = "registry default";
    for (const auto& [n, v] : plan->defaults)
      if (n == name) value = v, source = fmt::format("from {}", io::fs_kind_name(fs.kind));
    fmt::print("  {:<12} {:<10} ({})\n", name, value, source);
  }
  for (const std::string& w : plan->warnings) fmt::print("note: {}\n", w);
  return 0;
}

}  // namespace tapio::cli
