// particles: openPMD-like particle output, one species. Seven 1-D double joined arrays (the
// position x, y, z, the momentum ux, uy, uz and the weight); every rank holds its own particles,
// a count that changes from step to step as particles cross between ranks: `particles` per rank
// on average, +-50%, from a hash of (rank, step), and none on the last rank in step 1 (all its
// particles left) when there are two ranks or more. A step's array is the ranks' particles one
// after another in rank order (tapio's TAPIO_VAR_JOINED, ADIOS2's JoinedDim). Read back either
// by each rank its own particles (own: a restart) or as the step's particles cut into equal
// ranges (even: an analysis reader with its own decomposition, whose ranges cross the writers').
#include <algorithm>

#include "registry.h"

namespace bench {
namespace {

struct ParticlesArgs {
  uint64_t particles = 200000, steps = 5;
  std::string reader = "own";
};

// splitmix64's finaliser: every rank computes every rank's counts, without messages.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

class Particles : public Pattern {
 public:
  Particles(const ParticlesArgs& o, int rank, int size) : o_(o) {
    for (const char* n : {"x", "y", "z", "ux", "uy", "uz", "weight"})
      vars_.push_back({n, {0}, {"particle"}, true});
    const uint64_t P = static_cast<uint64_t>(size), me = static_cast<uint64_t>(rank);
    for (uint64_t s = 0; s < o.steps; ++s) {
      uint64_t before = 0, total = 0;
      for (uint64_t r = 0; r < P; ++r) {
        const uint64_t n = count(r, s, P);
        before += r < me ? n : 0;
        total += n;
        least_ = std::min(least_, n);
        most_ = std::max(most_, n);
      }
      totals_.push_back(total);
      write_.push_back(Piece::from_box({total}, {before}, {count(me, s, P)}));
      const uint64_t first = total * me / P;
      if (o.reader == "even")
        read_.push_back(Piece::from_box({total}, {first}, {total * (me + 1) / P - first}));
    }
  }
  std::string name() const override { return "particles"; }
  json params() const override {
    return {{"particles", o_.particles}, {"steps", o_.steps}, {"reader", o_.reader},
            {"vars", vars_.size()}, {"particles_per_step", totals_},
            {"rank_step_min", least_}, {"rank_step_max", most_}};
  }
  const std::vector<Var>& vars() const override { return vars_; }
  uint64_t steps() const override { return o_.steps; }
  const Piece& write_piece(int) const override {
    throw BenchError("particles: the pieces change by step (step_write_piece)");
  }
  const Piece& step_write_piece(int, uint64_t s) const override { return write_[s]; }
  // own: the very piece written, which tells raw that a rank reads back its own file.
  const Piece& step_read_piece(int, uint64_t s) const override {
    return read_.empty() ? write_[s] : read_[s];
  }
  Dims step_shape(int, uint64_t s) const override { return {totals_[s]}; }

 private:
  uint64_t count(uint64_t rank, uint64_t step, uint64_t ranks) const {
    if (ranks >= 2 && rank == ranks - 1 && step == std::min<uint64_t>(1, o_.steps - 1)) return 0;
    const uint64_t mean = o_.particles;
    return mean / 2 + mix(rank << 32 ^ step) % (mean + 1);
  }

  ParticlesArgs o_;
  std::vector<Var> vars_;
  std::vector<Piece> write_, read_;  // per step, the same for every variable; read_: even only
  std::vector<uint64_t> totals_;
  uint64_t least_ = UINT64_MAX, most_ = 0;
};

}  // namespace

PatternBuilder setup_particles(CLI::App* app) {
  auto o = std::make_shared<ParticlesArgs>();
  app->add_option("--particles", o->particles, "particles per rank per step on average (+-50%)")
      ->capture_default_str()->check(CLI::PositiveNumber);
  app->add_option("--steps", o->steps, "steps")->capture_default_str()->check(CLI::PositiveNumber);
  app->add_option("--reader", o->reader,
                  "own: each rank reads its own particles back; even: the step's particles in "
                  "equal ranges, crossing the writers' blocks")
      ->capture_default_str()->check(CLI::IsMember({"own", "even"}));
  return [o](int rank, int size) -> std::unique_ptr<Pattern> {
    return std::make_unique<Particles>(*o, rank, size);
  };
}

}  // namespace bench
