// The distributed overlap check (overlap_check.h).
#include "engine/overlap_check.h"

#include <algorithm>
#include <map>

#include "plan/coverage.h"
#include "plan/overlap.h"

namespace tapio {
namespace {

constexpr int kOverlapTag = 7201;

struct Wire {  // a run of a variable, on the wire
  uint64_t var, offset, length;
};

// The first rank of each node, by node.
std::vector<int> owner_ranks(const comm::Topology& t) {
  std::vector<int> owners(t.nodes, -1);
  for (int r = static_cast<int>(t.node_of_rank.size()) - 1; r >= 0; --r) owners[t.node(r)] = r;
  return owners;
}

}  // namespace

Status check_overlaps(const comm::Comm& comm, const comm::Topology& topology, const IoDef& io,
                      const std::vector<PutShape>& mine,
                      const std::function<std::string(int var)>& context, Profile* profile) {
  const std::vector<int> owners = owner_ranks(topology);
  const int A = static_cast<int>(owners.size());
  std::vector<std::vector<Wire>> out(A);
  {
    PhaseTimer t(profile, Phase::kPlan);
    for (const PutShape& p : mine) {
      const VariableDef& v = io.vars[p.var];
      const uint64_t n = v.elements();
      const auto var = static_cast<uint64_t>(p.var);
      plan::for_each_run(*p.sel, v.shape, [&](const plan::Run& r, uint64_t) {
        plan::route_run(r, n, A, [&](int d, const plan::Run& part) {
          out[d].push_back(Wire{var, part.offset, part.length});
        });
      });
    }
  }
  PhaseTimer t(profile, Phase::kExchange);
  std::vector<uint32_t> flags(A), expected;
  for (int d = 0; d < A; ++d) flags[d] = out[d].empty() ? 0 : 1;
  std::vector<int> recv_counts(comm.size(), 0);
  for (int r : owners) recv_counts[r] = 1;
  // Owners in rank order, as MPI_Reduce_scatter deals its result out.
  std::vector<int> by_rank(A);
  for (int d = 0; d < A; ++d) by_rank[d] = d;
  std::sort(by_rank.begin(), by_rank.end(), [&](int a, int b) { return owners[a] < owners[b]; });
  std::vector<uint32_t> ranked(A);
  for (int i = 0; i < A; ++i) ranked[i] = flags[by_rank[i]];
  TAPIO_RETURN_IF_ERROR(comm.reduce_scatter_sum(ranked, recv_counts, &expected));
  std::vector<MPI_Request> sends;
  for (int d = 0; d < A; ++d) {
    if (out[d].empty() || owners[d] == comm.rank()) continue;
    sends.emplace_back();
    MPI_Isend(out[d].data(), static_cast<int>(out[d].size() * sizeof(Wire)), MPI_BYTE, owners[d],
              kOverlapTag, comm.raw(), &sends.back());
    profile->messages_sent += 1;
    profile->bytes_sent += out[d].size() * sizeof(Wire);
  }
  // An owner: every rank's runs of its domain, by variable.
  std::map<uint64_t, std::vector<plan::OwnedRun>> by_var;
  auto take = [&](const std::vector<Wire>& wires, int source) {
    for (const Wire& w : wires)
      by_var[w.var].push_back(plan::OwnedRun{plan::Run{w.offset, w.length}, source});
  };
  const int owned = static_cast<int>(std::find(owners.begin(), owners.end(), comm.rank()) -
                                     owners.begin());
  uint32_t incoming = expected.empty() ? 0 : expected[0];
  if (owned < A && !out[owned].empty()) {
    take(out[owned], comm.rank());
    --incoming;
  }
  std::vector<Wire> wires;
  for (uint32_t k = 0; k < incoming; ++k) {
    MPI_Status status;
    MPI_Probe(MPI_ANY_SOURCE, kOverlapTag, comm.raw(), &status);
    int bytes = 0;
    MPI_Get_count(&status, MPI_BYTE, &bytes);
    wires.resize(static_cast<size_t>(bytes) / sizeof(Wire));
    MPI_Recv(wires.data(), bytes, MPI_BYTE, status.MPI_SOURCE, kOverlapTag, comm.raw(),
             MPI_STATUS_IGNORE);
    profile->messages_received += 1;
    profile->bytes_received += static_cast<uint64_t>(bytes);
    take(wires, status.MPI_SOURCE);
  }
  Status local = ok_status();
  for (auto& [var, runs] : by_var) {
    if (!local.ok()) break;
    local = plan::covered_elements(runs).status().with_context(context(static_cast<int>(var)));
  }
  MPI_Waitall(static_cast<int>(sends.size()), sends.data(), MPI_STATUSES_IGNORE);
  return local;
}

bool RepeatedPuts::same_as_last(const std::vector<PutOp>& puts, uint64_t step) {
  bool same = last_step_ + 1 == step && puts.size() == last_.size();
  for (size_t i = 0; same && i < puts.size(); ++i)
    same = puts[i].var == last_[i].first && puts[i].sel == last_[i].second;
  if (!same) {
    last_.clear();
    for (const PutOp& p : puts) last_.emplace_back(p.var, p.sel);
  }
  last_step_ = step;
  return same;
}

}  // namespace tapio
