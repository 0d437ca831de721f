#include "engine/netcdf/ragged_samples.h"

#include <algorithm>
#include <map>

#include "format/netcdf/ragged.h"
#include "format/netcdf/schema.h"

namespace tapio {

// When the room grows, it takes this many more steps like the one that outgrew it: a step's
// rows are the best guess of the next steps', and room costs only a hole in the file, while
// each growth after data was written moves that data.
constexpr uint64_t kStepsAhead = 8;

Result<RaggedSamples> RaggedSamples::for_writing(const IoDef& io, int version,
                                                 const netcdf::LayoutOptions& layout,
                                                 uint64_t reserve, netcdf::Header* h) {
  std::map<std::string, uint64_t> row_bytes;  // per sample dimension: one row of every variable
  for (const VariableDef& v : io.vars) {
    if (!v.joined) continue;
    uint64_t bytes = type_size(v.type);
    for (size_t d = 1; d < v.shape.size(); ++d) bytes *= v.shape[d];
    row_bytes[v.dim_names[0]] += bytes;
  }
  std::map<std::string, uint64_t> capacity;
  for (const auto& [dim, bytes] : row_bytes)
    capacity[dim] = std::max<uint64_t>(1, reserve / std::max<uint64_t>(bytes, 1));
  TAPIO_ASSIGN_OR_RETURN(IoDef defs, netcdf::ragged_definitions(io, capacity));
  for (size_t i = 0; i < io.vars.size(); ++i)
    if (i >= defs.vars.size() || defs.vars[i].name != io.vars[i].name)
      return error(TAPIO_ERR_ARG, "variable '{}' counts a sample dimension that tapio counts "
                   "itself (its attribute sample_dimension names a joined variable's first "
                   "dimension): remove it", io.vars[i].name);
  TAPIO_ASSIGN_OR_RETURN(*h, netcdf::header_from_io(defs, version));
  TAPIO_RETURN_IF_ERROR(netcdf::compute_layout(*h, layout));
  RaggedSamples r;
  for (const netcdf::SampleDim& s : netcdf::sample_dims(*h))
    if (static_cast<size_t>(s.count_var) >= io.vars.size())  // tapio's, not a program's
      r.dims_.push_back(Dim{s.dimid, s.count_var, h->dims[s.dimid].length, {}});
  r.index_vars(*h);
  return r;
}

Result<RaggedSamples> RaggedSamples::for_reading(
    const netcdf::Header& h, const std::function<Result<std::vector<int64_t>>(int)>& counts) {
  RaggedSamples r;
  for (const netcdf::SampleDim& s : netcdf::sample_dims(h)) {
    TAPIO_ASSIGN_OR_RETURN(std::vector<int64_t> values, counts(s.count_var));
    Dim d{s.dimid, s.count_var, 0, {}};
    const netcdf::Dim& dim = h.dims[s.dimid];
    uint64_t end = 0;
    for (size_t rec = 0; rec < values.size(); ++rec) {
      if (values[rec] < 0 || static_cast<uint64_t>(values[rec]) > dim.length - end)
        return error(TAPIO_ERR_FORMAT, "count variable '{}' gives {} samples at step {} after {}, "
                     "but sample dimension '{}' has {}", h.vars[s.count_var].name, values[rec],
                     rec, end, dim.name, dim.length);
      end += static_cast<uint64_t>(values[rec]);
      d.ends.push_back(end);
    }
    r.dims_.push_back(std::move(d));
  }
  r.index_vars(h);
  return r;
}

void RaggedSamples::index_vars(const netcdf::Header& h) {
  dim_of_var_.assign(h.vars.size(), -1);
  for (size_t v = 0; v < h.vars.size(); ++v) {
    const netcdf::Var& nv = h.vars[v];
    if (h.is_record(nv) || nv.dimids.empty()) continue;
    for (size_t k = 0; k < dims_.size(); ++k)
      if (dims_[k].dimid == nv.dimids[0]) dim_of_var_[v] = static_cast<int>(k);
  }
}

bool RaggedSamples::is_count(int var) const {
  return std::any_of(dims_.begin(), dims_.end(), [&](const Dim& d) { return d.count_var == var; });
}

uint64_t RaggedSamples::rows_before(int var, uint64_t step) const {
  const int k = dim_of(var);
  if (k < 0 || step == 0) return 0;
  const std::vector<uint64_t>& ends = dims_[k].ends;
  return ends.empty() ? 0 : ends[std::min<uint64_t>(step, ends.size()) - 1];
}

uint64_t RaggedSamples::rows_at(int var, uint64_t step) const {
  const int k = dim_of(var);
  if (k < 0 || step >= dims_[k].ends.size()) return 0;
  return dims_[k].ends[step] - rows_before(var, step);
}

Result<std::vector<uint64_t>> RaggedSamples::step_rows(
    const netcdf::Header& h, const std::function<uint64_t(int)>& rows_of_var,
    uint64_t step) const {
  std::vector<uint64_t> rows(dims_.size(), 0);
  std::vector<int> owner(dims_.size(), -1);  // the variable whose rows were taken first
  for (size_t v = 0; v < dim_of_var_.size(); ++v) {
    const int k = dim_of_var_[v];
    if (k < 0) continue;
    const uint64_t n = rows_of_var(static_cast<int>(v));
    if (owner[k] < 0) {
      owner[k] = static_cast<int>(v);
      rows[k] = n;
    } else if (rows[k] != n) {
      return error(TAPIO_ERR_SHAPE,
                   "joined variables '{}' and '{}' share sample dimension '{}' but hold {} and {} "
                   "rows at step {}: one count variable describes both (put as many rows of each, "
                   "or give them different first dimension names)",
                   h.vars[owner[k]].name, h.vars[v].name, h.dims[dims_[k].dimid].name, rows[k],
                   n, step);
    }
  }
  return rows;
}

std::vector<uint64_t> RaggedSamples::rows_by_dim(
    const std::function<uint64_t(int)>& rows_of_var) const {
  std::vector<uint64_t> rows(dims_.size(), 0);
  for (size_t v = 0; v < dim_of_var_.size(); ++v)
    if (dim_of_var_[v] >= 0)
      rows[dim_of_var_[v]] = std::max(rows[dim_of_var_[v]], rows_of_var(static_cast<int>(v)));
  return rows;
}

Result<std::optional<netcdf::Header>> RaggedSamples::grown(const netcdf::Header& h,
                                                           const std::vector<uint64_t>& rows,
                                                           const netcdf::LayoutOptions& layout,
                                                           uint64_t data_end) const {
  std::vector<size_t> grow;
  for (size_t k = 0; k < dims_.size(); ++k)
    if (rows[k] > dims_[k].capacity - dims_[k].end()) grow.push_back(k);
  if (grow.empty()) return std::optional<netcdf::Header>();
  netcdf::Header out = h;
  for (size_t k : grow)  // room for this step and 8 more like it, or twice the room
    out.dims[dims_[k].dimid].length =
        std::max(2 * dims_[k].capacity, dims_[k].end() + (1 + kStepsAhead) * rows[k]);
  while (true) {
    TAPIO_RETURN_IF_ERROR(netcdf::compute_layout(out, layout));
    bool clear = true;  // every moved variable starts past the old data
    for (size_t v = 0; v < out.vars.size(); ++v)
      clear = clear && (out.vars[v].begin == h.vars[v].begin || out.vars[v].begin >= data_end);
    if (clear) return std::optional<netcdf::Header>(std::move(out));
    for (size_t k : grow) out.dims[dims_[k].dimid].length *= 2;
  }
}

std::vector<RaggedSamples::Move> RaggedSamples::moves(
    const netcdf::Header& from, const netcdf::Header& to,
    const std::function<uint64_t(int)>& written_of_var, uint64_t step) const {
  std::vector<Move> out;
  int first_record = -1;
  for (size_t v = 0; v < from.vars.size(); ++v) {
    const netcdf::Var& nv = from.vars[v];
    if (from.is_record(nv)) {
      if (first_record < 0) first_record = static_cast<int>(v);
      continue;
    }
    if (to.vars[v].begin == nv.begin) continue;
    uint64_t bytes = from.elements(nv) * netcdf::nc_type_size(nv.type);
    if (dim_of(static_cast<int>(v)) >= 0) {
      const uint64_t rows =
          rows_before(static_cast<int>(v), step) + written_of_var(static_cast<int>(v));
      bytes = bytes / from.dims[nv.dimids[0]].length * rows;
    }
    out.push_back(Move{nv.begin, to.vars[v].begin, bytes});
  }
  if (first_record >= 0 && to.vars[first_record].begin != from.vars[first_record].begin)
    out.push_back(Move{from.vars[first_record].begin, to.vars[first_record].begin,
                       (step + 1) * from.record_size()});
  return out;
}

void RaggedSamples::take_room(netcdf::Header* h) {
  std::vector<uint64_t> rooms(dims_.size(), UINT64_MAX);
  for (size_t v = 0; v < h->vars.size(); ++v) {
    const int k = dim_of(static_cast<int>(v));  // none in a file without ragged arrays
    if (k < 0) continue;
    const netcdf::Var& nv = h->vars[v];
    uint64_t next = UINT64_MAX;  // where the next variable's data (or the record section) starts
    for (const netcdf::Var& other : h->vars)
      if (other.begin > nv.begin) next = std::min(next, other.begin);
    const uint64_t row = h->elements(nv) / h->dims[nv.dimids[0]].length *
                         netcdf::nc_type_size(nv.type);
    if (next != UINT64_MAX && row > 0) rooms[k] = std::min(rooms[k], (next - nv.begin) / row);
  }
  for (size_t k = 0; k < dims_.size(); ++k) {
    Dim& d = dims_[k];
    d.capacity = std::max(rooms[k] == UINT64_MAX ? d.end() : rooms[k], d.end());
    h->dims[d.dimid].length = d.capacity;
  }
}

void RaggedSamples::reserve_as(const netcdf::Header& h) {
  for (Dim& d : dims_) d.capacity = h.dims[d.dimid].length;
}

void RaggedSamples::commit(const std::vector<uint64_t>& rows) {
  for (size_t k = 0; k < dims_.size(); ++k) dims_[k].ends.push_back(dims_[k].end() + rows[k]);
}

void RaggedSamples::rollback() {
  for (Dim& d : dims_)
    if (!d.ends.empty()) d.ends.pop_back();
}

netcdf::Header RaggedSamples::on_disk(const netcdf::Header& h) const {
  netcdf::Header out = h;
  for (const Dim& d : dims_) out.dims[d.dimid].length = std::max<uint64_t>(d.end(), 1);
  for (size_t v = 0; v < out.vars.size(); ++v)
    if (dim_of(static_cast<int>(v)) >= 0)
      out.vars[v].vsize = netcdf::compute_vsize(out, out.vars[v]).value();
  return out;
}

std::vector<RaggedSamples::Count> RaggedSamples::last_counts() const {
  std::vector<Count> out;
  for (const Dim& d : dims_) {
    const size_t n = d.ends.size();
    const uint64_t before = n > 1 ? d.ends[n - 2] : 0;
    const auto value = static_cast<int64_t>(n == 0 ? 0 : d.ends[n - 1] - before);
    Count c;
    c.var = d.count_var;
    host_to_big_endian(c.value, &value, 1, sizeof value);
    out.push_back(c);
  }
  return out;
}

bool RaggedSamples::never_written(int var) const {
  const int k = dim_of(var);
  return k >= 0 && dims_[k].end() == 0;
}

}  // namespace tapio
