#include "format/netcdf/test_util.h"

#include <fstream>
#include <iterator>

#include "format/netcdf/layout.h"

namespace tapio::netcdf::testing {

Attr text_attr(const std::string& name, const std::string& text) {
  return make_attr<char>(name, NC_CHAR, std::vector<char>(text.begin(), text.end()));
}

std::string attr_text(const Attr& a) { return std::string(a.values.begin(), a.values.end()); }

const Attr* find_attr(const std::vector<Attr>& attrs, const std::string& name) {
  for (const Attr& a : attrs)
    if (a.name == name) return &a;
  return nullptr;
}

namespace {

// One attribute of each type valid in `version`, with values that show byte-order mistakes.
std::vector<Attr> typed_attrs(int version) {
  std::vector<Attr> out = {
      text_attr("text", "hello"),  // 5 chars: padded to 8
      make_attr<int8_t>("bytes", NC_BYTE, {-1, 2, -3}),
      make_attr<int16_t>("shorts", NC_SHORT, {-300, 301, 302}),
      make_attr<int32_t>("ints", NC_INT, {-70000, 70001}),
      make_attr<float>("floats", NC_FLOAT, {1.5f, -2.25f}),
      make_attr<double>("doubles", NC_DOUBLE, {3.125, -1e300}),
      make_attr<int32_t>("empty", NC_INT, {}),
  };
  if (version == 5) {
    out.push_back(make_attr<uint8_t>("ubytes", NC_UBYTE, {255, 0}));
    out.push_back(make_attr<uint16_t>("ushorts", NC_USHORT, {65535}));
    out.push_back(make_attr<uint32_t>("uints", NC_UINT, {4000000000u, 1}));
    out.push_back(make_attr<int64_t>("int64s", NC_INT64, {-9000000000LL}));
    out.push_back(make_attr<uint64_t>("uint64s", NC_UINT64, {18000000000000000000ULL}));
  }
  return out;
}

Var make_var(const std::string& name, NcType type, std::vector<int32_t> dimids) {
  Var v;
  v.name = name;
  v.type = type;
  v.dimids = std::move(dimids);
  return v;
}

}  // namespace

Header sample_header(int version) {
  Header h;
  h.version = version;
  h.numrecs = 4;
  h.dims = {{"time", 0}, {"x", 3}, {"y", 2}, {"name with space", 5}};
  h.attrs = typed_attrs(version);
  const int last_type = version == 5 ? NC_UINT64 : NC_DOUBLE;
  for (int t = NC_BYTE; t <= last_type; ++t) {
    const auto type = NcType(t);
    Var fixed = make_var(fmt::format("fixed_{}", t), type, {2, 1});
    fixed.attrs.push_back(text_attr("units", "m/s"));
    h.vars.push_back(fixed);
    h.vars.push_back(make_var(fmt::format("rec_{}", t), type, {0, 1}));
  }
  Var scalar = make_var("scalar", NC_DOUBLE, {});
  scalar.attrs = typed_attrs(version);
  h.vars.push_back(scalar);
  h.vars.push_back(make_var("time", NC_DOUBLE, {0}));
  h.vars.push_back(make_var("x_y", NC_SHORT, {3, 1, 2}));
  return h;
}

namespace {

using ::testing::AssertionFailure;
using ::testing::AssertionResult;
using ::testing::AssertionSuccess;

AssertionResult same_attrs(const std::vector<Attr>& a, const std::vector<Attr>& b,
                           const std::string& owner) {
  if (a.size() != b.size()) {
    return AssertionFailure() << owner << ": " << a.size() << " vs " << b.size() << " attrs";
  }
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].type != b[i].type || a[i].values != b[i].values) {
      return AssertionFailure() << owner << ": attribute " << i << " ('" << a[i].name
                                << "' vs '" << b[i].name << "') differs";
    }
  }
  return AssertionSuccess();
}

AssertionResult same_var(const Var& a, const Var& b) {
  const std::string owner = "variable '" + a.name + "'";
  if (a.name != b.name) return AssertionFailure() << owner << " vs '" << b.name << "'";
  if (a.dimids != b.dimids) return AssertionFailure() << owner << ": dimids differ";
  if (a.type != b.type) return AssertionFailure() << owner << ": type differs";
  if (a.vsize != b.vsize) {
    return AssertionFailure() << owner << ": vsize " << a.vsize << " vs " << b.vsize;
  }
  if (a.begin != b.begin) {
    return AssertionFailure() << owner << ": begin " << a.begin << " vs " << b.begin;
  }
  return same_attrs(a.attrs, b.attrs, owner);
}

}  // namespace

AssertionResult same_header(const Header& a, const Header& b) {
  if (a.version != b.version) return AssertionFailure() << "version differs";
  if (a.numrecs != b.numrecs) return AssertionFailure() << "numrecs differs";
  if (a.dims.size() != b.dims.size()) return AssertionFailure() << "dim count differs";
  for (size_t i = 0; i < a.dims.size(); ++i) {
    if (a.dims[i].name != b.dims[i].name || a.dims[i].length != b.dims[i].length) {
      return AssertionFailure() << "dimension " << i << " differs";
    }
  }
  AssertionResult attrs = same_attrs(a.attrs, b.attrs, "global");
  if (!attrs) return attrs;
  if (a.vars.size() != b.vars.size()) return AssertionFailure() << "var count differs";
  for (size_t i = 0; i < a.vars.size(); ++i) {
    AssertionResult var = same_var(a.vars[i], b.vars[i]);
    if (!var) return var;
  }
  return AssertionSuccess();
}

std::vector<uint8_t> layout_and_encode(Header& h) {
  LayoutOptions options;
  options.data_align = 4;
  Status s = compute_layout(h, options);
  EXPECT_TRUE(s.ok()) << s.message();
  return encode(h);
}

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

std::string testdata(const std::string& name) {
  return std::string(TAPIO_SOURCE_DIR) + "/src/format/netcdf/testdata/" + name;
}

}  // namespace tapio::netcdf::testing
