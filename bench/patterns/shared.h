// A tapio-bench pattern made from a shared decomposition (src/workload): the variables and
// pieces `tapio sim` models are the ones the bench writes.
#pragma once
#include "bench.h"
#include "workload/patterns.h"

namespace bench {

class SharedPattern : public Pattern {
 public:
  const std::vector<Var>& vars() const override { return vars_; }
  const Piece& write_piece(int v) const override { return pieces_[v]; }

 protected:
  // Takes p's variables and this rank's parts: boxes become a piece's boxes (back to back in
  // the buffer), runs its runs as they are, with `mem_gap` elements between them in the buffer.
  void take(const tapio::workload::Pattern& p, int rank, uint64_t mem_gap = 0);

 private:
  std::vector<Var> vars_;
  std::vector<Piece> pieces_;
};

}  // namespace bench
