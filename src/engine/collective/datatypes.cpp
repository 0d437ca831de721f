#include "engine/collective/datatypes.h"

namespace tapio::collective {
namespace {

Transfer contiguous(uint8_t* at, uint64_t bytes) {
  Transfer t;
  t.buf = at;
  t.count = static_cast<int>(bytes);
  return t;
}

Transfer derived(uint8_t* buf, MPI_Datatype type) {
  MPI_Type_commit(&type);
  Transfer t;
  t.buf = buf;
  t.count = 1;
  t.type = type;
  t.owned = MpiType(type);
  return t;
}

}  // namespace

bool worth_a_datatype(const std::vector<plan::Segment>& segments, uint64_t bytes) {
  constexpr uint64_t kFewEntries = 16, kBytesPerEntry = 4096;
  return segments.size() <= kFewEntries || bytes >= kBytesPerEntry * segments.size();
}

Transfer pieces_transfer(uint8_t* window, uint64_t base,
                         const std::vector<plan::Segment>& segments) {
  if (segments.size() == 1 && (segments[0].count == 1 || segments[0].stride == segments[0].length))
    return contiguous(window + (segments[0].offset - base), segments[0].bytes());
  // One struct entry per segment: back-to-back pieces are one block of bytes, strided pieces
  // one hvector (freed here: the struct keeps what it needs).
  const size_t n = segments.size();
  std::vector<int> lengths(n);
  std::vector<MPI_Aint> displs(n);
  std::vector<MPI_Datatype> types(n, MPI_BYTE);
  std::vector<MpiType> vectors;
  for (size_t i = 0; i < n; ++i) {
    const plan::Segment& s = segments[i];
    displs[i] = static_cast<MPI_Aint>(s.offset - base);
    if (s.count == 1 || s.stride == s.length) {
      lengths[i] = static_cast<int>(s.bytes());
      continue;
    }
    MPI_Datatype v;
    MPI_Type_create_hvector(static_cast<int>(s.count), static_cast<int>(s.length),
                            static_cast<MPI_Aint>(s.stride), MPI_BYTE, &v);
    vectors.emplace_back(v);
    lengths[i] = 1;
    types[i] = v;
  }
  MPI_Datatype t;
  MPI_Type_create_struct(static_cast<int>(n), lengths.data(), displs.data(), types.data(), &t);
  return derived(window, t);
}

Transfer spans_transfer(uint8_t* buf, const std::vector<std::pair<uint64_t, uint64_t>>& spans) {
  if (spans.size() == 1) return contiguous(buf + spans[0].first, spans[0].second);
  std::vector<int> lengths(spans.size());
  std::vector<MPI_Aint> displs(spans.size());
  for (size_t i = 0; i < spans.size(); ++i) {
    displs[i] = static_cast<MPI_Aint>(spans[i].first);
    lengths[i] = static_cast<int>(spans[i].second);
  }
  MPI_Datatype t;
  MPI_Type_create_hindexed(static_cast<int>(spans.size()), lengths.data(), displs.data(),
                           MPI_BYTE, &t);
  return derived(buf, t);
}

}  // namespace tapio::collective
