// Quantities of the cluster model written as people write them: rates ("12.5GiB/s"), durations
// ("1.5us", "7.4ms") and sizes ("1MiB", core/params.h). Pure.
#pragma once
#include <string>
#include <string_view>

#include "core/status.h"

namespace tapio::sim {

// Bytes per second from "<size>/s" ("10GiB/s", "800 MB/s": binary units, as sizes are).
// Errors (TAPIO_ERR_CONFIG) say what was expected; they do not name a key (callers do).
Result<double> parse_rate(std::string_view text);
// Seconds from "<number><unit>" with unit ns, us, ms or s ("52us", "7.4ms", "0.5 s").
Result<double> parse_duration(std::string_view text);

// For reports: "1.25 GiB/s", "3.2 ms", "16 MiB".
std::string format_rate(double bytes_per_second);
std::string format_duration(double seconds);
std::string format_bytes(double bytes);

}  // namespace tapio::sim
