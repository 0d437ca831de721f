// Every rank's requests at rank 0: the serial engine's data path, and how the NetCDF engines
// name overlapping blocks (the runs of all ranks sorted in one place).
#include "engine/netcdf_engine.h"

namespace tapio {

Status NetcdfEngine::gather_requests(const std::vector<plan::Request>& mine,
                                     std::vector<std::vector<plan::Request>>* all) {
  PhaseTimer t(&profile(), Phase::kExchange);
  std::vector<uint8_t> bytes, gathered;
  plan::encode_requests(mine, bytes);
  std::vector<uint64_t> counts;
  TAPIO_RETURN_IF_ERROR(comm().gather_bytes(bytes, 0, &gathered, &counts));
  if (comm().rank() != 0) {
    profile().messages_sent += 1;
    profile().bytes_sent += bytes.size();
    return ok_status();
  }
  profile().messages_received += comm().size() - 1;
  profile().bytes_received += gathered.size() - bytes.size();
  all->resize(comm().size());
  uint64_t offset = 0;
  for (int r = 0; r < comm().size(); ++r) {
    auto decoded = plan::decode_requests(gathered.data() + offset, counts[r]);
    if (!decoded.ok()) return decoded.status();
    (*all)[r] = std::move(decoded).value();
    offset += counts[r];
  }
  return ok_status();
}

Result<uint64_t> NetcdfEngine::covered(int var, uint64_t step,
                                       const std::vector<std::vector<plan::Request>>& all,
                                       std::vector<plan::OwnedRun>* owned) const {
  const VariableDef& def = io().vars[var];
  for (size_t r = 0; r < all.size(); ++r)
    for (const auto& req : all[r])
      if (req.var == static_cast<uint32_t>(var))
        for (const auto& run : plan::to_runs(req.sel, def.shape))
          owned->push_back(plan::OwnedRun{run, static_cast<int>(r)});
  auto elements = plan::covered_elements(*owned);
  if (!elements.ok()) return elements.status().with_context(at_step(var, step));
  return elements;
}

}  // namespace tapio
