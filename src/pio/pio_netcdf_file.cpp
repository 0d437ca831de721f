#include "pio/pio_netcdf_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <numeric>

#include "core/convert.h"
#include "core/types.h"
#include "format/netcdf/header.h"

namespace tapio_pio::netcdf_file {
namespace {

using tapio::netcdf::Header;

std::string read_header(int fd, Header* out) {
  std::vector<uint8_t> bytes(64 * 1024);
  const off_t size = lseek(fd, 0, SEEK_END);
  for (;;) {
    const ssize_t got = pread(fd, bytes.data(), bytes.size(), 0);
    if (got < 0) return std::string("reading the header: ") + std::strerror(errno);
    size_t need = 0;
    auto h = tapio::netcdf::decode(bytes.data(), static_cast<size_t>(got),
                                   static_cast<uint64_t>(size), &need);
    if (h.ok()) {
      *out = std::move(*h);
      return "";
    }
    if (need <= bytes.size() || static_cast<size_t>(got) < bytes.size())
      return h.status().message();
    bytes.resize(need);
  }
}

// Writes n elements of `esize` bytes (big-endian in `image`) at base + offsets[i] * esize,
// consecutive offsets as one write.
std::string write_runs(int fd, uint64_t base, const std::vector<uint64_t>& offsets,
                       const std::vector<unsigned char>& image, size_t esize) {
  std::vector<size_t> order(offsets.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return offsets[a] < offsets[b]; });
  std::vector<unsigned char> run;
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    run.clear();
    do {
      run.insert(run.end(), image.begin() + order[j] * esize, image.begin() + (order[j] + 1) * esize);
      ++j;
    } while (j < order.size() && offsets[order[j]] == offsets[order[j - 1]] + 1);
    const off_t at = static_cast<off_t>(base + offsets[order[i]] * esize);
    if (pwrite(fd, run.data(), run.size(), at) != static_cast<ssize_t>(run.size()))
      return std::string("writing: ") + std::strerror(errno);
    i = j;
  }
  return "";
}

std::string write_piece(int fd, const Header& h, const Piece& p) {
  const tapio::netcdf::Var* v = h.find_var(p.var);
  if (!v) return "the file has no variable '" + p.var + "'";
  const auto type = tapio::netcdf::from_nc_type(v->type);
  const size_t esize = tapio::type_size(type), n = p.offsets->size();
  std::vector<unsigned char> host(n * esize), image(n * esize);
  const tapio::Status st = tapio::convert_elements(host.data(), type, p.data, p.memtype, n);
  if (!st.ok()) return st.message();
  tapio::host_to_big_endian(image.data(), host.data(), n, esize);
  return write_runs(fd, h.data_offset(*v, p.frame), *p.offsets, image, esize);
}

}  // namespace

std::string write(const std::string& path, const std::vector<Piece>& pieces) {
  const int fd = open(path.c_str(), O_RDWR);
  if (fd < 0) return "opening to write a frame again: " + std::string(std::strerror(errno));
  Header h;
  std::string why = read_header(fd, &h);
  for (size_t i = 0; why.empty() && i < pieces.size(); ++i) why = write_piece(fd, h, pieces[i]);
  close(fd);  // the engine's lock is on its own open file description (F_OFD_SETLK)
  return why;
}

}  // namespace tapio_pio::netcdf_file
