#include "engine/netcdf/netcdf_file.h"

#include <algorithm>
#include <cstring>

namespace tapio::ncfile {

Result<netcdf::Header> read_header(io::File& file) {
  TAPIO_ASSIGN_OR_RETURN(const uint64_t file_size, file.size());
  size_t want = static_cast<size_t>(std::min<uint64_t>(file_size, 64 * 1024));
  while (true) {
    std::vector<uint8_t> bytes(want);
    size_t got = 0;
    TAPIO_RETURN_IF_ERROR(file.read_at(0, bytes.data(), want, &got));
    size_t need_more = 0;
    auto header = netcdf::decode(bytes.data(), got, file_size, &need_more);
    if (header.ok()) return header;
    if (need_more <= got)
      return header.status().with_context(fmt::format("file '{}'", file.path()));
    // A corrupt count inside a large file must not make us read the whole file.
    constexpr size_t kMaxHeader = 256u << 20;
    if (need_more > kMaxHeader)
      return error(TAPIO_ERR_FORMAT, "file '{}': header claims more than {} MiB", file.path(),
                   kMaxHeader >> 20);
    want = need_more;
  }
}

Status write_numrecs(io::File& file, const netcdf::Header& h, uint64_t numrecs) {
  uint8_t bytes[8];
  const int width = netcdf::encode_numrecs(h.version, numrecs, bytes);
  return file.write_at(netcdf::kNumrecsOffset, bytes, width);
}

Result<netcdf::Header> bcast_header(const comm::Comm& comm, io::File* file) {
  Status local = ok_status();
  std::vector<uint8_t> encoded(8);  // file size, then the header re-encoded
  if (comm.rank() == 0) {
    auto header = read_header(*file);
    auto size = file->size();
    if (header.ok() && size.ok()) {
      const uint64_t file_size = *size;
      std::memcpy(encoded.data(), &file_size, 8);
      const auto bytes = netcdf::encode(*header);
      encoded.insert(encoded.end(), bytes.begin(), bytes.end());
    } else {
      local = header.ok() ? size.status() : header.status();
    }
  }
  TAPIO_RETURN_IF_ERROR(comm::agree(comm, local));
  TAPIO_RETURN_IF_ERROR(comm.bcast_bytes(encoded, 0));
  uint64_t file_size = 0;
  std::memcpy(&file_size, encoded.data(), 8);
  size_t need_more = 0;
  // Decoding rank 0's re-encoding of a header it already validated cannot fail.
  return netcdf::decode(encoded.data() + 8, encoded.size() - 8, file_size, &need_more);
}

Result<std::unique_ptr<io::File>> open_on_root(const comm::Comm& comm, io::Storage& storage,
                                              const std::string& path, io::OpenMode mode,
                                              io::Counters* counters,
                                              const io::LayerSpec& layers) {
  std::unique_ptr<io::File> file;
  Status local = ok_status();
  if (comm.rank() == 0) {
    auto opened = io::open_layered(storage, path, mode, counters, layers);
    if (opened.ok()) {
      file = std::move(opened).value();
    } else {
      local = opened.status();
    }
  }
  TAPIO_RETURN_IF_ERROR(comm::agree(comm, local));
  return file;
}

}  // namespace tapio::ncfile
