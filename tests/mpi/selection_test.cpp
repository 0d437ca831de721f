// Selections that cannot go stale (docs/api.md §2.4): a refused selection, a put with a bad box
// or a step the program fails, on one rank, fails that step on every rank in every engine;
// nothing of it is committed, no older selection is used, and the next step commits.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "test_util.h"

namespace tapio::test {
namespace {

constexpr uint64_t kPerRank = 4;

class Selections : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ASSERT_EQ(tapio_init(MPI_COMM_WORLD, nullptr, &ctx_), TAPIO_OK);
    ASSERT_EQ(tapio_declare_io(ctx_, "sel", &io_), TAPIO_OK);
    ASSERT_EQ(tapio_io_set_engine(io_, GetParam().c_str()), TAPIO_OK);
    const uint64_t shape[1] = {kPerRank * static_cast<uint64_t>(size())};
    ASSERT_EQ(tapio_define_variable(io_, "x", TAPIO_FLOAT64, 1, shape, nullptr, 0, &x_),
              TAPIO_OK);
    path_ = dir_.file(GetParam() == "subfile" ? "sel" : "sel.nc");
    ASSERT_EQ(tapio_open(io_, path_.c_str(), TAPIO_MODE_WRITE, &e_), TAPIO_OK)
        << tapio_last_error();
  }
  void TearDown() override { tapio_finalize(ctx_); }

  // Step `s` as it should be: every rank's block through its variable selection.
  void good_step(uint64_t s) {
    values_ = block_values(kPerRank, s);
    ASSERT_EQ(tapio_begin_step(e_, nullptr), TAPIO_OK);
    const Dims start = block_start(kPerRank);
    ASSERT_EQ(tapio_var_set_selection(x_, start.data(), &kPerRank), TAPIO_OK);
    ASSERT_EQ(tapio_put(e_, x_, TAPIO_FLOAT64, values_.data()), TAPIO_OK) << tapio_last_error();
    ASSERT_EQ(tapio_end_step(e_), TAPIO_OK) << tapio_last_error();
  }

  // Ends a step in which the last rank did something wrong: it fails on every rank with
  // `code`, names the rank and `what`, and commits nothing.
  void expect_failed_step(int code, const std::string& what) {
    const Outcome o = outcome(tapio_end_step(e_));
    expect_same_everywhere(o.code);
    EXPECT_EQ(o.code, code) << o.message;
    EXPECT_TRUE(contains(o.message, "step 1 is not committed")) << o.message;
    EXPECT_TRUE(contains(o.message, fmt::format("rank {}", size() - 1))) << o.message;
    EXPECT_TRUE(contains(o.message, what)) << o.message;
    uint64_t steps = 99;
    ASSERT_EQ(tapio_steps(e_, &steps), TAPIO_OK);
    EXPECT_EQ(steps, 1u);
  }

  // The file holds steps 0 and 1 exactly as good_step wrote them.
  void close_and_check() {
    ASSERT_EQ(tapio_close(e_), TAPIO_OK) << tapio_last_error();
    expect_block_steps(GetParam(), path_, kPerRank, 2, GetParam());
  }

  bool last() const { return rank() == size() - 1; }

  TempDir dir_;
  std::string path_;
  tapio_context* ctx_ = nullptr;
  tapio_io* io_ = nullptr;
  tapio_var* x_ = nullptr;
  tapio_engine* e_ = nullptr;
  std::vector<double> values_;
};

