// tapio dump: the values of one variable (whole, or a box; one step or all of them), read one
// contiguous run at a time from a NetCDF file, or from a tapio dataset through the API a slab of
// the box's first dimension at a time. Text rows start with their indices, as `ncdump -b c`
// annotates them ("temp(1,0, 4-7) = ..."); JSON is nested arrays.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>

#include "commands.h"
#include "core/types.h"
#include "dataset.h"
#include "input.h"
#include "plan/selection.h"
#include "print_values.h"

namespace tapio::cli {
namespace {

using netcdf::Var;

constexpr uint64_t kMaxReadBytes = uint64_t{4} << 20;  // longer runs are read in pieces

// What to print: a box of the variable's shape (without the record dimension) at the steps
// [first, last) (first = 0, last = 1 for a fixed variable).
struct Request {
  const Var* var = nullptr;
  std::vector<uint64_t> shape;
  plan::Selection box;
  uint64_t first = 0, last = 1;
};

std::string where(const Input& in, const Var& v) {
  return fmt::format("file '{}': variable '{}'", in.path, v.name);
}

Result<uint64_t> parse_uint(const std::string& what, const std::string& text) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  while (begin < end && *begin == ' ') ++begin;
  while (end > begin && end[-1] == ' ') --end;
  uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(begin, end, value);
  if (begin == end || ec != std::errc() || ptr != end)
    return error(TAPIO_ERR_ARG, "{}: '{}' is not a non-negative integer", what, text);
  return value;
}

Result<std::vector<uint64_t>> parse_list(const std::string& what, const std::string& text) {
  std::vector<uint64_t> out;
  if (text.empty()) return out;
  size_t pos = 0;
  while (true) {
    const size_t comma = text.find(',', pos);
    TAPIO_ASSIGN_OR_RETURN(const uint64_t value, parse_uint(what, text.substr(pos, comma - pos)));
    out.push_back(value);
    if (comma == std::string::npos) return out;
    pos = comma + 1;
  }
}

// Names of v's dimensions without the record dimension, for messages and JSON.
std::vector<std::string> box_dim_names(const Input& in, const Var& v) {
  std::vector<std::string> names;
  for (size_t i = in.header.is_record(v) ? 1 : 0; i < v.dimids.size(); ++i)
    names.push_back(in.header.dims[size_t(v.dimids[i])].name);
  return names;
}

Result<std::vector<uint64_t>> parse_entries(const Input& in, const Var& v, const char* option,
                                            const std::string& text) {
  Result<std::vector<uint64_t>> parsed = parse_list(option, text);
  if (!parsed.ok()) return parsed.status().with_context(where(in, v));
  std::vector<uint64_t> values = std::move(parsed).value();
  const std::vector<std::string> names = box_dim_names(in, v);
  if (values.size() == names.size()) return values;
  std::string expected = names.empty() ? "none" : fmt::format("{} ({})", names.size(),
                                                              fmt::join(names, ", "));
  if (in.header.is_record(v)) expected += "; the record dimension is chosen with --step";
  return error(TAPIO_ERR_ARG, "{}: {} has {} entr{}, expected {}", where(in, v), option,
               values.size(), values.size() == 1 ? "y" : "ies", expected);
}

Status check_box(const Input& in, const Var& v, const std::vector<uint64_t>& shape,
                 const std::vector<uint64_t>& start, const std::vector<uint64_t>& count) {
  const std::vector<std::string> names = box_dim_names(in, v);
  for (size_t d = 0; d < shape.size(); ++d) {
    if (start[d] >= shape[d] && count[d] > 0) {
      return error(TAPIO_ERR_SHAPE, "{}: start {} is outside dimension '{}' of length {}",
                   where(in, v), start[d], names[d], shape[d]);
    }
    if (start[d] > shape[d] || count[d] > shape[d] - start[d]) {
      return error(TAPIO_ERR_SHAPE,
                   "{}: start {} + count {} is outside dimension '{}' of length {}", where(in, v),
                   start[d], count[d], names[d], shape[d]);
    }
  }
  return ok_status();
}

Result<plan::Selection> make_box(const Input& in, const Var& v, const DumpOptions& o,
                                 const std::vector<uint64_t>& shape) {
  std::vector<uint64_t> start(shape.size(), 0);
  if (o.start) {
    TAPIO_ASSIGN_OR_RETURN(start, parse_entries(in, v, "--start", *o.start));
  }
  std::vector<uint64_t> count(shape.size());
  if (o.count) {
    TAPIO_ASSIGN_OR_RETURN(count, parse_entries(in, v, "--count", *o.count));
  } else {  // to the end of each dimension (at least 1, so that a start past the end fails)
    for (size_t d = 0; d < shape.size(); ++d)
      count[d] = start[d] < shape[d] ? shape[d] - start[d] : 1;
  }
  TAPIO_RETURN_IF_ERROR(check_box(in, v, shape, start, count));
  return plan::Selection::box(std::move(start), std::move(count));
}

Status pick_steps(const Input& in, const Var& v, const DumpOptions& o, Request* r) {
  if (!in.header.is_record(v)) {
    if (o.step)
      return error(TAPIO_ERR_ARG, "{}: --step applies to record variables only, and this one "
                   "has no unlimited dimension", where(in, v));
    return ok_status();
  }
  r->first = 0;
  r->last = in.steps;
  if (!o.step) return ok_status();
  const Result<uint64_t> step = parse_uint("--step", *o.step);
  if (!step.ok()) return step.status().with_context(where(in, v));
  if (*step >= in.steps) {
    const std::string range = in.steps == 0 ? "it has no steps"
                                            : fmt::format("it has {} step{} (0..{})", in.steps,
                                                          in.steps == 1 ? "" : "s", in.steps - 1);
    return error(TAPIO_ERR_NOT_FOUND, "{}: step {} out of range: {}", where(in, v), *o.step, range);
  }
  r->first = *step;
  r->last = *step + 1;
  return ok_status();
}

// The box's last element + 1, as a flat index into one record of the variable.
uint64_t box_end(const plan::Selection& box, const std::vector<uint64_t>& shape) {
  uint64_t end = 0, stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    end += (box.start[d] + box.count[d] - 1) * stride;
    stride *= shape[d];
  }
  return end + 1;
}

