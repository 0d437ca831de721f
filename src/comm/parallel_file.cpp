#include "comm/parallel_file.h"

#include <algorithm>
#include <climits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "comm/mpi_comm.h"
#include "core/out_of_memory.h"

namespace tapio::comm {
namespace {

// MPI block lengths are int: no block is larger than this.
constexpr uint64_t kMaxBlock = uint64_t{1} << 30;

std::string_view trim(std::string_view s) {
  const char* ws = " \t\r\n";
  const size_t b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

// One "key=value" item, checked.
Status parse_hint(std::string_view item, const std::string& text, Hints* hints) {
  const size_t eq = item.find('=');
  const std::string_view key = eq == std::string_view::npos ? item : trim(item.substr(0, eq));
  const std::string_view value =
      eq == std::string_view::npos ? std::string_view() : trim(item.substr(eq + 1));
  if (eq == std::string_view::npos || key.empty() || value.empty())
    return error(TAPIO_ERR_CONFIG,
                 "mpiio_hints: '{}' is not key=value (expected \"key=value,key=value\", got "
                 "\"{}\")",
                 item, text);
  if (key.size() >= MPI_MAX_INFO_KEY || value.size() >= MPI_MAX_INFO_VAL)
    return error(TAPIO_ERR_CONFIG, "mpiio_hints: '{}' is longer than MPI allows", item);
  hints->emplace_back(std::string(key), std::string(value));
  return ok_status();
}

// An hindexed type of bytes over `extents` (displacement, bytes), each split into blocks of at
// most 1 GiB. *type is MPI_DATATYPE_NULL on error.
Status make_hindexed(const Extents& extents, MPI_Datatype* type) {
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
  TAPIO_RETURN_IF_ERROR(mpi_status(
      MPI_Type_create_hindexed(static_cast<int>(lengths.size()), lengths.data(), displs.data(),
                               MPI_BYTE, &t),
      "MPI_Type_create_hindexed"));
  const int rc = MPI_Type_commit(&t);
  if (rc != MPI_SUCCESS) {
    (void)MPI_Type_free(&t);
    return mpi_status(rc, "MPI_Type_commit");
  }
  *type = t;
  return ok_status();
}

void free_type(MPI_Datatype* t) {
  if (*t != MPI_DATATYPE_NULL) (void)MPI_Type_free(t);
}

// The hints as an MPI_Info (MPI_INFO_NULL for none).
Status make_info(const Hints& hints, MPI_Info* info) {
  *info = MPI_INFO_NULL;
  if (hints.empty()) return ok_status();
  int rc = MPI_Info_create(info);
  for (size_t i = 0; rc == MPI_SUCCESS && i < hints.size(); ++i)
    rc = MPI_Info_set(*info, hints[i].first.c_str(), hints[i].second.c_str());
  return mpi_status(rc, "MPI_Info_set (mpiio_hints)");
}

}  // namespace

// One data access's types: the file view's and the buffer's.
struct Access {
  MPI_Datatype filetype = MPI_DATATYPE_NULL;
  MPI_Datatype memtype = MPI_DATATYPE_NULL;
  uint64_t bytes = 0;
  bool empty = true;  // moves zero bytes
};

struct ParallelFile::Handle {
  MPI_File fh = MPI_FILE_NULL;
  std::string path;
  // A started write (start_write): its request, types and the status of starting it.
  Access pending;
  MPI_Request request = MPI_REQUEST_NULL;
  bool started = false;
  Status start_failed;
  bool nonblocking_collective = true;  // MPI_File_iwrite_all works here
  bool reports_failed_writes = true;
  Status named(int rc, const char* call) const {
    return mpi_status(rc, call).with_context(fmt::format("file '{}'", path));
  }
  Status view(const Extents& extents, uint64_t bytes, Access* a);
  Status finish(Access* a, int rc, const MPI_Status& status, const char* call, Status local);
};

// Open MPI's selection of its MPI-IO component: its MPI_T control variable "io" ("romio321",
// "^ompio", or "" for the default, OMPIO), however it was set (environment, mpirun --mca,
// mca-params.conf). False when it cannot be read.
bool open_mpi_io_selection(std::string* selection) {
  int provided = 0, index = 0, count = 0;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return false;
  bool read = false;
  MPI_T_cvar_handle handle;
  if (MPI_T_cvar_get_index("io", &index) == MPI_SUCCESS &&
      MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count) == MPI_SUCCESS) {
    std::vector<char> value(static_cast<size_t>(std::max(count, 1)) + 1, '\0');
    read = MPI_T_cvar_read(handle, value.data()) == MPI_SUCCESS;
    if (read) *selection = value.data();
    (void)MPI_T_cvar_handle_free(&handle);
  }
  (void)MPI_T_finalize();
  return read;
}

// Which MPI-IO this process uses. Open MPI chooses its component once, at MPI_Init.
enum class MpiIo { kOther, kOpenMpiRomio, kOpenMpiOmpio, kOpenMpiUnknown };
MpiIo mpi_io() {
  static const MpiIo answer = [] {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    if (MPI_Get_library_version(version, &length) != MPI_SUCCESS ||
        std::string_view(version, length).find("Open MPI") == std::string_view::npos)
      return MpiIo::kOther;
    std::string io;
    if (!open_mpi_io_selection(&io)) return MpiIo::kOpenMpiUnknown;
    const bool excludes = !io.empty() && io[0] == '^';
    const bool romio = excludes ? io.find("ompio") != std::string::npos
                                : io.find("romio") != std::string::npos;
    return romio ? MpiIo::kOpenMpiRomio : MpiIo::kOpenMpiOmpio;
  }();
  return answer;
}

// Whether MPI_File_iwrite_all may be called. Open MPI's ROMIO component (romio321, Open MPI 2
// to 4) leaves the nonblocking collective calls unimplemented and crashes on them
// (open-mpi/ompi#4520, #4807); OMPIO and MPICH's ROMIO implement them. Unknown: the safe way.
bool has_nonblocking_collective() {
  return mpi_io() == MpiIo::kOther || mpi_io() == MpiIo::kOpenMpiOmpio;
}

// Whether a failed or short write comes back from the data call. OMPIO prints a failed
// pwrite's error and returns MPI_SUCCESS with the full count (Open MPI 4.1; seen on a full
// disk and with injected faults, docs/reliability.md). Unknown: assumed not.
bool mpi_io_reports_failed_writes() {
  return mpi_io() == MpiIo::kOther || mpi_io() == MpiIo::kOpenMpiRomio;
}

Result<Hints> parse_mpiio_hints(const std::string& text) {
  Hints hints;
  std::string_view rest = text;
  while (true) {
    const size_t comma = rest.find(',');
    const std::string_view item = trim(rest.substr(0, comma));
    if (!item.empty()) TAPIO_RETURN_IF_ERROR(parse_hint(item, text, &hints));
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return hints;
}

ParallelFile::ParallelFile(std::unique_ptr<Handle> h) : h_(std::move(h)) {}

ParallelFile::~ParallelFile() = default;

Result<std::unique_ptr<ParallelFile>> ParallelFile::open(const Comm& comm,
                                                         const std::string& path, bool read_only,
                                                         const Hints& hints) {
  const auto* mpi = dynamic_cast<const MpiComm*>(&comm);
  if (!mpi) return error(TAPIO_ERR_UNSUPPORTED, "MPI-IO needs an MPI communicator");
  auto h = std::make_unique<Handle>();
  h->path = path;
  MPI_Info info = MPI_INFO_NULL;
  Status st = make_info(hints, &info);
  // RDWR rather than WRONLY even when only writing: ROMIO's data sieving reads before it
  // writes. Every rank enters the open, even one whose hints failed.
  const int amode = read_only ? MPI_MODE_RDONLY : MPI_MODE_RDWR;
  int rc = MPI_File_open(mpi->raw(), path.c_str(), amode, info, &h->fh);
  if (rc == MPI_SUCCESS) rc = MPI_File_set_errhandler(h->fh, MPI_ERRORS_RETURN);
  if (info != MPI_INFO_NULL) (void)MPI_Info_free(&info);
  if (st.ok()) st = h->named(rc, "MPI_File_open");
  if (rc == MPI_SUCCESS) {
    h->nonblocking_collective = has_nonblocking_collective();
    h->reports_failed_writes = mpi_io_reports_failed_writes();
  }
  std::unique_ptr<ParallelFile> f(new ParallelFile(std::move(h)));
  if (!st.ok() && f->h_->fh == MPI_FILE_NULL) return st;
  if (!st.ok()) {
    (void)f->close();  // collective over the ranks whose open succeeded (all or none)
    return st;
  }
  return f;
}

// set_view over `extents` for `bytes` bytes of a contiguous buffer. MPI-IO's own errors on
// this rank are kept and the rank still enters the data call (with zero bytes when its types
// could not be built), so no rank is left alone in a collective.
Status ParallelFile::Handle::view(const Extents& extents, uint64_t bytes, Access* a) {
  a->bytes = bytes;
  Status local = ok_status();
  if (bytes > 0) {
    local = catch_out_of_memory(fmt::format("describing the extents of file '{}'", path), [&] {
      TAPIO_RETURN_IF_ERROR(make_hindexed(extents, &a->filetype));
      return make_hindexed({{0, bytes}}, &a->memtype);
    });
  }
  a->empty = bytes == 0 || !local.ok();
  // A rank with nothing views the file as plain bytes and moves zero of them: valid on every
  // MPI-IO implementation, unlike a filetype of size zero.
  const int rc = MPI_File_set_view(fh, 0, MPI_BYTE, a->empty ? MPI_BYTE : a->filetype,
                                   "native", MPI_INFO_NULL);
  if (local.ok()) local = named(rc, "MPI_File_set_view");
  return local;
}

// After the data call: its status, and that it moved every byte; frees the access's types.
Status ParallelFile::Handle::finish(Access* a, int rc, const MPI_Status& status,
                                    const char* call, Status local) {
  if (local.ok()) local = named(rc, call);
  if (local.ok() && !a->empty) {
    MPI_Count moved = 0;
    local = named(MPI_Get_elements_x(&status, a->memtype, &moved), "MPI_Get_elements_x");
    if (local.ok() && moved != static_cast<MPI_Count>(a->bytes))
      local = error(TAPIO_ERR_IO, "file '{}': {} moved {} of {} bytes", path, call,
                    static_cast<long long>(moved), a->bytes);
  }
  free_type(&a->filetype);
  free_type(&a->memtype);
  *a = Access{};
  return local;
}

Status ParallelFile::transfer(bool write, const Extents& extents, uint8_t* buffer,
                              uint64_t bytes) {
  Access a;
  Status local = h_->view(extents, bytes, &a);
  static uint8_t dummy = 0;
  void* buf = a.empty ? &dummy : buffer;
  const MPI_Datatype type = a.empty ? MPI_BYTE : a.memtype;
  const int count = a.empty ? 0 : 1;
  // A read past the end of the file moves nothing and succeeds on some MPI-IO implementations:
  // a file rewritten shorter since it was opened must fail, not return stale buffers.
  if (!write && local.ok() && !a.empty) {
    uint64_t end = 0;
    for (const auto& [offset, length] : extents) end = std::max(end, offset + length);
    MPI_Offset size = 0;
    local = h_->named(MPI_File_get_size(h_->fh, &size), "MPI_File_get_size");
    if (local.ok() && end > static_cast<uint64_t>(size))
      local = error(TAPIO_ERR_FORMAT, "file '{}': the file has {} bytes, its header places data "
                    "up to byte {} (truncated or rewritten since it was opened?)", h_->path,
                    static_cast<long long>(size), end);
  }
  MPI_Status status;
  const int rc = write ? MPI_File_write_all(h_->fh, buf, count, type, &status)
                       : MPI_File_read_all(h_->fh, buf, count, type, &status);
  return h_->finish(&a, rc, status, write ? "MPI_File_write_all" : "MPI_File_read_all", local);
}

Status ParallelFile::start_write(const Extents& extents, const uint8_t* buffer,
                                 uint64_t bytes) {
  if (!h_->nonblocking_collective) {  // written now; finish_write reports how it went
    h_->start_failed = transfer(true, extents, const_cast<uint8_t*>(buffer), bytes);
    return ok_status();
  }
  Status local = h_->view(extents, bytes, &h_->pending);
  static uint8_t dummy = 0;
  const Access& a = h_->pending;
  const int rc = MPI_File_iwrite_all(h_->fh, a.empty ? &dummy : buffer, a.empty ? 0 : 1,
                                     a.empty ? MPI_BYTE : a.memtype, &h_->request);
  if (local.ok()) local = h_->named(rc, "MPI_File_iwrite_all");
  h_->started = rc == MPI_SUCCESS;
  h_->start_failed = local;
  return local;
}

namespace {

// Completes a started write without MPI_Wait: Open MPI 4.1's MPI_Wait on a failed
// MPI_File_iwrite_all (OMPIO: a write that met a full disk) segfaults invoking the file's error
// handler, which its request does not record. MPI_Request_get_status progresses the request
// and invokes no handler; it leaves the error out of the status, but OMPIO's count there holds
// the bytes written, which finish() compares with the bytes started.
int wait_for_write(MPI_Request* request, MPI_Status* status) {
  int done = 0, rc = MPI_SUCCESS;
  while (!done && rc == MPI_SUCCESS) rc = MPI_Request_get_status(*request, &done, status);
  if (!done) return rc;
  const int freed = MPI_Request_free(request);  // complete: this only frees it
  return rc != MPI_SUCCESS ? rc : freed;
}

}  // namespace

Status ParallelFile::finish_write() {
  if (!h_->started && h_->start_failed.ok()) return ok_status();
  MPI_Status status;
  const int rc = h_->started ? wait_for_write(&h_->request, &status) : MPI_SUCCESS;
  const Status local = std::exchange(h_->start_failed, Status());
  h_->started = false;
  return h_->finish(&h_->pending, rc, status, "MPI_File_iwrite_all", local);
}

bool ParallelFile::reports_failed_writes() const { return h_->reports_failed_writes; }

Status ParallelFile::sync() { return h_->named(MPI_File_sync(h_->fh), "MPI_File_sync"); }

Status ParallelFile::close() {
  if (h_->fh == MPI_FILE_NULL) return ok_status();
  const Status st = h_->named(MPI_File_close(&h_->fh), "MPI_File_close");
  h_->fh = MPI_FILE_NULL;
  return st;
}

}  // namespace tapio::comm
