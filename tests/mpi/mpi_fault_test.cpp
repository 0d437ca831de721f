// MPI calls that fail on one rank, through MPI's profiling interface (these definitions take
// the place of the library's in this statically linked program), for every engine: the step
// (or read) that meets the failure fails on every rank with TAPIO_ERR_MPI, nobody hangs (the
// test's timeout), and the next step succeeds — the failure left nothing in flight.
//
// The fault model: a point-to-point call (MPI_Isend, MPI_Irecv) or a window call
// (MPI_Win_sync, MPI_Win_lock_all) fails without doing anything; a collective
// (MPI_Reduce_scatter, MPI_Gatherv, MPI_Scatterv, MPI_File_write_all, MPI_File_read_all) fails
// on one rank after the ranks met, its result scrambled (it must not be trusted). tapio calls
// no MPI_Alltoall.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>

#include "test_util.h"

namespace tapio::test {
namespace {

// The armed fault: the next call named `call` on rank `victim` fails.
struct Armed {
  std::string call;
  int victim = -1;
  int fired = 0;
} armed;

bool fire(const char* call) {
  if (armed.call != call) return false;
  int me = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (me != armed.victim) return false;
  armed.call.clear();
  ++armed.fired;
  return true;
}

void scramble(void* buf, int count, MPI_Datatype type) {
  int size = 0;
  PMPI_Type_size(type, &size);
  if (buf && count > 0 && size > 0) std::memset(buf, 0x5a, static_cast<size_t>(count) * size);
}

}  // namespace
}  // namespace tapio::test

using tapio::test::fire;