// Fail before printing anything if the last step's box runs past the end of the file.
Status check_in_file(const Input& in, const Request& r) {
  if (is_dataset(in)) return ok_status();  // the library checks what it reads
  if (r.box.elements() == 0 || r.first == r.last) return ok_status();
  TAPIO_ASSIGN_OR_RETURN(const uint64_t base, record_offset(in, *r.var, r.last - 1));
  const uint64_t end = base + box_end(r.box, r.shape) * netcdf::nc_type_size(r.var->type);
  if (end < base || end > in.file_size) {
    return error(TAPIO_ERR_FORMAT, "{}: file is truncated: the data{} ends at byte {}, the file "
                 "has {} bytes", where(in, *r.var),
                 in.header.is_record(*r.var) ? fmt::format(" of step {}", r.last - 1) : "", end,
                 in.file_size);
  }
  return ok_status();
}

Result<Request> make_request(const Input& in, const DumpOptions& o) {
  Request r;
  TAPIO_ASSIGN_OR_RETURN(r.var, find_variable(in, o.var));
  r.shape = in.header.shape(*r.var);
  TAPIO_ASSIGN_OR_RETURN(r.box, make_box(in, *r.var, o, r.shape));
  TAPIO_RETURN_IF_ERROR(pick_steps(in, *r.var, o, &r));
  TAPIO_RETURN_IF_ERROR(check_in_file(in, r));
  return r;
}

// Read `length` elements at byte `offset` (in pieces of at most kMaxReadBytes) into `out`.
Status read_run(io::File& file, uint64_t offset, uint64_t length, size_t elem_size,
                std::vector<uint8_t>& buf, ValueWriter& out) {
  const uint64_t max_elems = std::max<uint64_t>(kMaxReadBytes / elem_size, 1);
  while (length > 0) {
    const uint64_t n = std::min(length, max_elems);
    buf.resize(n * elem_size);
    TAPIO_RETURN_IF_ERROR(file.read_exact(offset, buf.data(), buf.size()));
    big_endian_to_host(buf.data(), buf.data(), n, elem_size);
    out.add(buf.data(), n);
    offset += buf.size();
    length -= n;
  }
  return ok_status();
}

