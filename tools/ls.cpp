// tapio ls: the header of a NetCDF file, like `ncdump -h`, as text or JSON; for a tapio
// dataset, the NetCDF header its definitions map to (what `tapio convert` would write).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "commands.h"
#include "dataset.h"
#include "format/netcdf/extents.h"
#include "input.h"
#include "print_values.h"
#include "writer_state.h"

namespace tapio::cli {
namespace {

using netcdf::Attr;
using netcdf::Var;

constexpr const char* kDatasetFormat = "tapio subfile dataset";

// A dataset's variables whose blocks an operator encoded: bytes as put and as stored.
using Coded = std::map<std::string, std::pair<uint64_t, uint64_t>>;

Result<Coded> coded_variables(const Input& in) {
  Coded coded;
  if (!is_dataset(in)) return coded;
  for (const VariableDef& v : in.dataset->definitions().vars) {
    TAPIO_ASSIGN_OR_RETURN(const auto sizes, in.dataset->stored_bytes(v));
    if (sizes.first != sizes.second) coded[v.name] = sizes;
  }
  return coded;
}

double ratio(const std::pair<uint64_t, uint64_t>& sizes) {
  return static_cast<double>(sizes.first) /
         static_cast<double>(std::max<uint64_t>(1, sizes.second));
}

std::string format_label(int version) {
  switch (version) {
    case 1: return "CDF-1 (classic)";
    case 2: return "CDF-2 (64-bit offset)";
    default: return "CDF-5 (64-bit data)";
  }
}

// Length of dimension `id`; the unlimited one counts the records.
uint64_t dim_length(const Input& in, int32_t id) {
  const uint64_t length = in.header.dims[size_t(id)].length;
  return length == 0 ? in.steps : length;
}

std::string shape_text(const Input& in, const Var& v) {
  if (v.dimids.empty()) return "scalar";
  std::string out = "[";
  for (size_t i = 0; i < v.dimids.size(); ++i) {
    if (i > 0) out += ", ";
    const int32_t id = v.dimids[i];
    out += fmt::format("{}={}", in.header.dims[size_t(id)].name, dim_length(in, id));
  }
  return out + "]";
}

std::string steps_text(uint64_t steps) {
  return fmt::format("{} step{}", steps, steps == 1 ? "" : "s");
}

void print_attrs(const std::vector<Attr>& attrs, const char* indent) {
  for (const Attr& a : attrs)
    fmt::print("{}{:<8} {} = {}\n", indent, type_name(a.type), a.name, attr_text(a));
}

void print_vars(const Input& in, const Coded& coded) {
  size_t width = 0;
  for (const Var& v : in.header.vars) width = std::max(width, v.name.size());
  width = std::min<size_t>(width, 32);
  fmt::print("variables:\n");
  for (const Var& v : in.header.vars) {
    std::string line = fmt::format("  {:<8} {:<{}}  {}", type_name(v.type), v.name, width,
                                   shape_text(in, v));
    if (in.header.is_record(v)) line += "  " + steps_text(in.steps);
    if (auto c = coded.find(v.name); c != coded.end())
      line += fmt::format("  ratio {:.2f} ({} of {} bytes stored)", ratio(c->second),
                          c->second.second, c->second.first);
    fmt::print("{}\n", line);
    print_attrs(v.attrs, "      ");
  }
}

// A dataset's writer: "closed", or "not closed" with its committed steps and last commit.
std::string writer_text(const WriterState& w) {
  if (w.closed) return "closed";
  std::string text = fmt::format("not closed: {} committed", steps_text(w.steps.size()));
  if (w.last_time) text += fmt::format(", the last record written {}", utc_text(w.last_time));
  return text + " (still writing, or killed)";
}

Json writer_json(const WriterState& w) {
  Json j = {{"closed", w.closed}, {"committed_steps", w.steps.size()}};
  if (w.last_time) j["last_record_time"] = utc_text(w.last_time);
  return j;
}

void print_text(const Input& in, const Coded& coded, const WriterState* writer) {
  const netcdf::Header& h = in.header;
  fmt::print("file: {}\nformat: {}\n", in.path,
             is_dataset(in) ? kDatasetFormat : format_label(h.version));
  if (writer) fmt::print("writer: {}\n", writer_text(*writer));
  if (!h.dims.empty()) fmt::print("dimensions:\n");
  for (const netcdf::Dim& d : h.dims) {
    if (d.length == 0) {
      fmt::print("  {} = UNLIMITED ({} currently)\n", d.name, in.steps);
    } else {
      fmt::print("  {} = {}\n", d.name, d.length);
    }
  }
  if (!h.attrs.empty()) fmt::print("global attributes:\n");
  print_attrs(h.attrs, "  ");
  if (!h.vars.empty()) print_vars(in, coded);
}

Json attrs_json(const std::vector<Attr>& attrs) {
  Json j = Json::object();
  for (const Attr& a : attrs) j[a.name] = attr_json(a);
  return j;
}

Json var_json(const Input& in, const Var& v, const Coded& coded) {
  Json names = Json::array(), shape = Json::array();
  for (int32_t id : v.dimids) {
    names.push_back(in.header.dims[size_t(id)].name);
    shape.push_back(dim_length(in, id));
  }
  Json j = {{"type", type_name(v.type)}, {"dimensions", names}, {"shape", shape},
            {"record", in.header.is_record(v)}};
  if (in.header.is_record(v)) j["steps"] = in.steps;
  if (!is_dataset(in)) j["begin"] = v.begin;
  if (auto c = coded.find(v.name); c != coded.end()) {
    j["bytes"] = c->second.first;
    j["stored_bytes"] = c->second.second;
    j["ratio"] = ratio(c->second);
  }
  j["attributes"] = attrs_json(v.attrs);
  return j;
}

Json to_json(const Input& in, const Coded& coded, bool truncated, const WriterState* writer) {
  const netcdf::Header& h = in.header;
  Json dims = Json::object();
  for (const netcdf::Dim& d : h.dims)
    dims[d.name] = {{"length", d.length == 0 ? in.steps : d.length}, {"unlimited", d.length == 0}};
  Json vars = Json::object();
  for (const Var& v : h.vars) vars[v.name] = var_json(in, v, coded);
  if (is_dataset(in)) {
    Json j = {{"file", in.path},        {"format", kDatasetFormat},
              {"numrecs", in.steps},    {"dimensions", dims},
              {"attributes", attrs_json(h.attrs)}, {"variables", vars}};
    if (writer) j["writer"] = writer_json(*writer);
    return j;
  }
  return {{"file", in.path},          {"format", format_name(h.version)},
          {"version", h.version},     {"numrecs", in.steps},
          {"file_size", in.file_size}, {"truncated", truncated},
          {"dimensions", dims},       {"attributes", attrs_json(h.attrs)},
          {"variables", vars}};
}

// A warning if the data the header declares runs past the end of the file (the header itself
// decoded fine, so the listing is still printed).
std::string truncation_warning(const Input& in) {
  if (is_dataset(in)) return "";  // the library checks datasets when it opens them
  const Status fits = netcdf::check_fits(in.header, in.steps, in.file_size);
  return fits.ok() ? "" : fmt::format("file '{}': {}", in.path, fits.message());
}

}  // namespace

int run_ls(const LsOptions& options) {
  if (options.storage) return run_ls_storage(options.path);
  Result<Input> in = open_input(options.path);
  if (!in.ok()) return fail(in.status().message());
  const std::string warning = truncation_warning(*in);
  const Result<Coded> coded = coded_variables(*in);
  if (!coded.ok()) return fail(coded.status().message());
  std::optional<WriterState> writer;
  if (is_dataset(*in)) {
    Result<WriterState> state = read_writer_state(in->path);
    if (!state.ok()) return fail(state.status().message());
    writer = std::move(state).value();
  }
  const WriterState* w = writer ? &*writer : nullptr;
  if (options.json) {
    fmt::print("{}\n", to_json_text(to_json(*in, *coded, !warning.empty(), w), 2));
  } else {
    print_text(*in, *coded, w);
  }
  std::fflush(stdout);
  if (!warning.empty()) fmt::print(stderr, "tapio: warning: {}\n", warning);
  return 0;
}

}  // namespace tapio::cli