// The defect this guards: the refused selection left the previous one in place, so the put
// succeeded and the step committed with that rank's data at its step-0 place.
TEST_P(Selections, RefusedSelectionFailsTheStepInsteadOfReusingTheOldOne) {
  good_step(0);
  std::vector<double> data = block_values(kPerRank, 1);
  ASSERT_EQ(tapio_begin_step(e_, nullptr), TAPIO_OK);
  const Dims start = block_start(kPerRank);
  const uint64_t beyond = kPerRank * static_cast<uint64_t>(size()) - 1;
  if (last()) {
    EXPECT_EQ(tapio_var_set_selection(x_, &beyond, &kPerRank), TAPIO_ERR_SHAPE);
    const Outcome put = outcome(tapio_put(e_, x_, TAPIO_FLOAT64, data.data()));
    EXPECT_EQ(put.code, TAPIO_ERR_SHAPE);
    EXPECT_TRUE(contains(put.message, "its selection was refused")) << put.message;
    uint64_t n = 0;  // nor does the size a binding checks its buffer against fall back
    EXPECT_EQ(tapio_var_selection_size(x_, &n), TAPIO_ERR_SHAPE);
  } else {
    ASSERT_EQ(tapio_var_set_selection(x_, start.data(), &kPerRank), TAPIO_OK);
    ASSERT_EQ(tapio_put(e_, x_, TAPIO_FLOAT64, data.data()), TAPIO_OK);
  }
  expect_failed_step(TAPIO_ERR_SHAPE, "variable 'x'");
  good_step(1);
  close_and_check();
}

// On the first step there is no older selection: the put used the whole variable, read past
// a 4-element buffer, and the step failed with a misleading overlap (or crashed on 1 rank).
TEST_P(Selections, RefusedFirstSelectionNeverMeansTheWholeVariable) {
  std::vector<double> data = block_values(kPerRank, 0);
  ASSERT_EQ(tapio_begin_step(e_, nullptr), TAPIO_OK);
  const Dims start = last() ? Dims{kPerRank * static_cast<uint64_t>(size())}
                            : block_start(kPerRank);
  EXPECT_EQ(tapio_var_set_selection(x_, start.data(), &kPerRank),
            last() ? TAPIO_ERR_SHAPE : TAPIO_OK);
  EXPECT_EQ(tapio_put(e_, x_, TAPIO_FLOAT64, data.data()), last() ? TAPIO_ERR_SHAPE : TAPIO_OK);
  const Outcome o = outcome(tapio_end_step(e_));
  expect_same_everywhere(o.code);
  EXPECT_EQ(o.code, TAPIO_ERR_SHAPE) << o.message;
  EXPECT_TRUE(contains(o.message, "a put failed on rank")) << o.message;
  EXPECT_FALSE(contains(o.message, "overlap")) << o.message;
  good_step(0);
  good_step(1);
  close_and_check();
}

TEST_P(Selections, RefusedOffsetsFailTheStep) {
  good_step(0);
  std::vector<double> data = block_values(kPerRank, 1);
  ASSERT_EQ(tapio_begin_step(e_, nullptr), TAPIO_OK);
  const Dims start = block_start(kPerRank);
  std::vector<uint64_t> offsets(kPerRank);
  for (uint64_t i = 0; i < kPerRank; ++i)
    offsets[i] = last() ? kPerRank * static_cast<uint64_t>(size()) + i : start[0] + i;
  EXPECT_EQ(tapio_var_set_offsets(x_, kPerRank, offsets.data()),
            last() ? TAPIO_ERR_SHAPE : TAPIO_OK);
  tapio_put(e_, x_, TAPIO_FLOAT64, data.data());
  expect_failed_step(TAPIO_ERR_SHAPE, "variable 'x'");
  good_step(1);
  close_and_check();
}

