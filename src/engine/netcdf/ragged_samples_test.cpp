// RaggedSamples, pure: where each step's rows go, the header a file shows, and how the room
// grows without overwriting anything the old header points to.
#include "engine/netcdf/ragged_samples.h"

#include <gtest/gtest.h>

#include "engine/netcdf/netcdf_dataset.h"

namespace tapio {
namespace {

VariableDef variable(const std::string& name, DataType type, std::vector<uint64_t> shape,
                     std::vector<std::string> dims, bool joined, bool record) {
  VariableDef v;
  v.name = name;
  v.type = type;
  v.shape = std::move(shape);
  v.dim_names = std::move(dims);
  v.joined = joined;
  v.record = record || joined;
  return v;
}

// grid (fixed), pos (joined n x 3) and w (joined n) over `particle`, temp (record), ion (joined,
// another sample dimension), mask (fixed, after both).
IoDef particles() {
  IoDef io;
  io.vars.push_back(variable("grid", TAPIO_INT32, {4}, {"x"}, false, false));
  io.vars.push_back(variable("pos", TAPIO_FLOAT64, {0, 3}, {"particle", "xyz"}, true, true));
  io.vars.push_back(variable("w", TAPIO_FLOAT32, {0}, {"particle"}, true, true));
  io.vars.push_back(variable("temp", TAPIO_FLOAT64, {4}, {"x"}, false, true));
  io.vars.push_back(variable("ion", TAPIO_FLOAT64, {0}, {"ion_sample"}, true, true));
  io.vars.push_back(variable("mask", TAPIO_INT32, {4}, {"x"}, false, false));
  return io;
}

TEST(RaggedSamples, WritingReservesRoomAndShowsTheCommittedLength) {
  netcdf::Header h;
  netcdf::LayoutOptions layout;
  layout.data_align = 4;
  auto r = RaggedSamples::for_writing(particles(), 5, layout, 280, &h);  // 10 rows of 28 bytes
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(h.vars.size(), 8u);  // the program's six, then particle_count and ion_sample_count
  EXPECT_EQ(h.vars[6].name, "particle_count");
  EXPECT_EQ(h.vars[7].name, "ion_sample_count");
  EXPECT_TRUE(r->is_joined(1) && r->is_joined(2) && r->is_joined(4));
  EXPECT_FALSE(r->is_joined(0) || r->is_joined(3) || r->is_joined(5));
  EXPECT_TRUE(r->is_count(6) && r->is_count(7) && !r->is_count(1));
  // The room: 10 rows of pos (240 bytes) then 10 of w, in memory; on disk 1 row until written.
  EXPECT_EQ(h.dims[h.find_dim("particle")].length, 10u);
  EXPECT_EQ(h.vars[2].begin - h.vars[1].begin, 240u);
  netcdf::Header shown = r->on_disk(h);
  EXPECT_EQ(shown.dims[shown.find_dim("particle")].length, 1u);
  EXPECT_EQ(shown.vars[1].vsize, 24u);
  EXPECT_EQ(shown.vars[1].begin, h.vars[1].begin);
  // Steps of 4 and 3 rows.
  auto rows = r->step_rows(h, [](int v) { return v == 4 ? uint64_t{2} : uint64_t{4}; }, 0);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(*rows, (std::vector<uint64_t>{4, 2}));
  r->commit(*rows);
  r->commit({3, 0});
  EXPECT_EQ(r->rows_before(1, 1), 4u);
  EXPECT_EQ(r->rows_at(2, 1), 3u);
  EXPECT_EQ(r->rows_before(1, 2), 7u);  // the step being written
  EXPECT_EQ(r->rows_before(0, 2), 0u);  // not joined
  shown = r->on_disk(h);
  EXPECT_EQ(shown.dims[shown.find_dim("particle")].length, 7u);
  EXPECT_EQ(shown.dims[shown.find_dim("ion_sample")].length, 2u);
  EXPECT_EQ(shown.vars[2].vsize, 28u);
  std::vector<RaggedSamples::Count> counts = r->last_counts();
  ASSERT_EQ(counts.size(), 2u);
  EXPECT_EQ(counts[0].var, 6);
  EXPECT_EQ(counts[0].value[7], 3);  // big-endian 3
  EXPECT_EQ(counts[1].value[7], 0);
  r->rollback();
  EXPECT_EQ(r->rows_before(1, 5), 4u);
}

TEST(RaggedSamples, VariablesOfOneSampleDimensionMustAgree) {
  netcdf::Header h;
  auto r = RaggedSamples::for_writing(particles(), 5, {}, 1 << 20, &h);
  ASSERT_TRUE(r.ok());
  auto rows = r->step_rows(h, [](int v) { return v == 2 ? uint64_t{5} : uint64_t{4}; }, 3);
  EXPECT_EQ(rows.status().code(), TAPIO_ERR_SHAPE);
  EXPECT_NE(rows.status().message().find("'pos' and 'w'"), std::string::npos)
      << rows.status().message();
  EXPECT_NE(rows.status().message().find("step 3"), std::string::npos);
}

TEST(RaggedSamples, ACountVariableOfTheProgramsOwnIsRefused) {
  IoDef io = particles();
  VariableDef mine = variable("n", TAPIO_INT64, {}, {}, false, true);
  mine.attrs.push_back(Attribute{"sample_dimension", TAPIO_CHAR, {'p', 'a', 'r', 't', 'i', 'c',
                                                                  'l', 'e'}});
  io.vars.insert(io.vars.begin(), mine);
  netcdf::Header h;
  auto r = RaggedSamples::for_writing(io, 5, {}, 1 << 20, &h);
  EXPECT_EQ(r.status().code(), TAPIO_ERR_ARG);
  EXPECT_NE(r.status().message().find("'n'"), std::string::npos);
}

// Growth, for every committed length and step size: the room at least doubles; what moves
// lands past the old data; what does not move keeps its place; the rows fit.
TEST(RaggedSamples, GrowthNeverOverwritesWhatTheOldHeaderPointsTo) {
  for (uint64_t align : {4u, 512u}) {
    for (uint64_t committed = 0; committed < 40; committed += 7) {
      for (uint64_t more = 1; more < 200; more += 13) {
        netcdf::Header h;
        netcdf::LayoutOptions layout;
        layout.data_align = align;
        auto r = RaggedSamples::for_writing(particles(), 5, layout, 280, &h);
        ASSERT_TRUE(r.ok());
        uint64_t done = 0;
        while (done < committed) {  // commit in steps that fit, growing as the engine does
          const uint64_t n = std::min<uint64_t>(9, committed - done);
          auto g = r->grown(h, {n, 1}, layout, data_end_of(h));
          ASSERT_TRUE(g.ok());
          if (g->has_value()) {
            h = **g;
            r->reserve_as(h);
          }
          r->commit({n, 1});
          h.numrecs += 1;
          done += n;
        }
        const uint64_t room = h.dims[h.find_dim("particle")].length;
        netcdf::Header writing = h;  // the step being written may have records in the file
        writing.numrecs += 1;
        const uint64_t end = data_end_of(writing);
        auto g = r->grown(h, {more, 1}, layout, end);
        ASSERT_TRUE(g.ok()) << g.status().message();
        SCOPED_TRACE(testing::Message() << "align " << align << ", committed " << committed
                                        << ", more " << more);
        if (committed + more <= room) {
          EXPECT_FALSE(g->has_value());
          continue;
        }
        ASSERT_TRUE(g->has_value());
        const netcdf::Header& to = **g;
        EXPECT_GE(to.dims[to.find_dim("particle")].length, std::max(2 * room, committed + more));
        for (size_t v = 0; v < h.vars.size(); ++v) {
          if (to.vars[v].begin != h.vars[v].begin) {
            EXPECT_GE(to.vars[v].begin, end) << v;
          }
        }
        EXPECT_EQ(to.vars[0].begin, h.vars[0].begin);  // before the grown room: stays
        EXPECT_EQ(to.vars[1].begin, h.vars[1].begin);  // the first over it: stays
        // What moves comes from the old data and lands past it: w (committed rows and 3 of
        // this step's), temp's records, ion and mask, but not grid or pos.
        const auto moves = r->moves(h, to, [](int) { return uint64_t{3}; }, h.numrecs);
        ASSERT_EQ(moves.size(), 4u);
        for (const RaggedSamples::Move& m : moves) {
          EXPECT_LE(m.from + m.bytes, end);
          EXPECT_GE(m.to, end);
        }
        EXPECT_EQ(moves[0].from, h.vars[2].begin);
        EXPECT_EQ(moves[0].bytes, (committed + 3) * 4);  // w is float32
        EXPECT_EQ(moves[3].bytes, (h.numrecs + 1) * h.record_size());
      }
    }
  }
}

TEST(RaggedSamples, ReadingTakesTheCountsAndChecksThem) {
  netcdf::Header h;
  auto w = RaggedSamples::for_writing(particles(), 5, {}, 1 << 20, &h);
  ASSERT_TRUE(w.ok());
  h = w->on_disk(h);
  h.dims[h.find_dim("particle")].length = 9;
  h.numrecs = 3;
  auto r = RaggedSamples::for_reading(h, [](int var) -> Result<std::vector<int64_t>> {
    if (var == 6) return std::vector<int64_t>{4, 0, 5};
    return std::vector<int64_t>{1, 0, 0};
  });
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->rows_at(1, 0), 4u);
  EXPECT_EQ(r->rows_at(1, 1), 0u);
  EXPECT_EQ(r->rows_before(2, 2), 4u);
  EXPECT_EQ(r->rows_at(2, 2), 5u);
  EXPECT_EQ(r->rows_at(4, 0), 1u);
  auto over = RaggedSamples::for_reading(h, [](int) -> Result<std::vector<int64_t>> {
    return std::vector<int64_t>{4, 6, 0};
  });
  EXPECT_EQ(over.status().code(), TAPIO_ERR_FORMAT);
  EXPECT_NE(over.status().message().find("particle_count"), std::string::npos)
      << over.status().message();
  auto negative = RaggedSamples::for_reading(h, [](int) -> Result<std::vector<int64_t>> {
    return std::vector<int64_t>{-1, 0, 0};
  });
  EXPECT_EQ(negative.status().code(), TAPIO_ERR_FORMAT);
}

}  // namespace
}  // namespace tapio
