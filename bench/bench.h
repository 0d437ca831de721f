// tapio-bench: the shared types. A Pattern says what every rank writes and reads (variables,
// steps, this rank's runs of elements); a Method moves those bytes one way (raw, a tapio engine,
// MPI-IO, PnetCDF ...). Patterns and methods each live in one file and register in registry.cpp.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace bench {

using Dims = std::vector<uint64_t>;
using json = nlohmann::ordered_json;

// One variable of a pattern: double elements, a record variable (one record per step).
struct Var {
  std::string name;
  Dims shape;                      // without the record dimension
  std::vector<std::string> dims;   // dimension names, same length as shape
  // A joined array (particles): the ranks' rows one after another in rank order, so the first
  // dimension's length changes by step (Pattern::step_shape); shape[0] is 0, unknown.
  bool joined = false;
  uint64_t elements() const;
  uint64_t row_elements() const;  // elements per index of the first dimension
};

// A box of a variable: where it starts and how many elements it spans, per dimension.
struct Box {
  Dims start, count;
  uint64_t elements() const;
};

// This rank's part of one variable, in one step: runs of consecutive elements of the flattened
// (row-major) variable, ascending, and where each run sits in the rank's memory buffer.
struct Piece {
  // The piece as boxes, when it is made of boxes (empty: runs only, an irregular piece). The
  // buffer holds the boxes one after another, each in C order, and a block-based engine stores
  // each as its own block: one box per rank on a process grid, many for a rank that owns many
  // blocks (the metadata and selection patterns).
  std::vector<Box> boxes;
  std::vector<uint64_t> offsets, lengths;    // global element offset and length of each run
  std::vector<uint64_t> mem_offsets;         // element offset of each run in the buffer
  uint64_t mem_elements = 0;                 // buffer length in elements (>= elements)
  uint64_t elements = 0;                     // sum of lengths
  // False when the runs do not follow one another in the buffer in run order: boxes side by
  // side in the variable, each whole in memory, interleave their rows in the file.
  bool mem_in_run_order = true;
  // The buffer holds the runs back to back in run order (no gaps, no reordering).
  bool mem_contiguous() const { return mem_elements == elements && mem_in_run_order; }
  void add_run(uint64_t offset, uint64_t length, uint64_t mem_gap = 0);
  static Piece from_box(const Dims& shape, const Dims& start, const Dims& count);
  // Boxes back to back in the buffer; boxes without elements are left out.
  static Piece from_boxes(const Dims& shape, const std::vector<Box>& boxes);
};

// The contract's data value: element g of variable v at step s. With use_smooth_field (the
// --operator comparison), a LICOM-like ocean field instead: what compression meets in
// practice, where the contract's ramp would flatter zfp and random data would defeat zstd.
double value(int v, uint64_t s, uint64_t g);
// The smooth field over an nx (lon) by ny (lat) grid, g = (depth * ny + lat) * nx + lon; reads
// are then checked to within `tolerance` (a lossy operator's bound; 0: exact).
void use_smooth_field(uint64_t nx, uint64_t ny, double tolerance);
void fill(const Piece& p, int v, uint64_t s, double* buf);
// Elements further than the tolerance from their value; the largest error of every call since
// reset_max_error() is max_error()'s (this rank's).
uint64_t count_wrong(const Piece& p, int v, uint64_t s, const double* buf);
void reset_max_error();
double max_error();
// Copy the runs of a (possibly gapped) buffer into a contiguous one, in run order.
void pack(const Piece& p, const double* buf, double* out);

class Pattern {
 public:
  virtual ~Pattern() = default;
  virtual std::string name() const = 0;
  virtual json params() const = 0;
  virtual const std::vector<Var>& vars() const = 0;
  virtual uint64_t steps() const = 0;
  virtual const Piece& write_piece(int v) const = 0;  // same in every step
  virtual const Piece& read_piece(int v) const { return write_piece(v); }
  // A pattern whose pieces change by step (joined variables) overrides these three; by default
  // every step has the pieces above and the variables' shapes.
  virtual const Piece& step_write_piece(int v, uint64_t) const { return write_piece(v); }
  virtual const Piece& step_read_piece(int v, uint64_t) const { return read_piece(v); }
  virtual Dims step_shape(int v, uint64_t) const { return vars()[v].shape; }
  bool joined() const;  // its variables are joined (all or none)
  // Seconds of compute (a busy loop) the application does after each step (--compute).
  virtual double compute_seconds() const { return 0; }
  // The steps the read covers, ascending (default: every step; a selection reads one or a few).
  virtual std::vector<uint64_t> read_steps() const;
  // The chunk shape a user of a chunked format (HDF5) would give variable v, without the record
  // dimension: the blocks it is written in (selection). None: the method's own choice.
  virtual std::optional<Dims> chunk(int) const { return std::nullopt; }
  // Bytes all ranks together move in one write / one read of the whole pattern.
  uint64_t write_bytes(MPI_Comm comm) const;
  uint64_t read_bytes(MPI_Comm comm) const;
};

