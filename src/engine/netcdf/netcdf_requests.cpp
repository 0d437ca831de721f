#include "engine/netcdf/netcdf_requests.h"

#include "core/out_of_memory.h"

namespace tapio {

Status gather_requests(const comm::Comm& comm, const std::vector<plan::Request>& mine,
                       RankRequests* all, Profile* profile) {
  PhaseTimer t(profile, Phase::kExchange);
  std::vector<uint8_t> bytes, gathered;
  // A rank that cannot list its requests still enters the gather, with none.
  Status local = catch_out_of_memory("listing this rank's pieces for rank 0", [&] {
    plan::encode_requests(mine, bytes);
    return ok_status();
  });
  if (!local.ok()) bytes.clear();
  std::vector<uint64_t> counts;
  keep(&local, comm.gather_bytes(bytes, 0, &gathered, &counts));
  if (comm.rank() != 0) {
    profile->messages.send(bytes.size());
    return local;
  }
  if (!local.ok()) return local;
  profile->messages.receive(gathered.size() - bytes.size(), comm.size() - 1);
  return catch_out_of_memory("reading every rank's pieces", [&] {
    all->resize(comm.size());
    uint64_t offset = 0;
    for (int r = 0; r < comm.size(); ++r) {
      // Nothing at all (not even a count): that rank could not list its requests and reports
      // why itself.
      if (counts[r] > 0) {
        TAPIO_ASSIGN_OR_RETURN((*all)[r], plan::decode_requests(gathered.data() + offset, counts[r]));
      }
      offset += counts[r];
    }
    return ok_status();
  });
}

Result<uint64_t> covered(const VariableDef& def, int var, const RankRequests& all,
                         const std::string& context, std::vector<plan::OwnedRun>* owned) {
  for (size_t r = 0; r < all.size(); ++r)
    for (const auto& req : all[r])
      if (req.var == static_cast<uint32_t>(var))
        for (const auto& run : plan::to_runs(req.sel, def.shape))
          owned->push_back(plan::OwnedRun{run, static_cast<int>(r)});
  auto elements = plan::covered_elements(*owned);
  if (!elements.ok()) return elements.status().with_context(context);
  return elements;
}

}  // namespace tapio
