// The joined variables of a NetCDF file, stored as CF contiguous ragged arrays
// (format/netcdf/ragged.h): where each step's rows lie along its sample dimension, and, while
// writing, the rows the file reserves for each sample dimension so that it grows in place while
// the record section streams after it (docs/design.md, "Joined arrays in NetCDF files").
// Every rank holds the same copy; the caller does the I/O.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/model.h"
#include "core/status.h"
#include "format/netcdf/header.h"
#include "format/netcdf/layout.h"

namespace tapio {

class RaggedSamples {
 public:
  // Write: the header of `io`'s definitions, laid out with `layout`, each joined variable a
  // fixed variable over its sample dimension and each sample dimension counted by a record
  // variable after all of `io`'s (so that variable i of `io` is variable i of the header).
  // Each sample dimension reserves `reserve` bytes of rows (at least one row); in the header
  // kept in memory it has that length, which the engines' planning sees.
  static Result<RaggedSamples> for_writing(const IoDef& io, int version,
                                           const netcdf::LayoutOptions& layout, uint64_t reserve,
                                           netcdf::Header* h);
  // Read: the sample dimensions of `h` and each one's counts over the records: `counts(var)`
  // reads count variable `var`'s values, one per record. TAPIO_ERR_FORMAT for a negative
  // count or counts whose sum exceeds the dimension.
  static Result<RaggedSamples> for_reading(
      const netcdf::Header& h, const std::function<Result<std::vector<int64_t>>(int)>& counts);

  bool empty() const { return dims_.empty(); }
  // Whether header variable `var` lies over a sample dimension.
  bool is_joined(int var) const { return dim_of(var) >= 0; }
  bool is_count(int var) const;
  // Where joined variable `var`'s rows of a committed `step` (or of the step after the last
  // committed one) start, and how many it has.
  uint64_t rows_before(int var, uint64_t step) const;
  uint64_t rows_at(int var, uint64_t step) const;

  // Write: each sample dimension's rows in a step, given each joined variable's (which may
  // not differ between variables that share a dimension: TAPIO_ERR_SHAPE). The engine grows
  // the reservations before the rows are written (grown).
  Result<std::vector<uint64_t>> step_rows(const netcdf::Header& h,
                                          const std::function<uint64_t(int)>& rows_of_var,
                                          uint64_t step) const;
  // Write: when the rows committed plus `rows` more (the step's so far, per sample dimension,
  // as step_rows orders them) exceed a reservation, `h` laid out again with larger
  // reservations: each grown one to twice its size or to hold this step and 8 more like it,
  // whichever is more, and all of them grown further until every variable that moves starts
  // at or after `data_end` (the end of the file's data), so that moving the data overwrites
  // none of it before the new header points to it. nullopt when everything fits.
  Result<std::optional<netcdf::Header>> grown(const netcdf::Header& h,
                                              const std::vector<uint64_t>& rows,
                                              const netcdf::LayoutOptions& layout,
                                              uint64_t data_end) const;
  // Write: the data that growing `from` into `to` (grown's) moves, in file bytes: every fixed
  // variable whose begin changed (a joined one: its rows committed before `step` plus
  // `written_of_var` more, written by the step's earlier batches), and the record section when
  // it moved (records up to and including `step`; past the file's end nothing is read).
  struct Move {
    uint64_t from = 0, to = 0, bytes = 0;
  };
  std::vector<Move> moves(const netcdf::Header& from, const netcdf::Header& to,
                          const std::function<uint64_t(int)>& written_of_var,
                          uint64_t step) const;
  // Write: the reservations of `h` (after grown).
  void reserve_as(const netcdf::Header& h);
  // Append, after for_reading: each sample dimension's room is the rows its variables' layout
  // leaves before whatever follows each of them in the file (at least the rows committed);
  // `h`, read from the file, gets it as the dimension's length, as for_writing's does.
  void take_room(netcdf::Header* h);
  // Write: each sample dimension's rows in the step so far (`rows_of_var`, as step_rows takes
  // it, without the reservation check).
  std::vector<uint64_t> rows_by_dim(const std::function<uint64_t(int)>& rows_of_var) const;

  // Write: the step whose rows step_rows gave is committed; rollback undoes the last commit
  // (the step failed after all).
  void commit(const std::vector<uint64_t>& rows);
  void rollback();
  // Write: the header as the file shows it once the committed steps are: each sample
  // dimension at its committed length (1 while it has none, since NetCDF's 0 is the unlimited
  // length) and its variables' vsize to match. The begins stay where `h` reserved them.
  netcdf::Header on_disk(const netcdf::Header& h) const;
  // Write: the count variables and the values of the last committed step, big-endian int64.
  struct Count {
    int var = -1;
    uint8_t value[8];
  };
  std::vector<Count> last_counts() const;
  // Write, a joined variable nobody wrote in any step: the row its placeholder length holds.
  bool never_written(int var) const;

 private:
  struct Dim {
    int dimid = -1;
    int count_var = -1;
    uint64_t capacity = 0;       // write: rows reserved
    std::vector<uint64_t> ends;  // committed steps: rows up to the end of each
    uint64_t end() const { return ends.empty() ? 0 : ends.back(); }
  };
  int dim_of(int var) const {
    return var >= 0 && static_cast<size_t>(var) < dim_of_var_.size() ? dim_of_var_[var] : -1;
  }
  void index_vars(const netcdf::Header& h);

  std::vector<Dim> dims_;
  std::vector<int> dim_of_var_;  // per header variable: its sample dimension in dims_, or -1
};

}  // namespace tapio
