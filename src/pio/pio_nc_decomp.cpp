// PIO's NetCDF decomposition files (PIOc_write_nc_decomp, PIOc_read_nc_decomp), as PIO 2.7
// writes them: global attributes PIO_library_version, max_maplen, title, history, source and
// array_order; dimensions dims, task, map_element; int variables global_size(dims),
// maplen(task) and map(task, map_element), each task's 0-based map padded with NC_FILL_INT.
// The file goes through the PIO layer's own calls, so it is an ordinary tapio NetCDF file.
#include <algorithm>
#include <cstring>

#include "pio/pio_comm.h"
#include "pio/pio_state.h"

namespace tapio_pio {
namespace {

constexpr const char* kVersion = "2.7.0";  // the PIO whose format this is
constexpr const char* kSource = "Decomposition file produced by PIO library.";

// This task's map as PIO keeps it (iodesc->map): 0-based, -1 for a hole, and sorted when the
// program's map was not ascending (PIO sorts such a map and writes it sorted).
std::vector<int> pio_order_map(const Decomp& d) {
  std::vector<int> map(static_cast<size_t>(d.maplen), -1);
  for (size_t i = 0; i < d.offsets->size(); ++i)
    map[d.held_at.empty() ? i : static_cast<size_t>(d.held_at[i])] =
        static_cast<int>((*d.offsets)[i]);
  for (size_t m = 1; m < map.size(); ++m)
    if (map[m] >= 0 && map[m] < map[m - 1]) {  // PIO's test: a hole does not start sorting
      std::stable_sort(map.begin(), map.end());
      break;
    }
  return map;
}

int put_text(int ncid, const char* name, const std::string& value) {
  return PIOc_put_att_text(ncid, PIO_GLOBAL, name, static_cast<PIO_Offset>(value.size() + 1),
                           value.c_str());  // with its NUL, as PIO writes it
}

// Collective: every task's map, gathered to the first task (the one put_var writes).
int write_file(const IoSystem& ios, const char* filename, int cmode, const Decomp& d,
               const char* title, const char* history, int fortran_order) {
  const std::vector<int> mine = pio_order_map(d);
  std::vector<std::vector<int64_t>> all;
  if (!comm::gather(ios.comm, std::vector<int64_t>(mine.begin(), mine.end()), &all))
    return fail(&ios, PIO_EIO, "PIOc_write_nc_decomp: gathering the maps failed");
  const int max_maplen = static_cast<int>(comm::max_all(ios.comm, d.maplen));
  if (max_maplen < 0) return fail(&ios, PIO_EIO, "PIOc_write_nc_decomp: MPI failed");
  std::vector<int> maplens(ios.size, 0), map(static_cast<size_t>(ios.size) * max_maplen, 0);
  for (size_t t = 0; t < all.size(); ++t) {
    maplens[t] = static_cast<int>(all[t].size());
    for (int e = 0; e < max_maplen; ++e)
      map[t * max_maplen + e] = e < maplens[t] ? static_cast<int>(all[t][e]) : NC_FILL_INT;
  }
  int ncid = -1, dims[3], gsize_var, maplen_var, map_var;
  int st = PIOc_create(ios.id, filename, cmode | NC_WRITE, &ncid);
  if (st) return st;
  const int ndims = static_cast<int>(d.gdims.size());
  if (!st) st = put_text(ncid, "PIO_library_version", kVersion);
  if (!st) st = PIOc_put_att_int(ncid, PIO_GLOBAL, "max_maplen", PIO_INT, 1, &max_maplen);
  if (!st && title) st = put_text(ncid, "title", title);
  if (!st && history) st = put_text(ncid, "history", history);
  if (!st) st = put_text(ncid, "source", kSource);
  if (!st) st = put_text(ncid, "array_order", fortran_order ? "Fortran" : "C");
  if (!st) st = PIOc_def_dim(ncid, "dims", ndims, &dims[0]);
  if (!st) st = PIOc_def_dim(ncid, "task", ios.size, &dims[1]);
  if (!st) st = PIOc_def_dim(ncid, "map_element", max_maplen, &dims[2]);
  if (!st) st = PIOc_def_var(ncid, "global_size", PIO_INT, 1, &dims[0], &gsize_var);
  if (!st) st = PIOc_def_var(ncid, "maplen", PIO_INT, 1, &dims[1], &maplen_var);
  if (!st) st = PIOc_def_var(ncid, "map", PIO_INT, 2, &dims[1], &map_var);
  if (!st) st = PIOc_enddef(ncid);
  if (!st) st = PIOc_put_var_int(ncid, gsize_var, d.gdims.data());
  if (!st) st = PIOc_put_var_int(ncid, maplen_var, maplens.data());
  if (!st) st = PIOc_put_var_int(ncid, map_var, map.data());
  const int closed = PIOc_closefile(ncid);
  return st ? st : closed;
}

// Looked up by listing the names: a missing attribute is no error under any error mode.
int has_global_att(int ncid, const char* name, bool* found) {
  int natts = 0;
  *found = false;
  int st = PIOc_inq_natts(ncid, &natts);
  for (int a = 0; !st && a < natts && !*found; ++a) {
    char att[PIO_MAX_NAME + 1] = "";
    st = PIOc_inq_attname(ncid, PIO_GLOBAL, a, att);
    *found = std::strcmp(att, name) == 0;
  }
  return st;
}

// A text attribute, up to its NUL and at most PIO_MAX_NAME characters (the caller's buffers
// hold PIO_MAX_NAME + 1 bytes); with `optional`, a missing one is "".
int get_text(int ncid, const char* name, bool optional, std::string* out) {
  PIO_Offset len = 0;
  bool found = true;
  out->clear();
  if (optional)
    if (int st = has_global_att(ncid, name, &found)) return st;
  if (!found) return PIO_NOERR;
  if (int st = PIOc_inq_attlen(ncid, PIO_GLOBAL, name, &len)) return st;
  std::vector<char> text(static_cast<size_t>(len) + 1, '\0');
  if (int st = PIOc_get_att_text(ncid, PIO_GLOBAL, name, text.data())) return st;
  *out = std::string(text.data());
  out->resize(std::min<size_t>(out->size(), PIO_MAX_NAME));
  return PIO_NOERR;
}

int dim_length(int ncid, const char* name, PIO_Offset* len) {
  int dimid = -1;
  int st = PIOc_inq_dimid(ncid, name, &dimid);
  return st ? st : PIOc_inq_dimlen(ncid, dimid, len);
}

int get_ints(int ncid, const char* name, std::vector<int>* out) {
  int varid = -1;
  int st = PIOc_inq_varid(ncid, name, &varid);
  return st ? st : PIOc_get_var_int(ncid, varid, out->data());
}

struct NcDecomp {
  std::string title, history, order;
  std::vector<int> gdims, maplens, map;
  int max_maplen = 0;
};

int read_file(int iosysid, const char* filename, NcDecomp* out) {
  int ncid = -1;
  int st = PIOc_open(iosysid, filename, PIO_NOWRITE, &ncid);
  if (st) return st;
  std::string ignored;
  PIO_Offset ndims = 0, ntasks = 0, elements = 0;
  if (!st) st = get_text(ncid, "PIO_library_version", false, &ignored);
  if (!st) st = get_text(ncid, "array_order", false, &out->order);
  if (!st) st = PIOc_get_att_int(ncid, PIO_GLOBAL, "max_maplen", &out->max_maplen);
  if (!st) st = get_text(ncid, "title", true, &out->title);
  if (!st) st = get_text(ncid, "history", true, &out->history);
  if (!st) st = dim_length(ncid, "dims", &ndims);
  if (!st) st = dim_length(ncid, "task", &ntasks);
  if (!st) st = dim_length(ncid, "map_element", &elements);
  if (!st) {
    out->gdims.resize(static_cast<size_t>(ndims));
    out->maplens.resize(static_cast<size_t>(ntasks));
    out->map.resize(static_cast<size_t>(ntasks * elements));
    st = get_ints(ncid, "global_size", &out->gdims);
  }
  if (!st) st = get_ints(ncid, "maplen", &out->maplens);
  if (!st) st = get_ints(ncid, "map", &out->map);
  if (!st && out->max_maplen != elements) out->max_maplen = -1;  // checked by the caller
  const int closed = PIOc_closefile(ncid);
  return st ? st : closed;
}

// What is wrong with the file's contents for task `rank` of `size`, or "".
std::string check(const NcDecomp& nc, int rank, int size) {
  if (nc.order != "C" && nc.order != "Fortran")
    return "array_order is '" + nc.order + "', not 'C' or 'Fortran'";
  if (nc.max_maplen < 0) return "max_maplen is not the length of dimension map_element";
  if (static_cast<int>(nc.maplens.size()) != size)
    return "it is for " + std::to_string(nc.maplens.size()) + " tasks, not " +
           std::to_string(size);
  if (nc.maplens[rank] < 0 || nc.maplens[rank] > nc.max_maplen)
    return "task " + std::to_string(rank) + "'s maplen " + std::to_string(nc.maplens[rank]) +
           " is outside 0.." + std::to_string(nc.max_maplen);
  return "";
}

void copy_text(const std::string& text, char* out) {
  if (out) std::memcpy(out, text.c_str(), text.size() + 1);
}

}  // namespace
}  // namespace tapio_pio

