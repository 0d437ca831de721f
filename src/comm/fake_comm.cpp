// The fake communicator (fake_comm.h). Everything below the scheduler is touched only by the
// rank holding the baton, so the world's state needs no lock of its own: the scheduler's
// mutex, taken at every hand-over, orders each rank's accesses after the previous holder's.
#include "comm/fake_comm.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <random>
#include <thread>

namespace tapio::comm {
namespace {

struct Message {
  int source;
  int tag;
  std::vector<uint8_t> bytes;
  int sender = -1;       // a synchronous send: its world rank and completion id, done when
  uint64_t send_id = 0;  // the message is received
};

struct Completion {
  bool done = false;
  uint64_t received = 0;
  Status status;
};

struct PostedRecv {
  int source;
  int tag;
  Pieces into;
  uint64_t id;
};

// One meeting of a collective: every rank's contribution, and what it made (a split's groups,
// a window's memory) for every rank to take.
struct Group;
struct Instance {
  std::string kind;
  std::vector<std::vector<uint8_t>> in;
  int arrived = 0;
  int left = 0;  // ranks that have not taken their result yet
  std::map<int, std::shared_ptr<Group>> made;
  std::shared_ptr<std::vector<std::vector<uint8_t>>> memory;
};

// One communicator: its members (world ranks in comm rank order) and their mailboxes.
struct Group {
  std::vector<int> members;
  std::vector<std::deque<Message>> unexpected;  // per comm rank, in arrival order
  std::vector<std::deque<PostedRecv>> posted;   // per comm rank, in posting order
  std::vector<uint64_t> sequence;               // per comm rank: collectives entered
  std::map<uint64_t, Instance> meetings;
  explicit Group(std::vector<int> m)
      : members(std::move(m)),
        unexpected(members.size()),
        posted(members.size()),
        sequence(members.size(), 0) {}
};

bool matches(int want_source, int want_tag, int source, int tag) {
  return (want_source == kAnySource || want_source == source) && want_tag == tag;
}

// Message bytes into the blocks of `into`, as far as they go.
void scatter(const std::vector<uint8_t>& bytes, const Pieces& into) {
  size_t at = 0;
  for (const Block& b : into.blocks)
    for (uint64_t k = 0; k < b.count && at < bytes.size(); ++k) {
      const size_t n = std::min<size_t>(b.length, bytes.size() - at);
      std::memcpy(into.base + b.offset + k * b.stride, bytes.data() + at, n);
      at += n;
    }
}

std::vector<uint8_t> gather(const Pieces& from) {
  std::vector<uint8_t> out;
  out.reserve(from.size());
  for (const Block& b : from.blocks)
    for (uint64_t k = 0; k < b.count; ++k) {
      const uint8_t* p = from.base + b.offset + k * b.stride;
      out.insert(out.end(), p, p + b.length);
    }
  return out;
}

template <typename T>
void combine(T* acc, const T* x, int n, Comm::Op op) {
  for (int i = 0; i < n; ++i) {
    if (op == Comm::Op::kSum) acc[i] = acc[i] + x[i];
    if (op == Comm::Op::kMin) acc[i] = std::min(acc[i], x[i]);
    if (op == Comm::Op::kMax) acc[i] = std::max(acc[i], x[i]);
  }
}

void combine_triples(double* acc, const double* x, int n) {
  for (int i = 0; i < n; ++i, acc += 3, x += 3) {
    acc[0] += x[0];
    acc[1] = std::min(acc[1], x[1]);
    acc[2] = std::max(acc[2], x[2]);
  }
}

// acc op= x, element-wise over n elements of `type`.
void reduce_into(uint8_t* acc, const uint8_t* x, int n, Comm::Type type, Comm::Op op) {
  if (op == Comm::Op::kSumMinMax)
    return combine_triples(reinterpret_cast<double*>(acc), reinterpret_cast<const double*>(x), n);
  switch (type) {
    case Comm::Type::kUint8: return combine(acc, x, n, op);
    case Comm::Type::kInt32:
      return combine(reinterpret_cast<int32_t*>(acc), reinterpret_cast<const int32_t*>(x), n, op);
    case Comm::Type::kUint32:
      return combine(reinterpret_cast<uint32_t*>(acc), reinterpret_cast<const uint32_t*>(x), n,
                     op);
    case Comm::Type::kUint64:
      return combine(reinterpret_cast<uint64_t*>(acc), reinterpret_cast<const uint64_t*>(x), n,
                     op);
    case Comm::Type::kDouble:
      return combine(reinterpret_cast<double*>(acc), reinterpret_cast<const double*>(x), n, op);
  }
}

size_t reduce_bytes(int n, Comm::Type type, Comm::Op op) {
  return static_cast<size_t>(n) * element_size(type) * (op == Comm::Op::kSumMinMax ? 3 : 1);
}

std::vector<uint8_t> bytes_of(const void* p, size_t n) {
  const auto* b = static_cast<const uint8_t*>(p);
  return std::vector<uint8_t>(b, b + n);
}

}  // namespace

struct FakeWorld::State {
  explicit State(int n, uint64_t s) : ranks(n), seed(s), rng(s) {}
  int ranks;
  uint64_t seed;
  std::mt19937_64 rng;
  std::vector<FakeFault> faults;
  std::map<std::pair<int, std::string>, int> counts;  // calls made, per (rank, call)

