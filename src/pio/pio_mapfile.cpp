// PIO's text decomposition files (PIOc_writemap, PIOc_readmap; the piodecomp*.dat files E3SM
// writes): "version 2001 npes N ndims D", the global dimensions, then per task "i maplen" and
// its 1-based map (0: a hole).
#include <fstream>
#include <sstream>

#include "pio/pio_comm.h"
#include "pio/pio_state.h"

namespace tapio_pio {
namespace {

constexpr int kVersion = 2001;

// This task's part of the file: the dimensions and the map of task `rank` (empty past npes).
std::string parse(const char* file, int rank, int size, std::vector<int>* dims,
                  std::vector<PIO_Offset>* map) {
  std::ifstream in(file);
  if (!in) return "cannot open it";
  std::string word[3];
  int version = 0, npes = 0, ndims = 0;
  in >> word[0] >> version >> word[1] >> npes >> word[2] >> ndims;
  if (!in || word[0] != "version" || word[1] != "npes" || word[2] != "ndims")
    return "its first line is not 'version V npes N ndims D'";
  if (version != kVersion) return "version " + std::to_string(version) + ", not 2001";
  if (npes < 1 || npes > size || ndims < 1)
    return "npes " + std::to_string(npes) + " for " + std::to_string(size) + " tasks, ndims " +
           std::to_string(ndims);
  dims->resize(ndims);
  for (int& d : *dims) in >> d;
  for (int task = 0; in && task < npes && task <= rank; ++task) {
    int id = -1;
    long long maplen = -1;
    in >> id >> maplen;
    if (!in || id != task || maplen < 0) return "task " + std::to_string(task) + "'s line is bad";
    map->resize(static_cast<size_t>(maplen));
    for (PIO_Offset& v : *map) in >> v;
  }
  if (!in) return "it ends early";
  if (rank >= npes) map->clear();
  return "";
}

template <class T>
T* copy_out(const std::vector<T>& v) {  // the caller frees it with free(), as with PIO
  T* out = static_cast<T*>(malloc(sizeof(T) * (v.empty() ? 1 : v.size())));
  if (out && !v.empty()) memcpy(out, v.data(), sizeof(T) * v.size());
  return out;
}

}  // namespace
}  // namespace tapio_pio

using namespace tapio_pio;

extern "C" {

int PIOc_readmap(const char* file, int* ndims, int** gdims, PIO_Offset* fmaplen,
                 PIO_Offset** map, MPI_Comm comm) {
  if (!file || !ndims || !gdims || !fmaplen || !map)
    return fail(nullptr, PIO_EINVAL, "PIOc_readmap: NULL argument");
  MPI_Comm dup = MPI_COMM_NULL;
  int rank = 0, size = 1;
  if (!comm::duplicate(comm, &dup, &rank, &size))
    return fail(nullptr, PIO_EINVAL, "PIOc_readmap: the communicator is not usable");
  std::vector<int> dims;
  std::vector<PIO_Offset> mine;
  const std::string why = parse(file, rank, size, &dims, &mine);
  const int code = comm::min_all(dup, why.empty() ? PIO_NOERR : PIO_EINVAL, PIO_EIO);
  comm::release(&dup);
  if (code != PIO_NOERR)
    return fail(nullptr, code, "PIOc_readmap: decomposition file '" + std::string(file) + "': " +
                (why.empty() ? "another task could not read it" : why));
  *ndims = static_cast<int>(dims.size());
  *gdims = copy_out(dims);
  *fmaplen = static_cast<PIO_Offset>(mine.size());
  *map = copy_out(mine);
  return PIO_NOERR;
}

int PIOc_readmap_from_f90(const char* file, int* ndims, int** gdims, PIO_Offset* maplen,
                          PIO_Offset** map, int f90_comm) {
  return PIOc_readmap(file, ndims, gdims, maplen, map, comm::from_fortran(f90_comm));
}

int PIOc_writemap(const char* file, int ndims, const int* gdims, PIO_Offset maplen,
                  PIO_Offset* map, MPI_Comm comm) {
  if (!file || ndims < 1 || !gdims || maplen < 0 || (maplen > 0 && !map))
    return fail(nullptr, PIO_EINVAL, "PIOc_writemap: bad argument");
  MPI_Comm dup = MPI_COMM_NULL;
  int rank = 0, size = 1;
  if (!comm::duplicate(comm, &dup, &rank, &size))
    return fail(nullptr, PIO_EINVAL, "PIOc_writemap: the communicator is not usable");
  std::vector<std::vector<int64_t>> all;
  bool ok = comm::gather(dup, std::vector<int64_t>(map, map + maplen), &all);
  if (ok && rank == 0) {
    std::ofstream out(file);
    out << "version " << kVersion << " npes " << size << " ndims " << ndims << " \n";
    for (int d = 0; d < ndims; ++d) out << gdims[d] << ' ';
    out << '\n';
    for (size_t task = 0; task < all.size(); ++task) {
      out << task << ' ' << all[task].size() << '\n';
      for (int64_t v : all[task]) out << v << ' ';
      out << '\n';
    }
    ok = static_cast<bool>(out);
  }
  const int code = comm::min_all(dup, ok ? PIO_NOERR : PIO_EIO, PIO_EIO);
  comm::release(&dup);
  return code == PIO_NOERR ? PIO_NOERR
                           : fail(nullptr, code, "PIOc_writemap: could not write '" +
                                                     std::string(file) + "'");
}

int PIOc_writemap_from_f90(const char* file, int ndims, const int* gdims, PIO_Offset maplen,
                           const PIO_Offset* map, int f90_comm) {
  return PIOc_writemap(file, ndims, gdims, maplen, const_cast<PIO_Offset*>(map),
                       comm::from_fortran(f90_comm));
}

}  // extern "C"
