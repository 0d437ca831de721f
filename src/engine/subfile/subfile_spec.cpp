#include "engine/subfile/subfile_spec.h"

#include <algorithm>

namespace tapio {

SubfileSpec SubfileSpec::parse(const Params& p) {
  SubfileSpec s;
  s.writers.aggregators = p.get("aggregators");
  s.writers.fpp = s.writers.aggregators == "all";
  s.writers.per_node = static_cast<int>(p.get_int("aggregators_per_node"));
  const std::string write = p.get("subfile_write");
  s.writers.write = write == "direct"      ? Write::kDirect
                    : write == "aggregate" ? Write::kAggregate
                                           : Write::kAuto;
  s.writers.round =
      std::max<uint64_t>(1, std::min<uint64_t>(p.get_size("buffer_size"), 1ull << 30));
  s.block_align = std::max<uint64_t>(1, p.get_size("block_align"));
  s.stats = p.get("statistics") == "minmax";
  const std::string md = p.get("metadata");
  s.metadata.mode = md == "log"       ? Metadata::kLog
                    : md == "aligned" ? Metadata::kAligned
                                      : Metadata::kGather;
  s.metadata.chunk = s.metadata.mode == Metadata::kAligned
                         ? std::max<uint64_t>(1, p.get_size("metadata_chunk"))
                         : 1;
  s.metadata.delegate_reads = p.get("metadata_read") != "all";
  s.metadata.prefetch = p.get_size("metadata_prefetch");
  s.merge_below = p.get_size("read_merge_below");
  s.fsync.step = p.get("fsync") == "step";
  s.fsync.close = p.get("fsync") != "never";
  s.async = p.get_bool("async");
  s.async_buffer = p.get_size("async_buffer");
  s.file_locking = p.get("file_locking");
  s.writer_timeout = static_cast<uint64_t>(p.get_int("writer_timeout"));
  return s;
}

}  // namespace tapio
