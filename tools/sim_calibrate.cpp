// tapio sim --calibrate: this machine's constants for the model, printed as a cluster file.
// Under mpiexec with 2 or more ranks, ranks 0 and 1 time ping-pongs (latency: 8-byte
// messages; bandwidth: 16 MiB); every measurement is the median of several, since the
// machine is shared and single runs vary (docs/sim.md).
#include <fcntl.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "core/types.h"
#include "mpi_session.h"
#include "tapio/tapio.hpp"
#include "sim_commands.h"

namespace tapio::cli {
namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// One core copying 64 MiB (beyond the caches) with `copy`, bytes per second.
template <typename Copy>
double copy_rate(Copy copy) {
  const size_t n = 64u << 20;
  std::vector<char> a(n, 1), b(n, 2);
  std::vector<double> rates;
  for (int i = 0; i < 7; ++i) {
    const double t = now();
    copy(b.data(), a.data(), n);
    rates.push_back(n / (now() - t));
    a[i] = b[n - 1 - i];  // keep the copies observable
  }
  return median(rates);
}

double memcpy_rate() {
  return copy_rate([](char* to, const char* from, size_t n) { std::memcpy(to, from, n); });
}

// The byte-swapping copy of doubles into file order that every engine makes (staging,
// node-local slots), slower than memcpy.
double swap_rate() {
  return copy_rate([](char* to, const char* from, size_t n) { host_to_big_endian(to, from, n / 8, 8); });
}

// Half the round trip of `bytes` between ranks 0 and 1, seconds (other ranks wait).
double ping_pong(int bytes, int reps) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<char> buf(bytes);
  std::vector<double> times;
  for (int k = 0; k < 5; ++k) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t = now();
    for (int i = 0; i < reps && rank < 2; ++i) {
      if (rank == 0) {
        MPI_Send(buf.data(), bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(buf.data(), bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(buf.data(), bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf.data(), bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
      }
    }
    times.push_back((now() - t) / (2.0 * reps));
  }
  double t = median(times);
  MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return t;
}

// A file name in `dir` the same on every rank (rank 0's process id in it).
std::string shared_name(const std::string& dir, const std::string& stem, const std::string& ext) {
  int pid = getpid();
  MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return dir + "/" + stem + "." + std::to_string(pid) + ext;
}

// `writers` ranks (the first ones) each writing their 64 MiB part of one new file in `dir` in
// 4 MiB calls at once, each call's writeback started at once (as the engines do), then
// fsyncing (with `sync`), bytes per second of them all, the median of five (0: a write
// failed). With one writer and no fsync: one rank's copy into the page cache.
double storage_rate(const std::string& dir, int writers, bool sync) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const size_t chunk = 4u << 20, part = 64u << 20;
  std::vector<char> buf(chunk, 7);
  std::vector<double> rates;
  const std::string path = shared_name(dir, "tapio-calibrate", "");
  for (int k = 0; k < 5; ++k) {
    MPI_Barrier(MPI_COMM_WORLD);  // the last file unlinked before any rank opens the next
    const int fd = rank < writers ? open(path.c_str(), O_WRONLY | O_CREAT, 0644) : -1;
    int ok = rank >= writers || fd >= 0;
    MPI_Barrier(MPI_COMM_WORLD);
    const double t = now();
    for (size_t at = rank * part; at < (rank + 1) * part && fd >= 0 && ok; at += chunk) {
      ok = pwrite(fd, buf.data(), chunk, static_cast<off_t>(at)) == static_cast<ssize_t>(chunk);
      sync_file_range(fd, static_cast<off_t>(at), static_cast<off_t>(chunk), SYNC_FILE_RANGE_WRITE);
    }
    if (fd >= 0) ok = ok && (!sync || fsync(fd) == 0);
    const double mine = now() - t;
    if (fd >= 0) close(fd);
    double s = 0;
    MPI_Allreduce(&mine, &s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0) unlink(path.c_str());
    if (!ok) return 0;
    rates.push_back(static_cast<double>(writers) * part / s);
  }
  return median(rates);
}

// `readers` ranks (the first ones) each reading their 64 MiB part of one file in `dir`, which
// they wrote first (untimed: the reads come from the page cache where the file system keeps
// one, as a restart read soon after a write does), in 4 MiB calls at once: bytes per second
// of them all, the median of five (0: a read failed).
double read_rate(const std::string& dir, int readers) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const size_t chunk = 4u << 20, part = 64u << 20;
  std::vector<char> buf(chunk, 7);
  const std::string path = shared_name(dir, "tapio-calibrate-read", "");
  const bool reader = rank < readers;
  int fd = reader ? open(path.c_str(), O_RDWR | O_CREAT, 0644) : -1;
  int ok = !reader || fd >= 0;
  for (size_t at = rank * part; reader && ok && at < (rank + 1) * part; at += chunk)
    ok = pwrite(fd, buf.data(), chunk, static_cast<off_t>(at)) == static_cast<ssize_t>(chunk);
  std::vector<double> rates;
  for (int k = 0; k < 5; ++k) {
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!ok) break;
    const double t = now();
    for (size_t at = rank * part; reader && ok && at < (rank + 1) * part; at += chunk)
      ok = pread(fd, buf.data(), chunk, static_cast<off_t>(at)) == static_cast<ssize_t>(chunk);
    const double mine = now() - t;
    double s = 0;
    MPI_Allreduce(&mine, &s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    rates.push_back(static_cast<double>(readers) * part / s);
  }
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (fd >= 0) close(fd);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) unlink(path.c_str());
  return ok ? median(rates) : 0;
}

