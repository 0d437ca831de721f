#include "sim/e3sm.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>

#include "format/netcdf/header.h"
#include "sim/toml_fields.h"

namespace tapio::sim {
namespace {

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

int32_t be32(const uint8_t* p) {
  return static_cast<int32_t>(uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 |
                              uint32_t{p[3]});
}

// The int32 values of fixed variable `name` (big-endian in the file).
Result<std::vector<int32_t>> ints(const netcdf::Header& h, const std::vector<uint8_t>& bytes,
                                  const std::string& name, const std::string& source) {
  const netcdf::Var* v = h.find_var(name);
  if (v == nullptr || v->type != netcdf::NC_INT)
    return error(TAPIO_ERR_CONFIG, "e3sm map '{}': no int variable {}", source, name);
  const uint64_t n = h.elements(*v);
  if (v->begin + n * 4 > bytes.size())
    return error(TAPIO_ERR_CONFIG, "e3sm map '{}': {} runs past the end of the file", source, name);
  std::vector<int32_t> out(n);
  for (uint64_t i = 0; i < n; ++i) out[i] = be32(bytes.data() + v->begin + 4 * i);
  return out;
}

Status read_bytes(const std::string& path, std::vector<uint8_t>* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return error(TAPIO_ERR_CONFIG, "e3sm map '{}': cannot open", path);
  out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return ok_status();
}

// Horizontal dimensions, the ones a larger grid grows.
bool horizontal(const std::string& dim) {
  return dim == "ncol" || dim == "nCells" || dim == "nEdges" || dim == "nVertices" || dim == "lon";
}

// The runs of map process `p` of copy `j` of a decomposition scaled k times along dimension
// `h` (none: -1), appended to out.
void scaled_runs(const MapDecomposition& d, int h, uint64_t k, uint64_t j, size_t p,
                 std::vector<plan::Run>* out) {
  if (h < 0) {
    for (const auto& [off, len] : d.runs[p]) out->push_back(plan::Run{off, len});
    return;
  }
  uint64_t inner = 1;
  for (size_t i = static_cast<size_t>(h) + 1; i < d.dims.size(); ++i) inner *= d.dims[i];
  const uint64_t block = d.dims[h] * inner;  // one outer index's span, before scaling
  for (auto [off, len] : d.runs[p]) {
    while (len > 0) {  // cut at outer-index boundaries, which scaling pulls apart
      const uint64_t q = off / block, rem = off % block, take = std::min(len, block - rem);
      out->push_back(plan::Run{q * k * block + j * block + rem, take});
      off += take;
      len -= take;
    }
  }
}

// Ranks' runs are made when asked (one rank at a time): kept for every rank, the F case's
// 4,000 runs per rank and decomposition would take gigabytes at 100,000 ranks.
class E3sm final : public Pattern {
 public:
  E3sm(int ranks, uint64_t steps, std::vector<MapDecomposition> decs, std::vector<int> hdims,
       uint64_t copies)
      : Pattern(ranks, steps), decs_(std::move(decs)), hdims_(std::move(hdims)), k_(copies) {}
  void add(std::string name, std::vector<uint64_t> shape, std::vector<std::string> dims, int dec) {
    add_var(std::move(name), std::move(shape), std::move(dims));
    dec_of_.push_back(dec);
  }
  void for_each_put(int rank, const Put& put) const override {
    std::vector<std::optional<plan::Selection>> sel(decs_.size());
    std::vector<bool> empty(decs_.size());
    for (size_t v = 0; v < dec_of_.size(); ++v) {
      const int d = dec_of_[v];
      if (d >= 0) {
        if (!sel[d]) {
          sel[d] = plan::Selection::from_runs(runs_of(d, rank));
          empty[d] = sel[d]->runs.empty();
        }
        if (!empty[d]) put(static_cast<int>(v), *sel[d], d);
      } else if (rank == 0) {
        const VariableDef& def = io().vars[v];
        put(static_cast<int>(v),
            plan::Selection::box(std::vector<uint64_t>(def.shape.size(), 0), def.shape), -1);
      }
    }
  }

 private:
  // Rank r's runs of decomposition d: the map processes [total*r/P, total*(r+1)/P) of the
  // k copies, ascending (as the bench sorts them, and PIO does before writing).
  std::vector<plan::Run> runs_of(int d, int rank) const {
    const uint64_t procs = decs_[d].runs.size(), total = procs * k_;
    const uint64_t P = static_cast<uint64_t>(ranks()), r = static_cast<uint64_t>(rank);
    std::vector<plan::Run> out;
    for (uint64_t g = total * r / P; g < total * (r + 1) / P; ++g)
      scaled_runs(decs_[d], hdims_[d], hdims_[d] < 0 ? 1 : k_, g / procs, g % procs, &out);
    // Each process's runs are sorted once (make_e3sm) and scaling keeps their order, so a
    // rank holding one process needs no sort.
    const auto by_offset = [](const plan::Run& a, const plan::Run& b) { return a.offset < b.offset; };
    if (!std::is_sorted(out.begin(), out.end(), by_offset)) std::sort(out.begin(), out.end(), by_offset);
    return out;
  }

