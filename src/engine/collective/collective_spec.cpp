#include "engine/collective/collective_spec.h"

#include <algorithm>

namespace tapio {

CollectiveSpec CollectiveSpec::parse(const Params& p) {
  CollectiveSpec s;
  s.file = NetcdfSpec::parse(p);
  s.file.joined_reserve = std::max<uint64_t>(p.get_size("joined_reserve"), 1);
  s.aggregators = p.get("aggregators");
  s.aggregators_per_node = static_cast<int>(p.get_int("aggregators_per_node"));
  s.placement = p.get("placement") == "rank-order" ? plan::Placement::kRankOrder
                                                   : plan::Placement::kSpread;
  s.collect_order = p.get("collect_order") == "topology" ? plan::CollectOrder::kTopology
                                                         : plan::CollectOrder::kRank;
  s.stripe_size = p.get_size("stripe_size");
  s.stripe_grid = p.has("stripe_size");
  s.round_bytes = std::min<uint64_t>(p.get_size("buffer_size"), 1u << 30);
  s.min_rounds = static_cast<uint32_t>(p.get_int("min_rounds"));
  s.pipeline = p.get_bool("pipeline");
  s.shared_memory = p.get_bool("shared_memory");
  s.two_level = p.get("two_level") == "true";
  s.direct = p.get("direct") == "auto";
  s.direct_read_min = std::max<uint64_t>(p.get_size("direct_read_min"), 1);
  s.node_read_share = p.get_size("node_read_share");
  s.node_readers = static_cast<int>(p.get_int("node_readers"));
  return s;
}

}  // namespace tapio
