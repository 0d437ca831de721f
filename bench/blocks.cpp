// Pieces as blocks (blocks.h).
#include "blocks.h"

#include <algorithm>
#include <map>

namespace bench {

std::vector<Block> blocks_of(const Var& var, const Piece& pc) {
  std::vector<Block> b;
  if (pc.elements == 0) return b;
  if (!pc.boxes.empty()) {
    uint64_t mem = 0;
    for (const Box& x : pc.boxes) {
      b.push_back({x.start, x.count, {{mem, x.elements()}}});
      mem += x.elements();
    }
    return b;
  }
  const size_t nd = var.shape.size();
  // open blocks by (leading indices, column start, column count) -> index in b
  std::map<std::vector<uint64_t>, size_t> open;
  for (size_t r = 0; r < pc.offsets.size(); ++r) {
    uint64_t mem = pc.mem_offsets[r];
    run_boxes(var.shape, pc.offsets[r], pc.lengths[r], [&](const Dims& s, const Dims& c) {
      const uint64_t n = c.back();
      if (!b.empty()) {  // continues the last block's row, in file and memory
        Block& o = b.back();
        bool next = o.segs.size() == 1 && o.segs[0].first + o.segs[0].second == mem &&
                    std::equal(s.begin(), s.end() - 1, o.start.begin()) &&
                    o.start[nd - 1] + o.count[nd - 1] == s[nd - 1];
        for (size_t k = 0; next && k + 1 < nd; ++k) next = o.count[k] == 1;
        if (next) {
          if (nd >= 2) {  // its key changes: (leading indices, column start, column count)
            std::vector<uint64_t> key(o.start.begin(), o.start.end() - 2);
            key.push_back(o.start[nd - 1]);
            key.push_back(o.count[nd - 1]);
            open.erase(key);
          }
          o.count[nd - 1] += n;
          o.segs[0].second += n;
          if (nd >= 2) {
            std::vector<uint64_t> key(o.start.begin(), o.start.end() - 2);
            key.push_back(o.start[nd - 1]);
            key.push_back(o.count[nd - 1]);
            open[key] = b.size() - 1;
          }
          mem += n;
          return;
        }
      }
      if (nd >= 2) {
        std::vector<uint64_t> key(s.begin(), s.end() - 2);
        key.push_back(s[nd - 1]);
        key.push_back(n);
        auto it = open.find(key);
        if (it != open.end() && b[it->second].start[nd - 2] + b[it->second].count[nd - 2] == s[nd - 2]) {
          Block& o = b[it->second];
          ++o.count[nd - 2];
          if (o.segs.back().first + o.segs.back().second == mem)
            o.segs.back().second += n;
          else
            o.segs.push_back({mem, n});
        } else {
          open[key] = b.size();
          b.push_back({s, c, {{mem, n}}});
        }
      } else {
        b.push_back({s, c, {{mem, n}}});
      }
      mem += n;
    });
  }
  return b;
}

}  // namespace bench