// Storage and network counters of one operation; missing = not known ("n/a").
struct Counters {
  std::optional<double> requests, bytes, messages;
  std::optional<double> messages_between_nodes;  // tapio's collective writes (profile)
  json phases;  // a tapio engine's per-phase times (its profile's "phases"); null: none
  // A tapio engine's planning: the plan phase of each batch (step) in ms, median rank, and
  // the plans made and reused and the most bytes they held (sums over ranks); null: none.
  json plan;
  double compute_s = 0;  // seconds of --compute inside the write (slowest rank; rank 0)
};

struct RunConfig {
  std::string dir;
  bool fsync = true;
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = 0, size = 1;
  double compute_s = 0;  // the busy loop after each step, seconds (--compute; compute.cpp)
};

// Data of every step of every variable, in each piece's memory layout: data[s][v].
using StepData = std::vector<std::vector<std::vector<double>>>;

struct Availability {
  enum Kind { kAvailable, kUnavailable, kNotBuilt } kind = kAvailable;
  std::string reason;
};

class Method {
 public:
  virtual ~Method() = default;
  virtual std::string name() const = 0;
  // Collective; the same answer on every rank.
  virtual Availability available(const RunConfig& cfg) = 0;
  // Whether the method can read this pattern's read pieces back (the same answer on every rank).
  virtual Availability supports(const Pattern&) const { return {}; }
  // Collective: write every step (open to close, fsync at close when cfg.fsync); counters of
  // what the storage saw, summed over ranks (valid on rank 0).
  virtual Counters write(const RunConfig& cfg, const Pattern& p, const StepData& data) = 0;
  // Collective: read the pattern's read steps back with its read pieces and check every value;
  // *wrong = number of wrong elements on this rank.
  virtual Counters read_verify(const RunConfig& cfg, const Pattern& p, uint64_t* wrong) = 0;
  // Collective: remove the method's files.
  virtual void remove(const RunConfig& cfg, const Pattern& p) = 0;
  // Collective, untimed, after each write and before read_verify: extra measurements of the
  // written dataset (the subfile methods time a metadata-only reader here).
  virtual void after_write(const RunConfig&, const Pattern&) {}
  // Whether write() runs the pattern's compute between steps (--compute needs it).
  virtual bool computes() const { return false; }
  // Whether write() and read_verify() follow step_write_piece and step_read_piece and write
  // joined variables (the particles pattern needs it).
  virtual bool joins() const { return false; }
  // Extra per-method results for the JSON (valid on rank 0), e.g. metadata timings; null: none.
  virtual json extras() const { return nullptr; }

 protected:
  std::string path(const RunConfig& cfg, const Pattern& p, const std::string& suffix) const {
    std::string n = name();  // method variants like "subfile-log/all" become "subfile-log_all"
    for (char& c : n)
      if (c == '/') c = '_';
    return cfg.dir + "/" + p.name() + "." + n + suffix;
  }
};

// Errors a method or pattern reports (on every rank alike where collective).
struct BenchError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace bench

namespace bench {
// The same runs with the buffer made contiguous (how readers deliver data).
Piece packed(const Piece& p);
// Split a run of a variable into boxes that stay within one row of the last dimension.
void run_boxes(const Dims& shape, uint64_t offset, uint64_t length,
               const std::function<void(const Dims& start, const Dims& count)>& each);
// Where this rank's rows of each (joined) variable go in step s, as an application finds it:
// one exscan and one allreduce of the counts (collective). Per variable: this rank's rows, the
// rows of the ranks before it, the step's rows in all.
struct JoinedRows {
  std::vector<uint64_t> count, offset, total;
};
JoinedRows joined_rows(MPI_Comm comm, const Pattern& p, uint64_t s);
// A busy loop of `seconds` on the steady clock (compute.cpp).
void compute(double seconds);
// Sum a value over ranks (valid everywhere).
double sum_over_ranks(MPI_Comm comm, double mine);

// The read system calls (requests) and the bytes they returned from construction to total(),
// summed over ranks, from the kernel's per-process counts (/proc/self/io syscr, rchar): every
// read of the process counts, storage or not, so it is an upper bound on the storage reads,
// for libraries that make their storage calls themselves (phdf5). Missing without /proc.
class ReadSyscalls {
 public:
  ReadSyscalls();
  Counters total(MPI_Comm comm) const;  // collective

 private:
  double calls_ = 0, bytes_ = 0, own_ = 0;
  bool ok_ = false;
};
}  // namespace bench
