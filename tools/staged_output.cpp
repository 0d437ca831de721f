#include "staged_output.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace tapio::cli {
namespace {

namespace fs = std::filesystem;

Status failed(const std::string& what, const std::error_code& ec) {
  return error(TAPIO_ERR_IO, "{}: {}", what, ec.message());
}

// The directory entry of a rename is durable only once its directory is synced.
Status sync_directory(const fs::path& dir) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0 || ::fsync(fd) != 0) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    return error(TAPIO_ERR_IO, "sync of directory '{}': {}", dir.string(), std::strerror(err));
  }
  ::close(fd);
  return ok_status();
}

}  // namespace

Result<StagedOutput> StagedOutput::create(const comm::Comm& comm, const std::string& final_path) {
  const fs::path target(final_path);
  const std::string name = target.filename().string();
  if (name.empty() || name == "." || name == "..")
    return error(TAPIO_ERR_ARG, "'{}' names a directory, not a file to write", final_path);
  StagedOutput out;
  out.final_ = final_path;
  out.dir_ = (target.parent_path() / ("." + name + ".tapio-partial")).string();
  out.partial_ = (fs::path(out.dir_) / name).string();
  Status local;
  if (comm.rank() == 0) {
    std::error_code ec;
    fs::create_directory(out.dir_, ec);
    if (ec) local = failed(fmt::format("cannot create directory '{}' for '{}' while it is "
                                       "written", out.dir_, final_path), ec);
  }
  TAPIO_RETURN_IF_ERROR(comm::agree(comm, local));
  return out;
}

Status StagedOutput::commit(const comm::Comm& comm) const {
  Status local;
  if (comm.rank() == 0) {
    std::error_code ec;
    fs::rename(partial_, final_, ec);
    if (ec) {
      local = failed(fmt::format("rename of '{}' to '{}'", partial_, final_), ec);
    } else {
      local = sync_directory(fs::path(final_).parent_path());
      fs::remove(dir_, ec);  // empty now; a leftover is harmless
    }
  }
  return comm::agree(comm, local);
}

void StagedOutput::discard(const comm::Comm& comm) const {
  if (comm.rank() != 0) return;
  std::error_code ec;
  fs::remove_all(dir_, ec);  // best effort: the error being reported is the one that matters
}

}  // namespace tapio::cli
