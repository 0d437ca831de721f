#include "engine/netcdf/netcdf_requests.h"

namespace tapio {

Status gather_requests(const comm::Comm& comm, const std::vector<plan::Request>& mine,
                       RankRequests* all, Profile* profile) {
  PhaseTimer t(profile, Phase::kExchange);
  std::vector<uint8_t> bytes, gathered;
  plan::encode_requests(mine, bytes);
  std::vector<uint64_t> counts;
  TAPIO_RETURN_IF_ERROR(comm.gather_bytes(bytes, 0, &gathered, &counts));
  if (comm.rank() != 0) {
    profile->messages.send(bytes.size());
    return ok_status();
  }
  profile->messages.receive(gathered.size() - bytes.size(), comm.size() - 1);
  all->resize(comm.size());
  uint64_t offset = 0;
  for (int r = 0; r < comm.size(); ++r) {
    TAPIO_ASSIGN_OR_RETURN((*all)[r], plan::decode_requests(gathered.data() + offset, counts[r]));
    offset += counts[r];
  }
  return ok_status();
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
