// MPI datatypes that let the exchange move bytes straight between a rank's staging buffer and
// an aggregator's round buffer: MPI scatters an incoming message into the window's pieces (and
// gathers an outgoing reply from them) itself, one copy, instead of a contiguous message that
// one side then copies piece by piece. One contiguous run needs no datatype at all.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "plan/segments.h"

namespace tapio::collective {

// An MPI datatype, freed on destruction (MPI lets a type be freed while a send or receive that
// uses it is still pending).
class MpiType {
 public:
  MpiType() = default;
  explicit MpiType(MPI_Datatype t) : type_(t) {}
  MpiType(MpiType&& o) noexcept : type_(std::exchange(o.type_, MPI_DATATYPE_NULL)) {}
  MpiType& operator=(MpiType&& o) noexcept {
    std::swap(type_, o.type_);
    return *this;
  }
  MpiType(const MpiType&) = delete;
  MpiType& operator=(const MpiType&) = delete;
  ~MpiType() {
    if (type_ != MPI_DATATYPE_NULL) MPI_Type_free(&type_);
  }
  MPI_Datatype get() const { return type_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

// The (buffer, count, datatype) of one send or receive.
struct Transfer {
  uint8_t* buf = nullptr;
  int count = 0;
  MPI_Datatype type = MPI_BYTE;
  MpiType owned;  // the derived type, if one was needed
  uint64_t bytes() const {
    int size = 0;
    MPI_Type_size(type, &size);
    return static_cast<uint64_t>(size) * static_cast<uint64_t>(count);
  }
};

// Whether MPI should scatter or gather `segments` itself: yes for a few entries of many bytes
// (a block's rows are one strided entry per level); no for many small irregular runs (E3SM's
// maps), where a datatype of thousands of entries costs MPI far more than one extra copy
// through a contiguous buffer.
bool worth_a_datatype(const std::vector<plan::Segment>& segments, uint64_t bytes);

// The pieces of `segments`, in their order, in a window buffer whose first byte is file offset
// `base` (every piece at or after base; a message is at most 1 GiB, so lengths fit an int).
Transfer pieces_transfer(uint8_t* window, uint64_t base, const std::vector<plan::Segment>& segments);

// The (offset, length) spans of `buf`, in their order.
Transfer spans_transfer(uint8_t* buf, const std::vector<std::pair<uint64_t, uint64_t>>& spans);

}  // namespace tapio::collective
