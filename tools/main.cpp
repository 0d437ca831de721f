// tapio: inspect NetCDF classic files (CDF-1, CDF-2, CDF-5), whoever wrote them, and tapio
// datasets (subfile engine directories); convert datasets to NetCDF.
//   tapio ls PATH [--json]
//   tapio ls --storage PATH
//   tapio dump PATH VAR [--step S] [--start a,b,..] [--count a,b,..] [--json]
//   [mpiexec -n N] tapio convert DATASET OUT.nc [--engine E]
//   tapio sim CLUSTER.toml WORKLOAD.toml [--set K=V] [--json] [--plot PNG] [--explain]
//   [mpiexec -n 2] tapio sim --calibrate [--dir DIR]
//   tapio report PROFILE.json [B.json] [--plot OUT.png|.svg] [--html OUT.html]   (Python)
//   tapio --version
// NetCDF files are read directly, without MPI; datasets and convert go through the tapio API
// (MPI is started on demand, so one rank needs no mpiexec).
// Exit codes: 0 ok, 1 error (message on stderr), 2 bad command line.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "commands.h"
#include "mpi_session.h"

namespace tapio::cli {

int fail(const std::string& message) {
  std::fflush(stdout);
  if (!is_root()) return 1;
  std::fprintf(stderr, "tapio: %s\n", message.c_str());
  return 1;
}

namespace {

void add_ls(CLI::App& app, LsOptions& o) {
  CLI::App* ls = app.add_subcommand("ls", "List dimensions, attributes and variables");
  ls->add_option("PATH", o.path, "NetCDF file or tapio dataset directory")->required();
  CLI::Option* json = ls->add_flag("--json", o.json, "Print as JSON");
  ls->add_flag("--storage", o.storage,
               "Print the file system under PATH (which need not exist yet) and the defaults "
               "tapio uses there")
      ->excludes(json);
}

void add_dump(CLI::App& app, DumpOptions& o) {
  CLI::App* dump = app.add_subcommand("dump", "Print the values of a variable");
  dump->add_option("PATH", o.path, "NetCDF file or tapio dataset directory")->required();
  dump->add_option("VAR", o.var, "Variable name")->required();
  dump->add_option("--step", o.step, "Record (0-based) of a record variable; default: all");
  dump->add_option("--start", o.start, "First index per dimension, comma-separated, without "
                   "the record dimension");
  dump->add_option("--count", o.count, "Elements per dimension, comma-separated, without the "
                   "record dimension; default: to the end");
  dump->add_flag("--json", o.json, "Print as JSON");
}

void add_convert(CLI::App& app, ConvertOptions& o) {
  CLI::App* convert = app.add_subcommand(
      "convert", "Convert a tapio dataset to a NetCDF CDF-5 file (parallel under mpiexec)");
  convert->add_option("DATASET", o.input, "tapio dataset directory (subfile engine)")->required();
  convert->add_option("OUT", o.output, "NetCDF file to write")->required();
  convert->add_option("--engine", o.engine, "Engine that writes OUT (a config rule may pick "
                      "another that writes one NetCDF file)")
      ->check(CLI::IsMember(kNetcdfEngines))
      ->capture_default_str();
}

void add_sim(CLI::App& app, SimOptions& o) {
  CLI::App* sim = app.add_subcommand(
      "sim", "Predict a workload's write time on a cluster (the cluster model, docs/sim.md)");
  sim->add_option("CLUSTER", o.cluster, "cluster file (TOML)");
  sim->add_option("WORKLOAD", o.workload, "workload file (TOML)");
  sim->add_option("--set", o.sets, "KEY=VALUE override: a cluster key by section "
                  "(storage.targets=8), else a workload key (ranks=768, pattern.count=8, "
                  "params.aggregators=1/2); repeatable");
  sim->add_flag("--json", o.json, "Print as JSON");
  sim->add_option("--plot", o.plot, "Draw the rounds and phases into this PNG (matplotlib)");
  sim->add_flag("--explain", o.explain, "Predict every candidate plan and say which the model "
                "chooses and why");
  sim->add_option("--choose", o.choose, "with --explain: the parameters left to the model")
      ->capture_default_str();
  sim->add_flag("--calibrate", o.calibrate, "Measure this machine and print a cluster file "
                "(under mpiexec -n 2 for messages)");
  sim->add_option("--dir", o.calibrate_dir, "with --calibrate: where storage is measured")
      ->capture_default_str();
}

// Listed for --help only: run() hands everything after `report` to the Python report as it
// is (CLI11 would reorder options and their values).
void add_report(CLI::App& app) {
  app.add_subcommand("report", "What a run's I/O cost, from the JSON profile an engine "
                     "writes: PROFILE.json [B.json] [--plot OUT.png|.svg] [--html OUT.html] "
                     "(runs python -m tapio report)");
}

int run(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "report")
    return run_report(std::vector<std::string>(argv + 2, argv + argc));
  CLI::App app{"Inspect NetCDF classic files (CDF-1, CDF-2, CDF-5) and tapio datasets; convert "
               "datasets to NetCDF", "tapio"};
  app.set_version_flag("--version", "tapio " TAPIO_VERSION);
  app.require_subcommand(1);
  LsOptions ls;
  DumpOptions dump;
  ConvertOptions convert;
  SimOptions sim;
  add_ls(app, ls);
  add_dump(app, dump);
  add_convert(app, convert);
  add_sim(app, sim);
  add_report(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (app.got_subcommand("ls")) return run_ls(ls);
  if (app.got_subcommand("convert")) return run_convert(convert);
  if (app.got_subcommand("sim")) return run_sim(sim);
  return run_dump(dump);
}

}  // namespace
}  // namespace tapio::cli

int main(int argc, char** argv) {
  int code = 0;
  try {
    code = tapio::cli::run(argc, argv);
  } catch (const std::exception& e) {
    code = tapio::cli::fail(std::string("internal error: ") + e.what());
  }
  std::fflush(stdout);
  tapio::cli::finish_mpi();
  return code;
}
