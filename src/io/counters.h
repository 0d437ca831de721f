// Per-file, per-rank I/O counters with Darshan's POSIX module names and size bins, so profiles
// read like Darshan logs. These are the seeds' LOGIOReqs (requests) and IOWAIT (time blocked).
#pragma once
#include <array>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace tapio::io {

// Darshan's request-size bins: 0-100, 100-1K, 1K-10K, 10K-100K, 100K-1M, 1M-4M, 4M-10M,
// 10M-100M, 100M-1G, 1G+.
inline constexpr int kSizeBins = 10;
int size_bin(uint64_t bytes);
const char* size_bin_suffix(int bin);  // "0_100", "100_1K", ..., "1G_PLUS"

// Files of one engine share a Counters, and since asynchronous output several threads of a
// rank write through them at once (a collective aggregator's data thread, rank 0's commit
// thread): every update goes through record_* or update(), under the object's own lock.
// Reading the fields (values(), +=) is for when no file is writing (the profile, at close).
struct Counters {
  uint64_t opens = 0;
  uint64_t reads = 0;
  uint64_t writes = 0;
  uint64_t fsyncs = 0;
  uint64_t bytes_read = 0;
  uint64_t bytes_written = 0;
  // Note: Darshan's POSIX_MAX_BYTE_* hold the offset of the last byte (offset + size - 1);
  // these hold the end offset (offset + size), so that 0 unambiguously means "nothing".
  uint64_t max_byte_read = 0;     // highest offset read + 1 (0 if none)
  uint64_t max_byte_written = 0;  // highest offset written + 1 (0 if none)
  double read_time = 0;           // seconds blocked in read calls
  double write_time = 0;          // seconds blocked in write calls
  double meta_time = 0;           // seconds in open, close, fsync, ftruncate, fstat
  std::array<uint64_t, kSizeBins> read_size_hist{};
  std::array<uint64_t, kSizeBins> write_size_hist{};

  // One call per system call that returned (bytes >= 0, including a 0-byte read at end of
  // file): counts it, bins its size, adds its bytes and time. Failed calls are not recorded
  // (as in Darshan); the file layer adds their time to read_time/write_time directly.
  void record_read(uint64_t offset, uint64_t bytes, double seconds);
  void record_write(uint64_t offset, uint64_t bytes, double seconds);
  // Any other change (a failed call's blocked time, an open, an fsync's time), locked.
  template <typename Change>
  void update(Change&& change) {
    std::lock_guard<std::mutex> hold(lock_.m);
    change(*this);
  }
  // Sums everything except max_byte_read/max_byte_written, which take the maximum.
  Counters& operator+=(const Counters& other);

  // Flat view for reductions over ranks: names() and values() have the same order and
  // length; names are Darshan's ("POSIX_WRITES", "POSIX_SIZE_WRITE_1M_4M", "POSIX_F_WRITE_TIME").
  static std::vector<std::string> names();
  std::vector<double> values() const;
  // How each entry of values() combines over ranks (same order): the POSIX_MAX_BYTE_* by
  // maximum, everything else by sum.
  enum class Reduction { kSum, kMax };
  static std::vector<Reduction> reductions();

 private:
  // A mutex that copies of Counters do not share (a copy is a snapshot with a lock of its own).
  struct Lock {
    std::mutex m;
    Lock() = default;
    Lock(const Lock&) {}
    Lock& operator=(const Lock&) { return *this; }
  };
  Lock lock_;
};

}  // namespace tapio::io
