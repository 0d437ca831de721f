// licom: seed 000's ocean history. 3-D (depth x lat x lon) and 2-D (lat x lon) doubles, one
// record per step, each rank owning a block of a 2-D process grid over (lat, lon) as in
// examples/licom_demo.c.
#include <cstdio>

#include "registry.h"

namespace bench {
namespace {

struct Options {
  std::string grid = "144x96x30";  // NX (lon) x NY (lat) x NZ (depth)
  int vars3d = 4, vars2d = 2;
  uint64_t steps = 3;
  double compute = 0;  // seconds of busy loop after each step
};

void split(uint64_t n, int parts, int p, uint64_t* start, uint64_t* count) {
  *start = n * p / parts;
  *count = n * (p + 1) / parts - *start;
}

class Licom : public Pattern {
 public:
  Licom(const Options& o, uint64_t nx, uint64_t ny, uint64_t nz, int rank, int size) : o_(o) {
    int pdims[2] = {0, 0};
    MPI_Dims_create(size, 2, pdims);
    uint64_t r0, nr, c0, nc;
    split(ny, pdims[0], rank / pdims[1], &r0, &nr);
    split(nx, pdims[1], rank % pdims[1], &c0, &nc);
    grid_ = {nx, ny, nz};
    pgrid_ = {pdims[0], pdims[1]};
    for (int v = 0; v < o.vars3d; ++v) {
      vars_.push_back({"var3d_" + std::to_string(v), {nz, ny, nx}, {"depth", "lat", "lon"}});
      pieces_.push_back(Piece::from_box(vars_.back().shape, {0, r0, c0}, {nz, nr, nc}));
    }
    for (int v = 0; v < o.vars2d; ++v) {
      vars_.push_back({"var2d_" + std::to_string(v), {ny, nx}, {"lat", "lon"}});
      pieces_.push_back(Piece::from_box(vars_.back().shape, {r0, c0}, {nr, nc}));
    }
  }
  std::string name() const override { return "licom"; }
  json params() const override {
    return {{"grid", o_.grid}, {"nx", grid_[0]}, {"ny", grid_[1]}, {"nz", grid_[2]},
            {"vars3d", o_.vars3d}, {"vars2d", o_.vars2d}, {"steps", o_.steps},
            {"process_grid", pgrid_}, {"compute_s", o_.compute}};
  }
  const std::vector<Var>& vars() const override { return vars_; }
  uint64_t steps() const override { return o_.steps; }
  double compute_seconds() const override { return o_.compute; }
  const Piece& write_piece(int v) const override { return pieces_[v]; }

 private:
  Options o_;
  Dims grid_;
  std::vector<int> pgrid_;
  std::vector<Var> vars_;
  std::vector<Piece> pieces_;
};

}  // namespace

PatternBuilder setup_licom(CLI::App* app) {
  auto o = std::make_shared<Options>();
  app->add_option("--grid", o->grid, "NXxNYxNZ: lon x lat x depth points")->capture_default_str();
  app->add_option("--vars3d", o->vars3d, "3-D variables")->capture_default_str()->check(CLI::NonNegativeNumber);
  app->add_option("--vars2d", o->vars2d, "2-D variables")->capture_default_str()->check(CLI::NonNegativeNumber);
  app->add_option("--steps", o->steps, "steps (records)")->capture_default_str()->check(CLI::PositiveNumber);
  app->add_option("--compute", o->compute,
                  "SECONDS of compute (a busy loop on the clock) after each step; tapio methods only")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  return [o](int rank, int size) -> std::unique_ptr<Pattern> {
    unsigned long long nx, ny, nz;
    char tail;
    if (std::sscanf(o->grid.c_str(), "%llux%llux%llu%c", &nx, &ny, &nz, &tail) != 3 || !nx ||
        !ny || !nz)
      throw BenchError("--grid must be NXxNYxNZ with positive sizes (got '" + o->grid + "')");
    if (o->vars3d + o->vars2d == 0) throw BenchError("licom needs at least one variable");
    return std::make_unique<Licom>(*o, nx, ny, nz, rank, size);
  };
}

}  // namespace bench