  // The scheduler.
  std::mutex m;
  std::condition_variable cv;
  int current = -1;
  std::vector<std::function<bool()>> waiting;  // per rank: what it waits for (null: runnable)
  std::vector<const char*> blocked_in;
  std::vector<bool> done;
  bool deadlock = false;
  std::string deadlock_message;

  // Messages and receives.
  std::vector<std::map<uint64_t, Completion>> completions;  // per world rank
  uint64_t next_id = 1;
  uint64_t eager_limit = 0;  // larger sends complete only when received
  std::vector<std::shared_ptr<Group>> groups;  // every communicator of the run

  // A message was received: its synchronous send (if any) completes.
  void received(const Message& m) {
    if (m.send_id) completions[m.sender][m.send_id].done = true;
  }

  // Whether this call of `call` by `rank` is to fail (and counts it).
  bool faulty(int rank, const std::string& call) {
    const int nth = counts[{rank, call}]++;
    return std::any_of(faults.begin(), faults.end(), [&](const FakeFault& f) {
      return f.rank == rank && f.call == call && (f.nth == nth || f.nth < 0);
    });
  }

  bool can_go(int r) const { return !done[r] && (!waiting[r] || waiting[r]()); }

  // Called with the lock held by the baton holder `from`: the next rank to run.
  void pass_baton(int from) {
    std::vector<int> ready;
    for (int k = 1; k <= ranks; ++k) {
      const int r = (from + k) % ranks;
      if (can_go(r)) ready.push_back(r);
    }
    if (!ready.empty()) {
      current = seed == 0 ? ready.front() : ready[rng() % ready.size()];
    } else if (std::all_of(done.begin(), done.end(), [](bool d) { return d; })) {
      current = -1;
    } else {
      enter_deadlock();
    }
    cv.notify_all();
  }

  void enter_deadlock() {
    if (!deadlock) {
      deadlock = true;
      deadlock_message = "deadlock: no rank can go on;";
      for (int r = 0; r < ranks; ++r)
        if (!done[r]) deadlock_message += fmt::format(" rank {} waits in {};", r, blocked_in[r]);
    }
    for (int r = 0; r < ranks; ++r)
      if (!done[r]) {
        current = r;
        return;
      }
  }

