// Pieces shared by the engines' traffic builders (traffic.cpp, traffic_subfile.cpp): the
// NetCDF layout of a step and a rank's pieces in it, as the engines describe them.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "plan/domains.h"
#include "plan/segments.h"
#include "sim/traffic.h"

namespace tapio::sim {

// Where step 0's record of every variable lies in the NetCDF file the engines write.
struct StepLayout {
  std::vector<uint64_t> base;  // per variable: its record's first byte
  uint64_t lo = 0, hi = 0;     // the step's extent
  uint64_t hi_bytes = 0;       // the variables' bytes (without padding between them)
};
Result<StepLayout> step_layout(const Workload& w, const Pattern& p);

// A rank's pieces of one step: segments over its staging space (puts back to back, runs in
// visiting order), the file range it touches per variable, its bytes and blocks (puts).
struct RankPieces {
  std::vector<plan::MemSegment> segments;
  std::vector<plan::Extent> ranges;
  uint64_t bytes = 0;
  uint64_t puts = 0;
  uint64_t described = 0;  // segments of puts whose shape came first (the others reuse a plan)
};
RankPieces pieces_of(const Pattern& p, const StepLayout& step, int rank);

// The same pieces kept per put, relative to the put's variable, so that puts of one shape
// (pattern.h) are described once: the E3SM F case's 63 three-dimensional variables share one
// decomposition's 1,000 segments per rank instead of costing 63,000. Segments are cut into
// groups of neighbours spanning at most kGroupSpan bytes (a rank's columns of one level), which
// the collective builder routes whole when a group falls inside one window.
struct Group {
  size_t first = 0, last = 0;  // segments [first, last)
  uint64_t lo = 0, hi = 0;     // file span, relative to the variable
  uint64_t bytes = 0, pieces = 0;
};
struct PutShape {
  std::vector<plan::MemSegment> segments;  // file offsets relative to the variable, mem to the put
  std::vector<Group> groups;
  uint64_t bytes = 0;
  bool small_pieces = false;  // some segment is strided pieces below the direct minimum
};
struct Put {
  int var;
  const PutShape* shape;
};
struct RankPuts {
  std::vector<Put> puts;
  std::vector<std::unique_ptr<PutShape>> shapes;
  uint64_t bytes = 0, segments = 0;
  uint64_t described = 0;  // the shapes' segments: what planning the first step describes
};
inline constexpr uint64_t kGroupSpan = 64 << 10;
// `direct_min`: the request size below which strided pieces rule out direct I/O.
RankPuts puts_of(const Pattern& p, int rank, uint64_t direct_min);
// The put's segments at the variable's place in the file, `mem` added to their memory.
void place(const PutShape& s, uint64_t base, uint64_t mem, std::vector<plan::MemSegment>* out);

Status subfile_traffic(const Workload& w, const Pattern& p, const Cluster& c,
                       const StepLayout& step, const Progress& progress, Traffic* t);
Status serial_traffic(const Workload& w, const Pattern& p, const Cluster& c,
                      const StepLayout& step, const Progress& progress, Traffic* t);

}  // namespace tapio::sim
