// shared-read: seed 003 case III. One 1-D double variable of --mib MiB, written in equal blocks
// and read whole by every rank; what matters is how many bytes the storage served.
#include "registry.h"

namespace bench {
namespace {

class SharedRead : public Pattern {
 public:
  SharedRead(uint64_t mib, int rank, int size) : mib_(mib) {
    const uint64_t n = mib * 1048576 / 8, P = static_cast<uint64_t>(size),
                   r = static_cast<uint64_t>(rank);
    vars_.push_back({"shared", {n}, {"x"}});
    const uint64_t s0 = n * r / P;
    write_ = Piece::from_box(vars_[0].shape, {s0}, {n * (r + 1) / P - s0});
    read_ = Piece::from_box(vars_[0].shape, {0}, {n});
  }
  std::string name() const override { return "shared-read"; }
  json params() const override { return {{"mib", mib_}}; }
  const std::vector<Var>& vars() const override { return vars_; }
  uint64_t steps() const override { return 1; }
  const Piece& write_piece(int) const override { return write_; }
  const Piece& read_piece(int) const override { return read_; }

 private:
  uint64_t mib_;
  std::vector<Var> vars_;
  Piece write_, read_;
};

}  // namespace

PatternBuilder setup_shared_read(CLI::App* app) {
  auto mib = std::make_shared<uint64_t>(64);
  app->add_option("--mib", *mib, "size of the shared variable in MiB")->capture_default_str()->check(CLI::PositiveNumber);
  return [mib](int rank, int size) -> std::unique_ptr<Pattern> {
    return std::make_unique<SharedRead>(*mib, rank, size);
  };
}

}  // namespace bench
