#include "api/handle_table.h"

namespace tapio::api {
namespace {

// A token is (generation << kSlotBits) | (slot + 1): half of a pointer's bits each, so 2^32
// slots and 2^32 generations of each with 64-bit pointers. slot + 1 keeps a token from being 0,
// which programs test handles against.
constexpr unsigned kSlotBits = sizeof(uintptr_t) * 4;
constexpr uintptr_t kSlotMask = (uintptr_t{1} << kSlotBits) - 1;

uintptr_t slot_of(uintptr_t token) { return (token & kSlotMask) - 1; }
uintptr_t generation_of(uintptr_t token) { return token >> kSlotBits; }

}  // namespace

HandleTable& HandleTable::instance() {
  static HandleTable* table = new HandleTable;  // never destroyed: handles may outlive statics
  return *table;
}

uintptr_t HandleTable::issue(HandleKind kind, void* object) {
  std::lock_guard<std::mutex> lock(mutex_);
  uintptr_t slot;
  if (free_.empty()) {
    slot = slots_.size();
    slots_.emplace_back();
  } else {
    slot = free_.back();
    free_.pop_back();
  }
  Slot& s = slots_[slot];
  s.object = object;
  s.kind = kind;
  s.generation = (s.generation + 1) & kSlotMask;  // wraps after 2^32 reuses of one slot
  return (s.generation << kSlotBits) | (slot + 1);
}

void* HandleTable::find(uintptr_t token, HandleKind kind) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const uintptr_t slot = slot_of(token);
  if (token == 0 || slot >= slots_.size()) return nullptr;
  const Slot& s = slots_[slot];
  if (!s.object || s.kind != kind || s.generation != generation_of(token)) return nullptr;
  return s.object;
}

void HandleTable::retire(uintptr_t token) {
  std::lock_guard<std::mutex> lock(mutex_);
  const uintptr_t slot = slot_of(token);
  if (slot >= slots_.size()) return;
  Slot& s = slots_[slot];
  if (!s.object || s.generation != generation_of(token)) return;
  s.object = nullptr;
  free_.push_back(slot);
}

}  // namespace tapio::api
