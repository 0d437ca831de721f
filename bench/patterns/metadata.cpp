// metadata: a PerfMetaData-like pattern (ADIOS2's PerfMetaData; issue 4 item 7): many 1-D
// double variables, each rank putting `blocks` small blocks of `block-elements` doubles per
// variable per step, for many steps. The data are tiny; what costs is describing the blocks.
// Block b of rank r in every variable covers elements [(b*P + r)*E, (b*P + r + 1)*E), so no two
// of a rank's blocks touch when P > 1 (src/workload/patterns.h). Block-based engines (subfile)
// see one block per put.
//
// Presets size the block metadata per rank per step as ADIOS2 BP5 would describe it (about 72 B
// per block, issue 4): e3sm = 390 variables x 2 blocks = 780 blocks (~56 KB), warpx = 35 x 2 =
// 70 blocks (~5 KB), seed 004's E3SM and WarpX figures.
#include "patterns/shared.h"
#include "registry.h"

namespace bench {
namespace {

struct MetadataArgs {
  std::string preset = "none";
  uint64_t vars = 100, blocks = 4, block_elements = 16, steps = 10;
};

class Metadata : public SharedPattern {
 public:
  Metadata(const MetadataArgs& o, int rank, int size) : o_(o) {
    take(*tapio::workload::metadata({o.vars, o.blocks, o.block_elements}, size), rank);
  }
  std::string name() const override { return "metadata"; }
  json params() const override {
    return {{"preset", o_.preset}, {"vars", o_.vars}, {"blocks", o_.blocks},
            {"block_elements", o_.block_elements}, {"steps", o_.steps},
            {"blocks_per_rank_step", o_.vars * o_.blocks}};
  }
  uint64_t steps() const override { return o_.steps; }

 private:
  MetadataArgs o_;
};

}  // namespace

PatternBuilder setup_metadata(CLI::App* app) {
  auto o = std::make_shared<MetadataArgs>();
  auto* preset = app->add_option("--preset", o->preset,
                                 "e3sm (390 vars x 2 blocks, ~56 KB/rank/step in BP5 terms) or "
                                 "warpx (35 x 2, ~5 KB); --vars/--blocks/--steps override it")
                     ->check(CLI::IsMember({"none", "e3sm", "warpx"}));
  auto* vars = app->add_option("--vars", o->vars, "variables")->capture_default_str()->check(CLI::PositiveNumber);
  auto* blocks = app->add_option("--blocks", o->blocks, "blocks per variable per rank per step")
                     ->capture_default_str()->check(CLI::PositiveNumber);
  app->add_option("--block-elements", o->block_elements, "doubles per block")
      ->capture_default_str()->check(CLI::PositiveNumber);
  app->add_option("--steps", o->steps, "steps")->capture_default_str()->check(CLI::PositiveNumber);
  return [o, preset, vars, blocks](int rank, int size) -> std::unique_ptr<Pattern> {
    MetadataArgs opt = *o;
    if (preset->count() && opt.preset != "none") {
      const bool e3sm = opt.preset == "e3sm";
      if (!vars->count()) opt.vars = e3sm ? 390 : 35;
      if (!blocks->count()) opt.blocks = 2;
    }
    return std::make_unique<Metadata>(opt, rank, size);
  };
}

}  // namespace bench
