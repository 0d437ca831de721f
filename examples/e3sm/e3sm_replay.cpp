// Replay an E3SM decomposition map: write one record variable per decomposition, with each
// rank putting its irregular runs, for a few steps; then read it back and check every value.
//
//   mpiexec -n 4 e3sm_replay MAP.nc OUT.nc [steps]
//
// Values follow the benchmark contract: element g of the v-th variable at step s holds
// g + v/4 + s * 2^20. Prints one line per decomposition; exit code 1 on any mismatch.
#include <cstdio>
#include <cstdlib>

#include "e3sm_map.h"

using namespace tapio;

static double value(int v, uint64_t s, uint64_t g) {
  return static_cast<double>(g) + v / 4.0 + static_cast<double>(s) * 1048576.0;
}

static std::vector<double> values_of(const e3sm::Decomposition& d, int v, uint64_t s) {
  std::vector<double> out;
  out.reserve(d.elements());
  for (size_t i = 0; i < d.offsets.size(); ++i)
    for (uint64_t k = 0; k < d.lengths[i]; ++k) out.push_back(value(v, s, d.offsets[i] + k));
  return out;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc < 3) {
    if (rank == 0) std::fprintf(stderr, "usage: e3sm_replay MAP.nc OUT.nc [steps]\n");
    MPI_Finalize();
    return 2;
  }
  const uint64_t steps = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 2;
  long bad = 0;
  try {
    Context ctx(MPI_COMM_WORLD);
    const auto decomps = e3sm::read_maps(ctx, argv[1], MPI_COMM_WORLD);
    IO io = ctx.declare_io("e3sm_replay");
    std::vector<Variable> vars;
    for (const auto& d : decomps) {
      std::vector<std::string> dim_names;
      for (size_t k = 0; k < d.dims.size(); ++k)
        dim_names.push_back(d.name + "_dim" + std::to_string(k));
      vars.push_back(io.define_variable<double>(d.name + "_var", d.dims, dim_names));
    }
    {
      Engine out = io.open(argv[2], TAPIO_MODE_WRITE);
      for (uint64_t s = 0; s < steps; ++s) {
        out.begin_step();
        std::vector<std::vector<double>> data;
        for (size_t v = 0; v < decomps.size(); ++v) data.push_back(values_of(decomps[v], v, s));
        for (size_t v = 0; v < decomps.size(); ++v) {
          vars[v].set_runs(decomps[v].offsets, decomps[v].lengths);
          out.put(vars[v], data[v]);
        }
        out.end_step();
      }
      out.close();
    }
    IO rio = ctx.declare_io("e3sm_replay_read");
    Engine in = rio.open(argv[2], TAPIO_MODE_READ);
    for (size_t v = 0; v < decomps.size(); ++v) {
      Variable rv = rio.inquire_variable(decomps[v].name + "_var");
      rv.set_runs(decomps[v].offsets, decomps[v].lengths);
      rv.set_step_selection(0, steps);
      std::vector<double> got(decomps[v].elements() * steps);
      in.get(rv, got);
      in.perform_gets();
      long mine = 0;
      for (uint64_t s = 0; s < steps; ++s) {
        const auto want = values_of(decomps[v], v, s);
        for (size_t i = 0; i < want.size(); ++i) mine += got[s * want.size() + i] != want[i];
      }
      long total = 0;
      MPI_Reduce(&mine, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
      uint64_t elements = 1;
      for (uint64_t len : decomps[v].dims) elements *= len;
      if (rank == 0)
        std::printf("%s: %llu elements, %zu runs on rank 0, %llu steps: %s\n",
                    decomps[v].name.c_str(), static_cast<unsigned long long>(elements),
                    decomps[v].offsets.size(), static_cast<unsigned long long>(steps),
                    total == 0 ? "ok" : "MISMATCH");
      bad += total;
    }
    in.close();
  } catch (const Error& e) {
    std::fprintf(stderr, "e3sm_replay (rank %d): %s\n", rank, e.what());
    MPI_Finalize();
    return 1;
  }
  MPI_Finalize();
  return bad == 0 ? 0 : 1;
}
