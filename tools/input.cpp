#include "input.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>

#include "dataset.h"
#include "engine/netcdf/netcdf_file.h"
#include "format/netcdf/schema.h"
#include "mpi_session.h"

namespace tapio::cli {
namespace {

// numrecs all ones (of the field's width) is STREAMING: "indeterminate length".
bool is_streaming(const netcdf::Header& h) {
  return h.numrecs == (h.version == 5 ? UINT64_MAX : uint64_t{0xFFFFFFFF});
}

// Whole records between the first record variable and the end of the file.
uint64_t records_in_file(const netcdf::Header& h, uint64_t file_size) {
  uint64_t first = UINT64_MAX;
  for (const netcdf::Var& v : h.vars)
    if (h.is_record(v)) first = std::min(first, v.begin);
  const uint64_t size = h.record_size();
  if (first == UINT64_MAX || size == 0 || file_size <= first) return 0;
  return (file_size - first) / size;
}

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

const std::string& nearest_name(const std::vector<netcdf::Var>& vars, const std::string& name) {
  const std::string want = lower(name);
  const netcdf::Var* best = &vars.front();
  size_t best_distance = SIZE_MAX;
  for (const netcdf::Var& v : vars) {
    const size_t d = edit_distance(want, lower(v.name));
    if (d < best_distance) {
      best = &v;
      best_distance = d;
    }
  }
  return best->name;
}

bool checked_add(uint64_t a, uint64_t b, uint64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}

// The dimension a dataset's steps go along: the unlimited one it declares, else "time".
std::string record_dimension(const IoDef& def) {
  for (const DimensionDef& d : def.dims)
    if (d.unlimited()) return d.name;
  return netcdf::kRecordDim;
}

Result<Input> open_dataset(const std::string& path) {
  start_mpi();
  Input in;
  in.path = path;
  TAPIO_ASSIGN_OR_RETURN(std::unique_ptr<Dataset> dataset, Dataset::open(path));
  const IoDef& def = dataset->netcdf_definitions();
  Result<netcdf::Header> header =
      netcdf::header_from_io(def, 5, record_dimension(def));
  if (!header.ok()) return header.status().with_context(fmt::format("dataset '{}'", path));
  in.header = std::move(header).value();
  in.steps = in.header.numrecs = dataset->steps();
  in.dataset = std::move(dataset);
  return in;
}

}  // namespace

bool is_dataset(const Input& in) { return in.dataset != nullptr; }

Result<Input> open_input(const std::string& path) {
  std::error_code ec;
  if (is_dataset_dir(path)) return open_dataset(path);
  if (std::filesystem::is_directory(path, ec))
    return error(TAPIO_ERR_ARG, "file '{}': is a directory, not a NetCDF file or a tapio dataset "
                 "(no tapio.idx in it{})", path,
                 std::filesystem::exists(std::filesystem::path(path) / "tapio.md", ec)
                     ? "; it holds tapio.md: `tapio repair` rebuilds a lost index"
                     : "");
  Input in;
  in.path = path;
  TAPIO_ASSIGN_OR_RETURN(in.file, io::open_posix(path, io::OpenMode::kReadOnly, nullptr));
  TAPIO_ASSIGN_OR_RETURN(in.file_size, in.file->size());
  if (in.file_size < 4) {
    return error(TAPIO_ERR_FORMAT, "file '{}': not a NetCDF file ({})", path,
                 in.file_size == 0 ? "the file is empty" : "too short for the magic number");
  }
  TAPIO_ASSIGN_OR_RETURN(in.header, ncfile::read_header(*in.file));
  in.steps = is_streaming(in.header) ? records_in_file(in.header, in.file_size)
                                     : in.header.numrecs;
  return in;
}

std::string format_name(int version) { return "CDF-" + std::to_string(version); }

std::string_view type_name(netcdf::NcType t) { return tapio::type_name(netcdf::from_nc_type(t)); }

Result<const netcdf::Var*> find_variable(const Input& in, const std::string& name) {
  const netcdf::Var* v = in.header.find_var(name);
  if (v != nullptr) return v;
  if (in.header.vars.empty())
    return error(TAPIO_ERR_NOT_FOUND, "file '{}': no variable '{}' (the file has no variables)",
                 in.path, name);
  return error(TAPIO_ERR_NOT_FOUND, "file '{}': no variable '{}'; did you mean '{}'?", in.path,
               name, nearest_name(in.header.vars, name));
}

Result<uint64_t> record_offset(const Input& in, const netcdf::Var& v, uint64_t rec) {
  if (!in.header.is_record(v)) return v.begin;
  uint64_t offset = 0;
  if (__builtin_mul_overflow(rec, in.header.record_size(), &offset) ||
      !checked_add(offset, v.begin, &offset)) {
    return error(TAPIO_ERR_FORMAT, "file '{}': variable '{}': record {} lies beyond 2^64 bytes",
                 in.path, v.name, rec);
  }
  return offset;
}

}  // namespace tapio::cli
