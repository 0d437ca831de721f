// Per-file, per-rank I/O counters with Darshan's POSIX module names and size bins, so profiles
// read like Darshan logs. These are the seeds' LOGIOReqs (requests) and IOWAIT (time blocked).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace tapio::io {

// Darshan's request-size bins: 0-100, 100-1K, 1K-10K, 10K-100K, 100K-1M, 1M-4M, 4M-10M,
// 10M-100M, 100M-1G, 1G+.
inline constexpr int kSizeBins = 10;
int size_bin(uint64_t bytes);
const char* size_bin_suffix(int bin);  // "0_100", "100_1K", ..., "1G_PLUS"

struct Counters {
  uint64_t opens = 0;
  uint64_t reads = 0;
  uint64_t writes = 0;
  uint64_t fsyncs = 0;
  uint64_t bytes_read = 0;
  uint64_t bytes_written = 0;
  uint64_t max_byte_read = 0;     // highest offset read + 1 (0 if none)
  uint64_t max_byte_written = 0;  // highest offset written + 1 (0 if none)
  double read_time = 0;           // seconds blocked in read calls
  double write_time = 0;          // seconds blocked in write calls
  double meta_time = 0;           // seconds in open, close, fsync, ftruncate, fstat
  std::array<uint64_t, kSizeBins> read_size_hist{};
  std::array<uint64_t, kSizeBins> write_size_hist{};

  void record_read(uint64_t offset, uint64_t bytes, double seconds);
  void record_write(uint64_t offset, uint64_t bytes, double seconds);
  Counters& operator+=(const Counters& other);

  // Flat view for reductions over ranks: names() and values() have the same order and
  // length; names are Darshan's ("POSIX_WRITES", "POSIX_SIZE_WRITE_1M_4M", "POSIX_F_WRITE_TIME").
  static std::vector<std::string> names();
  std::vector<double> values() const;
};

}  // namespace tapio::io
