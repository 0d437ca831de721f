// tapio report: the report is Python (python/tapio/report.py), because its plots are
// matplotlib's; this subcommand runs `PYTHON -m tapio report ARGS` in its place, PYTHON being
// $TAPIO_PYTHON, else the project's .venv (where `make python` installs the package), else
// python3. docs/design.md says why.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "commands.h"

namespace tapio::cli {

std::string project_python() {
  const char* env = std::getenv("TAPIO_PYTHON");
  if (env && *env) return env;
  const std::string venv = TAPIO_SOURCE_DIR "/.venv/bin/python";
  return access(venv.c_str(), X_OK) == 0 ? venv : "python3";
}

int run_report(const std::vector<std::string>& args) {
  const std::string exe = project_python();
  std::vector<std::string> words = {exe, "-m", "tapio", "report"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  execvp(exe.c_str(), argv.data());  // returns only on failure
  return fail("report: cannot run '" + exe + "': " + std::strerror(errno) +
              " (set TAPIO_PYTHON to a Python with the tapio package: make python)");
}

}  // namespace tapio::cli