  // Blocks rank `me` until `ready()` (which reads state only the baton holder changes).
  Status block_until(int me, const char* what, const std::function<bool()>& ready) {
    std::unique_lock<std::mutex> lock(m);
    if (ready()) return ok_status();
    if (deadlock) return error(TAPIO_ERR_INTERNAL, "{} (in {})", deadlock_message, what);
    waiting[me] = ready;
    blocked_in[me] = what;
    pass_baton(me);
    cv.wait(lock, [&] { return current == me; });
    waiting[me] = nullptr;
    if (ready()) return ok_status();
    return error(TAPIO_ERR_INTERNAL, "{} (in {})", deadlock_message, what);
  }

  // With a seed, a point where another rank may overtake this one.
  void maybe_yield(int me) {
    if (seed == 0) return;
    std::unique_lock<std::mutex> lock(m);
    if (rng() % 2) return;
    pass_baton(me);
    cv.wait(lock, [&] { return current == me; });
  }
};

namespace {

class FakeWindow final : public SharedWindow {
 public:
  FakeWindow(FakeWorld::State* s, int me, std::shared_ptr<std::vector<std::vector<uint8_t>>> m)
      : s_(s), me_(me), memory_(std::move(m)) {}
  uint8_t* base(int rank) const override {
    auto& part = (*memory_)[rank];
    return part.empty() ? nullptr : part.data();
  }
  Status sync() const override {
    if (s_->faulty(me_, "win_sync")) return error(TAPIO_ERR_MPI, "MPI_Win_sync failed (injected)");
    return ok_status();
  }

 private:
  FakeWorld::State* s_;
  int me_;
  std::shared_ptr<std::vector<std::vector<uint8_t>>> memory_;
};

class FakeComm final : public Comm {
 public:
  FakeComm(FakeWorld::State* s, std::shared_ptr<Group> g, int rank)
      : Comm(rank, static_cast<int>(g->members.size())), s_(s), g_(std::move(g)) {}

  Result<std::unique_ptr<Comm>> split(int color, int key) const override {
    int64_t mine[2] = {color, key};
    Instance* meeting = nullptr;
    TAPIO_RETURN_IF_ERROR(meet("split", bytes_of(mine, sizeof mine), &meeting));
    if (meeting->made.empty()) make_groups(meeting);
    auto group = meeting->made[color];
    const auto it = std::find(group->members.begin(), group->members.end(), me());
    const int rank = static_cast<int>(it - group->members.begin());
    leave(meeting);
    return std::unique_ptr<Comm>(new FakeComm(s_, group, rank));
  }

  Result<std::unique_ptr<Comm>> split_shared() const override {
    return split(0, rank());  // one machine
  }

  Status allocate_shared(uint64_t bytes, std::unique_ptr<SharedWindow>* out) const override {
    Instance* meeting = nullptr;
    TAPIO_RETURN_IF_ERROR(meet("allocate_shared", bytes_of(&bytes, 8), &meeting));
    if (!meeting->memory) {
      meeting->memory = std::make_shared<std::vector<std::vector<uint8_t>>>(size());
      for (int r = 0; r < size(); ++r) {
        uint64_t n = 0;
        std::memcpy(&n, meeting->in[r].data(), 8);
        (*meeting->memory)[r].resize(n);
      }
    }
    auto memory = meeting->memory;
    leave(meeting);
    out->reset(new FakeWindow(s_, me(), std::move(memory)));
    if (s_->faulty(me(), "allocate_shared"))
      return error(TAPIO_ERR_MPI, "MPI_Win_lock_all failed (injected)");
    return ok_status();
  }

 protected:
  Status do_barrier() const override { return collective("barrier", {}, nullptr, 0); }

  Status do_bcast(void* data, int bytes, int root) const override {
    Instance* meeting = nullptr;
    std::vector<uint8_t> in;
    if (rank() == root) in = bytes_of(data, bytes);
    TAPIO_RETURN_IF_ERROR(meet("bcast", std::move(in), &meeting));
    if (rank() != root) std::memcpy(data, meeting->in[root].data(), bytes);
    leave(meeting);
    return after("bcast", data, bytes);
  }