// An fsync right after a 4 KiB write, seconds (the median of nine): what closing a file that
// has had its data written back already still costs.
double sync_latency(const std::string& dir) {
  const std::string path = dir + "/tapio-calibrate-sync." + std::to_string(getpid());
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return 0;
  std::vector<char> buf(4096, 3);
  std::vector<double> times;
  for (int k = 0; k < 9; ++k) {
    if (pwrite(fd, buf.data(), buf.size(), static_cast<off_t>(k) * 4096) != 4096) break;
    const double t = now();
    if (fsync(fd) != 0) break;
    times.push_back(now() - t);
  }
  close(fd);
  unlink(path.c_str());
  return times.empty() ? 0 : median(times);
}

// A file's fixed cost with the collective engine at this rank count, seconds (the median of
// nine): open (create, header), one step of one double per rank, close, without its fsync,
// which sync_cost counts. What a small file costs beyond its bytes.
double file_cost(const std::string& dir, double sync) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  tapio::Context ctx(MPI_COMM_WORLD);
  std::vector<double> times;
  const std::string path = shared_name(dir, "tapio-calibrate-file", ".nc");
  for (int k = 0; k < 9; ++k) {
    tapio::IO io = ctx.declare_io("calibrate" + std::to_string(k));
    io.set_engine("collective");
    tapio::Variable v = io.define_variable<double>("x", {static_cast<uint64_t>(size)}, {"n"});
    const double one = rank;
    MPI_Barrier(MPI_COMM_WORLD);
    const double t = now();
    tapio::Engine e = io.open(path, TAPIO_MODE_WRITE);
    e.begin_step();
    v.set_selection({static_cast<uint64_t>(rank)}, {1});
    e.put(v, &one);
    e.end_step();
    e.close();
    MPI_Barrier(MPI_COMM_WORLD);
    times.push_back(now() - t);
  }
  if (rank == 0) unlink(path.c_str());
  return std::max(0.0, median(times) - sync);
}

// With more ranks than cores: how much of a core a rank waiting in MPI still takes. Rank 0
// copies while the others sleep, then while they wait in a barrier; the ratio of the rates
// is cores / (1 + share x (ranks - 1)) (cluster.h), solved for share. 0 when it cannot show.
double wait_share(unsigned cores) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (static_cast<unsigned>(size) <= cores) return 0;
  MPI_Barrier(MPI_COMM_WORLD);
  double alone = 0, waiting = 0;
  if (rank == 0) alone = memcpy_rate();
  else std::this_thread::sleep_for(std::chrono::seconds(2));  // longer than the copies
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) waiting = memcpy_rate();
  MPI_Barrier(MPI_COMM_WORLD);
  double share = 0;
  if (rank == 0 && waiting > 0)
    share = std::max(0.0, (cores * alone / std::min(alone, waiting) - 1) / (size - 1));
  MPI_Bcast(&share, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return share;
}

}  // namespace

