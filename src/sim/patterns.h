// The benchmark patterns of tapio-bench as the model sees them, for any rank count without MPI:
// the variables, and each rank's puts of one step as the bench makes them (one put per
// variable; one per box when a piece is several boxes). Every variable is a double record
// variable, as in the bench. The licom, hpio, matrix and metadata decompositions are
// src/workload's, the ones the bench writes; e3sm is sim/e3sm.h.
#pragma once
#include <functional>
#include <memory>

#include "core/model.h"
#include "plan/selection.h"
#include "sim/workload.h"

namespace tapio::sim {

class Pattern {
 public:
  virtual ~Pattern() = default;
  const IoDef& io() const { return io_; }
  uint64_t steps() const { return steps_; }
  int ranks() const { return ranks_; }
  // `shape`: puts of one rank with the same shape number >= 0 have the same selection of
  // variables of the same shape (their pieces differ only by where the variable starts), so
  // the model describes them once; -1: not shared.
  using Put = std::function<void(int var, const plan::Selection& sel, int shape)>;
  // The puts of `rank` in one step (every step puts the same), in the bench's order.
  virtual void for_each_put(int rank, const Put& put) const = 0;

 protected:
  Pattern(int ranks, uint64_t steps) : ranks_(ranks), steps_(steps) { io_.name = "sim"; }
  void add_var(std::string name, std::vector<uint64_t> shape, std::vector<std::string> dims);

 private:
  int ranks_;
  uint64_t steps_;
  IoDef io_;
};

// The pattern a workload names. Errors (TAPIO_ERR_CONFIG) name the bad option; an E3SM map
// or header that cannot be read is named too.
Result<std::unique_ptr<Pattern>> make_pattern(const PatternOptions& options, int ranks);

}  // namespace tapio::sim
