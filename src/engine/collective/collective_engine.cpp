// Collective engine: opening (aggregator placement, data file), planning rounds, closing.
// The write path is in collective_write.cpp, the read path in collective_read.cpp.
#include "engine/collective/collective_engine.h"

#include <algorithm>

#include "plan/domains.h"

namespace tapio {
namespace {

int aggregator_count(const EngineEnv& env) {
  return plan::aggregator_count(env.comm->size(), env.topology.nodes,
                                env.params.get("aggregators"),
                                static_cast<int>(env.params.get_int("aggregators_per_node")));
}

}  // namespace

CollectiveEngine::CollectiveEngine(EngineEnv env) : NetcdfEngine(std::move(env)) {
  const plan::Placement placement = env_.params.get("placement") == "rank-order"
                                        ? plan::Placement::kRankOrder
                                        : plan::Placement::kSpread;
  aggregators_ = plan::place_aggregators(env_.topology.node_of_rank, env_.topology.nodes,
                                         aggregator_count(env_), placement);
  const auto it = std::find(aggregators_.begin(), aggregators_.end(), comm().rank());
  if (it != aggregators_.end()) my_agg_ = static_cast<int>(it - aggregators_.begin());
  if (env_.buffers) {
    staging_ = env_.buffers->take();
    if (my_agg_ >= 0)
      for (ByteBuffer& b : round_bufs_) b = env_.buffers->take();
  }
}

CollectiveEngine::~CollectiveEngine() {
  // Queued writes point into the round buffers; close reported their errors already.
  if (writer_) (void)writer_->drain();
  if (!env_.buffers) return;
  env_.buffers->give(std::move(staging_));
  for (ByteBuffer& b : round_bufs_) env_.buffers->give(std::move(b));
}

Result<std::unique_ptr<Engine>> CollectiveEngine::open(EngineEnv env) {
  std::unique_ptr<CollectiveEngine> e(new CollectiveEngine(std::move(env)));
  TAPIO_RETURN_IF_ERROR(e->open_file());
  if (e->env_.params.get_bool("shared_memory") && e->env_.node_memory) {
    std::shared_ptr<comm::NodeMemory>& node = *e->env_.node_memory;
    if (!node || !node->made_for(e->env_.topology)) {
      auto created = comm::NodeMemory::create(e->comm(), e->env_.topology);
      TAPIO_RETURN_IF_ERROR(comm::agree(e->comm(), created.status()));
      node = std::move(created).value();
    }
    e->node_ = node;
    for (int rank : e->aggregators_) e->agg_node_rank_.push_back(node->node_rank_of(rank));
    e->slot_bytes_ = e->round_bytes();
  }
  return std::unique_ptr<Engine>(std::move(e));
}

Status CollectiveEngine::prepare_node_slots(const plan::Layout& layout) {
  if (!node_) return ok_status();
  std::vector<uint64_t> sizes(node_->node().size(), 0);
  for (int nr : agg_node_rank_)
    if (nr >= 0) sizes[nr] = 2 * slot_bytes_;
  // The same on every rank: the slot size and the aggregators.
  std::vector<uint64_t> key = {slot_bytes_};
  key.insert(key.end(), aggregators_.begin(), aggregators_.end());
  bool changed = false;
  node_slots_ = false;
  const Status local = node_->ensure(sizes, key, &changed);  // collective over the node
  if (changed) {  // on every rank alike (same key everywhere); unchanged is always OK
    const Status agreed = comm::agree(comm(), local);
    if (!agreed.ok()) {
      // Every rank forgets the key (a node whose window was made would otherwise skip the
      // next agreement, which the failed node enters), and the next call allocates again.
      node_->forget();
      return agreed;
    }
  }
  // A file too large for 16,000 rounds of buffer_size gets larger rounds: then messages.
  node_slots_ = layout.round_bytes <= slot_bytes_ &&
                std::any_of(sizes.begin(), sizes.end(), [](uint64_t b) { return b > 0; });
  return ok_status();
}

uint8_t* CollectiveEngine::node_window(int agg, int slot, const plan::Extent& w) const {
  if (!node_slots_ || agg_node_rank_[agg] < 0) return nullptr;
  return node_->memory_of(agg_node_rank_[agg]) + slot * slot_bytes_ - w.offset;
}

bool CollectiveEngine::reserve(uint64_t staging, int round_buffers, uint64_t round) {
  bool ok = staging == 0 || staging_.try_prepare(staging);
  // Private round buffers only for an aggregator whose slots are not in the node window.
  if (my_agg_ >= 0 && !node_)
    for (int k = 0; k < round_buffers; ++k) ok = ok && round_bufs_[k].try_prepare(round);
  return ok;
}

Status CollectiveEngine::out_of_memory(uint64_t staging, int round_buffers,
                                       uint64_t round) const {
  return error(TAPIO_ERR_NOMEM,
               "{}: cannot allocate {} bytes to stage this rank's data{}; put less per rank "
               "and step, or lower buffer_size",
               where(), staging,
               my_agg_ >= 0 && !node_ ? fmt::format(" and {} round buffers of {} bytes",
                                                    round_buffers, round)
                                      : "");
}

Result<io::File*> CollectiveEngine::own_file() {
  if (!data_file_) {
    const io::OpenMode mode =
        env_.mode == OpenMode::kRead ? io::OpenMode::kReadOnly : io::OpenMode::kReadWrite;
    TAPIO_ASSIGN_OR_RETURN(data_file_, io::open_posix(env_.path, mode, &profile().io));
  }
  return data_file_.get();
}

bool CollectiveEngine::direct_allowed() const { return env_.params.get("direct") == "auto"; }

Status CollectiveEngine::plan_direct(const std::vector<plan::MemSegment>& mine,
                                     const std::vector<plan::Extent>& ranges,
                                     plan::DirectPlan* direct, std::vector<uint64_t>* votes) {
  {
    PhaseTimer t(&profile(), Phase::kPlan);
    *direct = plan::plan_direct(mine, env_.params.get_size("stripe_size"));
  }
  PhaseTimer t(&profile(), Phase::kAgree);
  std::vector<uint64_t> his(ranges.size()), lower_his;
  for (size_t v = 0; v < ranges.size(); ++v) his[v] = ranges[v].length ? ranges[v].end() : 0;
  TAPIO_RETURN_IF_ERROR(comm().exscan_max(his, &lower_his));
  (*votes)[0] = direct->eligible && plan::in_rank_order(ranges, lower_his) ? 0 : 1;
  (*votes)[1] = direct->bytes;
  return ok_status();
}

Status CollectiveEngine::close_files() {
  Status local = std::exchange(deferred_, Status());
  if (writer_) {
    PhaseTimer t(&profile(), Phase::kWrite);
    const Status st = writer_->drain();
    if (local.ok()) local = st;
  }
  if (data_file_) {
    if (local.ok() && env_.mode != OpenMode::kRead && env_.params.get("fsync") != "never") {
      PhaseTimer t(&profile(), Phase::kSync);
      local = data_file_->sync();
    }
    const Status closed = data_file_->close();
    if (local.ok()) local = closed;
  }
  const Status base = NetcdfEngine::close_files();
  return local.ok() ? base : local;
}

uint64_t CollectiveEngine::round_bytes() const {
  // A round's message must fit an int count: at most 1 GiB per aggregator and round.
  return std::min<uint64_t>(env_.params.get_size("buffer_size"), 1u << 30);
}

plan::Layout CollectiveEngine::layout_for(uint64_t lo, uint64_t hi) const {
  return plan::make_layout(lo, hi, static_cast<int>(aggregators_.size()),
                           env_.params.get_size("stripe_size"), round_bytes(), 16000);
}

Status CollectiveEngine::expected_messages(const plan::Layout& layout,
                                           const std::vector<plan::RoutedSegment>& routed,
                                           std::vector<uint32_t>* expected) {
  // One flag per (aggregator, round) this rank sends to, laid out in rank order of the
  // aggregators as the reduce-scatter wants; each aggregator receives its per-round counts.
  const uint32_t R = layout.rounds;
  std::vector<int> by_rank(aggregators_.size());
  for (size_t a = 0; a < by_rank.size(); ++a) by_rank[a] = static_cast<int>(a);
  std::sort(by_rank.begin(), by_rank.end(),
            [&](int x, int y) { return aggregators_[x] < aggregators_[y]; });
  std::vector<size_t> slot(aggregators_.size());
  for (size_t i = 0; i < by_rank.size(); ++i) slot[by_rank[i]] = i;
  std::vector<uint32_t> flags(aggregators_.size() * R, 0);
  for (const plan::RoutedSegment& x : routed) flags[slot[x.agg] * R + x.round] = 1;
  std::vector<int> recv_counts(comm().size(), 0);
  for (int rank : aggregators_) recv_counts[rank] = static_cast<int>(R);
  PhaseTimer t(&profile(), Phase::kAgree);
  // Every rank's receives depend on its counts: one whose reduction failed would wait for
  // messages nobody sends, so the failure is agreed on before any message moves.
  return comm::agree(comm(), comm().reduce_scatter_sum(flags, recv_counts, expected));
}

std::vector<int> CollectiveEngine::send_order(const std::vector<plan::RoutedSegment>& routed,
                                              size_t begin, size_t end) const {
  std::vector<int> aggs;
  for (size_t i = begin; i < end; ++i)
    if (aggs.empty() || aggs.back() != routed[i].agg) aggs.push_back(routed[i].agg);
  const plan::CollectOrder order = env_.params.get("collect_order") == "topology"
                                       ? plan::CollectOrder::kTopology
                                       : plan::CollectOrder::kRank;
  return plan::collection_order(std::move(aggs), env_.topology.node(comm().rank()), order);
}

}  // namespace tapio