Status read_file_box(const Input& in, const Request& r, uint64_t step, ValueWriter& out) {
  const size_t elem_size = netcdf::nc_type_size(r.var->type);
  TAPIO_ASSIGN_OR_RETURN(const uint64_t base, record_offset(in, *r.var, step));
  std::vector<uint8_t> buf;
  Status status;
  plan::for_each_run(r.box, r.shape, [&](const plan::Run& run, uint64_t) {
    if (status.ok())
      status = read_run(*in.file, base + run.offset * elem_size, run.length, elem_size, buf, out);
  });
  return status;
}

// Collective (every rank runs the same dump). Slabs of whole rows of the box's first dimension,
// about kMaxReadBytes each (at least one row).
Status read_dataset_box(const Input& in, const Request& r, uint64_t step, ValueWriter& out) {
  Dataset& dataset = *in.dataset;
  const IoDef& def = dataset.netcdf_definitions();
  const VariableDef& var = def.vars[size_t(def.find_var(r.var->name))];
  const size_t elem_size = type_size(var.type);
  std::vector<uint8_t> buf;
  if (r.shape.empty()) {
    buf.resize(elem_size);
    TAPIO_RETURN_IF_ERROR(dataset.perform_gets(dataset.queue_netcdf_get(var, {}, {}, step,
                                                                       buf.data())));
    out.add(buf.data(), 1);
    return ok_status();
  }
  if (r.box.elements() == 0) return ok_status();
  const uint64_t row = r.box.elements() / r.box.count[0];
  const uint64_t rows = std::max<uint64_t>(kMaxReadBytes / (row * elem_size), 1);
  std::vector<uint64_t> start = r.box.start, count = r.box.count;
  for (uint64_t done = 0; done < r.box.count[0]; done += count[0]) {
    start[0] = r.box.start[0] + done;
    count[0] = std::min(rows, r.box.count[0] - done);
    buf.resize(count[0] * row * elem_size);
    TAPIO_RETURN_IF_ERROR(
        dataset.perform_gets(dataset.queue_netcdf_get(var, start, count, step, buf.data())));
    out.add(buf.data(), count[0] * row);
  }
  return ok_status();
}

Status write_step(const Input& in, const Request& r, uint64_t step, bool json) {
  ValueWriter out(stdout, r.var->type, r.box.count, json);
  if (!json) {
    std::vector<uint64_t> first = r.box.start;
    if (in.header.is_record(*r.var)) first.insert(first.begin(), step);
    out.label_rows(r.var->name, std::move(first));
  }
  const Status status = is_dataset(in) ? read_dataset_box(in, r, step, out)
                                       : read_file_box(in, r, step, out);
  out.finish();
  if (!in.header.is_record(*r.var)) return status.with_context(where(in, *r.var));
  return status.with_context(fmt::format("{}, step {}", where(in, *r.var), step));
}

Status write_text(const Input& in, const Request& r) {
  for (uint64_t step = r.first; step < r.last; ++step)
    TAPIO_RETURN_IF_ERROR(write_step(in, r, step, false));
  return ok_status();
}

Status write_json(const Input& in, const Request& r) {
  const Json head = {{"file", in.path},
                     {"variable", r.var->name},
                     {"type", type_name(r.var->type)},
                     {"dimensions", box_dim_names(in, *r.var)},
                     {"shape", r.shape},
                     {"start", r.box.start},
                     {"count", r.box.count}};
  std::string text = to_json_text(head);
  text.pop_back();  // the closing brace: values follow
  const bool record = in.header.is_record(*r.var);
  fmt::print("{},{}", text, record ? "\"steps\":[" : "\"values\":");
  for (uint64_t step = r.first; step < r.last; ++step) {
    if (record) fmt::print("{}{{\"step\":{},\"values\":", step == r.first ? "" : ",", step);
    TAPIO_RETURN_IF_ERROR(write_step(in, r, step, true));
    if (record) fmt::print("}}");
  }
  fmt::print("{}}}\n", record ? "]" : "");
  return ok_status();
}

}  // namespace

int run_dump(const DumpOptions& options) {
  Result<Input> in = open_input(options.path);
  if (!in.ok()) return fail(in.status().message());
  Result<Request> request = make_request(*in, options);
  if (!request.ok()) return fail(request.status().message());
  const Status status = options.json ? write_json(*in, *request) : write_text(*in, *request);
  std::fflush(stdout);
  return status.ok() ? 0 : fail(status.message());
}

}  // namespace tapio::cli