  std::vector<MapDecomposition> decs_;
  std::vector<int> hdims_;  // per decomposition, the dimension scaled (-1: none)
  uint64_t k_;
  std::vector<int> dec_of_;
};

}  // namespace

Result<HistoryHeader> parse_history_header(const std::string& text, const std::string& source) {
  HistoryHeader h;
  static const std::regex dim_re(R"(^\s*(\S+)\s*=\s*(UNLIMITED|\d+)\s*;.*$)");
  static const std::regex var_re(
      R"(^\s*(byte|char|short|int|long|float|real|double|ubyte|ushort|uint|int64|uint64)\s+([^\s(]+)\s*(\(([^)]*)\))?\s*;\s*$)");
  enum { kNone, kDims, kVars } section = kNone;
  std::istringstream in(text);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    const std::string t = trim(line);
    if (t == "dimensions:") { section = kDims; continue; }
    if (t == "variables:") { section = kVars; continue; }
    if (t.rfind("// global attributes", 0) == 0 || t == "data:" || t == "}") { section = kNone; continue; }
    if (section == kDims && std::regex_match(line, m, dim_re)) {
      if (m[2] == "UNLIMITED") h.unlimited = m[1];
      else h.dims[m[1]] = std::stoull(m[2]);
    } else if (section == kVars && std::regex_match(line, m, var_re)) {
      HistoryHeader::Var v{m[2], {}};
      std::stringstream ds(m[4].str());
      std::string d;
      while (std::getline(ds, d, ','))
        if (!trim(d).empty()) v.dims.push_back(trim(d));
      h.vars.push_back(std::move(v));
    }
  }
  if (h.vars.empty())
    return error(TAPIO_ERR_CONFIG, "e3sm: no variables found in header '{}' (ncdump -h text?)", source);
  return h;
}

Result<std::vector<MapDecomposition>> decode_map(const std::vector<uint8_t>& bytes,
                                                 const std::string& source) {
  TAPIO_ASSIGN_OR_RETURN(netcdf::Header h, netcdf::decode(bytes.data(), bytes.size(), bytes.size(), nullptr));
  std::vector<MapDecomposition> out;
  for (int d = 1; h.find_var("D" + std::to_string(d) + ".nreqs"); ++d) {
    MapDecomposition dec;
    dec.name = "D" + std::to_string(d);
    const auto attr = std::find_if(h.attrs.begin(), h.attrs.end(), [&](const netcdf::Attr& a) {
      return a.name == dec.name + ".dims";
    });
    if (attr == h.attrs.end() || attr->type != netcdf::NC_INT)
      return error(TAPIO_ERR_CONFIG, "e3sm map '{}': no int attribute {}.dims", source, dec.name);
    for (uint64_t i = 0; i < attr->count(); ++i) {
      int32_t len;
      std::memcpy(&len, attr->values.data() + 4 * i, 4);
      dec.dims.push_back(static_cast<uint64_t>(len));
    }
    TAPIO_ASSIGN_OR_RETURN(auto nreqs, ints(h, bytes, dec.name + ".nreqs", source));
    TAPIO_ASSIGN_OR_RETURN(auto offsets, ints(h, bytes, dec.name + ".offsets", source));
    TAPIO_ASSIGN_OR_RETURN(auto lengths, ints(h, bytes, dec.name + ".lengths", source));
    size_t at = 0;
    for (int32_t n : nreqs) {
      if (n < 0 || at + n > offsets.size() || offsets.size() != lengths.size())
        return error(TAPIO_ERR_CONFIG, "e3sm map '{}': {}.nreqs do not match its offsets", source, dec.name);
      dec.runs.emplace_back();
      for (int32_t i = 0; i < n; ++i, ++at)
        dec.runs.back().emplace_back(static_cast<uint64_t>(offsets[at]), static_cast<uint64_t>(lengths[at]));
    }
    out.push_back(std::move(dec));
  }
  if (out.empty()) return error(TAPIO_ERR_CONFIG, "e3sm map '{}': no decompositions (D1.nreqs)", source);
  return out;
}

