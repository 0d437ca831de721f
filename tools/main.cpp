// tapio: inspect NetCDF classic files (CDF-1, CDF-2, CDF-5), whoever wrote them.
//   tapio ls FILE [--json]
//   tapio dump FILE VAR [--step S] [--start a,b,..] [--count a,b,..] [--json]
//   tapio --version
// Exit codes: 0 ok, 1 error (message on stderr), 2 bad command line.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "commands.h"

namespace tapio::cli {

int fail(const std::string& message) {
  std::fflush(stdout);
  std::fprintf(stderr, "tapio: %s\n", message.c_str());
  return 1;
}

namespace {

void add_ls(CLI::App& app, LsOptions& o) {
  CLI::App* ls = app.add_subcommand("ls", "List dimensions, attributes and variables");
  ls->add_option("FILE", o.path, "NetCDF file")->required();
  ls->add_flag("--json", o.json, "Print as JSON");
}

void add_dump(CLI::App& app, DumpOptions& o) {
  CLI::App* dump = app.add_subcommand("dump", "Print the values of a variable");
  dump->add_option("FILE", o.path, "NetCDF file")->required();
  dump->add_option("VAR", o.var, "Variable name")->required();
  dump->add_option("--step", o.step, "Record (0-based) of a record variable; default: all");
  dump->add_option("--start", o.start, "First index per dimension, comma-separated, without "
                   "the record dimension");
  dump->add_option("--count", o.count, "Elements per dimension, comma-separated, without the "
                   "record dimension; default: to the end");
  dump->add_flag("--json", o.json, "Print as JSON");
}

int run(int argc, char** argv) {
  CLI::App app{"Inspect NetCDF classic files (CDF-1, CDF-2, CDF-5)", "tapio"};
  app.set_version_flag("--version", "tapio " TAPIO_VERSION);
  app.require_subcommand(1);
  LsOptions ls;
  DumpOptions dump;
  add_ls(app, ls);
  add_dump(app, dump);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (app.got_subcommand("ls")) return run_ls(ls);
  return run_dump(dump);
}

}  // namespace
}  // namespace tapio::cli

int main(int argc, char** argv) {
  try {
    return tapio::cli::run(argc, argv);
  } catch (const std::exception& e) {
    return tapio::cli::fail(std::string("internal error: ") + e.what());
  }
}
