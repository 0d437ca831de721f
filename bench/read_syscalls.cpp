// Counting an operation's reads from outside a library that makes its storage calls itself
// (HDF5 through MPI-IO): the kernel's per-process totals in /proc/self/io.
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "bench.h"

namespace bench {

// syscr and rchar so far. The file shows the totals before the read that returns it, so the
// next snapshot also counts that read: one call of `own_` bytes, which total() takes off.
ReadSyscalls::ReadSyscalls() {
  char text[1024];
  const int fd = ::open("/proc/self/io", O_RDONLY);
  if (fd < 0) return;
  const ssize_t n = ::read(fd, text, sizeof text - 1);  // one call: the file is ~120 bytes
  ::close(fd);
  if (n <= 0) return;
  text[n] = '\0';
  const char* rchar = std::strstr(text, "rchar:");
  const char* syscr = std::strstr(text, "syscr:");
  if (!rchar || !syscr) return;
  bytes_ = std::strtod(rchar + 6, nullptr);
  calls_ = std::strtod(syscr + 6, nullptr);
  own_ = static_cast<double>(n);
  ok_ = true;
}

Counters ReadSyscalls::total(MPI_Comm comm) const {
  const ReadSyscalls end;
  const bool ok = ok_ && end.ok_;
  const double calls = sum_over_ranks(comm, ok ? end.calls_ - calls_ - 1 : 0);
  const double bytes = sum_over_ranks(comm, ok ? end.bytes_ - bytes_ - own_ : 0);
  if (sum_over_ranks(comm, ok ? 0 : 1) > 0) return {};  // not known on some rank: n/a
  return {calls, bytes, std::nullopt};
}

}  // namespace bench
