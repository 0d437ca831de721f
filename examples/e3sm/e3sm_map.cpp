#include "e3sm_map.h"

#include <algorithm>

namespace tapio::e3sm {
namespace {

template <typename T>
std::vector<T> read_whole(IO& io, Engine& in, const std::string& name) {
  Variable v = io.inquire_variable(name);
  std::vector<T> out(v.selection_size());
  in.get(v, out);
  in.perform_gets();
  return out;
}

}  // namespace

uint64_t Decomposition::elements() const {
  uint64_t n = 0;
  for (uint64_t l : lengths) n += l;
  return n;
}

std::vector<Decomposition> read_maps(Context& ctx, const std::string& map_path, MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  IO io = ctx.declare_io("e3sm_map:" + map_path);
  Engine in = io.open(map_path, TAPIO_MODE_READ);
  const auto names = io.variable_names();
  auto has = [&](const std::string& n) { return std::find(names.begin(), names.end(), n) != names.end(); };
  std::vector<Decomposition> out;
  for (int d = 1; has("D" + std::to_string(d) + ".nreqs"); ++d) {
    Decomposition dec;
    dec.name = "D" + std::to_string(d);
    for (int32_t len : io.read_attribute<int32_t>(dec.name + ".dims")) dec.dims.push_back(len);
    const auto nreqs = read_whole<int32_t>(io, in, dec.name + ".nreqs");
    const auto offsets = read_whole<int32_t>(io, in, dec.name + ".offsets");
    const auto lengths = read_whole<int32_t>(io, in, dec.name + ".lengths");
    const size_t nprocs = nreqs.size();
    const size_t first = nprocs * rank / size, last = nprocs * (rank + 1) / size;
    size_t begin = 0;
    for (size_t p = 0; p < first; ++p) begin += nreqs[p];
    size_t end = begin;
    for (size_t p = first; p < last; ++p) end += nreqs[p];
    for (size_t i = begin; i < end; ++i) {
      dec.offsets.push_back(static_cast<uint64_t>(offsets[i]));
      dec.lengths.push_back(static_cast<uint64_t>(lengths[i]));
    }
    out.push_back(std::move(dec));
  }
  in.close();
  return out;
}

}  // namespace tapio::e3sm