  Status do_allreduce(void* values, int n, Type type, Op op) const override {
    const size_t len = reduce_bytes(n, type, op);
    Instance* meeting = nullptr;
    TAPIO_RETURN_IF_ERROR(meet("allreduce", bytes_of(values, len), &meeting));
    std::vector<uint8_t> acc = meeting->in[0];
    for (int r = 1; r < size(); ++r) reduce_into(acc.data(), meeting->in[r].data(), n, type, op);
    std::memcpy(values, acc.data(), len);
    leave(meeting);
    return after("allreduce", values, len);
  }

  Status do_exscan(const void* in, void* out, int n, Type type, Op op) const override {
    const size_t len = reduce_bytes(n, type, op);
    Instance* meeting = nullptr;
    TAPIO_RETURN_IF_ERROR(meet("exscan", bytes_of(in, len), &meeting));
    if (rank() > 0) {
      std::vector<uint8_t> acc = meeting->in[0];
      for (int r = 1; r < rank(); ++r) reduce_into(acc.data(), meeting->in[r].data(), n, type, op);
      std::memcpy(out, acc.data(), len);
    }
    leave(meeting);
    return after("exscan", out, len);
  }

  Status do_gather(const void* send, int bytes, void* recv, int root) const override {
    Instance* meeting = nullptr;
    TAPIO_RETURN_IF_ERROR(meet("gather", bytes_of(send, bytes), &meeting));
    if (rank() == root)
      for (int r = 0; r < size(); ++r)
        std::memcpy(static_cast<uint8_t*>(recv) + static_cast<size_t>(r) * bytes,
                    meeting->in[r].data(), bytes);
    leave(meeting);
    return after("gather", recv, rank() == root ? static_cast<size_t>(bytes) * size() : 0);
  }

  Status do_gatherv(const void* send, int count, void* recv, const int* counts,
                    const int* displs, size_t esize, int root) const override {
    Instance* meeting = nullptr;
    TAPIO_RETURN_IF_ERROR(meet("gatherv", bytes_of(send, count * esize), &meeting));
    Status st = ok_status();
    for (int r = 0; rank() == root && r < size(); ++r) {
      if (meeting->in[r].size() != counts[r] * esize)
        st = error(TAPIO_ERR_MPI, "gatherv: rank {} sent {} bytes, root expects {}", r,
                   meeting->in[r].size(), counts[r] * esize);
      else if (counts[r] > 0)
        std::memcpy(static_cast<uint8_t*>(recv) + displs[r] * esize, meeting->in[r].data(),
                    counts[r] * esize);
    }
    leave(meeting);
    TAPIO_RETURN_IF_ERROR(st);
    return after("gatherv", nullptr, 0);
  }

  Status do_scatterv(const void* send, const int* counts, const int* displs, void* recv,
                     int count, size_t esize, int root) const override {
    std::vector<uint8_t> in;
    if (rank() == root)
      for (int r = 0; r < size(); ++r) {
        const auto* p = static_cast<const uint8_t*>(send) + displs[r] * esize;
        const uint64_t n = counts[r] * esize;
        in.insert(in.end(), reinterpret_cast<const uint8_t*>(&n),
                  reinterpret_cast<const uint8_t*>(&n) + 8);
        in.insert(in.end(), p, p + n);
      }
    Instance* meeting = nullptr;
    TAPIO_RETURN_IF_ERROR(meet("scatterv", std::move(in), &meeting));
    const std::vector<uint8_t>& all = meeting->in[root];
    size_t at = 0;
    for (int r = 0; r < rank(); ++r) {
      uint64_t n = 0;
      std::memcpy(&n, all.data() + at, 8);
      at += 8 + n;
    }
    uint64_t n = 0;
    std::memcpy(&n, all.data() + at, 8);
    const Status st = n == count * esize ? ok_status()
                                         : error(TAPIO_ERR_MPI, "scatterv: message truncated");
    if (st.ok() && n) std::memcpy(recv, all.data() + at + 8, n);
    leave(meeting);
    TAPIO_RETURN_IF_ERROR(st);
    return after("scatterv", recv, count * esize);
  }

