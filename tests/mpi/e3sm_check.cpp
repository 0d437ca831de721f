#include "e3sm_check.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "test_util.h"

namespace tapio::test {

void expect_whole_e3sm_step(IO& io, Engine& in, const std::vector<e3sm::Decomposition>& decomps,
                            uint64_t step, const std::string& label) {
  in.begin_step();
  std::vector<std::vector<double>> whole(decomps.size());
  for (size_t k = 0; k < decomps.size(); ++k) {
    Variable v = io.inquire_variable(decomps[k].name);
    whole[k].resize(v.selection_size());
    in.get(v, whole[k]);
  }
  in.end_step();
  for (size_t k = 0; k < decomps.size(); ++k) {
    // Which elements are covered: the union of every rank's runs.
    std::vector<uint8_t> covered(whole[k].size(), 0);
    for (size_t i = 0; i < decomps[k].offsets.size(); ++i)
      std::fill_n(covered.begin() + decomps[k].offsets[i], decomps[k].lengths[i], 1);
    MPI_Allreduce(MPI_IN_PLACE, covered.data(), static_cast<int>(covered.size()), MPI_UINT8_T,
                  MPI_MAX, MPI_COMM_WORLD);
    for (uint64_t g = 0; g < whole[k].size(); ++g) {
      const double want =
          covered[g] ? value(static_cast<int>(k), step, g) : 9.9692099683868690e+36;
      ASSERT_EQ(whole[k][g], want) << label << " " << decomps[k].name << " " << g;
    }
  }
}

}  // namespace tapio::test