extern "C" {
int MPI_Isend(const void* b, int n, MPI_Datatype t, int dest, int tag, MPI_Comm c,
              MPI_Request* r) {
  if (fire("Isend")) return MPI_ERR_OTHER;
  return PMPI_Isend(b, n, t, dest, tag, c, r);
}
int MPI_Irecv(void* b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Request* r) {
  if (fire("Irecv")) return MPI_ERR_OTHER;
  return PMPI_Irecv(b, n, t, src, tag, c, r);
}
int MPI_Reduce_scatter(const void* s, void* r, const int* n, MPI_Datatype t, MPI_Op op,
                       MPI_Comm c) {
  const int rc = PMPI_Reduce_scatter(s, r, n, t, op, c);
  if (!fire("Reduce_scatter")) return rc;
  int me = 0;
  PMPI_Comm_rank(c, &me);
  tapio::test::scramble(r, n[me], t);
  return MPI_ERR_OTHER;
}
int MPI_Gatherv(const void* s, int sn, MPI_Datatype st, void* r, const int* rn, const int* d,
                MPI_Datatype rt, int root, MPI_Comm c) {
  const int rc = PMPI_Gatherv(s, sn, st, r, rn, d, rt, root, c);
  return fire("Gatherv") ? MPI_ERR_OTHER : rc;
}
int MPI_Scatterv(const void* s, const int* sn, const int* d, MPI_Datatype st, void* r, int rn,
                 MPI_Datatype rt, int root, MPI_Comm c) {
  const int rc = PMPI_Scatterv(s, sn, d, st, r, rn, rt, root, c);
  if (!fire("Scatterv")) return rc;
  tapio::test::scramble(r, rn, rt);
  return MPI_ERR_OTHER;
}
int MPI_Win_sync(MPI_Win w) {
  if (fire("Win_sync")) return MPI_ERR_OTHER;
  return PMPI_Win_sync(w);
}
int MPI_Win_lock_all(int assert_, MPI_Win w) {
  if (fire("Win_lock_all")) return MPI_ERR_OTHER;
  return PMPI_Win_lock_all(assert_, w);
}
// Every reduction but the error agreement's own (one MPI_INT, MPI_MIN: comm::agree), which is
// trusted, as it must be: see docs/reliability.md, "What MPI failures tapio survives".
int MPI_Allreduce(const void* s, void* r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  const int rc = PMPI_Allreduce(s, r, n, t, op, c);
  if ((n == 1 && t == MPI_INT && op == MPI_MIN) || !fire("Allreduce")) return rc;
  tapio::test::scramble(r, n, t);
  return MPI_ERR_OTHER;
}
int MPI_Exscan(const void* s, void* r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  const int rc = PMPI_Exscan(s, r, n, t, op, c);
  if (!fire("Exscan")) return rc;
  tapio::test::scramble(r, n, t);
  return MPI_ERR_OTHER;
}
int MPI_Gather(const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt,
               int root, MPI_Comm c) {
  const int rc = PMPI_Gather(s, sn, st, r, rn, rt, root, c);
  return fire("Gather") ? MPI_ERR_OTHER : rc;
}
int MPI_Allgather(const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt,
                  MPI_Comm c) {
  const int rc = PMPI_Allgather(s, sn, st, r, rn, rt, c);
  if (!fire("Allgather")) return rc;
  int size = 0;
  PMPI_Comm_size(c, &size);
  tapio::test::scramble(r, rn * size, rt);
  return MPI_ERR_OTHER;
}
int MPI_Comm_split_type(MPI_Comm c, int type, int key, MPI_Info info, MPI_Comm* out) {
  const int rc = PMPI_Comm_split_type(c, type, key, info, out);
  if (!fire("Comm_split_type")) return rc;
  PMPI_Comm_free(out);  // a failed call creates no communicator
  *out = MPI_COMM_NULL;
  return MPI_ERR_OTHER;
}
int MPI_Bcast(void* b, int n, MPI_Datatype t, int root, MPI_Comm c) {
  const int rc = PMPI_Bcast(b, n, t, root, c);
  if (!fire("Bcast")) return rc;
  tapio::test::scramble(b, n, t);
  return MPI_ERR_OTHER;
}
int MPI_Comm_split(MPI_Comm c, int color, int key, MPI_Comm* out) {
  const int rc = PMPI_Comm_split(c, color, key, out);
  if (!fire("Comm_split")) return rc;
  PMPI_Comm_free(out);
  *out = MPI_COMM_NULL;
  return MPI_ERR_OTHER;
}
int MPI_File_sync(MPI_File f) {
  const int rc = PMPI_File_sync(f);
  return fire("File_sync") ? MPI_ERR_OTHER : rc;
}
int MPI_File_write_all(MPI_File f, const void* b, int n, MPI_Datatype t, MPI_Status* s) {
  const int rc = PMPI_File_write_all(f, b, n, t, s);
  return fire("File_write_all") ? MPI_ERR_OTHER : rc;
}
int MPI_File_read_all(MPI_File f, void* b, int n, MPI_Datatype t, MPI_Status* s) {
  const int rc = PMPI_File_read_all(f, b, n, t, s);
  if (!fire("File_read_all")) return rc;
  tapio::test::scramble(b, n, t);
  return MPI_ERR_OTHER;
}
}