std::vector<int> assign_decompositions(const HistoryHeader& h,
                                       const std::vector<std::vector<uint64_t>>& decomposition_dims,
                                       uint64_t vars_per_decomp,
                                       std::vector<std::vector<uint64_t>>* shapes) {
  std::map<std::vector<uint64_t>, std::vector<int>> by_dims;
  for (size_t d = 0; d < decomposition_dims.size(); ++d) by_dims[decomposition_dims[d]].push_back(static_cast<int>(d));
  std::map<std::vector<uint64_t>, size_t> turn;
  std::vector<uint64_t> used(decomposition_dims.size(), 0);
  std::vector<int> out;
  shapes->clear();
  for (const HistoryHeader::Var& hv : h.vars) {
    std::vector<uint64_t> shape;
    for (const std::string& dim : hv.dims) {
      if (dim == h.unlimited) continue;
      const auto it = h.dims.find(dim);
      shape.push_back(it == h.dims.end() ? 0 : it->second);
    }
    shapes->push_back(shape);
    const auto match = by_dims.find(shape);
    if (match == by_dims.end() || shape.empty()) {
      out.push_back(-1);
      continue;
    }
    const int d = match->second[turn[shape]++ % match->second.size()];
    if (vars_per_decomp && used[d] >= vars_per_decomp) {
      out.push_back(-2);
      continue;
    }
    ++used[d];
    out.push_back(d);
  }
  return out;
}

Result<std::unique_ptr<Pattern>> make_e3sm(const PatternOptions& o, int ranks) {
  std::string map = o.map, header = o.header;
  if (map.empty() != header.empty())
    return error(TAPIO_ERR_CONFIG, "e3sm: give pattern.map and pattern.header together, or pattern.case");
  if (map.empty()) {
    const std::string dir = o.data_dir + "/";
    map = dir + "map_" + o.kase + "_case_16p.nc";
    header = dir + (o.kase == "f" ? "f_case_h0.txt" : o.kase == "g" ? "g_case_hist.txt" : "i_case_h0.txt");
  }
  std::string text;
  TAPIO_RETURN_IF_ERROR(read_text_file(header, "e3sm header", &text));
  TAPIO_ASSIGN_OR_RETURN(HistoryHeader h, parse_history_header(text, header));
  std::vector<uint8_t> bytes;
  TAPIO_RETURN_IF_ERROR(read_bytes(map, &bytes));
  TAPIO_ASSIGN_OR_RETURN(std::vector<MapDecomposition> decs, decode_map(bytes, map));
  // The G header is from a larger grid than its 16-process map (the bench's --dims).
  if (o.kase == "g" && o.map.empty())
    for (const auto& [name, size] : {std::pair<const char*, uint64_t>{"nCells", 285}, {"nEdges", 879}, {"nVertices", 593}})
      h.dims[name] = size;
  const uint64_t procs = decs[0].runs.size();
  const uint64_t k = (static_cast<uint64_t>(ranks) + procs - 1) / procs;
  std::vector<std::vector<uint64_t>> dec_dims;
  for (const MapDecomposition& d : decs) dec_dims.push_back(d.dims);
  std::vector<std::vector<uint64_t>> shapes;
  const std::vector<int> dec_of = assign_decompositions(h, dec_dims, o.vars_per_decomp, &shapes);
  // The scaled dimension of each decomposition: the horizontal one of a variable using it.
  std::vector<int> hdims(decs.size(), -1);
  std::vector<std::vector<std::string>> var_dims(h.vars.size());
  for (size_t v = 0; v < h.vars.size(); ++v) {
    for (const std::string& n : h.vars[v].dims)
      if (n != h.unlimited) var_dims[v].push_back(n);
    for (size_t i = 0; i < var_dims[v].size(); ++i)
      if (dec_of[v] >= 0 && k > 1 && horizontal(var_dims[v][i])) hdims[dec_of[v]] = static_cast<int>(i);
  }
  for (MapDecomposition& d : decs)
    for (auto& runs : d.runs) std::sort(runs.begin(), runs.end());
  auto pattern = std::make_unique<E3sm>(ranks, o.steps ? o.steps : 2, std::move(decs), hdims, k);
  for (size_t v = 0; v < h.vars.size(); ++v) {
    if (dec_of[v] == -2) continue;
    std::vector<uint64_t> shape = shapes[v];
    if (dec_of[v] >= 0 && hdims[dec_of[v]] >= 0) shape[hdims[dec_of[v]]] *= k;
    pattern->add(h.vars[v].name, shape, var_dims[v], dec_of[v]);
  }
  return std::unique_ptr<Pattern>(std::move(pattern));
}

}  // namespace tapio::sim
