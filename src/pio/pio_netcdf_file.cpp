#include "pio/pio_netcdf_file.h"

#include <algorithm>
#include <numeric>

#include "core/convert.h"
#include "core/types.h"
#include "format/netcdf/header.h"
#include "io/storage.h"

namespace tapio_pio::netcdf_file {
namespace {

using tapio::netcdf::Header;

std::string read_header(tapio::io::File& file, Header* out) {
  std::vector<uint8_t> bytes(64 * 1024);
  auto size = file.size();
  if (!size.ok()) return size.status().message();
  for (;;) {
    size_t got = 0;
    const tapio::Status st = file.read_at(0, bytes.data(), bytes.size(), &got);
    if (!st.ok()) return "reading the header: " + st.message();
    size_t need = 0;
    auto h = tapio::netcdf::decode(bytes.data(), got, *size, &need);
    if (h.ok()) {
      *out = std::move(*h);
      return "";
    }
    if (need <= bytes.size() || got < bytes.size()) return h.status().message();
    bytes.resize(need);
  }
}

// Writes n elements of `esize` bytes (big-endian in `image`) at base + offsets[i] * esize,
// consecutive offsets as one write.
std::string write_runs(tapio::io::File& file, uint64_t base, const std::vector<uint64_t>& offsets,
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
    const tapio::Status st = file.write_at(base + offsets[order[i]] * esize, run.data(), run.size());
    if (!st.ok()) return "writing: " + st.message();
    i = j;
  }
  return "";
}

std::string write_piece(tapio::io::File& file, const Header& h, const Piece& p) {
  const tapio::netcdf::Var* v = h.find_var(p.var);
  if (!v) return "the file has no variable '" + p.var + "'";
  const auto type = tapio::netcdf::from_nc_type(v->type);
  const size_t esize = tapio::type_size(type), n = p.offsets->size();
  std::vector<unsigned char> host(n * esize), image(n * esize);
  const tapio::Status st = tapio::convert_elements(host.data(), type, p.data, p.memtype, n);
  if (!st.ok()) return st.message();
  tapio::host_to_big_endian(image.data(), host.data(), n, esize);
  return write_runs(file, h.data_offset(*v, p.frame), *p.offsets, image, esize);
}

}  // namespace

std::string write(const std::string& path, const std::vector<Piece>& pieces) {
  // Through the storage every engine uses; a file description of its own, so the engine's
  // lock (F_OFD_SETLK, on the engine's) is not released when this one closes.
  auto file = tapio::io::posix_storage().open(path, tapio::io::OpenMode::kReadWrite, nullptr);
  if (!file.ok()) return "opening to write a frame again: " + file.status().message();
  Header h;
  std::string why = read_header(**file, &h);
  for (size_t i = 0; why.empty() && i < pieces.size(); ++i) why = write_piece(**file, h, pieces[i]);
  const tapio::Status closed = (*file)->close();
  if (why.empty() && !closed.ok()) why = closed.message();
  return why;
}

}  // namespace tapio_pio::netcdf_file