namespace tapio::test {
namespace {

using Params = std::map<std::string, std::string>;

struct Case {
  const char* name;
  const char* engine;
  Params params;
  const char* call;
  bool receiver;  // the victim is rank 0 (a receiver, a root), else the last rank
  bool read;      // the fault is armed for a read, else for the first write step
  bool rows = false;  // read by rows (every rank needs a piece of every block), not columns
};

constexpr uint64_t kRows = 32;
uint64_t cols() { return 32 * static_cast<uint64_t>(size()); }

void expect_everywhere(int code, int want, const char* name) {
  int lo = code, hi = code;
  PMPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  PMPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(lo, want) << name;
  EXPECT_EQ(hi, want) << name;
}

// Whether the armed call failed on some rank (then every rank must have the error). With more
// than one rank every case meets its fault.
bool fired_anywhere(const char* name) {
  int fired = armed.fired;
  PMPI_Allreduce(MPI_IN_PLACE, &fired, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  armed = Armed{};
  EXPECT_TRUE(fired > 0 || size() == 1) << name << ": the fault was not met";
  return fired > 0;
}

void arm(const char* call, bool receiver) {
  armed.call = call;
  armed.victim = receiver ? 0 : size() - 1;
  armed.fired = 0;
}
void arm(const Case& c) { arm(c.call, c.receiver); }

// The status code of a C++ API call (0 when it returns).
template <typename F>
int code_of(F&& f) {
  try {
    f();
    return TAPIO_OK;
  } catch (const tapio::Error& e) {
    return e.code();
  }
}

// Each rank's columns (or rows): element g of step s holds value(0, s, g).
struct Columns {
  explicit Columns(bool rows = false) {
    if (!rows) return;
    const uint64_t band = kRows / size();
    start = {band * rank(), 0};
    count = {rank() + 1 == size() ? kRows - start[0] : band, cols()};
    mine = box_indices({kRows, cols()}, start, count);
  }
  Dims start{0, 32 * static_cast<uint64_t>(rank())}, count{kRows, 32};
  std::vector<uint64_t> mine = box_indices({kRows, cols()}, start, count);
  std::vector<double> at(uint64_t step) const {
    std::vector<double> d(mine.size());
    for (size_t i = 0; i < mine.size(); ++i) d[i] = value(0, step, mine[i]);
    return d;
  }
};

IO declare(Context& ctx, const Case& c) {
  IO io = ctx.declare_io("mpi_fault");
  io.set_engine(c.engine);
  for (const auto& [k, v] : c.params) io.set_parameter(k, v);
  return io;
}

// Writes two steps (step values 0 and 1); a write case's fault is armed for the first, which
// then fails everywhere, so the file holds step values 1 only... then 0 and 1 again: three
// attempts, two committed.
void write_file(const std::string& path, const Case& c, bool faulty) {
  Context ctx(MPI_COMM_WORLD);
  IO io = declare(ctx, c);
  Variable field = io.define_variable<double>("field", {kRows, cols()}, {"y", "x"});
  Engine out = io.open(path, TAPIO_MODE_WRITE);
  const Columns cols_of;
  auto put_step = [&](uint64_t value_step) {
    const std::vector<double> data = cols_of.at(value_step);
    out.begin_step();
    field.set_selection(cols_of.start, cols_of.count);
    out.put(field, data);
    return code_of([&] { out.end_step(); });
  };
  if (faulty) {
    arm(c);
    const int code = put_step(7);
    expect_everywhere(code, fired_anywhere(c.name) ? TAPIO_ERR_MPI : TAPIO_OK, c.name);
    if (code == TAPIO_OK) {  // the fault never fired here (one rank): start again
      out.close();
      return write_file(path, c, false);
    }
  }
  expect_everywhere(put_step(0), TAPIO_OK, c.name);
  expect_everywhere(put_step(1), TAPIO_OK, c.name);
  out.close();
}

// Reads step `s` of the file by columns; with `faulty`, the first get fails everywhere (if the
// fault fired) and a second one reads exact data.
void read_file(const std::string& path, const Case& c, bool faulty) {
  Context ctx(MPI_COMM_WORLD);
  IO io = declare(ctx, c);
  Engine in = io.open(path, TAPIO_MODE_READ);
  ASSERT_EQ(in.steps(), 2u) << c.name;
  Variable field = io.inquire_variable("field");
  const Columns cols_of(c.rows);
  field.set_selection(cols_of.start, cols_of.count);
  for (uint64_t s = 0; s < 2; ++s) {
    std::vector<double> got(cols_of.mine.size());
    in.begin_step();
    in.get(field, got);
    if (faulty && s == 0) {
      arm(c);
      const int code = code_of([&] { in.perform_gets(); });
      expect_everywhere(code, fired_anywhere(c.name) ? TAPIO_ERR_MPI : TAPIO_OK, c.name);
      in.get(field, got);
    }
    in.end_step();
    EXPECT_EQ(got, cols_of.at(s)) << c.name << " step " << s;
  }
  in.close();
}

TEST(MpiFaults, OneRankFailsEveryRankReportsAndTheNextStepWorks) {
  const Params nodes = {{"ranks_per_node", "1"}, {"direct", "never"}};
  const Params shared = {{"direct", "never"}};
  const Params aggregate = {{"subfile_write", "aggregate"}, {"aggregators", "1"}};
  const Params served = {{"read_merge_below", "1GiB"}};
  const Params async = {{"async", "true"}};
  const Params eligible = {{"stripe_size", "256"}};
  const Params eligible_async = {{"stripe_size", "256"}, {"async", "true"}};
  const Params nodes_async = {{"ranks_per_node", "1"}, {"direct", "never"}, {"async", "true"}};
  const Params shared_async = {{"direct", "never"}, {"async", "true"}};
  // Two-level on virtual nodes of two ranks: with one aggregator (on the first node) the last
  // rank hands its pieces to its node's gatherer before anything else; with every rank
  // aggregating, rank 0 gathers its node's pieces before it receives anything else.
  const Params handing = {{"ranks_per_node", "2"}, {"direct", "never"}, {"two_level", "true"},
                          {"aggregators", "1"}};
  const Params gathering = {{"ranks_per_node", "2"}, {"direct", "never"}, {"two_level", "true"},
                            {"aggregators", "all"}, {"shared_memory", "false"}};
  const std::vector<Case> cases = {
      {"collective two-level: a hand-over", "collective", handing, "Isend", false, false},
      {"collective two-level: a gatherer's receive", "collective", gathering, "Irecv", true,
       false},
      {"serial: gather of the data", "serial", {}, "Gatherv", false, false},
      {"serial: scatter of the data", "serial", {}, "Scatterv", false, true},
      {"mpiio: overlap check's count", "mpiio", {}, "Reduce_scatter", true, false},
      {"mpiio: overlap check's send", "mpiio", nodes, "Isend", false, false},
      {"mpiio: collective write", "mpiio", {}, "File_write_all", false, false},
      {"mpiio: collective read", "mpiio", {}, "File_read_all", false, true},
      {"collective: round counts", "collective", nodes, "Reduce_scatter", true, false},
      {"collective: a sender's send", "collective", nodes, "Isend", false, false},
      {"collective: an aggregator's receive", "collective", nodes, "Irecv", true, false},
      {"collective: a requester's receive", "collective", nodes, "Irecv", false, true},
      {"collective: a read reply", "collective", nodes, "Isend", true, true},
      {"collective: read round counts", "collective", nodes, "Reduce_scatter", true, true},
      {"collective: window sync", "collective", shared, "Win_sync", false, false},
      {"collective: window lock", "collective", shared, "Win_lock_all", false, false},
      {"subfile: overlap check's count", "subfile", {}, "Reduce_scatter", true, false},
      {"subfile: aggregate send", "subfile", aggregate, "Isend", false, false},
      {"subfile: aggregate receive", "subfile", aggregate, "Irecv", true, false},
      {"subfile: served read counts", "subfile", served, "Reduce_scatter", true, true, true},
      {"subfile: served read request", "subfile", served, "Isend", false, true, true},
      {"subfile: served read reply", "subfile", served, "Isend", true, true, true},
      {"serial: which variables a step writes", "serial", {}, "Allreduce", false, false},
      {"mpiio: which variables a step writes", "mpiio", {}, "Allreduce", true, false},
      {"subfile: the commit's metadata gather", "subfile", {}, "Gather", false, false},
      {"subfile: the log commit's scan", "subfile", {{"metadata", "log"}}, "Exscan", false,
       false},
      // Pieces as large as a stripe: only then does a step scan the ranks' order.
      {"collective: the direct writes' scan", "collective", eligible, "Exscan", false, false},
      {"serial: the read's work list", "serial", {}, "Bcast", false, true},
      // Asynchronous output keeps the exchange in end_step: the same failures, the same outcome.
      {"serial async: gather of the data", "serial", async, "Gatherv", false, false},
      {"serial async: which variables a step writes", "serial", async, "Allreduce", false,
       false},
      {"subfile async: the commit's metadata gather", "subfile", async, "Gather", false, false},
      {"collective async: round counts", "collective", nodes_async, "Reduce_scatter", true,
       false},
      {"collective async: a sender's send", "collective", nodes_async, "Isend", false, false},
      {"collective async: an aggregator's receive", "collective", nodes_async, "Irecv", true,
       false},
      {"collective async: window sync", "collective", shared_async, "Win_sync", false, false},
      {"collective async: the direct writes' scan", "collective", eligible_async, "Exscan", false,
       false},
  };
  for (const Case& c : cases) {
    if (rank() == 0) std::fprintf(stderr, "case: %s\n", c.name);  // names a hang's case
    TempDir dir;
    const std::string path = dir.file(std::string("f") + (c.engine[0] == 's' && c.engine[1] == 'u'
                                                              ? ".tapio"
                                                              : ".nc"));
    write_file(path, c, !c.read);
    read_file(path, c, c.read);
  }
}

// An MPI call of open or close failing on one rank: the open (or close) fails on every rank,
// and nothing is lost — a new open works, and a failed close keeps every committed step.
enum class At { kOpen, kOpenToRead, kClose };
struct EdgeCase {
  const char* name;
  const char* engine;
  Params params;
  const char* call;
  bool receiver;
  At at;
};

void open_fails_everywhere_then_works(const std::string& path, const EdgeCase& e) {
  const Case c{e.name, e.engine, e.params, e.call, e.receiver, false};
  if (e.at == At::kOpenToRead) {
    write_file(path, c, false);
    {
      Context ctx(MPI_COMM_WORLD);
      IO io = declare(ctx, c);
      arm(e.call, e.receiver);
      const int code = code_of([&] { io.open(path, TAPIO_MODE_READ).close(); });
      expect_everywhere(code, fired_anywhere(e.name) ? TAPIO_ERR_MPI : TAPIO_OK, e.name);
    }
    return read_file(path, c, false);
  }
  {
    Context ctx(MPI_COMM_WORLD);
    IO io = declare(ctx, c);
    io.define_variable<double>("field", {kRows, cols()}, {"y", "x"});
    arm(e.call, e.receiver);
    const int code = code_of([&] { io.open(path, TAPIO_MODE_WRITE).close(); });
    expect_everywhere(code, fired_anywhere(e.name) ? TAPIO_ERR_MPI : TAPIO_OK, e.name);
  }
  write_file(path, c, false);
  read_file(path, c, false);
}

void close_fails_everywhere_and_keeps_the_steps(const std::string& path, const EdgeCase& e) {
  const Case c{e.name, e.engine, e.params, e.call, e.receiver, false};
  {
    Context ctx(MPI_COMM_WORLD);
    IO io = declare(ctx, c);
    Variable field = io.define_variable<double>("field", {kRows, cols()}, {"y", "x"});
    Engine out = io.open(path, TAPIO_MODE_WRITE);
    const Columns cols_of;
    for (uint64_t s = 0; s < 2; ++s) {
      const std::vector<double> data = cols_of.at(s);
      out.begin_step();
      field.set_selection(cols_of.start, cols_of.count);
      out.put(field, data);
      out.end_step();
    }
    arm(e.call, e.receiver);
    const int code = code_of([&] { out.close(); });
    expect_everywhere(code, fired_anywhere(e.name) ? TAPIO_ERR_MPI : TAPIO_OK, e.name);
  }
  read_file(path, c, false);
}

TEST(MpiFaults, OpenAndCloseFailEverywhereAndLoseNothing) {
  const Params nodes = {{"ranks_per_node", "1"}};
  const std::vector<EdgeCase> cases = {
      {"serial: open's definitions check", "serial", {}, "Allreduce", false, At::kOpen},
      {"serial: open's node split", "serial", {}, "Comm_split_type", false, At::kOpen},
      {"serial: open's broadcast", "serial", {}, "Bcast", false, At::kOpen},
      {"serial: open's node names", "serial", {}, "Allgather", true, At::kOpen},
      {"mpiio: open's definitions check", "mpiio", {}, "Allreduce", true, At::kOpen},
      {"mpiio: close's MPI-IO sync", "mpiio", {}, "File_sync", false, At::kClose},
      {"collective: open's definitions check", "collective", nodes, "Allreduce", false,
       At::kOpen},
      {"collective: open's node split", "collective", {}, "Comm_split_type", true, At::kOpen},
      {"collective: open's aggregator split", "collective", nodes, "Comm_split", false,
       At::kOpen},
      {"subfile: open's definitions check", "subfile", {}, "Allreduce", false, At::kOpen},
      {"subfile: open's group split", "subfile", {}, "Comm_split", true, At::kOpen},
      {"subfile: the metadata broadcast", "subfile", {}, "Bcast", false, At::kOpenToRead},
  };
  for (const EdgeCase& e : cases) {
    if (rank() == 0) std::fprintf(stderr, "case: %s\n", e.name);
    TempDir dir;
    const std::string path = dir.file(std::string("f") + (std::string(e.engine) == "subfile"
                                                              ? ".tapio"
                                                              : ".nc"));
    if (e.at == At::kClose)
      close_fails_everywhere_and_keeps_the_steps(path, e);
    else
      open_fails_everywhere_then_works(path, e);
  }
}

// The subfile engine's steady commit (every rank's records the last gather's lengths: the
// gatherv alone, no gather of sizes first) failing on one rank: the step fails everywhere, the
// next one commits (its gather starts again from the sizes), and every committed step reads
// back exactly.
TEST(MpiFaults, SteadySubfileCommitFailsEverywhereAndLosesNothing) {
  for (bool receiver : {false, true}) {
    const char* name = receiver ? "steady gatherv, root" : "steady gatherv, sender";
    TempDir dir;
    const std::string path = dir.file("steady.tapio");
    const Case c{name, "subfile", {}, "Gatherv", receiver, false};
    const Columns cols_of;
    const uint64_t steps = 6;  // committed; the fourth attempt fails (steady by then)
    {
      Context ctx(MPI_COMM_WORLD);
      IO io = declare(ctx, c);
      Variable field = io.define_variable<double>("field", {kRows, cols()}, {"y", "x"});
      Engine out = io.open(path, TAPIO_MODE_WRITE);
      for (uint64_t s = 0; s < steps; ++s) {
        const std::vector<double> data = cols_of.at(s);
        if (s == 4) {
          const std::vector<double> failing = cols_of.at(7);  // put keeps it until end_step
          out.begin_step();
          field.set_selection(cols_of.start, cols_of.count);
          out.put(field, failing);
          arm(c);
          const int code = code_of([&] { out.end_step(); });
          expect_everywhere(code, fired_anywhere(name) ? TAPIO_ERR_MPI : TAPIO_OK, name);
        }
        out.begin_step();
        field.set_selection(cols_of.start, cols_of.count);
        out.put(field, data);
        expect_everywhere(code_of([&] { out.end_step(); }), TAPIO_OK, name);
      }
      out.close();
    }
    Context ctx(MPI_COMM_WORLD);
    IO io = declare(ctx, c);
    Engine in = io.open(path, TAPIO_MODE_READ);
    ASSERT_EQ(in.steps(), steps) << name;
    Variable field = io.inquire_variable("field");
    field.set_selection(cols_of.start, cols_of.count);
    for (uint64_t s = 0; s < steps; ++s) {
      std::vector<double> got(cols_of.mine.size());
      in.begin_step();
      in.get(field, got);
      in.end_step();
      EXPECT_EQ(got, cols_of.at(s)) << name << " step " << s;
    }
    in.close();
  }
}

}  // namespace
}  // namespace tapio::test
