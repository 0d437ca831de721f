// Files: create and open (the iotype and mode flags become tapio's engine and parameters),
// define mode, sync and close.
#include <unistd.h>

#include "pio/pio_comm.h"
#include "pio/pio_state.h"

namespace tapio_pio {
namespace {

// The engine an iotype writes with, or nullptr with *code set.
const char* engine_for(int iotype, int* code, std::string* why) {
  switch (iotype) {
    case PIO_IOTYPE_PNETCDF:
    case PIO_IOTYPE_NETCDF: return "collective";
    case PIO_IOTYPE_ADIOS: return "subfile";  // SCORPIO's ADIOS; PIO 2.7's GDAL is refused
    case PIO_IOTYPE_NETCDF4C:
    case PIO_IOTYPE_NETCDF4P:
      *why = "iotype " + std::to_string(iotype) + " (NetCDF-4): tapio writes NetCDF classic "
             "files (CDF-1/2/5) and subfile datasets only; use PIO_IOTYPE_PNETCDF";
      break;
    default: *why = "unknown iotype " + std::to_string(iotype);
  }
  *code = PIO_EBADIOTYPE;
  return nullptr;
}

const char* netcdf_version(int mode) {
  if (mode & NC_64BIT_DATA) return "5";
  if (mode & NC_64BIT_OFFSET) return "2";
  return "1";
}

int start_file(int iosysid, int* ncidp, const int* iotype, const char* fname, int mode,
               bool create, const char* call) {
  IoSystem* ios = find_iosystem(iosysid);
  if (!ios) return fail(nullptr, PIO_EBADID, std::string(call) + ": no iosystem " +
                                                 std::to_string(iosysid));
  if (!ncidp || !iotype || !fname || !*fname)
    return fail(ios, PIO_EINVAL, std::string(call) + ": ncidp, iotype and the name are needed");
  int code = PIO_NOERR;
  std::string why;
  const char* engine = engine_for(*iotype, &code, &why);
  if (!engine) return fail(ios, code, std::string(call) + ": file '" + fname + "': " + why);
  if (create && (mode & NC_NOCLOBBER) && access(fname, F_OK) == 0)
    return fail(ios, PIO_EEXIST, std::string(call) + ": file '" + fname +
                "' exists and the mode has NC_NOCLOBBER");
  auto f = std::make_unique<File>();
  f->ios = ios;
  f->path = fname;
  f->iotype = *iotype;
  f->engine_name = engine;
  f->mode = mode;
  f->writable = create || (mode & NC_WRITE);
  f->created = create;
  f->define_mode = create;
  f->fill_mode = create ? NC_NOFILL : NC_FILL;
  if (int st = new_io(*f, f->writable, &f->io, call)) return st;
  File& kept = add_file(std::move(f));
  *ncidp = kept.ncid;
  if (create) return PIO_NOERR;
  if (int st = open_existing(kept, call)) {
    remove_file(kept.ncid);
    return st;
  }
  return PIO_NOERR;
}

// A new file whose engine opened at enddef and wrote no frame holds a header only: its engine
// closes at redef, and opens again at the next enddef with the new definitions, instead of the
// file being made again at the next flush (pio_recreate.cpp).
int reopen_at_enddef(File& f, const char* call) {
  if (!f.created || !f.engine || f.frames > 0 || f.redefined) return PIO_NOERR;
  if (int st = close_reader(f, call)) return st;
  const int st = tapio_close(f.engine);  // collective: the same status on every task
  f.engine = nullptr;
  f.defined_in_tapio = false;
  for (Var& v : f.vars) v.handle = nullptr;  // the old IO's
  if (st != TAPIO_OK)
    return fail(f.ios, from_tapio(st), std::string(call) + ": " + where(f) + ": " +
                tapio_last_error());
  return new_io(f, true, &f.io, call);
}

}  // namespace

// IOs are never reused: each file's definitions are its own.
int new_io(File& f, bool writing, tapio_io** io, const char* call) {
  static int count = 0;
  const std::string name = "pio." + std::to_string(count++);
  int st = tapio_declare_io(f.ios->ctx, name.c_str(), io);
  if (st == TAPIO_OK) st = tapio_io_set_engine(*io, f.engine_name.c_str());
  // PIO's I/O tasks read as well as write: tapio's aggregators, both ways.
  if (st == TAPIO_OK)
    st = tapio_io_set_parameter(*io, "aggregators", std::to_string(f.ios->num_iotasks).c_str());
  if (st == TAPIO_OK && writing)
    st = tapio_io_set_parameter(*io, "netcdf_version", netcdf_version(f.mode));
  if (st != TAPIO_OK)
    return fail(f.ios, from_tapio(st), std::string(call) + ": " + where(f) + ": " +
                tapio_last_error());
  return PIO_NOERR;
}

int lookup(int ncid, File** f, const char* call) {
  *f = find_file(ncid);
  if (!*f) return fail(nullptr, PIO_EBADID, std::string(call) + ": no open file with ncid " +
                                                std::to_string(ncid));
  return PIO_NOERR;
}

int lookup_var(int ncid, int varid, File** f, Var** v, const char* call) {
  if (int st = lookup(ncid, f, call)) return st;
  if (varid < 0 || varid >= static_cast<int>((*f)->vars.size()))
    return fail((*f)->ios, PIO_ENOTVAR, std::string(call) + ": " + where(**f) +
                " has no variable with varid " + std::to_string(varid));
  *v = &(*f)->vars[varid];
  return PIO_NOERR;
}

void take_engine_name(File& f) {
  const char* name = nullptr;
  if (tapio_engine_name(f.engine, &name) == TAPIO_OK && name) f.engine_name = name;
}

std::string where(const File& f) { return "file '" + f.path + "'"; }
std::string where(const File& f, const Var& v) {
  return where(f) + ", variable '" + v.name + "'";
}

}  // namespace tapio_pio

