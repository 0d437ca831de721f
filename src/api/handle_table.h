// The C API's handles are tokens, not addresses: a slot of one process-wide table and the
// slot's generation when the object was made, packed into the opaque pointer. A call looks its
// handle up before touching anything, so a closed engine, a finalized context or any handle of
// it (or a pointer that was never a handle) is answered with TAPIO_ERR_ARG, like PnetCDF's
// "Not a valid ID", instead of reading freed memory; and a slot reused by a newer object has a
// newer generation, so an old handle never reaches the new object.
#pragma once
#include <cstdint>
#include <mutex>
#include <vector>

namespace tapio::api {

enum class HandleKind : uint8_t { kContext, kIo, kVar, kEngine, kDecomp };

class HandleTable {
 public:
  static HandleTable& instance();

  // A new token for `object` (never 0).
  uintptr_t issue(HandleKind kind, void* object);
  // The object of a live token of this kind; nullptr for a retired, foreign or made-up one.
  void* find(uintptr_t token, HandleKind kind) const;
  // The token stops being valid; its slot is reused with the next generation.
  void retire(uintptr_t token);

 private:
  struct Slot {
    void* object = nullptr;  // nullptr while free
    uintptr_t generation = 0;
    HandleKind kind = HandleKind::kContext;
  };
  mutable std::mutex mutex_;  // programs may use different contexts from different threads
  std::vector<Slot> slots_;
  std::vector<uintptr_t> free_;
};

// Owned by each object behind a handle: issues its token when the object is made and retires
// it when the object is destroyed, so no path (close, finalize, a failed open) forgets to.
template <typename Handle, HandleKind kKindOfHandle>
class Registration {
 public:
  static constexpr HandleKind kKind = kKindOfHandle;

  explicit Registration(void* object) : token_(HandleTable::instance().issue(kKind, object)) {}
  ~Registration() { HandleTable::instance().retire(token_); }
  Registration(const Registration&) = delete;
  Registration& operator=(const Registration&) = delete;
  Handle* handle() const { return reinterpret_cast<Handle*>(token_); }

 private:
  uintptr_t token_;
};

}  // namespace tapio::api
