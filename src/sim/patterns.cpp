#include "sim/patterns.h"

#include <map>
#include <optional>

#include "sim/e3sm.h"
#include "workload/patterns.h"

namespace tapio::sim {
namespace {

// A pattern of src/workload as puts: each box its own put, a variable's runs one put. A rank's
// part depends only on the variable's shape, so it is made once per shape, and box b of shape
// class c is put shape c + classes * b.
class Shared final : public Pattern {
 public:
  Shared(std::unique_ptr<workload::Pattern> p, uint64_t steps)
      : Pattern(p->ranks(), steps), p_(std::move(p)) {
    std::map<std::vector<uint64_t>, int> classes;
    for (const workload::Var& v : p_->vars()) {
      add_var(v.name, v.shape, v.dims);
      class_of_.push_back(classes.emplace(v.shape, static_cast<int>(classes.size())).first->second);
    }
    classes_ = static_cast<int>(classes.size());
  }
  void for_each_put(int rank, const Put& put) const override {
    std::vector<std::optional<workload::Part>> parts(classes_);
    for (int v = 0; v < static_cast<int>(class_of_.size()); ++v) {
      const int c = class_of_[v];
      if (!parts[c]) parts[c] = p_->part(rank, v);
      const std::vector<workload::Box>& boxes = parts[c]->boxes;
      for (size_t b = 0; b < boxes.size(); ++b)
        if (boxes[b].elements() > 0)
          put(v, plan::Selection::box(boxes[b].start, boxes[b].count), c + classes_ * static_cast<int>(b));
      if (!parts[c]->runs.empty()) put(v, plan::Selection::from_runs(parts[c]->runs), -1);
    }
  }

 private:
  std::unique_ptr<workload::Pattern> p_;
  std::vector<int> class_of_;
  int classes_ = 0;
};

}  // namespace

void Pattern::add_var(std::string name, std::vector<uint64_t> shape,
                      std::vector<std::string> dims) {
  VariableDef v;
  v.name = std::move(name);
  v.type = TAPIO_FLOAT64;
  v.shape = std::move(shape);
  v.dim_names = std::move(dims);
  v.record = true;
  io_.vars.push_back(std::move(v));
}

Result<std::unique_ptr<Pattern>> make_pattern(const PatternOptions& o, int ranks) {
  auto shared = [&](std::unique_ptr<workload::Pattern> p, uint64_t default_steps) {
    return std::unique_ptr<Pattern>(new Shared(std::move(p), o.steps ? o.steps : default_steps));
  };
  if (o.name == "licom") {
    workload::LicomOptions lo{0, 0, 0, o.vars3d, o.vars2d};
    if (!workload::parse_licom_grid(o.grid, &lo))
      return error(TAPIO_ERR_CONFIG, "pattern.grid must be NXxNYxNZ with positive sizes (got '{}')",
                   o.grid);
    if (o.vars3d + o.vars2d == 0) return error(TAPIO_ERR_CONFIG, "licom needs at least one variable");
    return shared(workload::licom(lo, ranks), 3);
  }
  if (o.name == "hpio") {
    if (o.size % 8 || o.spacing % 8)
      return error(TAPIO_ERR_CONFIG, "hpio: pattern.size and pattern.spacing must be multiples of 8");
    return shared(workload::hpio({o.count, o.size, o.spacing, o.file == "noncontig"}, ranks), 1);
  }
  if (o.name == "matrix")
    return shared(workload::matrix({o.rows, o.cols, o.nb, o.dist == "cyclic"}, ranks), 1);
  if (o.name == "metadata")
    return shared(workload::metadata({o.vars, o.blocks, o.block_elements}, ranks), 10);
  return make_e3sm(o, ranks);
}

}  // namespace tapio::sim
