#include "patterns/shared.h"

namespace bench {

void SharedPattern::take(const tapio::workload::Pattern& p, int rank, uint64_t mem_gap) {
  for (size_t v = 0; v < p.vars().size(); ++v) {
    const tapio::workload::Var& var = p.vars()[v];
    vars_.push_back({var.name, var.shape, var.dims});
    const tapio::workload::Part part = p.part(rank, static_cast<int>(v));
    std::vector<Box> boxes;
    for (const tapio::workload::Box& b : part.boxes) boxes.push_back({b.start, b.count});
    Piece piece = Piece::from_boxes(var.shape, boxes);
    for (const tapio::plan::Run& r : part.runs) piece.add_run(r.offset, r.length, mem_gap);
    pieces_.push_back(std::move(piece));
  }
}

}  // namespace bench
