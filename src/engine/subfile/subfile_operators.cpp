// Subfile engine, operators (format/subfile/operators.h), both sides: each variable's operator
// comes from the `operator` parameter; a writing rank encodes its blocks of such variables
// before they are placed, written or sent, so compression runs on every rank in parallel and
// only the encoded bytes move. A reader reads a coded block whole, verifies it and decodes it.
#include <cstring>

#include "engine/subfile/subfile_writer.h"
#include "format/subfile/block_sums.h"

namespace tapio {
namespace {

constexpr const char* kOperatorAttr = "tapio_operator";
constexpr const char* kErrorBoundAttr = "tapio_error_bound";

void drop_attribute(std::vector<Attribute>& attrs, const std::string& name) {
  attrs.erase(std::remove_if(attrs.begin(), attrs.end(),
                             [&](const Attribute& a) { return a.name == name; }),
              attrs.end());
}

}  // namespace

// Deterministic from the parameters and the definitions, which every rank shares: every rank
// finds the same error without communicating.
Status SubfileWriter::resolve_operators() {
  if (!operators_.rules) {
    auto rules = subfile::parse_operator_rules(p_.open.params.get("operator"));
    if (!rules.ok()) return rules.status().with_context("parameter 'operator'");
    operators_.rules = std::move(rules).value();
  }
  for (size_t v = operators_.of_var.size(); v < p_.io().vars.size(); ++v) {
    const VariableDef& def = p_.io().vars[v];
    TAPIO_ASSIGN_OR_RETURN(const subfile::Operator op,
                           subfile::operator_for(*operators_.rules, def.name, def.type));
    operators_.of_var.push_back(op);
  }
  return ok_status();
}

// The definitions as stored: each variable with an operator says which, and a lossy one its
// absolute error bound (readers and `tapio convert`'s NetCDF keep them).
IoDef SubfileWriter::stored_definitions() const {
  IoDef io = p_.io();
  for (size_t v = 0; v < io.vars.size(); ++v) {
    std::vector<Attribute>& attrs = io.vars[v].attrs;
    drop_attribute(attrs, kOperatorAttr);
    drop_attribute(attrs, kErrorBoundAttr);
    const subfile::Operator& op = operators_.of_var[v];
    if (op.codec == subfile::Codec::kNone) continue;
    const std::string text = op.text();
    attrs.push_back(Attribute{kOperatorAttr, TAPIO_CHAR, {text.begin(), text.end()}});
    const double bound = op.error_bound();
    if (bound <= 0) continue;
    Attribute a{kErrorBoundAttr, TAPIO_FLOAT64, std::vector<uint8_t>(8)};
    std::memcpy(a.data.data(), &bound, 8);
    attrs.push_back(std::move(a));
  }
  return io;
}

// Blocks of variables with an operator are encoded into buffers of their own; their shapes
// say how they are stored and their min/max are those of the values put.
SubfileWriter::StoredPuts SubfileWriter::encode_puts(const std::vector<PutOp>& puts,
                                                     subfile::BlockList* list) {
  PhaseTimer t(&p_.profile, Phase::kEncode);
  StoredPuts out{puts, std::vector<std::vector<uint8_t>>(puts.size())};
  for (size_t b = 0; b < puts.size(); ++b) {
    const PutOp& p = puts[b];
    const subfile::Operator& op = operators_.of_var[p.var];
    if (op.codec == subfile::Codec::kNone) continue;
    const DataType type = p_.io().vars[p.var].type;
    const auto* data = static_cast<const uint8_t*>(p.data);
    subfile::BlockShape& shape = list->shapes[b];
    const std::vector<uint64_t> counts =
        p.sel->kind == plan::Selection::Kind::kBox ? p.sel->count : std::vector{p.elements};
    out.buffers[b] = subfile::encode_block(op, type, counts, data, shape.length);
    if (out.buffers[b].empty()) continue;  // not smaller: stored as put
    shape.codec = op.codec;
    shape.stored = out.buffers[b].size();
    out.puts[b].data = out.buffers[b].data();
    if (!p_.spec.stats) continue;
    subfile::BlockSummer stats(type, true);
    stats.add(data, shape.length);
    const subfile::BlockSums sums = stats.finish();
    std::memcpy(list->sums[b].min, sums.min, 8);
    std::memcpy(list->sums[b].max, sums.max, 8);
  }
  return out;
}

// A coded block read whole (`stored`, verified) decoded into `out`.
Result<const uint8_t*> SubfileReader::decode(const ChunkRequest& q, const uint8_t* stored,
                                             ByteBuffer* out) {
  PhaseTimer t(&p_.profile, Phase::kEncode);
  const subfile::Entry& e = catalog_.entry(q.step, q.entry);
  const VariableDef& def = p_.io().vars[e.var];
  uint8_t* bytes = out->prepare(e.decoded);
  const Status st = subfile::decode_block(e.codec, def.type, stored, e.length, bytes, e.decoded);
  if (!st.ok())
    return st.with_context(fmt::format("file '{}', step {}, variable '{}', block at byte {}",
                                       p_.file_path(subfile::data_name(e.generation, e.subfile)),
                                       q.step, def.name, e.offset));
  return static_cast<const uint8_t*>(bytes);
}

// Every step's metadata is loaded (what `tapio ls` pays for its ratio column).
Result<Engine::StoredSize> SubfileReader::sum_stored(int var) {
  Engine::StoredSize size;
  for (uint64_t s = 0; s < catalog_.steps(); ++s) {
    TAPIO_RETURN_IF_ERROR(ensure_loaded(s));
    for (size_t i = 0; i < catalog_.entries(s); ++i) {
      const subfile::Entry& e = catalog_.entry(s, static_cast<uint32_t>(i));
      if (e.var != static_cast<uint32_t>(var)) continue;
      size.bytes += e.decoded;
      size.stored += e.length;
    }
  }
  return size;
}

}  // namespace tapio