int run_calibrate(const SimOptions& o) {
  start_mpi();
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const double copy = swap_rate();
  double latency = 0, bandwidth = 0;
  if (size >= 2) {
    latency = ping_pong(8, 2000);
    bandwidth = (16u << 20) / ping_pong(16 << 20, 5);
  }
  // The host's file system with as many writers as cores (a shared file, as aggregators
  // write), and one writer's own copy: the model gives a node more writers when they add up.
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const int writers = std::min(size, static_cast<int>(cores));
  const double storage = storage_rate(o.calibrate_dir, writers, true);
  const double writer = storage_rate(o.calibrate_dir, 1, false);
  // Reading as many ranks at once, and one alone: the model gives a node more aggregators
  // for reading when one reader cannot keep up with its client.
  const double client_read = read_rate(o.calibrate_dir, writers);
  const double reader = read_rate(o.calibrate_dir, 1);
  double sync = rank == 0 ? sync_latency(o.calibrate_dir) : 0;
  MPI_Bcast(&sync, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  const double file = file_cost(o.calibrate_dir, sync);
  const double waiting = wait_share(cores);
  if (rank != 0) return 0;
  if (storage == 0 || writer == 0 || client_read == 0 || reader == 0)
    return fail("--calibrate: cannot write, fsync and read in '" + o.calibrate_dir + "'");
  std::printf("# This machine, measured by tapio sim --calibrate (%d ranks; medians).\n", size);
  std::printf("# One host: every rank on it (a workload's ranks_per_node parameter makes virtual nodes,\n"
              "# which share its cores and memory: shared_host).\n");
  std::printf("[nodes]\ncount = 1\nranks_per_node = 4096  # every rank on this host\ncores = %u\n"
              "shared_host = true\n", cores);
  if (waiting > 0) std::printf("wait_share = %.3f  # measured at %d ranks\n", waiting, size);
  std::printf("\n");
  if (size >= 2)
    std::printf("[nic]  # MPI between two ranks of this host\nbandwidth = \"%.0fMiB/s\"\nlatency = \"%.2fus\"\n\n",
                bandwidth / (1 << 20), latency * 1e6);
  else
    std::printf("# [nic] not measured: run under mpiexec -n 2 for message latency and bandwidth\n\n");
  std::printf("[storage]  # %d ranks writing and fsyncing 64 MiB each into one file in %s; one rank's\n"
              "# write() of 64 MiB, without fsync; %d ranks reading 64 MiB each of a file just\n"
              "# written, and one alone; an fsync after 4 KiB\ntargets = 1\n"
              "stripe_count = 1\ntarget_bandwidth = \"%.0fMiB/s\"\nclient_bandwidth = \"%.0fMiB/s\"\n"
              "writer_bandwidth = \"%.0fMiB/s\"\nclient_read_bandwidth = \"%.0fMiB/s\"\n"
              "reader_bandwidth = \"%.0fMiB/s\"\n"
              "sync_cost = \"%.0fus\"\nfile_cost = \"%.0fus\"  # open, header and close of a small "
              "file at %d ranks\n\n",
              writers, o.calibrate_dir.c_str(), writers, storage / (1 << 20), storage / (1 << 20),
              writer / (1 << 20), client_read / (1 << 20), reader / (1 << 20), sync * 1e6,
              file * 1e6, size);
  std::printf("[memory]  # one core's byte-swapping copy of 64 MiB (the engines' copy)\n"
              "copy_bandwidth = \"%.0fMiB/s\"\n", copy / (1 << 20));
  return 0;
}

}  // namespace tapio::cli
