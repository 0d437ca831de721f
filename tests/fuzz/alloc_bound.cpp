#include "alloc_bound.h"

#include <sanitizer/allocator_interface.h>

#include <cstdio>
#include <cstdlib>

namespace tapio::fuzz {
namespace {

// libFuzzer runs the target on one thread: plain counters suffice.
uint64_t live = 0, peak = 0;

void on_malloc(const volatile void*, size_t size) {
  live += size;
  if (live > peak) peak = live;
}
// Called before the block is released, while the allocator still knows its size.
void on_free(const volatile void* ptr) {
  if (ptr) live -= __sanitizer_get_allocated_size(const_cast<const void*>(ptr));
}

bool install() {
  __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free);
  return true;
}
const bool installed = install();

}  // namespace

AllocationBound::AllocationBound() : start_(live) {
  (void)installed;
  peak = live;
}

void AllocationBound::check(size_t input_size, uint64_t factor, uint64_t bound,
                            const char* what) const {
  const uint64_t grew = peak - start_;
  if (grew <= factor * input_size + bound) return;
  std::fprintf(stderr, "%s allocated %llu bytes at its peak for %zu input bytes (limit %llu x + %llu)\n",
               what, static_cast<unsigned long long>(grew), input_size,
               static_cast<unsigned long long>(factor), static_cast<unsigned long long>(bound));
  std::abort();
}

}  // namespace tapio::fuzz
