// Allocation failures as errors. A rank that runs out of memory inside a collective call must
// not leave the call by an exception: the other ranks would wait for it forever. Its failure
// becomes a status, which the call's agreement carries to every rank like a failed write.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "core/status.h"

namespace tapio {

// An allocation of a known size that failed: what tapio's own buffers throw (ByteBuffer), so
// that the error names the size.
class AllocationFailure : public std::bad_alloc {
 public:
  explicit AllocationFailure(uint64_t bytes) : bytes_(bytes) {}
  const char* what() const noexcept override { return "allocation failed"; }
  uint64_t bytes() const { return bytes_; }

 private:
  uint64_t bytes_;
};

// TAPIO_ERR_NOMEM: "out of memory while <doing>: cannot allocate N bytes" (0: a size the
// failed allocation did not tell).
Status out_of_memory(const std::string& doing, uint64_t bytes);

// Whether buffers of `sizes` bytes can be had together: taken and given back at once. What a
// rank that will take them between two collectives (a gather's root) checks before the
// agreement that precedes them, so that a lack of memory fails the call on every rank there
// rather than leaving the others in the collective. Names the first size that failed.
Status room_for(std::initializer_list<uint64_t> sizes, const std::string& doing);

// Runs body() (returning Status); an allocation failure it throws (std::bad_alloc, or
// std::length_error: a size no container can hold) becomes out_of_memory(doing, ...).
// `doing` is a string, or a callable making it: on paths run every round or batch the message
// is then formatted only when something failed.
template <typename D, typename F>
Status catch_out_of_memory(D&& doing, F&& body) {
  const auto said = [&]() -> std::string {
    if constexpr (std::is_invocable_v<D>)
      return doing();
    else
      return doing;
  };
  try {
    return body();
  } catch (const AllocationFailure& e) {
    return out_of_memory(said(), e.bytes());
  } catch (const std::bad_alloc&) {
    return out_of_memory(said(), 0);
  } catch (const std::length_error&) {
    return out_of_memory(said(), 0);
  }
}

}  // namespace tapio
