// The collective engine's parameters, parsed once at open (docs/tuning.md).
#pragma once
#include <string>

#include "core/params.h"
#include "engine/netcdf/netcdf_spec.h"
#include "plan/domains.h"
#include "plan/exchange.h"

namespace tapio {

struct CollectiveSpec {
  NetcdfSpec file;
  std::string aggregators = "auto";  // a count, "auto", "all" or a ratio of the ranks
  int aggregators_per_node = 1;
  plan::Placement placement = plan::Placement::kSpread;
  plan::CollectOrder collect_order = plan::CollectOrder::kTopology;
  uint64_t stripe_size = 1 << 20;
  // Domains keep the file's stripe boundaries: the stripe size was asked for, or detected on
  // Lustre or GPFS (engine/file_system_defaults.h), where two aggregators sharing a stripe
  // contend for its lock. Otherwise a steady batch's domains move with its record.
  bool stripe_grid = false;
  uint64_t round_bytes = 16 << 20;  // buffer_size, at most 1 GiB (a round's message is an int)
  uint32_t min_rounds = 16;         // a smaller domain gets smaller rounds (plan::make_layout)
  bool pipeline = true;             // rounds written behind the next one's exchange
  bool shared_memory = true;        // node-local aggregation through a shared window
  bool two_level = false;           // writes: a node's remote pieces leave through one rank
  bool direct = true;               // direct = auto
  uint64_t direct_read_min = 64 << 10;  // reads go direct in requests of at least this
  uint64_t node_read_share = 256 << 10;  // a node rank's least share of a round's reads; 0: none
  int node_readers = 0;  // the most readers of one aggregator's round; 0: the node's ranks

  static CollectiveSpec parse(const Params& params);
};

}  // namespace tapio
