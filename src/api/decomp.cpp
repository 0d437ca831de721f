// Decompositions (tapio.h): this rank's selection of arrays of one shape, made and checked
// once and shared by every variable that takes it (define.cpp: tapio_var_set_decomp).
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "api/errors.h"
#include "api/handles.h"

using namespace tapio;
using api::ContextState;
using api::DecompState;

namespace {

Result<std::vector<uint64_t>> shape_of(int ndims, const uint64_t* shape) {
  if (ndims < 0) return error(TAPIO_ERR_ARG, "ndims {} is negative", ndims);
  if (ndims > 0 && !shape) return error(TAPIO_ERR_ARG, "shape is null");
  return std::vector<uint64_t>(shape, shape + ndims);
}

// A checked decomposition of `sel` registered in the context.
Status make(tapio_context* ctx_handle, int ndims, const uint64_t* dims, plan::Selection sel,
            tapio_decomp** out) {
  TAPIO_ASSIGN_OR_RETURN(ContextState * ctx, api::resolve(ctx_handle));
  TAPIO_ASSIGN_OR_RETURN(std::vector<uint64_t> shape, shape_of(ndims, dims));
  std::vector<std::string> names(shape.size());  // named only by a box's refusal: not here
  for (size_t d = 0; d < names.size(); ++d) names[d] = fmt::format("dimension {}", d);
  TAPIO_RETURN_IF_ERROR(plan::validate(sel, shape, names)
                            .with_context(fmt::format("a decomposition on rank {}",
                                                      ctx->comm.rank())));
  auto d = std::make_unique<DecompState>();
  d->ctx = ctx;
  d->shape = std::move(shape);
  d->sel = plan::shared(std::move(sel));
  tapio_decomp* handle = d->registration.handle();
  ctx->decomps.push_back(std::move(d));
  *out = handle;  // only once it is kept
  return ok_status();
}

}  // namespace

extern "C" {

int tapio_decomp_from_offsets(tapio_context* ctx, int ndims, const uint64_t* shape, size_t n,
                              const uint64_t* offsets, tapio_decomp** decomp) {
  return api::guarded("tapio_decomp_from_offsets", [&]() -> Status {
    if (!decomp) return error(TAPIO_ERR_ARG, "output handle is null");
    *decomp = nullptr;  // until one is made
    if (n > 0 && !offsets) return error(TAPIO_ERR_ARG, "offsets is null");
    return make(ctx, ndims, shape, plan::Selection::offsets(offsets, n), decomp);
  });
}

int tapio_decomp_from_runs(tapio_context* ctx, int ndims, const uint64_t* shape, size_t n,
                           const uint64_t* offsets, const uint64_t* lengths,
                           tapio_decomp** decomp) {
  return api::guarded("tapio_decomp_from_runs", [&]() -> Status {
    if (!decomp) return error(TAPIO_ERR_ARG, "output handle is null");
    *decomp = nullptr;  // until one is made
    if (n > 0 && (!offsets || !lengths))
      return error(TAPIO_ERR_ARG, "{} is null", offsets ? "lengths" : "offsets");
    std::vector<plan::Run> runs;
    runs.reserve(n);
    for (size_t i = 0; i < n; ++i) runs.push_back(plan::Run{offsets[i], lengths[i]});
    return make(ctx, ndims, shape, plan::Selection::from_runs(std::move(runs)), decomp);
  });
}

int tapio_decomp_size(tapio_decomp* decomp, uint64_t* elements) {
  return api::guarded("tapio_decomp_size", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(DecompState * d, api::resolve(decomp));
    if (!elements) return error(TAPIO_ERR_ARG, "elements is null");
    *elements = d->sel->elements();
    return ok_status();
  });
}

int tapio_decomp_free(tapio_decomp* decomp) {
  return api::guarded("tapio_decomp_free", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(DecompState * d, api::resolve(decomp));
    auto& all = d->ctx->decomps;
    all.erase(std::find_if(all.begin(), all.end(), [&](const auto& p) { return p.get() == d; }));
    return ok_status();
  });
}

}  // extern "C"
