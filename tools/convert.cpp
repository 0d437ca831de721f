// tapio convert DATASET OUT.nc: a tapio dataset (subfile engine) to one NetCDF CDF-5 file, in
// parallel. Every rank reads, for each step, a slab of each record variable split along its
// first dimension (0-d record variables and fixed variables: the whole on rank 0) and puts it
// in an IO that has the dataset's variables, dimension names and attributes in the same order,
// so the file is the one the serial engine would have written for the same puts. Fixed
// variables are written once, in the first step. Joined variables become CF contiguous ragged
// arrays (format/netcdf/ragged.h): each step's samples, split over the ranks, follow the
// steps before in a fixed variable, and the count variables take each step's lengths.
#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "commands.h"
#include "dataset.h"
#include "mpi_session.h"
#include "progress.h"
#include "staged_output.h"
#include "typed.h"

namespace tapio::cli {
namespace {

constexpr const char* kOutputIo = "tapio_convert";

// Above this many bytes per rank of puts, a step is written in several batches (whole
// variables each, the same on every rank).
constexpr uint64_t kBatchBytesPerRank = uint64_t{256} << 20;

struct Slab {
  const VariableDef* var = nullptr;
  std::vector<uint64_t> start, count;
  bool mine = false;   // this rank reads and puts it
  std::vector<uint8_t> data;
};

// This rank's share of rows [first, first + n) of v's first dimension: an even split.
Slab rows_of(const VariableDef& v, uint64_t first, uint64_t n, int rank, int size) {
  Slab s;
  s.var = &v;
  s.start.assign(v.shape.size(), 0);
  s.count = v.shape;
  s.start[0] = first + n * uint64_t(rank) / uint64_t(size);
  s.count[0] = first + n * uint64_t(rank + 1) / uint64_t(size) - s.start[0];
  s.mine = s.count[0] > 0;
  uint64_t elements = 1;
  for (uint64_t c : s.count) elements *= c;
  if (s.mine) s.data.resize(elements * type_size(v.type));
  return s;
}

// This rank's part of v: its rows of a record variable of rank >= 1, else all of it on rank 0.
Slab slab_of(const VariableDef& v, int rank, int size) {
  if (v.record && !v.shape.empty()) return rows_of(v, 0, v.shape[0], rank, size);
  Slab s;
  s.var = &v;
  s.start.assign(v.shape.size(), 0);
  s.count = v.shape;
  s.mine = rank == 0;
  if (s.mine) s.data.resize(v.elements() * type_size(v.type));
  return s;
}

void define_output(IO& out, const IoDef& def) {
  for (const DimensionDef& d : def.dims) out.define_dimension(d.name, d.length);  // their order
  for (const Attribute& a : def.attrs)
    check(tapio_define_attribute(out.get(), nullptr, a.name.c_str(), a.type, a.count(),
                                 a.data.data()));
  for (const VariableDef& v : def.vars) {
    std::vector<const char*> dims;
    for (const std::string& d : v.dim_names) dims.push_back(d.c_str());
    tapio_var* handle;
    check(tapio_define_variable(out.get(), v.name.c_str(), v.type, int(v.shape.size()),
                                v.shape.data(), dims.data(), v.record ? 0 : TAPIO_VAR_FIXED,
                                &handle));
    for (const Attribute& a : v.attrs)
      check(tapio_define_attribute(out.get(), v.name.c_str(), a.name.c_str(), a.type, a.count(),
                                   a.data.data()));
  }
}

void put(Engine& engine, IO& io, Slab& s) {
  if (!s.mine) return;
  Variable v = io.inquire_variable(s.var->name);
  if (!s.var->shape.empty()) v.set_selection(s.start, s.count);
  with_type(s.var->type, [&](auto tag) {
    engine.put(v, reinterpret_cast<const decltype(tag)*>(s.data.data()));
  });
}

// Batches of slabs (indices) whose puts are written together: consecutive variables up to
// kBatchBytesPerRank per rank on average, decided from global sizes so every rank agrees.
std::vector<std::vector<size_t>> batches(const std::vector<Slab>& slabs, int size) {
  std::vector<std::vector<size_t>> out(1);
  uint64_t bytes = 0;
  for (size_t i = 0; i < slabs.size(); ++i) {
    const VariableDef& v = *slabs[i].var;
    const uint64_t var_bytes = v.elements() * type_size(v.type) / uint64_t(size);
    if (!out.back().empty() && bytes + var_bytes > kBatchBytesPerRank) {
      out.emplace_back();
      bytes = 0;
    }
    out.back().push_back(i);
    bytes += var_bytes;
  }
  return out;
}

// Reads the slabs of one batch at `step` from the dataset and puts them.
Status copy_batch(Dataset& in, Engine& engine, IO& io, std::vector<Slab>& slabs,
                  const std::vector<size_t>& batch, uint64_t step) {
  Status queued;
  for (size_t i : batch) {
    Slab& s = slabs[i];
    if (s.mine && queued.ok())
      queued = in.queue_netcdf_get(*s.var, s.start, s.count, step, s.data.data());
  }
  TAPIO_RETURN_IF_ERROR(in.perform_gets(queued));
  return api_call([&] {
    for (size_t i : batch) put(engine, io, slabs[i]);
  });
}

// The step's samples of the ragged variables, split over the ranks, then the sample
// dimensions' counts move past them.
Status copy_samples(Dataset& in, Engine& engine, IO& io,
                    const std::vector<const VariableDef*>& ragged, uint64_t step, int rank,
                    int size, std::map<std::string, uint64_t>* samples_before) {
  std::vector<Slab> slabs;
  std::vector<size_t> all;
  for (const VariableDef* v : ragged) {
    const std::string& dim = v->dim_names[0];
    const uint64_t n = in.sample_lengths().at(dim)[step];
    slabs.push_back(rows_of(*v, (*samples_before)[dim], n, rank, size));
    all.push_back(all.size());
  }
  TAPIO_RETURN_IF_ERROR(copy_batch(in, engine, io, slabs, all, step));
  TAPIO_RETURN_IF_ERROR(api_call([&] { engine.perform_puts(); }));  // before the slabs go
  for (const auto& [dim, lengths] : in.sample_lengths()) (*samples_before)[dim] += lengths[step];
  return ok_status();
}

// Writes the file at `write_to`; config rules match the path the command line names.
Status convert(const ConvertOptions& o, const std::string& write_to, int rank, int size,
               uint64_t* steps_out, std::string* engine_out) {
  if (!is_dataset_dir(o.input))
    return error(TAPIO_ERR_ARG, "'{}' is not a tapio dataset (a directory holding tapio.idx)",
                 o.input);
  TAPIO_ASSIGN_OR_RETURN(std::unique_ptr<Dataset> in, Dataset::open(o.input));
  const IoDef& def = in->netcdf_definitions();
  const uint64_t steps = *steps_out = in->steps();

  // Joined variables become ragged: each step's samples follow the steps before.
  std::vector<Slab> record, fixed;
  std::vector<const VariableDef*> ragged;
  for (const VariableDef& v : def.vars) {
    const int native = in->definitions().find_var(v.name);
    if (native >= 0 && in->definitions().vars[native].joined)
      ragged.push_back(&v);
    else
      (v.record ? record : fixed).push_back(slab_of(v, rank, size));
  }
  const auto record_batches = batches(record, size);
  std::map<std::string, uint64_t> samples_before;  // per sample dimension, at the step

  IO io;
  Engine out;
  TAPIO_RETURN_IF_ERROR(api_call([&] {
    io = in->context().declare_io(kOutputIo);
    io.set_engine(o.engine);
  }));
  TAPIO_ASSIGN_OR_RETURN(const std::string ignored,
                         in->config().apply(io, kOutputIo, o.output, kNetcdfEngines));
  if (!ignored.empty() && rank == 0)
    fmt::print(stderr, "tapio convert: config file '{}' picks engine '{}' for '{}'; ignored: "
               "convert writes one NetCDF file, with the {} engine\n", in->config().source(),
               ignored, o.output, o.engine);
  TAPIO_RETURN_IF_ERROR(api_call([&] {
    // Every element is put (the dataset's reads give fill where no block was), and a ragged
    // variable's rows arrive over several steps: fill would overwrite the steps before. Set
    // after the config's parameters, so that a rule cannot undo it.
    io.set_parameter("fill", "false");
    define_output(io, def);
    out = io.open(write_to, TAPIO_MODE_WRITE);
  }));
  if (!fixed.empty() && steps > 0) {  // read once; put in the first step
    Status queued;
    for (Slab& s : fixed)
      if (s.mine && queued.ok())
        queued = in->queue_netcdf_get(*s.var, s.start, s.count, 0, s.data.data());
    TAPIO_RETURN_IF_ERROR(in->perform_gets(queued));
  }
  const Progress progress("tapio convert", rank == 0);
  for (uint64_t step = 0; step < steps; ++step) {
    progress.show(fmt::format("step {}/{}", step + 1, steps));
    TAPIO_RETURN_IF_ERROR(api_call([&] { out.begin_step(); }));
    if (step == 0)
      TAPIO_RETURN_IF_ERROR(api_call([&] { for (Slab& s : fixed) put(out, io, s); }));
    for (size_t b = 0; b < record_batches.size(); ++b) {
      TAPIO_RETURN_IF_ERROR(copy_batch(*in, out, io, record, record_batches[b], step));
      if (b + 1 < record_batches.size() || !ragged.empty())
        TAPIO_RETURN_IF_ERROR(api_call([&] { out.perform_puts(); }));
    }
    if (!ragged.empty()) TAPIO_RETURN_IF_ERROR(copy_samples(*in, out, io, ragged, step, rank,
                                                            size, &samples_before));
    TAPIO_RETURN_IF_ERROR(api_call([&] { out.end_step(); }));
  }
  TAPIO_RETURN_IF_ERROR(api_call([&] {
    *engine_out = out.engine_name();
    out.close();
  }));
  return in->close();
}

}  // namespace

int run_convert(const ConvertOptions& options) {
  start_mpi();
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const double t0 = MPI_Wtime();
  uint64_t steps = 0;
  std::string engine;
  Result<comm::MpiComm> world = comm::MpiComm::duplicate(MPI_COMM_WORLD);
  if (!world.ok()) return fail(world.status().message());
  // Written under a temporary name and renamed once whole: no half-converted file at OUT.
  Result<StagedOutput> staged = StagedOutput::create(*world, options.output);
  if (!staged.ok()) return fail(staged.status().message());
  Status status = convert(options, staged->path(), rank, size, &steps, &engine);
  if (status.ok()) status = staged->commit(*world);
  if (!status.ok()) {
    staged->discard(*world);
    return fail(status.message());
  }
  fmt::print("converted {} ({} step{}) to {} with the {} engine on {} rank{} in {:.3f} s\n",
             options.input, steps, steps == 1 ? "" : "s", options.output, engine, size,
             size == 1 ? "" : "s", MPI_Wtime() - t0);
  return 0;
}

}  // namespace tapio::cli
