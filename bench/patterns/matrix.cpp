// matrix: seed 003 case IV. A rows x cols double matrix (row-major in the file) distributed
// over P ranks by columns: `block` gives each rank one band of columns (rows runs each),
// `cyclic` deals blocks of --nb columns round-robin (rows x blocks runs each).
#include "registry.h"

namespace bench {
namespace {

struct Options {
  uint64_t rows = 70400, cols = 2000, nb = 16;
  std::string dist = "block";
};

class Matrix : public Pattern {
 public:
  Matrix(const Options& o, int rank, int size) : o_(o) {
    vars_.push_back({"matrix", {o.rows, o.cols}, {"row", "col"}});
    const uint64_t P = static_cast<uint64_t>(size), r = static_cast<uint64_t>(rank);
    if (o.dist == "block") {
      const uint64_t c0 = o.cols * r / P, nc = o.cols * (r + 1) / P - c0;
      piece_ = Piece::from_box(vars_[0].shape, {0, c0}, {o.rows, nc});
    } else {
      const uint64_t nblocks = (o.cols + o.nb - 1) / o.nb;
      for (uint64_t row = 0; row < o.rows; ++row)
        for (uint64_t b = r; b < nblocks; b += P) {
          const uint64_t c0 = b * o.nb;
          piece_.add_run(row * o.cols + c0, std::min(o.nb, o.cols - c0));
        }
    }
  }
  std::string name() const override { return "matrix"; }
  json params() const override {
    json j = {{"rows", o_.rows}, {"cols", o_.cols}, {"dist", o_.dist}};
    if (o_.dist == "cyclic") j["nb"] = o_.nb;
    return j;
  }
  const std::vector<Var>& vars() const override { return vars_; }
  uint64_t steps() const override { return 1; }
  const Piece& write_piece(int) const override { return piece_; }

 private:
  Options o_;
  std::vector<Var> vars_;
  Piece piece_;
};

}  // namespace

PatternBuilder setup_matrix(CLI::App* app) {
  auto o = std::make_shared<Options>();
  app->add_option("--rows", o->rows, "matrix rows")->capture_default_str()->check(CLI::PositiveNumber);
  app->add_option("--cols", o->cols, "matrix columns")->capture_default_str()->check(CLI::PositiveNumber);
  app->add_option("--dist", o->dist, "column distribution")->capture_default_str()->check(CLI::IsMember({"block", "cyclic"}));
  app->add_option("--nb", o->nb, "columns per block of the cyclic distribution")->capture_default_str()->check(CLI::PositiveNumber);
  return [o](int rank, int size) -> std::unique_ptr<Pattern> {
    return std::make_unique<Matrix>(*o, rank, size);
  };
}

}  // namespace bench
