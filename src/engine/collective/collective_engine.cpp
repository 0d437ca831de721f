// Collective engine: opening (aggregator placement, node memory, data file), planning rounds,
// closing. The write path is in collective_write.cpp and round_pipeline.cpp, the read path in
// collective_read.cpp and read_rounds.cpp.
#include "engine/collective/collective_engine.h"

#include <algorithm>
#include <utility>

#include "engine/async_waits.h"
#include "plan/domains.h"

namespace tapio {
namespace collective {

bool Aggregation::any_remote() const {
  return !node || std::any_of(node_rank.begin(), node_rank.end(), [](int nr) { return nr < 0; });
}

Result<io::File*> DataFile::get() {
  if (!file_) {
    const io::OpenMode mode = read_only_ ? io::OpenMode::kReadOnly : io::OpenMode::kReadWrite;
    TAPIO_ASSIGN_OR_RETURN(file_, storage_->open(path_, mode, &profile_->io));
  }
  return file_.get();
}

Status DataFile::sync_for_step() {
  if (!file_ || fsync_ != Fsync::kStep) return ok_status();
  if (async_) {
    writer_.sync(file_.get());
    return ok_status();
  }
  PhaseTimer t(profile_, Phase::kSync);
  return file_->sync();
}

Status DataFile::finish_writes() { return drain_async(writer_, profile_); }

Status DataFile::close(Status local) {
  if (writer_.started()) {
    PhaseTimer t(profile_, Phase::kWrite);
    keep(&local, writer_.drain());
  }
  if (!file_) return local;
  if (local.ok() && !read_only_ && fsync_ != Fsync::kNever) {
    PhaseTimer t(profile_, Phase::kSync);
    local = file_->sync();
  }
  keep(&local, file_->close());
  return local;
}

}  // namespace collective

CollectiveEngine::CollectiveEngine(EngineEnv env)
    : Engine(std::move(env)),
      spec_(CollectiveSpec::parse(params())),
      smaller_rounds_{spec_.min_rounds, plan::messages_floor(resources().topology.node_of_rank,
                                                             resources().topology.nodes)},
      nc_(dataset_env(resources(), open_spec(), &profile(), spec_.file)),
      data_(&storage(), path(), mode() == OpenMode::kRead, spec_.file.fsync,
            spec_.file.async && mode() != OpenMode::kRead, &profile()) {
  const comm::Topology& t = resources().topology;
  const int count = plan::aggregator_count(comm().size(), t.nodes, spec_.aggregators,
                                           spec_.aggregators_per_node);
  agg_.ranks = plan::place_aggregators(t.node_of_rank, t.nodes, count, spec_.placement);
  const auto it = std::find(agg_.ranks.begin(), agg_.ranks.end(), comm().rank());
  if (it != agg_.ranks.end()) agg_.mine = static_cast<int>(it - agg_.ranks.begin());
  agg_.slot_count = slot_count();
  bufs_.round.resize(agg_.mine >= 0 ? agg_.slot_count : 0);
  if (BufferPool* pool = resources().buffers) {
    bufs_.staging = pool->take();
    for (ByteBuffer& b : bufs_.round) b = pool->take();
  }
  if (data_.async()) nc_.set_engine_writes([this] { return data_.finish_writes(); });
}

int CollectiveEngine::slot_count() const {
  if (!data_.async()) return 2;
  constexpr uint64_t kMaxSlots = 1024;
  const uint64_t fit = spec_.file.async_buffer / std::max<uint64_t>(spec_.round_bytes, 1);
  return static_cast<int>(std::clamp<uint64_t>(fit, 2, kMaxSlots));
}

CollectiveEngine::~CollectiveEngine() {
  // Queued writes point into the round buffers; close reported the errors.
  (void)data_.writer().drain();
  BufferPool* pool = resources().buffers;
  if (!pool) return;
  pool->give(std::move(bufs_.staging));
  for (ByteBuffer& b : bufs_.round) pool->give(std::move(b));
}

Result<std::unique_ptr<Engine>> CollectiveEngine::open(EngineEnv env) {
  std::unique_ptr<CollectiveEngine> e(new CollectiveEngine(std::move(env)));
  uint64_t first = 0;
  TAPIO_RETURN_IF_ERROR(e->nc_.open(&first));
  e->start_at_step(first);
  e->keep_joined_totals();  // a step's count is written with it (ragged arrays)
  const bool gathers = e->spec_.two_level && e->mode() != OpenMode::kRead;
  if ((e->spec_.shared_memory || gathers) && e->resources().node_memory)
    TAPIO_RETURN_IF_ERROR(e->share_node_memory());
  return std::unique_ptr<Engine>(std::move(e));
}

Status CollectiveEngine::share_node_memory() {
  std::shared_ptr<comm::NodeMemory>& node = *resources().node_memory;
  const comm::Topology& topology = resources().topology;
  if (!node || !node->made_for(topology)) {
    auto created = comm::NodeMemory::create(comm(), topology);
    TAPIO_RETURN_IF_ERROR(comm::agree(comm(), created.status()));
    node = std::move(created).value();
  }
  if (spec_.two_level && mode() != OpenMode::kRead) gather_on(node);
  if (!spec_.shared_memory) return ok_status();
  agg_.node = node;
  for (int rank : agg_.ranks) {
    const int nr = node->node_rank_of(rank);
    if (nr >= 0) agg_.here.push_back(static_cast<int>(agg_.node_rank.size()));
    agg_.node_rank.push_back(nr);
  }
  agg_.slot_bytes = spec_.round_bytes;
  const int readers = spec_.node_readers > 0 ? spec_.node_readers : node->node().size();
  agg_.node_readers = std::clamp(readers, 1, node->node().size());
  return ok_status();
}

// Two-level: this node's gatherer is its first rank that does not aggregate (so that an
// aggregator's own receiving is not delayed by forwarding), or its first rank. Off where
// nothing leaves the node or the node has one rank (nothing to combine).
void CollectiveEngine::gather_on(const std::shared_ptr<comm::NodeMemory>& node) {
  const comm::Topology& t = resources().topology;
  const int me = t.node(comm().rank());
  collective::NodeGather& g = agg_.gather;
  g.remote.assign(agg_.ranks.size(), 0);
  bool any = false;
  for (size_t a = 0; a < agg_.ranks.size(); ++a) {
    g.remote[a] = t.node(agg_.ranks[a]) != me;
    any = any || g.remote[a];
  }
  if (!any || node->node().size() < 2) return;
  int first = -1, gatherer = -1;
  for (int rank = 0; rank < comm().size() && gatherer < 0; ++rank) {
    if (t.node(rank) != me) continue;
    if (first < 0) first = rank;
    if (std::find(agg_.ranks.begin(), agg_.ranks.end(), rank) == agg_.ranks.end()) gatherer = rank;
  }
  if (gatherer < 0) gatherer = first;
  g.node = node;
  g.gatherer = node->node_rank_of(gatherer);
  g.gathering = gatherer == comm().rank();
}

collective::Parts CollectiveEngine::parts() {
  return collective::Parts{comm(),   profile(), spec_, nc_.header(), agg_, bufs_, data_,
                           resources().topology.node(comm().rank()),
                           resources().topology.node_of_rank,
                           [this](int var, uint64_t step) { return at_step(var, step); },
                           where()};
}

Status CollectiveEngine::write_step(const std::vector<PutOp>& puts, uint64_t step,
                                    const Status& local) {
  // The joined arrays' step is checked on every rank alike (its rows were summed).
  Status checked = local;
  if (checked.ok())
    checked = nc_.plan_joined_step([&](int v) { return joined().batch_rows(v).end; }, step);
  if (!data_.async()) {
    TAPIO_RETURN_IF_ERROR(agree(step_batch(puts, step, checked)));
    return nc_.commit(step, std::exchange(deferred_, Status()));
  }
  uint64_t redo = step;
  const Status st = write_async(puts, step, checked, &redo);
  if (redo < step) rewind_to(redo);
  return st;
}

// The engine drives the step: the batch (whose vote carries `local`), the agreement that
// every rank's data is written, then the dataset's commit. Joined arrays grow the file before
// the vote (collectively), so a local failure is agreed on first there.
Status CollectiveEngine::step_batch(const std::vector<PutOp>& puts, uint64_t step,
                                    const Status& local) {
  if (!nc_.has_joined()) return write_batch(puts, step, local);
  TAPIO_RETURN_IF_ERROR(agree(local));
  return write_batch(puts, step, ok_status());
}

// Async: the previous step's writes settle first (a failure fails this step everywhere, and
// *redo is the step the file holds); this step's writes are queued, and its commit waits for
// the next step (netcdf_async.cpp).
Status CollectiveEngine::write_async(const std::vector<PutOp>& puts, uint64_t step,
                                     const Status& local, uint64_t* redo) {
  const bool settles = nc_.has_pending_step();  // the same on every rank
  const Status settled = nc_.settle_pending(redo);
  if (!settled.ok()) {
    deferred_ = Status();  // this step's puts go with it: the step is written again from *redo
    return settled;
  }
  if (settles) writes_queued_ = false;  // the agreement on them waited for every write
  Status written = step_batch(puts, step, local);
  keep(&written, std::exchange(deferred_, Status()));
  TAPIO_RETURN_IF_ERROR(agree(written));
  nc_.hold_commit(step);
  return ok_status();
}

Status CollectiveEngine::background_failure() {
  Status st = nc_.background_failure();
  keep(&st, data_.writer().failure().with_context(
                fmt::format("rank {}: a background write failed", comm().rank())));
  return st;
}

uint64_t CollectiveEngine::available_steps() const {
  return mode() == OpenMode::kRead ? nc_.header().numrecs : current_step();
}

Status CollectiveEngine::prepare_node_slots(const plan::Layout& layout) {
  comm::NodeMemory* node = agg_.node.get();
  if (!node) return ok_status();
  std::vector<uint64_t> sizes(node->node().size(), 0);
  const uint64_t slots = static_cast<uint64_t>(agg_.slot_count);
  for (int nr : agg_.node_rank)
    if (nr >= 0) sizes[nr] = agg_.shared_bytes();
  // The same on every rank: the slots' size and count, and the aggregators.
  std::vector<uint64_t> key = {agg_.slot_bytes, slots};
  key.insert(key.end(), agg_.ranks.begin(), agg_.ranks.end());
  bool changed = false;
  agg_.slots = false;
  const Status local = node->ensure(sizes, key, &changed);  // collective over the node
  if (changed) {  // on every rank alike (same key everywhere); unchanged is always OK
    const Status agreed = comm::agree(comm(), local);
    if (!agreed.ok()) {
      // Every rank forgets the key (a node whose window was made would otherwise skip the
      // next agreement, which the failed node enters), and the next call allocates again.
      node->forget();
      return agreed;
    }
  }
  // A file too large for 16,000 rounds of buffer_size gets larger rounds: then messages.
  agg_.slots = layout.round_bytes <= agg_.slot_bytes &&
               std::any_of(sizes.begin(), sizes.end(), [](uint64_t b) { return b > 0; });
  return ok_status();
}

bool CollectiveEngine::reserve(uint64_t staging, int round_buffers, uint64_t round) {
  bool ok = staging == 0 || bufs_.staging.try_prepare(staging);
  // Private round buffers only for an aggregator whose slots are not in the node window.
  if (agg_.mine >= 0 && !agg_.node)
    for (int k = 0; k < round_buffers; ++k) ok = ok && bufs_.round[k].try_prepare(round);
  return ok;
}

int CollectiveEngine::round_buffers(uint64_t step, uint64_t round) const {
  const uint64_t rounds = (step_span(step) + round - 1) / std::max<uint64_t>(round, 1);
  return static_cast<int>(std::clamp<uint64_t>(rounds, 2, agg_.slot_count));
}

Status CollectiveEngine::out_of_memory(uint64_t staging, int round_buffers,
                                       uint64_t round) const {
  return error(TAPIO_ERR_NOMEM,
               "{}: cannot allocate {} bytes to stage this rank's data{}; put less per rank "
               "and step, or lower buffer_size",
               where(), staging,
               agg_.mine >= 0 && !agg_.node ? fmt::format(" and {} round buffers of {} bytes",
                                                          round_buffers, round)
                                            : "");
}

bool CollectiveEngine::moved_direct(const collective::Placements& placed, uint64_t min_request,
                                    plan::DirectPlan* direct) const {
  uint64_t by = 0;
  if (min_request != previous_.direct_min || !collective::moved_by(placed, previous_.placed, &by))
    return false;
  *direct = previous_.direct;
  for (plan::DirectRequest& q : direct->requests) q.file.offset += by;
  return true;
}

void CollectiveEngine::plan_direct_here(const collective::MovableSegments& mine,
                                        const collective::Placements& placed,
                                        uint64_t min_request, plan::DirectPlan* direct) {
  if (!spec_.direct) return;
  PhaseTimer t(&profile(), Phase::kPlan);
  if (!moved_direct(placed, min_request, direct))
    *direct = plan::plan_direct(mine.get(), min_request);
  previous_.placed = placed;
  previous_.direct = *direct;
  previous_.direct_min = min_request;
}

Status CollectiveEngine::scan_direct(const std::vector<plan::Extent>& ranges,
                                     const plan::DirectPlan& direct, uint64_t* cannot) {
  PhaseTimer t(&profile(), Phase::kAgree);
  std::vector<uint64_t> his(ranges.size()), lower_his;
  for (size_t v = 0; v < ranges.size(); ++v) his[v] = ranges[v].length ? ranges[v].end() : 0;
  // A failed scan leaves this rank unable to write directly; its error rides on the vote.
  const Status scanned = comm().exscan_max(his, &lower_his);
  *cannot = scanned.ok() && direct.eligible && plan::in_rank_order(ranges, lower_his) ? 0 : 1;
  return scanned;
}

// When every rank's own pieces could go direct: the scan of rank order, then one reduction
// of the ranks that cannot (a rank whose scan failed cannot, and says so).
Status CollectiveEngine::vote_direct(const std::vector<plan::Extent>& ranges,
                                     const plan::DirectPlan& direct, uint64_t* cannot) {
  const Status scanned = scan_direct(ranges, direct, cannot);
  uint64_t sums[2] = {*cannot, scanned.ok() ? 0u : 1u};
  {
    PhaseTimer t(&profile(), Phase::kAgree);
    TAPIO_RETURN_IF_ERROR(comm().allreduce_sum(sums, 2));
  }
  if (sums[1] > 0) return agree(scanned);
  *cannot = sums[0];
  return ok_status();
}

Status CollectiveEngine::close_files() {
  uint64_t redo = 0;
  const Status finished =
      data_.async() ? nc_.finish_async(&redo) : ok_status();  // agreed on every rank
  const Status local = data_.close(std::exchange(deferred_, Status()));
  const Status base = nc_.close(ok_status());
  if (!finished.ok()) return finished;
  const Status closed = local.ok() ? base : local;
  keep_plan(closed.ok());
  return closed;
}

plan::Layout CollectiveEngine::layout_for(uint64_t lo, uint64_t hi) const {
  return plan::make_layout(lo, hi, static_cast<int>(agg_.ranks.size()), spec_.stripe_size,
                           spec_.round_bytes, 16000, smaller_rounds_);
}

void CollectiveEngine::route(const std::vector<plan::MemSegment>& segments,
                             const plan::Layout& layout) {
  PhaseTimer t(&profile(), Phase::kPlan);
  plan::route_segments(segments, layout, &routed_);
  plan::route_runs(routed_, &route_runs_);
  routed_shift_ = 0;
}

Status CollectiveEngine::expected_messages(const plan::Layout& layout,
                                           const std::vector<plan::RouteRun>& runs,
                                           std::vector<uint32_t>* expected,
                                           collective::WriteBatch* two_level) {
  // One flag per (aggregator, round) this rank sends to, laid out in rank order of the
  // aggregators as the reduce-scatter wants; each aggregator receives its per-round counts.
  // Two-level: a node's pieces for another node's aggregator count once, as its gatherer's.
  const uint32_t R = layout.rounds;
  std::vector<int> by_rank(agg_.ranks.size());
  for (size_t a = 0; a < by_rank.size(); ++a) by_rank[a] = static_cast<int>(a);
  std::sort(by_rank.begin(), by_rank.end(),
            [&](int x, int y) { return agg_.ranks[x] < agg_.ranks[y]; });
  std::vector<size_t> slot(agg_.ranks.size());
  for (size_t i = 0; i < by_rank.size(); ++i) slot[by_rank[i]] = i;
  std::vector<uint32_t> flags(agg_.ranks.size() * R, 0);
  const collective::NodeGather& g = agg_.gather;
  const bool gathers = two_level && g.on();
  for (const plan::RouteRun& x : runs)
    if (!gathers || !g.through(x.agg)) flags[slot[x.agg] * R + x.round] = 1;
  PhaseTimer t(&profile(), Phase::kAgree);
  Status local = ok_status();
  if (gathers) {
    local = node_pieces(two_level);
    if (g.gathering && local.ok())
      for (size_t a = 0; a < agg_.ranks.size(); ++a)
        for (uint32_t r = 0; r < R; ++r)
          if (g.remote[a] && two_level->node_pieces[a * R + r] > 0) flags[slot[a] * R + r] = 1;
  }
  std::vector<int> recv_counts(comm().size(), 0);
  for (int rank : agg_.ranks) recv_counts[rank] = static_cast<int>(R);
  // Every rank's receives depend on its counts: one whose reduction failed would wait for
  // messages nobody sends, so the failure is agreed on before any message moves.
  keep(&local, comm().reduce_scatter_sum(flags, recv_counts, expected));
  return comm::agree(comm(), local);
}

// Two-level: one sum over the node of which (aggregator, round) on other nodes each rank has
// pieces for, and which rounds it hands over in; the gatherer keeps what it needs.
Status CollectiveEngine::node_pieces(collective::WriteBatch* batch) const {
  const uint32_t R = batch->layout.rounds;
  const size_t A = agg_.ranks.size();
  if ((A + 1) * R > static_cast<size_t>(INT32_MAX))
    return error(TAPIO_ERR_INTERNAL, "{}: too many aggregators x rounds ({} x {}) for "
                 "two-level aggregation", where(), A, R);
  std::vector<uint64_t> sums((A + 1) * R, 0), mine(R, 0);
  for (const plan::RouteRun& x : batch->runs)
    if (agg_.gather.through(x.agg)) sums[x.agg * R + x.round] = sums[A * R + x.round] = 1;
  for (uint32_t r = 0; r < R; ++r) mine[r] = sums[A * R + r];
  TAPIO_RETURN_IF_ERROR(
      agg_.gather.node->node().allreduce_sum(sums.data(), static_cast<int>(sums.size())));
  if (!agg_.gather.gathering) return ok_status();
  batch->node_pieces.assign(sums.begin(), sums.begin() + A * R);
  batch->node_senders.resize(R);
  for (uint32_t r = 0; r < R; ++r)
    batch->node_senders[r] = static_cast<uint32_t>(sums[A * R + r] - mine[r]);
  return ok_status();
}

}  // namespace tapio