using namespace tapio_pio;

extern "C" {

int PIOc_write_nc_decomp(int iosysid, const char* filename, int cmode, int ioid, char* title,
                         char* history, int fortran_order) {
  IoSystem* ios = find_iosystem(iosysid);
  if (!ios) return fail(nullptr, PIO_EBADID, "PIOc_write_nc_decomp: no iosystem " +
                                                 std::to_string(iosysid));
  const Decomp* d = find_decomp(ioid);
  if (!d || d->iosysid != iosysid)
    return fail(ios, PIO_EBADID, "PIOc_write_nc_decomp: no decomposition " +
                std::to_string(ioid) + " in iosystem " + std::to_string(iosysid));
  if (!filename || (title && std::strlen(title) > PIO_MAX_NAME) ||
      (history && std::strlen(history) > PIO_MAX_NAME))
    return fail(ios, PIO_EINVAL, "PIOc_write_nc_decomp: decomposition " + std::to_string(ioid) +
                ": no file name, or a title or history longer than PIO_MAX_NAME");
  return write_file(*ios, filename, cmode, *d, title, history, fortran_order);
}

// comm: the tasks the decomposition is for (PIO takes this task's row by its rank in it).
int PIOc_read_nc_decomp(int iosysid, const char* filename, int* ioidp, MPI_Comm comm,
                        int pio_type, char* title, char* history, int* fortran_order) {
  IoSystem* ios = find_iosystem(iosysid);
  if (!ios) return fail(nullptr, PIO_EBADID, "PIOc_read_nc_decomp: no iosystem " +
                                                 std::to_string(iosysid));
  if (!filename || !ioidp)
    return fail(ios, PIO_EINVAL, "PIOc_read_nc_decomp: no file name or ioidp");
  NcDecomp nc;
  if (int st = read_file(iosysid, filename, &nc)) return st;
  MPI_Comm dup = MPI_COMM_NULL;
  int rank = 0, size = 0;
  std::string why = comm::duplicate(comm, &dup, &rank, &size) ? check(nc, rank, size)
                                                               : "the communicator is not usable";
  comm::release(&dup);
  const int code = comm::min_all(ios->comm, why.empty() ? PIO_NOERR : PIO_EINVAL, PIO_EIO);
  if (code != PIO_NOERR)
    return fail(ios, code, "PIOc_read_nc_decomp: decomposition file '" + std::string(filename) +
                "': " + (why.empty() ? "another task found it unusable" : why) + " (task " +
                std::to_string(ios->rank) + ")");
  std::vector<PIO_Offset> compmap(static_cast<size_t>(nc.maplens[rank]));
  for (size_t e = 0; e < compmap.size(); ++e)  // 1-based, as InitDecomp takes it
    compmap[e] = static_cast<PIO_Offset>(nc.map[rank * nc.max_maplen + e]) + 1;
  copy_text(nc.title, title);
  copy_text(nc.history, history);
  if (fortran_order) *fortran_order = nc.order == "Fortran";
  return PIOc_InitDecomp(iosysid, pio_type, static_cast<int>(nc.gdims.size()), nc.gdims.data(),
                         nc.maplens[rank], compmap.data(), ioidp, nullptr, nullptr, nullptr);
}

}  // extern "C"
