// The parameters every engine that writes one NetCDF file (serial, mpiio, collective) reads,
// parsed once at open.
#pragma once
#include <string>

#include "core/params.h"
#include "format/netcdf/layout.h"

namespace tapio {

enum class Fsync { kNever, kStep, kClose };  // the `fsync` parameter
Fsync parse_fsync(const Params& params);

struct NetcdfSpec {
  int version = 5;                // netcdf_version: CDF-1, 2 or 5
  std::string record_dim = "time";  // record_dimension: the unlimited dimension's name
  netcdf::LayoutOptions layout;   // data_align, header_pad
  bool fill = true;               // fill what no rank wrote with the fill value
  Fsync fsync = Fsync::kClose;
  bool async = false;             // storage writes and commits in the background (`async`)
  uint64_t async_buffer = 0;      // bytes the background writes may hold (`async_buffer`)
  // Bytes of rows each joined array's sample dimension reserves (`joined_reserve`); 0: the
  // engine does not write joined arrays (only the collective engine does).
  uint64_t joined_reserve = 0;
  std::string file_locking = "true";  // a writer's lock (`file_locking`, io/write_lock.h)

  static NetcdfSpec parse(const Params& params);
};

}  // namespace tapio