  Status do_allgather(const void* send, int bytes, void* recv) const override {
    Instance* meeting = nullptr;
    TAPIO_RETURN_IF_ERROR(meet("allgather", bytes_of(send, bytes), &meeting));
    for (int r = 0; r < size(); ++r)
      std::memcpy(static_cast<uint8_t*>(recv) + static_cast<size_t>(r) * bytes,
                  meeting->in[r].data(), bytes);
    leave(meeting);
    return after("allgather", recv, static_cast<size_t>(bytes) * size());
  }

  Status do_reduce_scatter(const void* send, void* recv, const int* counts, Type type,
                           Op op) const override {
    int total = 0, before = 0;
    for (int r = 0; r < size(); ++r) {
      if (r < rank()) before += counts[r];
      total += counts[r];
    }
    const size_t esize = element_size(type);
    Instance* meeting = nullptr;
    TAPIO_RETURN_IF_ERROR(meet("reduce_scatter", bytes_of(send, total * esize), &meeting));
    std::vector<uint8_t> acc = meeting->in[0];
    for (int r = 1; r < size(); ++r)
      reduce_into(acc.data(), meeting->in[r].data(), total, type, op);
    if (counts[rank()] > 0)  // recv may be null when this rank receives nothing
      std::memcpy(recv, acc.data() + before * esize, counts[rank()] * esize);
    leave(meeting);
    return after("reduce_scatter", recv, counts[rank()] * esize);
  }

  Status post_send(const Pieces& data, int dest, int tag, Request* out) const override {
    s_->maybe_yield(me());
    *out = Request{};
    out->peer = dest;
    out->tag = tag;
    if (s_->faulty(me(), "isend")) return error(TAPIO_ERR_MPI, "MPI_Isend failed (injected)");
    Message msg{rank(), tag, gather(data)};
    std::lock_guard<std::mutex> lock(s_->m);
    if (msg.bytes.size() > s_->eager_limit) {  // completes when received (rendezvous)
      msg.sender = me();
      msg.send_id = out->handle = s_->next_id++;
      s_->completions[me()][msg.send_id] = Completion{};
    }
    auto& posted = g_->posted[dest];
    for (auto it = posted.begin(); it != posted.end(); ++it) {
      if (!matches(it->source, it->tag, msg.source, msg.tag)) continue;
      complete(g_->members[dest], *it, msg);
      posted.erase(it);
      return ok_status();
    }
    g_->unexpected[dest].push_back(std::move(msg));
    return ok_status();
  }

  Status post_recv(const Pieces& into, int source, int tag, Request* out) const override {
    *out = Request{};
    out->peer = source;
    out->tag = tag;
    out->receive = true;
    if (s_->faulty(me(), "irecv")) return error(TAPIO_ERR_MPI, "MPI_Irecv failed (injected)");
    std::lock_guard<std::mutex> lock(s_->m);
    const uint64_t id = s_->next_id++;
    out->handle = id;
    PostedRecv p{source, tag, into, id};
    s_->completions[me()][id] = Completion{};
    auto& queue = g_->unexpected[rank()];
    for (auto it = queue.begin(); it != queue.end(); ++it) {
      if (!matches(source, tag, it->source, it->tag)) continue;
      complete(me(), p, *it);
      queue.erase(it);
      return ok_status();
    }
    g_->posted[rank()].push_back(std::move(p));
    return ok_status();
  }

