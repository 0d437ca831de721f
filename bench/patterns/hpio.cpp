// hpio: HPIO's regions. Each rank writes `count` regions of `size` bytes; in the file they are
// interleaved across ranks (region i of rank r is the (i*P + r)-th slot) and separated by
// `spacing` bytes when the file side is noncontig, or back to back per rank when contig; in
// memory they are separated by `spacing` bytes when the memory side is noncontig. One 1-D double
// variable, so size and spacing are multiples of 8 bytes; gaps in the file are never written.
#include "registry.h"

namespace bench {
namespace {

struct Options {
  uint64_t count = 4096, size = 256, spacing = 256, steps = 1;
  std::string mem = "contig", file = "noncontig";
};

class Hpio : public Pattern {
 public:
  Hpio(const Options& o, int rank, int size) : o_(o) {
    const uint64_t n = o.size / 8, gap = o.spacing / 8, P = static_cast<uint64_t>(size);
    const bool file_nc = o.file == "noncontig", mem_nc = o.mem == "noncontig";
    const uint64_t total = file_nc ? o.count * P * (n + gap) : o.count * P * n;
    vars_.push_back({"hpio", {total}, {"x"}});
    for (uint64_t i = 0; i < o.count; ++i) {
      const uint64_t off = file_nc ? (i * P + static_cast<uint64_t>(rank)) * (n + gap)
                                   : (static_cast<uint64_t>(rank) * o.count + i) * n;
      piece_.add_run(off, n, mem_nc ? gap : 0);
    }
  }
  std::string name() const override { return "hpio"; }
  json params() const override {
    return {{"count", o_.count}, {"size", o_.size}, {"spacing", o_.spacing},
            {"mem", o_.mem}, {"file", o_.file}, {"steps", o_.steps}};
  }
  const std::vector<Var>& vars() const override { return vars_; }
  uint64_t steps() const override { return o_.steps; }
  const Piece& write_piece(int) const override { return piece_; }

 private:
  Options o_;
  std::vector<Var> vars_;
  Piece piece_;
};

}  // namespace

PatternBuilder setup_hpio(CLI::App* app) {
  auto o = std::make_shared<Options>();
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
