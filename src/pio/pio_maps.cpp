// Decompositions' maps as tapio decompositions (pio_state.h: set_map): made once per map and
// variable shape, so that each write_darray's put and read_darray's get sets its variable's
// selection without tapio reading (and comparing) the map again.
#include <algorithm>

#include "pio/pio_state.h"

namespace tapio_pio {

void remember_map(IoSystem& ios, const std::shared_ptr<const std::vector<uint64_t>>& offsets) {
  if (offsets) ios.maps.push_back(TapioMap{offsets, {}});
}

void forget_map(IoSystem& ios, const std::vector<uint64_t>* offsets) {
  auto gone = std::remove_if(ios.maps.begin(), ios.maps.end(), [&](const TapioMap& m) {
    if (m.offsets.get() != offsets) return false;
    for (const auto& [shape, decomp] : m.by_shape) tapio_decomp_free(decomp);
    return true;
  });
  ios.maps.erase(gone, ios.maps.end());
}

int set_map(IoSystem& ios, tapio_var* handle,
            const std::shared_ptr<const std::vector<uint64_t>>& offsets) {
  const auto map = std::find_if(ios.maps.begin(), ios.maps.end(),
                                [&](const TapioMap& m) { return m.offsets == offsets; });
  if (map == ios.maps.end()) return tapio_var_set_offsets(handle, offsets->size(), offsets->data());
  int ndims = 0;
  int st = tapio_var_ndims(handle, &ndims);
  std::vector<uint64_t> shape(static_cast<size_t>(std::max(ndims, 0)));
  if (st == TAPIO_OK) st = tapio_var_shape(handle, shape.data());
  if (st != TAPIO_OK) return st;
  auto made = std::find_if(map->by_shape.begin(), map->by_shape.end(),
                           [&](const auto& s) { return s.first == shape; });
  if (made == map->by_shape.end()) {
    tapio_decomp* decomp = nullptr;
    // A map outside this variable's shape is refused by the variable itself, with its name.
    if (tapio_decomp_from_offsets(ios.ctx, ndims, shape.data(), offsets->size(),
                                  offsets->data(), &decomp) != TAPIO_OK)
      return tapio_var_set_offsets(handle, offsets->size(), offsets->data());
    made = map->by_shape.insert(map->by_shape.end(), {std::move(shape), decomp});
  }
  return tapio_var_set_decomp(handle, made->second);
}

}  // namespace tapio_pio
