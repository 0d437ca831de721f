// One line of progress on stderr for long runs ("tapio convert: step 3/10"), redrawn in place
// and erased at the end, so the summary printed after it stands alone. Only when stderr is a
// terminal: logs, pipes and the tests' captured output stay quiet. Used by `tapio convert`
// and tapio-bench, on one rank.
#pragma once
#include <unistd.h>

#include <cstdio>
#include <string>
#include <utility>

namespace tapio::cli {

class Progress {
 public:
  // enabled: whether this process reports at all (e.g. rank 0 only).
  explicit Progress(std::string label, bool enabled)
      : label_(std::move(label)), on_(enabled && isatty(STDERR_FILENO) == 1) {}
  ~Progress() {
    if (on_) std::fputs("\r\033[K", stderr);
  }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Redraws the line as "label: what".
  void show(const std::string& what) const {
    if (!on_) return;
    std::fprintf(stderr, "\r\033[K%s: %s", label_.c_str(), what.c_str());
    std::fflush(stderr);
  }

 private:
  std::string label_;
  bool on_;
};

}  // namespace tapio::cli
