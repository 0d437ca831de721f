#include "core/warnings.h"

#include <fmt/format.h>

#include <cstdio>

namespace tapio {
namespace {

WarningSink& sink() {
  static WarningSink installed;
  return installed;
}

}  // namespace

void warn(const std::string& message) {
  if (sink()) {
    sink()(message);
  } else {
    fmt::print(stderr, "tapio: warning: {}\n", message);
  }
}

WarningSink set_warning_sink(WarningSink next) {
  WarningSink previous = std::move(sink());
  sink() = std::move(next);
  return previous;
}

}  // namespace tapio
