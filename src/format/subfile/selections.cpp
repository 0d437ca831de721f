// selection = kind u8 (0 box, 1 runs), then
//   box:  ndims varint, (start varint, count varint) x ndims
//   runs: nsegments varint, segment x nsegments
//   segment = zigzag(first offset - end of the previous segment's last run) varint
//             | (length << 1 | repeated) varint
//             | [count - 1 varint, zigzag(stride - length) varint   -- if repeated]
// A segment is `count` runs of `length` elements, `stride` elements apart; the runs keep the
// selection's order (PIO maps are not sorted), so distances may be negative.
#include "format/subfile/selections.h"

#include "format/subfile/records.h"

namespace tapio::subfile {
namespace {

constexpr uint8_t kBox = 0, kRuns = 1;

uint64_t zigzag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
int64_t unzigzag(uint64_t v) { return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1); }

struct Segment {
  uint64_t offset, length, stride, count;
};

// The runs as segments: a run extends the current segment when it has the same length and
// continues its stride.
std::vector<Segment> segments_of(const std::vector<plan::Run>& runs) {
  std::vector<Segment> out;
  for (const plan::Run& r : runs) {
    if (!out.empty()) {
      Segment& s = out.back();
      const uint64_t next = s.offset + s.count * s.stride;
      if (s.length == r.length && (s.count == 1 || r.offset == next)) {
        if (s.count == 1) s.stride = r.offset - s.offset;
        ++s.count;
        continue;
      }
    }
    out.push_back(Segment{r.offset, r.length, 0, 1});
  }
  return out;
}

}  // namespace

void encode_selection(LeWriter& w, const plan::Selection& sel) {
  if (sel.kind == plan::Selection::Kind::kBox) {
    w.u8(kBox);
    w.varint(sel.start.size());
    for (size_t d = 0; d < sel.start.size(); ++d) {
      w.varint(sel.start[d]);
      w.varint(sel.count[d]);
    }
    return;
  }
  w.u8(kRuns);
  const std::vector<Segment> segs = segments_of(sel.runs);
  w.varint(segs.size());
  uint64_t end = 0;  // where the previous segment's last run ended
  for (const Segment& s : segs) {
    w.varint(zigzag(static_cast<int64_t>(s.offset - end)));
    w.varint(s.length << 1 | (s.count > 1 ? 1 : 0));
    if (s.count > 1) {
      w.varint(s.count - 1);
      w.varint(zigzag(static_cast<int64_t>(s.stride - s.length)));
    }
    end = s.offset + (s.count - 1) * s.stride + s.length;
  }
}

uint64_t selection_hash(const plan::Selection& sel) {
  if (sel.kind == plan::Selection::Kind::kBox)
    return checksum(sel.start.data(), sel.start.size() * 8) ^
           (checksum(sel.count.data(), sel.count.size() * 8) * 31);
  return checksum(sel.runs.data(), sel.runs.size() * sizeof(plan::Run)) + 1;
}

bool decode_selection(LeReader& r, uint64_t max_runs, plan::Selection* sel) {
  const uint8_t kind = r.u8();
  if (kind == kBox) {
    const uint64_t nd = r.varcount(2);
    sel->kind = plan::Selection::Kind::kBox;
    sel->start.resize(nd);
    sel->count.resize(nd);
    for (size_t d = 0; d < nd; ++d) {
      sel->start[d] = r.varint();
      sel->count[d] = r.varint();
    }
    return r.ok();
  }
  if (kind != kRuns) return false;
  const uint64_t n = r.varcount(2);  // a segment takes at least 2 bytes
  sel->kind = plan::Selection::Kind::kRuns;
  sel->runs.clear();
  uint64_t end = 0;
  for (uint64_t i = 0; i < n && r.ok(); ++i) {
    const uint64_t offset = end + static_cast<uint64_t>(unzigzag(r.varint()));
    const uint64_t length_repeated = r.varint();
    const uint64_t length = length_repeated >> 1;
    const uint64_t more = length_repeated & 1 ? r.varint() : 0;
    const uint64_t stride = more > 0 ? length + static_cast<uint64_t>(unzigzag(r.varint())) : 0;
    if (!r.ok() || length == 0 || more >= max_runs - sel->runs.size()) return false;
    for (uint64_t k = 0; k <= more; ++k)
      sel->runs.push_back(plan::Run{offset + k * stride, length});
    end = sel->runs.back().offset + length;
  }
  return r.ok();
}

}  // namespace tapio::subfile