// tapio_put_sel takes the box with the data and leaves the variable's selection alone.
TEST_P(Selections, PutSelBoxesAreTheirOwn) {
  good_step(0);
  std::vector<double> data = block_values(kPerRank, 1);
  const Dims start = block_start(kPerRank);
  ASSERT_EQ(tapio_begin_step(e_, nullptr), TAPIO_OK);
  const Dims bad = {kPerRank * static_cast<uint64_t>(size()) - 2};
  const Outcome put = outcome(tapio_put_sel(e_, x_, last() ? bad.data() : start.data(),
                                            &kPerRank, TAPIO_FLOAT64, data.data()));
  EXPECT_EQ(put.code, last() ? TAPIO_ERR_SHAPE : TAPIO_OK) << put.message;
  if (last()) {
    EXPECT_TRUE(contains(put.message, "exceeds")) << put.message;
  }
  expect_failed_step(TAPIO_ERR_SHAPE, "exceeds");

  ASSERT_EQ(tapio_begin_step(e_, nullptr), TAPIO_OK);
  const uint64_t zero = 0, one = 1;  // the variable's own selection: one element, unused
  ASSERT_EQ(tapio_var_set_selection(x_, &zero, &one), TAPIO_OK);
  ASSERT_EQ(tapio_put_sel(e_, x_, start.data(), &kPerRank, TAPIO_FLOAT64, data.data()),
            TAPIO_OK);
  uint64_t n = 0;
  ASSERT_EQ(tapio_var_selection_size(x_, &n), TAPIO_OK);
  EXPECT_EQ(n, 1u);
  ASSERT_EQ(tapio_end_step(e_), TAPIO_OK) << tapio_last_error();
  close_and_check();

  // get_sel reads a box of its own too, and refuses one outside the shape.
  tapio_engine* in = nullptr;
  ASSERT_EQ(tapio_open(io_, path_.c_str(), TAPIO_MODE_READ, &in), TAPIO_OK);
  std::vector<double> got(kPerRank);
  ASSERT_EQ(tapio_var_set_step_selection(x_, 1, 1), TAPIO_OK);
  EXPECT_EQ(tapio_get_sel(in, x_, bad.data(), &kPerRank, TAPIO_FLOAT64, got.data()),
            TAPIO_ERR_SHAPE);
  ASSERT_EQ(tapio_get_sel(in, x_, start.data(), &kPerRank, TAPIO_FLOAT64, got.data()), TAPIO_OK);
  ASSERT_EQ(tapio_perform_gets(in), TAPIO_OK) << tapio_last_error();
  EXPECT_EQ(got, data);
  ASSERT_EQ(tapio_close(in), TAPIO_OK);
}

TEST_P(Selections, FailStepCommitsNothingOnAnyRank) {
  good_step(0);
  std::vector<double> data = block_values(kPerRank, 1);
  const Dims start = block_start(kPerRank);
  EXPECT_EQ(tapio_fail_step(e_, TAPIO_ERR_ARG, "outside a step"), TAPIO_ERR_STATE);
  ASSERT_EQ(tapio_begin_step(e_, nullptr), TAPIO_OK);
  ASSERT_EQ(tapio_put_sel(e_, x_, start.data(), &kPerRank, TAPIO_FLOAT64, data.data()), TAPIO_OK);
  EXPECT_EQ(tapio_fail_step(e_, TAPIO_OK, "no"), TAPIO_ERR_ARG);
  if (last()) {
    ASSERT_EQ(tapio_fail_step(e_, TAPIO_ERR_SHAPE, "NaN in the ocean"), TAPIO_OK);
  }
  expect_failed_step(TAPIO_ERR_SHAPE, "NaN in the ocean");
  good_step(1);
  close_and_check();
}

// A failed step whose puts brought a new selection, then the same selection object put again:
// what the failed step added is forgotten with it and known afresh (the subfile engine finds
// a variable's selection by its object, without hashing its runs again).
TEST_P(Selections, FailedStepForgetsItsNewSelectionAndTheRetryUsesItAgain) {
  good_step(0);
  const uint64_t next = (static_cast<uint64_t>(rank()) + 1) % static_cast<uint64_t>(size());
  const Dims start{next * kPerRank};  // the next rank's block: a selection not seen before
  std::vector<double> data(kPerRank);
  for (uint64_t i = 0; i < kPerRank; ++i) data[i] = value(0, 1, start[0] + i);
  ASSERT_EQ(tapio_var_set_selection(x_, start.data(), &kPerRank), TAPIO_OK);
  for (int attempt = 0; attempt < 2; ++attempt) {
    ASSERT_EQ(tapio_begin_step(e_, nullptr), TAPIO_OK);
    ASSERT_EQ(tapio_put(e_, x_, TAPIO_FLOAT64, data.data()), TAPIO_OK);
    if (attempt == 1) {
      ASSERT_EQ(tapio_end_step(e_), TAPIO_OK) << tapio_last_error();
      continue;
    }
    if (last()) {
      ASSERT_EQ(tapio_fail_step(e_, TAPIO_ERR_SHAPE, "try again"), TAPIO_OK);
    }
    expect_failed_step(TAPIO_ERR_SHAPE, "try again");
  }
  close_and_check();
}

INSTANTIATE_TEST_SUITE_P(Engines, Selections,
                         ::testing::Values("serial", "mpiio", "collective", "subfile"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tapio::test