using namespace tapio_pio;

extern "C" {

int PIOc_createfile(int iosysid, int* ncidp, int* iotype, const char* fname, int mode) {
  return start_file(iosysid, ncidp, iotype, fname, mode, true, "PIOc_createfile");
}

int PIOc_create(int iosysid, const char* path, int cmode, int* ncidp) {
  int iotype = PIO_IOTYPE_PNETCDF;
  return start_file(iosysid, ncidp, &iotype, path, cmode, true, "PIOc_create");
}

int PIOc_openfile(int iosysid, int* ncidp, int* iotype, const char* fname, int mode) {
  return start_file(iosysid, ncidp, iotype, fname, mode, false, "PIOc_openfile");
}

// PIO's openfile2 does not retry with another iotype; neither does tapio's.
int PIOc_openfile2(int iosysid, int* ncidp, int* iotype, const char* fname, int mode) {
  return start_file(iosysid, ncidp, iotype, fname, mode, false, "PIOc_openfile2");
}

int PIOc_open(int iosysid, const char* path, int mode, int* ncidp) {
  int iotype = PIO_IOTYPE_PNETCDF;
  return start_file(iosysid, ncidp, &iotype, path, mode, false, "PIOc_open");
}

int PIOc_closefile(int ncid) {
  File* f = nullptr;
  if (int st = lookup(ncid, &f, "PIOc_closefile")) return st;
  int code = close_reader(*f, "PIOc_closefile");
  bool fixed_left = false;
  if (f->writable) {
    const int flushed = flush(*f, "PIOc_closefile", Flush::kClose, &fixed_left);
    if (code == PIO_NOERR) code = flushed;
  }
  if (f->engine) {
    const int st = tapio_close(f->engine);  // collective: the same status on every task
    if (st != TAPIO_OK && code == PIO_NOERR)
      code = fail(f->ios, from_tapio(st), "PIOc_closefile: " + where(*f) + ": " +
                  tapio_last_error());
  }
  // Fixed data no step took (the close wrote no new frame): in place, over the fill.
  auto fixed = [](const File& file, const Held& h) { return !file.vars[h.var].record; };
  if (code == PIO_NOERR && fixed_left) code = write_in_place(*f, fixed, "PIOc_closefile");
  remove_file(ncid);
  return code;
}

int PIOc_sync(int ncid) {
  File* f = nullptr;
  if (int st = lookup(ncid, &f, "PIOc_sync")) return st;
  return f->writable ? flush(*f, "PIOc_sync", Flush::kSync) : PIO_NOERR;
}

int PIOc_redef(int ncid) {
  File* f = nullptr;
  if (int st = lookup(ncid, &f, "PIOc_redef")) return st;
  if (!f->writable) return fail(f->ios, PIO_EPERM, "PIOc_redef: " + where(*f) + " is read-only");
  if (f->define_mode)
    return fail(f->ios, PIO_EINDEFINE, "PIOc_redef: " + where(*f) + " is in define mode");
  f->define_mode = true;
  return reopen_at_enddef(*f, "PIOc_redef");
}

int PIOc_enddef(int ncid) {
  File* f = nullptr;
  if (int st = lookup(ncid, &f, "PIOc_enddef")) return st;
  if (!f->define_mode)
    return fail(f->ios, PIO_ENOTINDEFINE, "PIOc_enddef: " + where(*f) + " is not in define mode");
  f->define_mode = false;
  if (f->writable && !f->engine && !f->defined_in_tapio)
    return open_for_writing(*f, "PIOc_enddef");
  return PIO_NOERR;
}

int PIOc_File_is_Open(int ncid) { return find_file(ncid) != nullptr; }

int PIOc_Set_File_Error_Handling(int ncid, int method) {
  File* f = find_file(ncid);
  if (!f) return fail(nullptr, PIO_EBADID, "PIOc_Set_File_Error_Handling: no such file");
  const int old = f->ios->error_mode;
  f->ios->error_mode = method;
  return old;
}

int PIOc_deletefile(int iosysid, const char* filename) {
  IoSystem* ios = find_iosystem(iosysid);
  if (!ios) return fail(nullptr, PIO_EBADID, "PIOc_deletefile: no such iosystem");
  if (!filename) return fail(ios, PIO_EINVAL, "PIOc_deletefile: NULL name");
  int code = PIO_NOERR;
  if (ios->rank == 0 && unlink(filename) != 0) code = PIO_EIO;  // netCDF: nc_delete
  return agree(*ios, code, "PIOc_deletefile: could not remove '" + std::string(filename) + "'");
}

}  // extern "C"
