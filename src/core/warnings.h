// Warnings: what the user should know that is not an error (a parameter the file system
// ignores, a file system that needs care). They go to stderr as "tapio: warning: ...", or to
// the sink a test or tool installs.
#pragma once
#include <functional>
#include <string>

namespace tapio {

void warn(const std::string& message);

using WarningSink = std::function<void(const std::string& message)>;
// Install `sink` (empty: back to stderr); returns the previous one. Not synchronized: set it
// while no file is being opened.
WarningSink set_warning_sink(WarningSink sink);

}  // namespace tapio
