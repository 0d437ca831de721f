// A NetCDF file opened for inspection by the tapio tool: header plus the checks every command
// needs (record count, variable lookup, where the data ends). Reads only; no MPI.
// A tapio dataset (a directory with tapio.idx) is opened through the tapio API instead (MPI
// started on demand) and described by the NetCDF header its definitions map to, so that ls and
// dump print both alike.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "format/netcdf/header.h"
#include "io/file.h"

namespace tapio::cli {
class Dataset;
}

namespace tapio::cli {

struct Input {
  std::string path;
  std::unique_ptr<io::File> file;      // NetCDF files
  std::shared_ptr<Dataset> dataset;    // tapio datasets (then `file` is null)
  netcdf::Header header;
  uint64_t file_size = 0;
  // Records to show: numrecs, or for a STREAMING numrecs the whole records the file holds.
  uint64_t steps = 0;
};

Result<Input> open_input(const std::string& path);
bool is_dataset(const Input& in);

std::string format_name(int version);       // "CDF-1", "CDF-2", "CDF-5"
std::string_view type_name(netcdf::NcType t);  // tapio names: "int8".."float64", "char"

// The variable named `name`, or TAPIO_ERR_NOT_FOUND suggesting the nearest name.
Result<const netcdf::Var*> find_variable(const Input& in, const std::string& name);

// File offset of record `rec` of v, or an error if it does not fit in 64 bits.
Result<uint64_t> record_offset(const Input& in, const netcdf::Var& v, uint64_t rec);

}  // namespace tapio::cli
