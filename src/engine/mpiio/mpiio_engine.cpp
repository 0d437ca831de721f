// mpiio engine: hints, opening and closing the MPI file handle, and the one collective transfer
// (set_view + write_all / read_all) every batch goes through. The data paths that build the
// extents are in mpiio_data.cpp.
#include "engine/mpiio/mpiio_engine.h"

#include <algorithm>
#include <climits>

namespace tapio {
namespace {

// MPI block lengths are int: no block is larger than this.
constexpr uint64_t kMaxBlock = uint64_t{1} << 30;

std::string_view trim(std::string_view s) {
  const char* ws = " \t\r\n";
  const size_t b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

// An hindexed type of bytes over `extents` (displacement, bytes), each split into blocks of at
// most 1 GiB. *type is MPI_DATATYPE_NULL on error.
Status make_hindexed(const std::vector<std::pair<uint64_t, uint64_t>>& extents,
                     MPI_Datatype* type) {
  *type = MPI_DATATYPE_NULL;
  std::vector<int> lengths;
  std::vector<MPI_Aint> displs;
  for (const auto& [offset, bytes] : extents)
    for (uint64_t done = 0; done < bytes; done += kMaxBlock) {
      lengths.push_back(static_cast<int>(std::min(kMaxBlock, bytes - done)));
      displs.push_back(static_cast<MPI_Aint>(offset + done));
    }
  if (lengths.size() > static_cast<size_t>(INT_MAX))
    return error(TAPIO_ERR_UNSUPPORTED, "{} pieces exceed MPI's int count", lengths.size());
  MPI_Datatype t;
  TAPIO_RETURN_IF_ERROR(comm::mpi_status(
      MPI_Type_create_hindexed(static_cast<int>(lengths.size()), lengths.data(), displs.data(),
                               MPI_BYTE, &t),
      "MPI_Type_create_hindexed"));
  const int rc = MPI_Type_commit(&t);
  if (rc != MPI_SUCCESS) {
    MPI_Type_free(&t);
    return comm::mpi_status(rc, "MPI_Type_commit");
  }
  *type = t;
  return ok_status();
}

void free_type(MPI_Datatype* t) {
  if (*t != MPI_DATATYPE_NULL) MPI_Type_free(t);
}

}  // namespace

Result<std::vector<std::pair<std::string, std::string>>> parse_mpiio_hints(
    const std::string& text) {
  std::vector<std::pair<std::string, std::string>> hints;
  std::string_view rest = text;
  while (true) {
    const size_t comma = rest.find(',');
    const std::string_view item = trim(rest.substr(0, comma));
    if (!item.empty()) {
      const size_t eq = item.find('=');
      const std::string_view key = eq == std::string_view::npos ? item : trim(item.substr(0, eq));
      const std::string_view value =
          eq == std::string_view::npos ? std::string_view() : trim(item.substr(eq + 1));
      if (eq == std::string_view::npos || key.empty() || value.empty())
        return error(TAPIO_ERR_CONFIG,
                     "mpiio_hints: '{}' is not key=value (expected \"key=value,key=value\", "
                     "got \"{}\")",
                     item, text);
      if (key.size() >= MPI_MAX_INFO_KEY || value.size() >= MPI_MAX_INFO_VAL)
        return error(TAPIO_ERR_CONFIG, "mpiio_hints: '{}' is longer than MPI allows", item);
      hints.emplace_back(std::string(key), std::string(value));
    }
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return hints;
}

MpiioEngine::MpiioEngine(EngineEnv env) : NetcdfEngine(std::move(env)) {}

MpiioEngine::~MpiioEngine() {
  // close() always runs before destruction (the API closes every engine it deletes). If it
  // did not, closing the MPI handle here would be a collective in a destructor; leave it.
  if (info_ != MPI_INFO_NULL) MPI_Info_free(&info_);
}

Status MpiioEngine::mpi_error(int rc, const char* call) const {
  return comm::mpi_status(rc, call).with_context(where());
}

Result<std::unique_ptr<Engine>> MpiioEngine::open(EngineEnv env) {
  std::unique_ptr<MpiioEngine> e(new MpiioEngine(std::move(env)));
  // Bad hints fail before the file is created (every rank has the same parameters; agree
  // anyway, as every collective call does).
  auto hints = parse_mpiio_hints(e->env_.params.get("mpiio_hints"));
  Status local = hints.status().with_context(e->where());
  if (local.ok() && !hints->empty()) {
    int rc = MPI_Info_create(&e->info_);
    for (size_t i = 0; rc == MPI_SUCCESS && i < hints->size(); ++i)
      rc = MPI_Info_set(e->info_, (*hints)[i].first.c_str(), (*hints)[i].second.c_str());
    local = e->mpi_error(rc, "MPI_Info_set (mpiio_hints)");
  }
  TAPIO_RETURN_IF_ERROR(comm::agree(e->comm(), local));
  TAPIO_RETURN_IF_ERROR(e->open_file());
  TAPIO_RETURN_IF_ERROR(e->open_data_file());
  return std::unique_ptr<Engine>(std::move(e));
}

Status MpiioEngine::open_data_file() {
  // The file exists (open_file created it on rank 0 and agreed). RDWR rather than WRONLY even
  // when only writing: ROMIO's data sieving reads before it writes.
  const int amode = env_.mode == OpenMode::kRead ? MPI_MODE_RDONLY : MPI_MODE_RDWR;
  int rc = MPI_File_open(comm().raw(), env_.path.c_str(), amode, info_, &fh_);
  if (rc == MPI_SUCCESS) rc = MPI_File_set_errhandler(fh_, MPI_ERRORS_RETURN);
  Status st = comm::agree(comm(), mpi_error(rc, "MPI_File_open"));
  if (!st.ok()) {
    // Open is collective: it failed everywhere or the agreement above reported a rank's
    // failure. Close what did open (collective over the ranks holding a handle); rank 0's
    // POSIX handle closes with the engine (no fill, no sync: the open failed).
    if (fh_ != MPI_FILE_NULL) MPI_File_close(&fh_);
  }
  return st;
}

Status MpiioEngine::close_files() {
  Status local = ok_status();
  if (fh_ != MPI_FILE_NULL) {
    // fsync = step is served by commit's fsync on rank 0's handle (data and numrecs are one
    // inode on a local file system); the data handle is synced once here, before close.
    if (env_.mode != OpenMode::kRead && env_.params.get("fsync") != "never") {
      PhaseTimer t(&profile(), Phase::kMetadata);
      local = mpi_error(MPI_File_sync(fh_), "MPI_File_sync");
    }
    const Status closed = mpi_error(MPI_File_close(&fh_), "MPI_File_close");
    if (local.ok()) local = closed;
    fh_ = MPI_FILE_NULL;
  }
  if (info_ != MPI_INFO_NULL) MPI_Info_free(&info_);
  const Status base = NetcdfEngine::close_files();
  return local.ok() ? base : local;
}

Status MpiioEngine::transfer(bool write,
                             const std::vector<std::pair<uint64_t, uint64_t>>& extents,
                             uint8_t* buffer, uint64_t bytes) {
  // MPI-IO's own errors on this rank are kept and the rank still enters the data call (with
  // zero bytes when its types could not be built), so no rank is left alone in a collective.
  MPI_Datatype filetype = MPI_DATATYPE_NULL, memtype = MPI_DATATYPE_NULL;
  Status local = ok_status();
  if (bytes > 0) {
    local = make_hindexed(extents, &filetype).with_context(where());
    if (local.ok())
      local = make_hindexed({{0, bytes}}, &memtype).with_context(where());
  }
  const bool empty = bytes == 0 || !local.ok();
  // A rank with nothing views the file as plain bytes and moves zero of them: valid on every
  // MPI-IO implementation, unlike a filetype of size zero.
  int rc = MPI_File_set_view(fh_, 0, MPI_BYTE, empty ? MPI_BYTE : filetype, "native",
                             MPI_INFO_NULL);
  if (local.ok()) local = mpi_error(rc, "MPI_File_set_view");
  static uint8_t dummy = 0;
  void* buf = empty ? &dummy : buffer;
  const MPI_Datatype type = empty ? MPI_BYTE : memtype;
  const int count = empty ? 0 : 1;
  // A read past the end of the file moves nothing and succeeds on some MPI-IO implementations:
  // a file rewritten shorter since it was opened must fail, not return stale buffers.
  if (!write && local.ok() && !empty) {
    uint64_t end = 0;
    for (const auto& [offset, length] : extents) end = std::max(end, offset + length);
    MPI_Offset size = 0;
    rc = MPI_File_get_size(fh_, &size);
    local = mpi_error(rc, "MPI_File_get_size");
    if (local.ok() && end > static_cast<uint64_t>(size))
      local = error(TAPIO_ERR_FORMAT, "{}: the file has {} bytes, its header places data up to "
                    "byte {} (truncated or rewritten since it was opened?)", where(), size, end);
  }
  MPI_Status status;
  rc = write ? MPI_File_write_all(fh_, buf, count, type, &status)
             : MPI_File_read_all(fh_, buf, count, type, &status);
  const char* call = write ? "MPI_File_write_all" : "MPI_File_read_all";
  if (local.ok()) local = mpi_error(rc, call);
  if (local.ok() && !empty) {
    MPI_Count moved = 0;
    rc = MPI_Get_elements_x(&status, memtype, &moved);
    if (rc == MPI_SUCCESS && moved != static_cast<MPI_Count>(bytes))
      local = error(TAPIO_ERR_IO, "{}: {} moved {} of {} bytes", where(), call,
                    static_cast<long long>(moved), bytes);
  }
  free_type(&filetype);
  free_type(&memtype);
  return local;
}

}  // namespace tapio
