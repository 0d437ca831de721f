// licom: seed 000's ocean history. 3-D (depth x lat x lon) and 2-D (lat x lon) doubles, one
// record per step, each rank owning a block of a 2-D process grid over (lat, lon) as in
// examples/licom_demo.c (the decomposition: src/workload/patterns.h).
#include "patterns/shared.h"
#include "registry.h"

namespace bench {
namespace {

struct LicomArgs {
  std::string grid = "144x96x30";  // NX (lon) x NY (lat) x NZ (depth)
  int vars3d = 4, vars2d = 2;
  uint64_t steps = 3;
  double compute = 0;  // seconds of busy loop after each step
};

class Licom : public SharedPattern {
 public:
  Licom(const LicomArgs& o, const tapio::workload::LicomOptions& grid, int rank, int size)
      : o_(o), grid_(grid) {
    tapio::workload::process_grid(size, &pgrid_[0], &pgrid_[1]);
    take(*tapio::workload::licom(grid, size), rank);
  }
  std::string name() const override { return "licom"; }
  json params() const override {
    return {{"grid", o_.grid}, {"nx", grid_.nx}, {"ny", grid_.ny}, {"nz", grid_.nz},
            {"vars3d", o_.vars3d}, {"vars2d", o_.vars2d}, {"steps", o_.steps},
            {"process_grid", pgrid_}, {"compute_s", o_.compute}};
  }
  uint64_t steps() const override { return o_.steps; }
  double compute_seconds() const override { return o_.compute; }

 private:
  LicomArgs o_;
  tapio::workload::LicomOptions grid_;
  std::vector<int> pgrid_ = {1, 1};  // process rows (lat), columns (lon)
};

}  // namespace

PatternBuilder setup_licom(CLI::App* app) {
  auto o = std::make_shared<LicomArgs>();
  app->add_option("--grid", o->grid, "NXxNYxNZ: lon x lat x depth points")->capture_default_str();
  app->add_option("--vars3d", o->vars3d, "3-D variables")->capture_default_str()->check(CLI::NonNegativeNumber);
  app->add_option("--vars2d", o->vars2d, "2-D variables")->capture_default_str()->check(CLI::NonNegativeNumber);
  app->add_option("--steps", o->steps, "steps (records)")->capture_default_str()->check(CLI::PositiveNumber);
  app->add_option("--compute", o->compute,
                  "SECONDS of compute (a busy loop on the clock) after each step; tapio methods only")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  return [o](int rank, int size) -> std::unique_ptr<Pattern> {
    tapio::workload::LicomOptions grid;
    if (!tapio::workload::parse_licom_grid(o->grid, &grid))
      throw BenchError("--grid must be NXxNYxNZ with positive sizes (got '" + o->grid + "')");
    if (o->vars3d + o->vars2d == 0) throw BenchError("licom needs at least one variable");
    grid.vars3d = static_cast<uint64_t>(o->vars3d);
    grid.vars2d = static_cast<uint64_t>(o->vars2d);
    return std::make_unique<Licom>(*o, grid, rank, size);
  };
}

}  // namespace bench