  Status wait_all(Request* requests, size_t n) const override {
    Status first = s_->faulty(me(), "waitall")
                       ? error(TAPIO_ERR_MPI, "MPI_Waitall failed (injected)")
                       : ok_status();
    auto& mine = s_->completions[me()];
    for (size_t i = 0; i < n; ++i) {
      const uint64_t id = requests[i].handle;
      if (id == 0) continue;  // an eager send: done when posted
      Status st = s_->block_until(me(), "waitall", [&] { return mine[id].done; });
      std::lock_guard<std::mutex> lock(s_->m);
      if (st.ok()) st = mine[id].status;
      requests[i].received = mine[id].received;
      mine.erase(id);
      if (first.ok()) first = st;
    }
    return first;
  }

  Status do_probe(int source, int tag, Envelope* found) const override {
    if (s_->faulty(me(), "probe")) return error(TAPIO_ERR_MPI, "MPI_Probe failed (injected)");
    const Message* m = nullptr;
    TAPIO_RETURN_IF_ERROR(s_->block_until(me(), "probe", [&] {
      return (m = find(source, tag)) != nullptr;
    }));
    std::lock_guard<std::mutex> lock(s_->m);
    m = find(source, tag);
    found->source = m->source;
    found->bytes = m->bytes.size();
    return ok_status();
  }

  Status do_recv(void* buf, int bytes, int source, int tag) const override {
    TAPIO_RETURN_IF_ERROR(s_->block_until(me(), "recv", [&] { return find(source, tag); }));
    std::lock_guard<std::mutex> lock(s_->m);
    auto& queue = g_->unexpected[rank()];
    const auto it = std::find_if(queue.begin(), queue.end(), [&](const Message& m) {
      return matches(source, tag, m.source, m.tag);
    });
    if (it->bytes.size() > static_cast<size_t>(bytes))
      return error(TAPIO_ERR_MPI, "MPI_Recv: a message of {} bytes truncated to {}",
                   it->bytes.size(), bytes);
    if (!it->bytes.empty()) std::memcpy(buf, it->bytes.data(), it->bytes.size());
    s_->received(*it);
    queue.erase(it);
    return ok_status();
  }

 private:
  int me() const { return g_->members[rank()]; }

  const Message* find(int source, int tag) const {
    for (const Message& m : g_->unexpected[rank()])
      if (matches(source, tag, m.source, m.tag)) return &m;
    return nullptr;
  }

  // A posted receive of world rank `owner` gets `msg`.
  void complete(int owner, const PostedRecv& p, const Message& msg) const {
    s_->received(msg);
    Completion& c = s_->completions[owner][p.id];
    c.done = true;
    c.received = std::min<uint64_t>(msg.bytes.size(), p.into.size());
    if (msg.bytes.size() > p.into.size())
      c.status = error(TAPIO_ERR_MPI, "MPI_Irecv: a message of {} bytes truncated to {}",
                       msg.bytes.size(), p.into.size());
    scatter(msg.bytes, p.into);
  }

  // Enters the next collective of this communicator with `in`; returns when every rank did.
  Status meet(const char* kind, std::vector<uint8_t> in, Instance** out) const {
    s_->maybe_yield(me());
    Instance* meeting = nullptr;
    {
      std::lock_guard<std::mutex> lock(s_->m);
      const uint64_t seq = g_->sequence[rank()]++;
      auto [it, fresh] = g_->meetings.try_emplace(seq);
      meeting = &it->second;
      if (fresh) {
        meeting->kind = kind;
        meeting->in.resize(size());
        meeting->left = size();
      }
      if (meeting->kind != kind)
        return error(TAPIO_ERR_INTERNAL, "collective mismatch: rank {} calls {} where another "
                     "rank called {}", rank(), kind, meeting->kind);
      meeting->in[rank()] = std::move(in);
      ++meeting->arrived;
    }
    TAPIO_RETURN_IF_ERROR(
        s_->block_until(me(), kind, [meeting, this] { return meeting->arrived == size(); }));
    *out = meeting;
    return ok_status();
  }

  void leave(Instance* meeting) const {
    std::lock_guard<std::mutex> lock(s_->m);
    if (--meeting->left > 0) return;
    for (auto it = g_->meetings.begin(); it != g_->meetings.end(); ++it)
      if (&it->second == meeting) {
        g_->meetings.erase(it);
        return;
      }
  }

