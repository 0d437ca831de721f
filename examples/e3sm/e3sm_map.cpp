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
    MapArrays map;
    map.dims = io.read_attribute<int32_t>(dec.name + ".dims");
    map.nreqs = read_whole<int32_t>(io, in, dec.name + ".nreqs");
    map.offsets = read_whole<int32_t>(io, in, dec.name + ".offsets");
    map.lengths = read_whole<int32_t>(io, in, dec.name + ".lengths");
    const size_t nprocs = map.nreqs.size();
    const std::string wrong =
        split_map(map, nprocs * rank / size, nprocs * (rank + 1) / size, &dec);
    if (!wrong.empty())
      throw Error(TAPIO_ERR_FORMAT, "map '" + map_path + "', " + dec.name + ": " + wrong);
    out.push_back(std::move(dec));
  }
  in.close();
  return out;
}

}  // namespace tapio::e3sm
