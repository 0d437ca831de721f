// Counters: Darshan's POSIX size bins and the flat names()/values() view for reductions.
#include "io/counters.h"

#include <algorithm>

namespace tapio::io {

int size_bin(uint64_t bytes) {
  // Upper bounds are inclusive, as in Darshan's DARSHAN_BUCKET_INC: 100 bytes is in 0_100,
  // 101 in 100_1K, exactly 1 MiB in 100K_1M, exactly 1 GiB in 100M_1G.
  static constexpr uint64_t kUpper[kSizeBins - 1] = {
      100,          1024,        10 * 1024,          100 * 1024,         1024 * 1024,
      4 * 1048576,  10 * 1048576, 100 * 1048576ull, 1024 * 1048576ull};
  for (int bin = 0; bin < kSizeBins - 1; ++bin) {
    if (bytes <= kUpper[bin]) return bin;
  }
  return kSizeBins - 1;
}

const char* size_bin_suffix(int bin) {
  static constexpr const char* kSuffix[kSizeBins] = {
      "0_100",   "100_1K", "1K_10K",   "10K_100K", "100K_1M",
      "1M_4M",   "4M_10M", "10M_100M", "100M_1G",  "1G_PLUS"};
  if (bin < 0 || bin >= kSizeBins) return "INVALID";
  return kSuffix[bin];
}

void Counters::record_read(uint64_t offset, uint64_t bytes, double seconds) {
  std::lock_guard<std::mutex> hold(lock_.m);
  reads += 1;
  bytes_read += bytes;
  read_time += seconds;
  read_size_hist[size_bin(bytes)] += 1;
  if (bytes > 0) max_byte_read = std::max(max_byte_read, offset + bytes);
}

void Counters::record_write(uint64_t offset, uint64_t bytes, double seconds) {
  std::lock_guard<std::mutex> hold(lock_.m);
  writes += 1;
  bytes_written += bytes;
  write_time += seconds;
  write_size_hist[size_bin(bytes)] += 1;
  if (bytes > 0) max_byte_written = std::max(max_byte_written, offset + bytes);
}

Counters& Counters::operator+=(const Counters& other) {
  opens += other.opens;
  reads += other.reads;
  writes += other.writes;
  fsyncs += other.fsyncs;
  bytes_read += other.bytes_read;
  bytes_written += other.bytes_written;
  // Extents combine by maximum, everything else by sum.
  max_byte_read = std::max(max_byte_read, other.max_byte_read);
  max_byte_written = std::max(max_byte_written, other.max_byte_written);
  read_time += other.read_time;
  write_time += other.write_time;
  meta_time += other.meta_time;
  for (int bin = 0; bin < kSizeBins; ++bin) {
    read_size_hist[bin] += other.read_size_hist[bin];
    write_size_hist[bin] += other.write_size_hist[bin];
  }
  return *this;
}

std::vector<std::string> Counters::names() {
  std::vector<std::string> out = {
      "POSIX_OPENS",         "POSIX_READS",          "POSIX_WRITES",
      "POSIX_FSYNCS",        "POSIX_BYTES_READ",     "POSIX_BYTES_WRITTEN",
      "POSIX_MAX_BYTE_READ", "POSIX_MAX_BYTE_WRITTEN", "POSIX_F_READ_TIME",
      "POSIX_F_WRITE_TIME",  "POSIX_F_META_TIME"};
  for (int bin = 0; bin < kSizeBins; ++bin) {
    out.push_back(std::string("POSIX_SIZE_READ_") + size_bin_suffix(bin));
  }
  for (int bin = 0; bin < kSizeBins; ++bin) {
    out.push_back(std::string("POSIX_SIZE_WRITE_") + size_bin_suffix(bin));
  }
  return out;
}

std::vector<double> Counters::values() const {
  std::vector<double> out = {static_cast<double>(opens),
                             static_cast<double>(reads),
                             static_cast<double>(writes),
                             static_cast<double>(fsyncs),
                             static_cast<double>(bytes_read),
                             static_cast<double>(bytes_written),
                             static_cast<double>(max_byte_read),
                             static_cast<double>(max_byte_written),
                             read_time,
                             write_time,
                             meta_time};
  for (uint64_t v : read_size_hist) out.push_back(static_cast<double>(v));
  for (uint64_t v : write_size_hist) out.push_back(static_cast<double>(v));
  return out;
}

std::vector<Counters::Reduction> Counters::reductions() {
  std::vector<Reduction> out(names().size(), Reduction::kSum);
  out[6] = Reduction::kMax;  // POSIX_MAX_BYTE_READ
  out[7] = Reduction::kMax;  // POSIX_MAX_BYTE_WRITTEN
  return out;
}

}  // namespace tapio::io
