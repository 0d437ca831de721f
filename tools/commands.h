// The tool's subcommands. Each returns the process exit code (0 ok, 1 error) and reports
// errors on stderr as "tapio: <message naming the file>".
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace tapio::cli {

struct LsOptions {
  std::string path;
  bool json = false;
  bool storage = false;  // the file system under PATH instead of a file's header
};

struct DumpOptions {
  std::string path;
  std::string var;
  std::optional<std::string> step;   // record variables: one step (default: all)
  std::optional<std::string> start;  // comma-separated, without the record dimension
  std::optional<std::string> count;
  bool json = false;
};

// The engines that write one NetCDF file: what `convert --engine` takes, and the only engines
// a config rule may give convert's output instead.
inline const std::vector<std::string> kNetcdfEngines = {"serial", "mpiio", "collective"};

struct ConvertOptions {
  std::string input;                  // a tapio dataset (directory with tapio.idx)
  std::string output;                 // the NetCDF file to write
  std::string engine = "collective";  // one of kNetcdfEngines; a rule may pick another of them
};

struct SimOptions {
  std::string cluster, workload;  // TOML files
  std::vector<std::string> sets;  // KEY=VALUE overrides: cluster keys by section, else workload
  bool json = false;
  std::string plot;               // PNG to draw, "" none
  bool explain = false;
  std::vector<std::string> choose = {"aggregators", "buffer_size", "stripe_size"};  // --explain
  bool calibrate = false;
  std::string calibrate_dir = "/tmp";  // where --calibrate measures storage
};

int run_ls(const LsOptions& options);
int run_ls_storage(const std::string& path);  // tapio ls --storage PATH
int run_dump(const DumpOptions& options);
int run_convert(const ConvertOptions& options);  // calls MPI; run it under mpiexec or alone
int run_sim(const SimOptions& options);          // no MPI, unless --calibrate
// Replaces the process with `python -m tapio report ARGS`; returns 1 if that cannot start.
int run_report(const std::vector<std::string>& args);
// The Python with the tapio package and matplotlib: $TAPIO_PYTHON, else the project's .venv
// (make python), else python3. report and sim --plot run it.
std::string project_python();

// Print "tapio: message" to stderr (on rank 0 only once MPI is started) and return 1.
int fail(const std::string& message);

}  // namespace tapio::cli
