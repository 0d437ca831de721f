// hpio: HPIO's regions. Each rank writes `count` regions of `size` bytes; in the file they are
// interleaved across ranks (region i of rank r is the (i*P + r)-th slot) and separated by
// `spacing` bytes when the file side is noncontig, or back to back per rank when contig; in
// memory they are separated by `spacing` bytes when the memory side is noncontig. One 1-D double
// variable, so size and spacing are multiples of 8 bytes; gaps in the file are never written.
// The file side is src/workload/patterns.h's; the memory side is the bench's.
#include "patterns/shared.h"
#include "registry.h"

namespace bench {
namespace {

struct HpioArgs {
  uint64_t count = 4096, size = 256, spacing = 256, steps = 1;
  std::string mem = "contig", file = "noncontig";
};

class Hpio : public SharedPattern {
 public:
  Hpio(const HpioArgs& o, int rank, int size) : o_(o) {
    take(*tapio::workload::hpio({o.count, o.size, o.spacing, o.file == "noncontig"}, size), rank,
         o.mem == "noncontig" ? o.spacing / 8 : 0);
  }
  std::string name() const override { return "hpio"; }
  json params() const override {
    return {{"count", o_.count}, {"size", o_.size}, {"spacing", o_.spacing},
            {"mem", o_.mem}, {"file", o_.file}, {"steps", o_.steps}};
  }
  uint64_t steps() const override { return o_.steps; }

 private:
  HpioArgs o_;
};

}  // namespace

PatternBuilder setup_hpio(CLI::App* app) {
  auto o = std::make_shared<HpioArgs>();
  app->add_option("--count", o->count, "regions per rank")->capture_default_str()->check(CLI::PositiveNumber);
  app->add_option("--size", o->size, "bytes per region (multiple of 8)")->capture_default_str()->check(CLI::PositiveNumber);
  app->add_option("--spacing", o->spacing, "bytes between regions (multiple of 8)")->capture_default_str();
  app->add_option("--mem", o->mem, "regions in memory")->capture_default_str()->check(CLI::IsMember({"contig", "noncontig"}));
  app->add_option("--file", o->file, "regions in the file")->capture_default_str()->check(CLI::IsMember({"contig", "noncontig"}));
  return [o](int rank, int size) -> std::unique_ptr<Pattern> {
    if (o->size % 8 || o->spacing % 8)
      throw BenchError("hpio: --size and --spacing must be multiples of 8 bytes (double elements)");
    return std::make_unique<Hpio>(*o, rank, size);
  };
}

}  // namespace bench
