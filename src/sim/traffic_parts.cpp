#include "sim/traffic_parts.h"

#include <algorithm>

#include "engine/netcdf/netcdf_spec.h"
#include "format/netcdf/layout.h"
#include "format/netcdf/schema.h"
#include "plan/direct.h"

namespace tapio::sim {

Result<StepLayout> step_layout(const Workload& w, const Pattern& p) {
  const NetcdfSpec spec = NetcdfSpec::parse(w.params);
  TAPIO_ASSIGN_OR_RETURN(netcdf::Header h, netcdf::header_from_io(p.io(), spec.version));
  TAPIO_RETURN_IF_ERROR(netcdf::compute_layout(h, spec.layout));
  StepLayout s;
  s.lo = UINT64_MAX;
  for (const netcdf::Var& v : h.vars) {
    const uint64_t at = h.data_offset(v, 0), bytes = h.elements(v) * netcdf::nc_type_size(v.type);
    s.base.push_back(at);
    s.lo = std::min(s.lo, at);
    s.hi = std::max(s.hi, at + bytes);
    s.hi_bytes += bytes;
  }
  if (h.vars.empty()) s.lo = 0;
  return s;
}

RankPieces pieces_of(const Pattern& p, const StepLayout& step, int rank) {
  RankPieces out;
  out.ranges.assign(p.io().vars.size(), plan::Extent{});
  const size_t esize = 8;  // every pattern variable is a double
  std::vector<bool> seen;    // shapes already planned
  p.for_each_put(rank, [&](int var, const plan::Selection& sel, int shape) {
    const plan::SegmentMark before = plan::mark_of(out.segments);
    const size_t count = out.segments.size();
    plan::for_each_run(sel, p.io().vars[var].shape, [&](const plan::Run& run, uint64_t) {
      plan::append_piece(&out.segments, step.base[var] + run.offset * esize, run.length * esize,
                         out.bytes);
      out.bytes += run.length * esize;
    });
    plan::widen_since(&out.ranges[var], out.segments, before);
    ++out.puts;
    if (shape >= 0) {
      if (static_cast<size_t>(shape) >= seen.size()) seen.resize(shape + 1, false);
      if (seen[shape]) return;
      seen[shape] = true;
    }
    out.described += out.segments.size() - count;
  });
  return out;
}

namespace {

std::unique_ptr<PutShape> describe(const plan::Selection& sel, const std::vector<uint64_t>& shape,
                                   uint64_t direct_min) {
  auto s = std::make_unique<PutShape>();
  plan::for_each_run(sel, shape, [&](const plan::Run& run, uint64_t) {
    plan::append_piece(&s->segments, run.offset * 8, run.length * 8, s->bytes);
    s->bytes += run.length * 8;
  });
  for (size_t i = 0; i < s->segments.size(); ++i) {
    const plan::Segment& g = s->segments[i].seg;
    s->small_pieces = s->small_pieces || (g.count > 1 && g.stride != g.length && g.length < direct_min);
    Group* last = s->groups.empty() ? nullptr : &s->groups.back();
    if (last && g.offset >= last->lo && g.last_end() - last->lo <= kGroupSpan) {
      last->last = i + 1;
      last->hi = std::max(last->hi, g.last_end());
    } else {
      s->groups.push_back(Group{i, i + 1, g.offset, g.last_end(), 0, 0});
      last = &s->groups.back();
    }
    last->bytes += g.bytes();
    last->pieces += g.count;
  }
  return s;
}

}  // namespace

RankPuts puts_of(const Pattern& p, int rank, uint64_t direct_min) {
  RankPuts out;
  std::vector<const PutShape*> by_shape;
  p.for_each_put(rank, [&](int var, const plan::Selection& sel, int shape) {
    const PutShape* s = shape >= 0 && static_cast<size_t>(shape) < by_shape.size() ? by_shape[shape] : nullptr;
    if (s == nullptr) {
      out.shapes.push_back(describe(sel, p.io().vars[var].shape, direct_min));
      s = out.shapes.back().get();
      out.described += s->segments.size();
      if (shape >= 0) {
        if (by_shape.size() <= static_cast<size_t>(shape)) by_shape.resize(shape + 1, nullptr);
        by_shape[shape] = s;
      }
    }
    out.puts.push_back(Put{var, s});
    out.bytes += s->bytes;
    out.segments += s->segments.size();
  });
  return out;
}

void place(const PutShape& s, uint64_t base, uint64_t mem, std::vector<plan::MemSegment>* out) {
  for (plan::MemSegment m : s.segments) {
    m.seg.offset += base;
    m.mem += mem;
    out->push_back(m);
  }
}

}  // namespace tapio::sim