  Status collective(const char* kind, std::vector<uint8_t> in, void* out, size_t n) const {
    Instance* meeting = nullptr;
    TAPIO_RETURN_IF_ERROR(meet(kind, std::move(in), &meeting));
    leave(meeting);
    return after(kind, out, n);
  }

  // An injected failure of a collective that completed: the result is scrambled.
  Status after(const char* kind, void* out, size_t n) const {
    if (!s_->faulty(me(), kind)) return ok_status();
    if (out && n) std::memset(out, 0x5a, n);
    return error(TAPIO_ERR_MPI, "MPI collective {} failed (injected)", kind);
  }

  // A split's groups, one per color, members ordered by (key, rank).
  void make_groups(Instance* meeting) const {
    std::map<int, std::vector<std::pair<int64_t, int>>> by_color;
    for (int r = 0; r < size(); ++r) {
      int64_t v[2];
      std::memcpy(v, meeting->in[r].data(), sizeof v);
      by_color[static_cast<int>(v[0])].emplace_back(v[1], r);
    }
    for (auto& [color, list] : by_color) {
      std::sort(list.begin(), list.end());
      std::vector<int> members;
      for (const auto& [key, r] : list) members.push_back(g_->members[r]);
      meeting->made[color] = std::make_shared<Group>(std::move(members));
      s_->groups.push_back(meeting->made[color]);
    }
  }

  FakeWorld::State* s_;
  std::shared_ptr<Group> g_;
};

}  // namespace

FakeWorld::FakeWorld(int ranks, uint64_t seed) : s_(new State(ranks, seed)) {}

FakeWorld::~FakeWorld() = default;

void FakeWorld::inject(FakeFault fault) { s_->faults.push_back(std::move(fault)); }

void FakeWorld::set_eager_limit(uint64_t bytes) { s_->eager_limit = bytes; }

int FakeWorld::size() const { return s_->ranks; }

int FakeWorld::calls(int rank, const std::string& call) const {
  const auto it = s_->counts.find({rank, call});
  return it == s_->counts.end() ? 0 : it->second;
}

Status FakeWorld::run(const std::function<void(Comm& comm)>& body) {
  State& s = *s_;
  const int n = s.ranks;
  s.waiting.assign(n, nullptr);
  s.blocked_in.assign(n, "");
  s.done.assign(n, false);
  s.completions.assign(n, {});
  s.counts.clear();
  s.deadlock = false;
  s.deadlock_message.clear();
  std::vector<int> members(n);
  for (int r = 0; r < n; ++r) members[r] = r;
  auto world = std::make_shared<Group>(members);
  s.groups = {world};
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r)
    threads.emplace_back([&s, &body, world, r] {
      {
        std::unique_lock<std::mutex> lock(s.m);
        s.cv.wait(lock, [&] { return s.current == r; });
      }
      FakeComm comm(&s, world, r);
      body(comm);
      std::lock_guard<std::mutex> lock(s.m);
      s.done[r] = true;
      s.pass_baton(r);
    });
  {
    std::unique_lock<std::mutex> lock(s.m);
    s.current = 0;
    s.cv.notify_all();
    s.cv.wait(lock, [&] { return std::all_of(s.done.begin(), s.done.end(), [](bool d) {
      return d;
    }); });
  }
  for (auto& t : threads) t.join();
  if (s.deadlock) return Status(TAPIO_ERR_INTERNAL, s.deadlock_message);
  size_t left = 0;  // a message nobody received: under MPI, its sender may wait forever
  for (const auto& g : s.groups)
    for (const auto& queue : g->unexpected) left += queue.size();
  if (left) return error(TAPIO_ERR_INTERNAL, "{} messages were sent and never received", left);
  return ok_status();
}

}  // namespace tapio::comm
