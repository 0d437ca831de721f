// selection: a small selection read from a variable written as many blocks over many steps
// (issue 10 item 7; openPMD-viewer issue #400, where reading part of a mesh written in many
// blocks per step from ADIOS BP was far slower than from HDF5). What it measures is what a reader
// pays to open a dataset, find the few blocks a selection meets and read only those.
//
// One 2-D double variable, a grid of `blocks` blocks of `block` shape (grid rows x columns from
// MPI_Dims_create); rank r owns blocks [r*B/P, (r+1)*B/P) in row-major block order and puts
// each on its own in every step, so a block-based engine stores B blocks per step, each block
// whole in the rank's memory. HDF5 chunks the variable by block (chunk()). Only rank 0 reads
// (the others open and close: the APIs are collective): one tile (default: one block's shape at
// the middle block, aligned to it) or one row (the middle one, all columns), of the middle step,
// the last one or every step.
#include <algorithm>
#include <cstdio>

#include "registry.h"

namespace bench {
namespace {

struct SelectionArgs {
  uint64_t blocks = 1000, steps = 100;
  std::string block = "16x16", tile, select = "tile", read_steps = "middle";
};

Dims parse_2d(const std::string& text, const char* what) {
  unsigned long long a, b;
  char tail;
  if (std::sscanf(text.c_str(), "%llux%llu%c", &a, &b, &tail) != 2 || !a || !b)
    throw BenchError(std::string(what) + " must be ROWSxCOLS with positive sizes (got '" + text + "')");
  return {a, b};
}

class Selection : public Pattern {
 public:
  Selection(const SelectionArgs& o, int rank, int size) : o_(o), block_(parse_2d(o.block, "--block")) {
    int g[2] = {0, 0};
    MPI_Dims_create(static_cast<int>(o.blocks), 2, g);
    grid_ = {static_cast<uint64_t>(g[0]), static_cast<uint64_t>(g[1])};
    vars_.push_back({"field", {grid_[0] * block_[0], grid_[1] * block_[1]}, {"y", "x"}});
    const Dims& shape = vars_[0].shape;
    const uint64_t P = static_cast<uint64_t>(size), r = static_cast<uint64_t>(rank);
    std::vector<Box> mine;
    for (uint64_t b = o.blocks * r / P; b < o.blocks * (r + 1) / P; ++b)
      mine.push_back({{b / grid_[1] * block_[0], b % grid_[1] * block_[1]}, block_});
    write_ = Piece::from_boxes(shape, mine);

    if (o.select == "row") {
      sel_ = {{shape[0] / 2, 0}, {1, shape[1]}};
    } else {
      const Dims tile = o.tile.empty() ? block_ : parse_2d(o.tile, "--tile");
      if (tile[0] > shape[0] || tile[1] > shape[1])
        throw BenchError("--tile " + o.tile + " is larger than the variable");
      sel_.count = tile;
      for (int k = 0; k < 2; ++k)  // the middle block's corner, moved in if the tile overhangs
        sel_.start.push_back(std::min(grid_[k] / 2 * block_[k], shape[k] - tile[k]));
    }
    if (rank == 0) read_ = Piece::from_box(shape, sel_.start, sel_.count);

    if (o.read_steps == "all")
      for (uint64_t s = 0; s < o.steps; ++s) steps_read_.push_back(s);
    else
      steps_read_.push_back(o.read_steps == "last" ? o.steps - 1 : o.steps / 2);
  }

  std::string name() const override { return "selection"; }
  json params() const override {
    // Blocks the selection meets in one step: the least a reader that reads whole blocks reads.
    uint64_t touched = 1;
    for (int k = 0; k < 2; ++k)
      touched *= (sel_.start[k] + sel_.count[k] - 1) / block_[k] - sel_.start[k] / block_[k] + 1;
    return {{"blocks", o_.blocks}, {"block", o_.block}, {"block_grid", grid_},
            {"shape", vars_[0].shape}, {"steps", o_.steps}, {"select", o_.select},
            {"selection", {{"start", sel_.start}, {"count", sel_.count}}},
            {"read_steps", o_.read_steps}, {"steps_read", steps_read_.size()},
            {"block_bytes", block_[0] * block_[1] * sizeof(double)},
            {"selection_bytes", sel_.elements() * sizeof(double) * steps_read_.size()},
            {"blocks_touched", touched * steps_read_.size()}};
  }
  const std::vector<Var>& vars() const override { return vars_; }
  uint64_t steps() const override { return o_.steps; }
  const Piece& write_piece(int) const override { return write_; }
  const Piece& read_piece(int) const override { return read_; }
  std::vector<uint64_t> read_steps() const override { return steps_read_; }
  std::optional<Dims> chunk(int) const override { return block_; }

 private:
  SelectionArgs o_;
  Dims block_, grid_;
  std::vector<Var> vars_;
  Piece write_, read_;
  Box sel_;
  std::vector<uint64_t> steps_read_;
};

}  // namespace

PatternBuilder setup_selection(CLI::App* app) {
  auto o = std::make_shared<SelectionArgs>();
  app->add_option("--blocks", o->blocks, "blocks per step (all ranks), in a 2-D grid")
      ->capture_default_str()->check(CLI::Range(uint64_t{1}, uint64_t{1} << 30));
  app->add_option("--block", o->block, "ROWSxCOLS doubles per block")->capture_default_str();
  app->add_option("--steps", o->steps, "steps")->capture_default_str()->check(CLI::PositiveNumber);
  app->add_option("--select", o->select, "what rank 0 reads: one tile or one row")
      ->capture_default_str()->check(CLI::IsMember({"tile", "row"}));
  app->add_option("--tile", o->tile, "ROWSxCOLS of the tile (default: the block shape; with --select tile)");
  app->add_option("--read-steps", o->read_steps, "the steps read: the middle one, the last one, or all")
      ->capture_default_str()->check(CLI::IsMember({"middle", "last", "all"}));
  return [o](int rank, int size) -> std::unique_ptr<Pattern> {
    return std::make_unique<Selection>(*o, rank, size);
  };
}

}  // namespace bench
