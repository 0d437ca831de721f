// The data model an application declares: IO groups holding variables and attributes.
// Plain data with no MPI and no I/O, so it can be built, compared and serialized anywhere.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/names.h"
#include "core/params.h"
#include "core/status.h"
#include "core/types.h"

namespace tapio {

struct Attribute {
  std::string name;
  DataType type = TAPIO_CHAR;
  std::vector<uint8_t> data;  // host byte order, count() elements
  uint64_t count() const { return data.size() / type_size(type); }
  std::string as_string() const { return std::string(data.begin(), data.end()); }
};

struct VariableDef {
  std::string name;
  DataType type = TAPIO_FLOAT64;
  std::vector<uint64_t> shape;           // global shape; empty = 0-d (scalar)
  std::vector<std::string> dim_names;    // one per shape entry
  bool record = true;                    // has a value per step (false: fixed, written once)
  // A joined (local) array: each rank puts a block of its own length along dimension 0 each
  // step, placed in rank order. shape[0] is 0 while writing, the current step's length when
  // reading.
  bool joined = false;
  std::vector<Attribute> attrs;

  uint64_t elements() const;             // product of shape (1 for 0-d)
  const Attribute* find_attr(const std::string& attr) const;
};

// find_var's index of an IoDef's variables by name, so a lookup costs O(1) with 10^5 variables.
// `vars` stays a plain vector that any code appends to, moves or replaces, so the index follows
// it lazily: appended variables are indexed at the next lookup, and a shorter vector or a last
// indexed name no longer where it was (vars replaced) rebuilds it. A hit is checked against
// vars. Renaming a variable in place, other than the last, is not seen: replace the IoDef.
class VarIndex {
 public:
  VarIndex() = default;
  VarIndex(const VarIndex&) {}  // the copy's vars are another vector: indexed at first use
  VarIndex& operator=(const VarIndex&);
  VarIndex(VarIndex&& other) noexcept;  // the vector moves with it: the index stays valid
  VarIndex& operator=(VarIndex&& other) noexcept;

  int find(const std::vector<VariableDef>& vars, const std::string& name);  // index or -1

 private:
  bool follows(const std::vector<VariableDef>& vars) const;
  void clear();

  std::unordered_map<std::string, size_t> at_;  // the first variable of each name
  size_t indexed_ = 0;                          // vars[0, indexed_) are in at_
};

// A dimension the program declared (tapio_define_dimension): a NetCDF file numbers its
// dimensions in declaration order, declared or not used by any variable, as netCDF does.
struct DimensionDef {
  std::string name;
  uint64_t length = 0;  // 0: the unlimited dimension, which steps go along
  bool unlimited() const { return length == 0; }
};

struct IoDef {
  std::string name;
  std::string engine;  // "" = chosen by path and config
  Params params;       // program-set values; config rules override them at open
  std::vector<VariableDef> vars;
  std::vector<Attribute> attrs;  // global
  std::vector<DimensionDef> dims;  // declared ones, in declaration order

  int find_var(const std::string& var) const { return index_.find(vars, var); }  // index or -1
  const Attribute* find_attr(const std::string& attr) const;
  const DimensionDef* find_dim(const std::string& dim) const;  // null if not declared

 private:
  mutable VarIndex index_;
};

// Checks shared by every definition path (API and file readers).
Status validate_name(const std::string& kind, const std::string& name);
// step_dim: the name of the dimension steps go along (the record_dimension parameter), which
// no variable may use for one of its own.
Status validate_variable(const VariableDef& v, const std::string& step_dim = kStepDimension);
// Appending: each dimension the program declares must be one the file has, with its length
// (dimensions are fixed at creation). TAPIO_ERR_UNSUPPORTED naming the dimension otherwise.
Status check_declared_dims_kept(const IoDef& program, const IoDef& file);
// Adds or replaces attribute `a` in `attrs`.
void set_attribute(std::vector<Attribute>& attrs, Attribute a);
// The default name of dimension `d` of a variable when the program gives none: shared by all
// variables with the same length, like ncgen's anonymous dims.
std::string default_dim_name(uint64_t length);

}  // namespace tapio
