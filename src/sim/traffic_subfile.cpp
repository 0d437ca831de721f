// The subfile and serial engines' steps. Subfile (engine/subfile): ranks grouped as
// subfile_setup.cpp groups them, each group's regions laid out by plan::layout_group; a group
// inside one node writes directly (every rank its own region), one spanning nodes sends its
// rounds (plan::round_parts) to its first rank; the metadata commit gathers or logs each
// rank's block list. Serial: rank 0 gathers each variable and writes it with one call.
#include <algorithm>

#include "engine/subfile/subfile_spec.h"
#include "plan/domains.h"
#include "plan/group_layout.h"
#include "sim/load_book.h"
#include "sim/traffic_parts.h"

namespace tapio::sim {
namespace {

// Bytes a block costs in a block list: its selection id, length, min/max and a checksum per
// MiB (format/subfile/block_list.h: a few varints, two doubles, 8-byte hashes).
double block_list_bytes(uint64_t blocks, uint64_t bytes) {
  return 24.0 * static_cast<double>(blocks) + 8.0 * static_cast<double>((bytes >> 20) + blocks);
}

std::vector<int> groups_of(const Workload& w, const SubfileSpec& spec,
                           const std::vector<int>& node_of, int nodes, int* count) {
  const int P = w.ranks;
  const int per_node = spec.writers.per_node;
  const std::string& agg = spec.writers.aggregators;
  std::vector<int> group(P);
  if (agg != "auto") {
    *count = plan::aggregator_count(P, nodes, agg, per_node);
    for (int r = 0; r < P; ++r) group[r] = static_cast<int>(static_cast<int64_t>(r) * *count / P);
    return group;
  }
  std::vector<int> seen(nodes, 0);
  for (int r = 0; r < P; ++r) group[r] = node_of[r] * per_node + seen[node_of[r]]++ % per_node;
  *count = nodes * per_node;
  return group;
}

}  // namespace

Status subfile_traffic(const Workload& w, const Pattern& p, const Cluster& c,
                       const StepLayout& step, const Progress& progress, Traffic* t) {
  const SubfileSpec spec = SubfileSpec::parse(w.params);  // the engine's own parse
  const int P = w.ranks;
  const std::vector<int> node_of = node_of_ranks(w, c, &t->nodes);
  int G = 0;
  const std::vector<int> group = groups_of(w, spec, node_of, t->nodes, &G);
  std::vector<uint64_t> bytes(P), puts(P);
  t->swap_bytes.assign(t->nodes, 0);
  t->node_writers.assign(t->nodes, 0);
  for (int r = 0; r < P; ++r) {
    const RankPieces mine = pieces_of(p, step, r);
    bytes[r] = mine.bytes;
    puts[r] = mine.puts;
    t->segments += mine.segments.size();
    t->max_rank_segments = std::max<uint64_t>(t->max_rank_segments, mine.segments.size());
    t->described += mine.described;
    t->max_rank_described = std::max(t->max_rank_described, mine.described);
    t->max_rank_bytes = std::max(t->max_rank_bytes, mine.bytes);
    t->bytes += mine.bytes;
    // Checksums and min/max: one pass over the data, in cache just before the write.
    t->swap_bytes[node_of[r]] += static_cast<double>(mine.bytes);
    t->metadata_bytes += block_list_bytes(mine.puts, mine.bytes);
    if (progress && (r % 1024 == 0 || r + 1 == P)) progress(0.5 * (r + 1) / P);
  }
  std::vector<std::vector<int>> members(G);
  for (int r = 0; r < P; ++r) members[group[r]].push_back(r);
  LoadBook book(c, t->nodes, G, t);
  const uint64_t round = spec.writers.round;
  bool aggregated = false;
  for (int g = 0; g < G; ++g) {
    const std::vector<int>& m = members[g];
    if (m.empty()) continue;
    std::vector<uint64_t> sizes;
    bool spans = false;
    for (int r : m) {
      sizes.push_back(bytes[r]);
      spans = spans || node_of[r] != node_of[m[0]];
    }
    const plan::GroupLayout gl = plan::layout_group(0, sizes, spec.block_align);
    const int leader = node_of[m[0]];
    t->writer_ranks.push_back(m[0]);
    if (spec.writers.write == SubfileSpec::Write::kDirect ||
        (spec.writers.write == SubfileSpec::Write::kAuto && !spans)) {
      for (size_t i = 0; i < m.size(); ++i) {
        if (gl.sizes[i]) t->node_writers[node_of[m[i]]] += 1;
        book.write(0, node_of[m[i]], static_cast<uint64_t>(g), gl.offsets[i], gl.sizes[i]);
        book.claim(0, node_of[m[i]], static_cast<uint64_t>(g), gl.offsets[i], gl.sizes[i]);
      }
      continue;
    }
    aggregated = true;
    t->node_writers[leader] += 1;
    const uint64_t rounds = plan::round_count(gl, round);
    for (uint64_t k = 0; k < rounds; ++k) {
      const uint32_t r = static_cast<uint32_t>(k);
      RoundLoad& load = book.round(r);
      for (const plan::RoundPart& part : plan::round_parts(gl, round, k)) {
        const int from = node_of[m[part.member]];
        if (part.member == 0 || from == leader) {
          load.agg_copy[g] += static_cast<double>(part.length);
        } else {
          load.agg_msgs[g] += 1;
          load.agg_bytes_in[g] += static_cast<double>(part.length);
          book.message(r, from, leader, static_cast<double>(part.length), 0);
        }
      }
      const uint64_t at = gl.base + k * round;
      book.write(r, leader, static_cast<uint64_t>(g), at, std::min(round, gl.end - at));
    }
    if (progress) progress(0.5 + 0.5 * (g + 1) / G);
  }
  t->mode = aggregated ? "subfile aggregate" : "subfile direct";
  t->writers = G;
  t->window = round;
  t->files = static_cast<uint64_t>(G) + 2;  // subfiles, the metadata and the index
  const bool gather = spec.metadata.mode == SubfileSpec::Metadata::kGather;
  t->metadata_requests = gather ? 1 : P;
  // The vote, the metadata backend's collectives (gather + gatherv, or one exscan) and the
  // broadcast of rank 0's status.
  t->collectives = gather ? 4 : 3;
  if (!gather) t->metadata_bytes = 0;  // written by each rank, not gathered
  if (t->rounds.empty()) book.round(0);
  return ok_status();
}

Status serial_traffic(const Workload& w, const Pattern& p, const Cluster& c,
                      const StepLayout& step, const Progress& progress, Traffic* t) {
  const int P = w.ranks;
  const std::vector<int> node_of = node_of_ranks(w, c, &t->nodes);
  LoadBook book(c, t->nodes, 1, t);
  const size_t V = p.io().vars.size();
  for (size_t v = 0; v < V; ++v) book.round(static_cast<uint32_t>(v));
  t->swap_bytes.assign(t->nodes, 0);
  t->node_writers.assign(t->nodes, 0);
  t->node_writers[node_of[0]] = 1;
  for (int r = 0; r < P; ++r) {
    const RankPieces mine = pieces_of(p, step, r);
    t->segments += mine.segments.size();
    t->described += mine.segments.size();
    t->max_rank_described = std::max<uint64_t>(t->max_rank_described, mine.segments.size());
    t->bytes += mine.bytes;
    t->max_rank_bytes = std::max(t->max_rank_bytes, mine.bytes);
    // One Gatherv per variable: rank 0 takes each rank's part in turn.
    for (size_t v = 0; v < V; ++v) {
      const plan::Extent& e = mine.ranges[v];
      if (e.length == 0) continue;
      uint64_t in_var = 0;
      for (const plan::MemSegment& s : mine.segments)
        if (s.seg.offset >= e.offset && s.seg.offset < e.end()) in_var += s.seg.bytes();
      RoundLoad& load = book.round(static_cast<uint32_t>(v));
      load.agg_msgs[0] += 1;
      if (node_of[r] == node_of[0]) {
        load.agg_copy[0] += static_cast<double>(in_var);
      } else {
        load.agg_bytes_in[0] += static_cast<double>(in_var);
        book.message(static_cast<uint32_t>(v), node_of[r], node_of[0], static_cast<double>(in_var), 0);
      }
    }
    if (progress && (r % 1024 == 0 || r + 1 == P)) progress(static_cast<double>(r + 1) / P);
  }
  // Rank 0 swaps each variable into a file-order image and writes it with one call.
  for (size_t v = 0; v < V; ++v) {
    const uint64_t bytes = p.io().vars[v].elements() * 8;
    book.round(static_cast<uint32_t>(v)).agg_copy[0] += static_cast<double>(bytes);
    book.write(static_cast<uint32_t>(v), node_of[0], 0, step.base[v], bytes);
  }
  t->plans_once = false;  // the serial engine describes every step's pieces again
  t->mode = "serial";
  t->writers = 1;
  t->writer_ranks = {0};
  t->pipeline = false;
  t->collectives = 2;
  return ok_status();
}

}  // namespace tapio::sim
