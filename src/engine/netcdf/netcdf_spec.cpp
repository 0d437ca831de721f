#include "engine/netcdf/netcdf_spec.h"

namespace tapio {

Fsync parse_fsync(const Params& params) {
  const std::string f = params.get("fsync");
  return f == "never" ? Fsync::kNever : f == "step" ? Fsync::kStep : Fsync::kClose;
}

NetcdfSpec NetcdfSpec::parse(const Params& params) {
  NetcdfSpec s;
  s.version = static_cast<int>(params.get_int("netcdf_version"));
  s.record_dim = params.get("record_dimension");
  s.layout.data_align = params.get_size("data_align");
  s.layout.header_pad = params.get_size("header_pad");
  s.fill = params.get_bool("fill");
  s.fsync = parse_fsync(params);
  s.async = params.get_bool("async");
  s.async_buffer = params.get_size("async_buffer");
  s.file_locking = params.get("file_locking");
  return s;
}

}  // namespace tapio
