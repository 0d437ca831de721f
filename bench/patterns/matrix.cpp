// matrix: seed 003 case IV. A rows x cols double matrix (row-major in the file) distributed
// over P ranks by columns: `block` gives each rank one band of columns (rows runs each),
// `cyclic` deals blocks of --nb columns round-robin (rows x blocks runs each); the
// decomposition is src/workload/patterns.h's.
#include "patterns/shared.h"
#include "registry.h"

namespace bench {
namespace {

struct MatrixArgs {
  uint64_t rows = 70400, cols = 2000, nb = 16;
  std::string dist = "block";
};

class Matrix : public SharedPattern {
 public:
  Matrix(const MatrixArgs& o, int rank, int size) : o_(o) {
    take(*tapio::workload::matrix({o.rows, o.cols, o.nb, o.dist == "cyclic"}, size), rank);
  }
  std::string name() const override { return "matrix"; }
  json params() const override {
    json j = {{"rows", o_.rows}, {"cols", o_.cols}, {"dist", o_.dist}};
    if (o_.dist == "cyclic") j["nb"] = o_.nb;
    return j;
  }
  uint64_t steps() const override { return 1; }

 private:
  MatrixArgs o_;
};

}  // namespace

PatternBuilder setup_matrix(CLI::App* app) {
  auto o = std::make_shared<MatrixArgs>();
  app->add_option("--rows", o->rows, "matrix rows")->capture_default_str()->check(CLI::PositiveNumber);
  app->add_option("--cols", o->cols, "matrix columns")->capture_default_str()->check(CLI::PositiveNumber);
  app->add_option("--dist", o->dist, "column distribution")->capture_default_str()->check(CLI::IsMember({"block", "cyclic"}));
  app->add_option("--nb", o->nb, "columns per block of the cyclic distribution")->capture_default_str()->check(CLI::PositiveNumber);
  return [o](int rank, int size) -> std::unique_ptr<Pattern> {
    return std::make_unique<Matrix>(*o, rank, size);
  };
}

}  // namespace bench
