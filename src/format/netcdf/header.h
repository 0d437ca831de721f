// NetCDF classic header model and its codec (CDF-1, CDF-2, CDF-5), over byte spans only:
// no I/O and no MPI here; callers fetch the bytes. Grammar: the NetCDF classic format spec
// (https://docs.unidata.ucar.edu/netcdf-c/current/file_format_specifications.html) and
// PnetCDF's CDF-5 spec.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/types.h"

namespace tapio::netcdf {

// nc_type values as stored in the file.
enum NcType : int32_t {
  NC_BYTE = 1, NC_CHAR = 2, NC_SHORT = 3, NC_INT = 4, NC_FLOAT = 5, NC_DOUBLE = 6,
  NC_UBYTE = 7, NC_USHORT = 8, NC_UINT = 9, NC_INT64 = 10, NC_UINT64 = 11,
};

size_t nc_type_size(NcType t);                 // 0 if invalid
bool nc_type_valid(int32_t t, int version);    // types 7..11 exist only in CDF-5
NcType to_nc_type(DataType t);
DataType from_nc_type(NcType t);

struct Attr {
  std::string name;
  NcType type = NC_CHAR;
  std::vector<uint8_t> values;  // host byte order; element count = values.size() / size
  uint64_t count() const;
};

struct Dim {
  std::string name;
  uint64_t length = 0;  // 0 marks the unlimited (record) dimension
};

struct Var {
  std::string name;
  std::vector<int32_t> dimids;
  std::vector<Attr> attrs;
  NcType type = NC_DOUBLE;
  uint64_t vsize = 0;  // bytes of one record (record var) or of the whole var, padded to 4
  uint64_t begin = 0;  // file offset of the data (of record 0 for a record var)
};

struct Header {
  int version = 5;       // 1 (CDF-1), 2 (CDF-2, 64-bit offsets) or 5 (CDF-5, 64-bit data)
  uint64_t numrecs = 0;
  std::vector<Dim> dims;
  std::vector<Attr> attrs;  // global attributes
  std::vector<Var> vars;

  int record_dimid() const;              // -1 if none
  bool is_record(const Var& v) const;    // first dim is the unlimited one
  // Bytes between record k and k+1 of a record variable (sum of record vars' vsize; a single
  // record var is not padded, per the spec).
  uint64_t record_size() const;
  // File offset of record `rec` of v (rec ignored for fixed vars).
  uint64_t data_offset(const Var& v, uint64_t rec) const;
  // The same, given record_size(): it sums every variable, so a loop over variables or puts
  // computes it once and passes it here.
  uint64_t data_offset(const Var& v, uint64_t rec, uint64_t record_size) const;
  // Shape without the record dimension, in elements.
  std::vector<uint64_t> shape(const Var& v) const;
  // Elements in one record of v (or in the whole of a fixed v).
  uint64_t elements(const Var& v) const;
  const Var* find_var(const std::string& name) const;
  int find_dim(const std::string& name) const;  // -1 if none
};

// Bytes of v's data (of one record for a record var) rounded up to a multiple of 4: the value
// of the vsize field ("Note on vsize"). Error if the size overflows 64 bits or a dimension id
// is out of range.
Result<uint64_t> compute_vsize(const Header& h, const Var& v);

// Structural checks shared by decode() and compute_layout(): version, names (the grammar of
// core/names.h, unique per list), types valid for the version, attribute value sizes,
// dimension ids, at most one unlimited dim and only as the first dim of a variable, var sizes
// that do not overflow, and field values that fit the version's NON_NEG and OFFSET widths.
// Returns TAPIO_ERR_FORMAT. encode() expects a header that passes this.
Status validate(const Header& h);

// Bytes the encoded header occupies (without padding to the first variable).
uint64_t encoded_size(const Header& h);
// Encode. Offsets (begin) must already be set, see layout.h.
std::vector<uint8_t> encode(const Header& h);

// Decode a header from the first `size` bytes of a file of `file_size` bytes.
// If the bytes end before the header does and size < file_size, returns TAPIO_ERR_FORMAT and
// sets *need_more to a larger size to read and retry; otherwise *need_more = 0. Validates:
// magic, version, types, dimension ids, one unlimited dim (the first dim of record vars),
// names, and where the data lies (check_extents() in extents.h: past the header, no two
// variables overlapping, record slabs inside a record). Not that the data fits the file: a
// file cut short still decodes (check_fits() says so).
//
// Details: need_more may be null. *need_more is at least twice `size` (capped at file_size) so
// long headers take few reads; a count that needs more bytes than the whole file has is an
// error, not a request for more, so a corrupt count never makes the caller read the whole
// file. Callers should still cap what they are willing to read. Each var's vsize is computed
// from its shape (the stored field is redundant and may be 2^32-1 in CDF-2); header padding
// bytes are not checked; numrecs STREAMING is kept as the all-ones value of its width.
// All errors are TAPIO_ERR_FORMAT; those about one field name its byte offset.
Result<Header> decode(const uint8_t* data, size_t size, uint64_t file_size, size_t* need_more);

// Offset in the file of the numrecs field (4 for every version), and its width (4 or 8).
inline constexpr uint64_t kNumrecsOffset = 4;
int numrecs_width(int version);
// Encode numrecs as stored in the file (big-endian, 4 or 8 bytes); returns the width.
int encode_numrecs(int version, uint64_t numrecs, uint8_t out[8]);
// Decode numrecs as stored in the file: reads numrecs_width(version) bytes of `in`.
// STREAMING (all bytes 0xFF) is returned as the all-ones value of that width.
uint64_t decode_numrecs(int version, const uint8_t* in);

// The default fill value of a type (NC_FILL_DOUBLE etc.), host byte order, into out[0..size).
void default_fill(NcType t, void* out);
// The fill value of v: its _FillValue attribute if of v's type, else the default.
void fill_value(const Var& v, void* out);

}  // namespace tapio::netcdf
