#include "format/subfile/records.h"

#include <xxhash.h>

#include <chrono>
#include <set>

#include "format/subfile/le_bytes.h"

namespace tapio::subfile {
namespace {

constexpr uint32_t kStepMagic = 0x50455453;    // "STEP"
constexpr uint32_t kRecordMagic = 0x4352444d;  // "MDRC"
constexpr char kIndexMagic[8] = {'T', 'A', 'P', 'I', 'O', 'I', 'D', 'X'};

Status corrupt(const char* what) {
  return error(TAPIO_ERR_FORMAT, "malformed {}", what);
}

void encode_attrs(LeWriter& w, const std::vector<Attribute>& attrs) {
  w.u64(attrs.size());
  for (const auto& a : attrs) {
    w.str(a.name);
    w.u32(a.type);
    w.u64(a.data.size());
    w.bytes(a.data.data(), a.data.size());
  }
}

bool decode_attrs(LeReader& r, std::vector<Attribute>* attrs) {
  const uint64_t n = r.count(20);
  attrs->resize(n);
  for (auto& a : *attrs) {
    a.name = r.str();
    const uint32_t type = r.u32();
    // Checked before the cast: a value outside the enumeration is undefined behaviour.
    if (!type_is_valid(static_cast<int>(type))) return false;
    a.type = static_cast<DataType>(type);
    const uint64_t bytes = r.count(1);
    a.data.resize(bytes);
    if (!r.bytes(a.data.data(), bytes) || bytes % type_size(a.type) != 0) return false;
  }
  return r.ok();
}

// Version 6's declared dimensions: valid names, none twice, at most one unlimited.
bool decode_dims(LeReader& r, std::vector<DimensionDef>* dims) {
  dims->resize(r.count(16));
  std::set<std::string> names;
  size_t unlimited = 0;
  for (DimensionDef& d : *dims) {
    d.name = r.str();
    d.length = r.u64();
    if (!r.ok() || !validate_name("dimension", d.name).ok() || !names.insert(d.name).second)
      return false;
    unlimited += d.unlimited();
  }
  return unlimited <= 1;
}

}  // namespace

std::string data_name(uint32_t generation, uint32_t subfile) {
  return kDataPrefix + std::to_string(generation) + "." + std::to_string(subfile);
}

uint64_t checksum(const void* data, size_t size) { return XXH3_64bits(data, size); }

// index header = magic[8] version u32 flags u32 chunk u64 reserved[32] xxh u64
uint32_t record_time() {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return static_cast<uint32_t>(std::chrono::duration_cast<std::chrono::seconds>(now).count());
}

std::vector<uint8_t> encode_index_header(uint32_t version) {
  std::vector<uint8_t> out;
  LeWriter w(out);
  w.bytes(kIndexMagic, 8);
  w.u32(version);
  w.u32(0);
  w.u64(kChecksumChunk);
  out.resize(56, 0);
  w.u64(checksum(out.data(), 56));
  return out;
}

Status check_index_header(const uint8_t* data, size_t size, uint32_t* version_out) {
  if (size < kIndexHeaderSize || std::memcmp(data, kIndexMagic, 8) != 0)
    return error(TAPIO_ERR_FORMAT, "not a tapio dataset index (bad magic)");
  LeReader r(data + 8, 56);
  const uint32_t version = r.u32();
  r.u32();
  const uint64_t chunk = r.u64();
  LeReader tail(data + 56, 8);
  if (tail.u64() != checksum(data, 56))
    return error(TAPIO_ERR_CHECKSUM, "index header checksum mismatch");
  if (version < kOldestVersion || version > kVersion)
    return error(TAPIO_ERR_UNSUPPORTED,
                 "the dataset is subfile format version {}, this tapio reads versions {} to {}{}",
                 version, kOldestVersion, kVersion,
                 version < kVersion ? " (written by an older tapio: convert it to NetCDF with "
                                      "the tapio that wrote it, `tapio convert`)"
                                    : " (written by a newer tapio)");
  if (chunk != kChecksumChunk)
    return error(TAPIO_ERR_UNSUPPORTED, "checksum chunk {} is not {}", chunk, kChecksumChunk);
  if (version_out) *version_out = version;
  return ok_status();
}

Status check_region(const StepRecord& r, uint64_t md_size) {
  if (r.md_offset > md_size || r.md_length > md_size - r.md_offset)
    return error(TAPIO_ERR_FORMAT,
                 "step {}: its metadata (bytes {} to {}) lies beyond the end of {} ({} bytes)",
                 r.step, r.md_offset, r.md_offset + r.md_length, kMetadataName, md_size);
  return ok_status();
}

// step record = magic u32 kind u32 step u64 md_offset u64 md_length u64 md_xxh u64
//               generation u32 md_align u32 flags u32 time u32 xxh u64
// (before version 5, flags was a u64 whose high half was always 0: time 0 reads as unknown)
std::vector<uint8_t> encode_step(const StepRecord& s) {
  std::vector<uint8_t> out;
  LeWriter w(out);
  w.u32(kStepMagic);
  w.u32(static_cast<uint32_t>(s.kind));
  w.u64(s.step);
  w.u64(s.md_offset);
  w.u64(s.md_length);
  w.u64(s.md_checksum);
  w.u32(s.generation);
  w.u32(s.md_align);
  w.u32(s.flags);
  w.u32(s.time);
  w.u64(checksum(out.data(), 56));
  return out;
}

Result<StepRecord> decode_step(const uint8_t* data, size_t size) {
  if (size < kStepRecordSize) return error(TAPIO_ERR_CHECKSUM, "torn step record");
  LeReader r(data, kStepRecordSize);
  StepRecord s;
  const uint32_t magic = r.u32();
  s.kind = static_cast<StepKind>(r.u32());
  s.step = r.u64();
  s.md_offset = r.u64();
  s.md_length = r.u64();
  s.md_checksum = r.u64();
  s.generation = r.u32();
  s.md_align = r.u32();
  s.flags = r.u32();
  s.time = r.u32();
  const uint64_t sum = r.u64();
  if (magic != kStepMagic || sum != checksum(data, 56))
    return error(TAPIO_ERR_CHECKSUM, "step record checksum mismatch");
  if (s.flags & ~kStepFlags)
    return error(TAPIO_ERR_FORMAT, "step record {} has unknown flags {:#x}", s.step, s.flags);
  if (s.kind != StepKind::kStep && s.kind != StepKind::kEnd && s.kind != StepKind::kOpen)
    return error(TAPIO_ERR_FORMAT, "unknown step record kind {}", static_cast<uint32_t>(s.kind));
  return s;
}

std::vector<uint8_t> encode_record(RecordKind kind, const std::vector<uint8_t>& payload) {
  std::vector<uint8_t> out;
  out.reserve(kRecordHeaderSize + payload.size());
  LeWriter w(out);
  w.u32(kRecordMagic);
  w.u32(static_cast<uint32_t>(kind));
  w.u64(payload.size());
  w.u64(checksum(payload.data(), payload.size()));
  w.bytes(payload.data(), payload.size());
  return out;
}

Result<std::vector<Record>> split_records(const uint8_t* data, size_t size, uint32_t align) {
  std::vector<Record> out;
  size_t pos = 0;
  while (pos < size) {
    LeReader r(data + pos, size - pos);
    const uint32_t magic = r.u32();
    if (magic == 0 && align > 0) {  // padding up to the next aligned record
      pos = (pos / align + 1) * align;
      continue;
    }
    Result<Record> record = read_record(data + pos, size - pos);
    if (!record.ok())
      return error(record.status().code(), "{} at byte {} of the step",
                   record.status().message(), pos);
    out.push_back(*record);
    pos += kRecordHeaderSize + record->length;
  }
  return out;
}

Result<Record> read_record(const uint8_t* data, size_t size) {
  LeReader r(data, size);
  const uint32_t magic = r.u32();
  const uint32_t kind = r.u32();
  const uint64_t length = r.u64();
  const uint64_t sum = r.u64();
  if (!r.ok() || magic != kRecordMagic || length > r.left())
    return error(TAPIO_ERR_FORMAT, "malformed metadata record");
  if (checksum(r.here(), length) != sum)
    return error(TAPIO_ERR_CHECKSUM, "metadata record checksum mismatch");
  return Record{static_cast<RecordKind>(kind), r.here(), length};
}

std::vector<uint8_t> encode_definitions(const IoDef& io, uint32_t version) {
  std::vector<uint8_t> out;
  LeWriter w(out);
  encode_attrs(w, io.attrs);
  w.u64(io.vars.size());
  for (const auto& v : io.vars) {
    w.str(v.name);
    w.u32(v.type);
    w.u8((v.record ? kVarRecord : 0) | (v.joined ? kVarJoined : 0));
    w.u64(v.shape.size());
    for (size_t d = 0; d < v.shape.size(); ++d) {
      w.u64(v.shape[d]);
      w.str(v.dim_names[d]);
    }
    encode_attrs(w, v.attrs);
  }
  if (version < kDimensionsVersion) return out;
  w.u64(io.dims.size());
  for (const DimensionDef& d : io.dims) {
    w.str(d.name);
    w.u64(d.length);
  }
  return out;
}

Result<IoDef> decode_definitions(const uint8_t* data, size_t size) {
  LeReader r(data, size);
  IoDef io;
  if (!decode_attrs(r, &io.attrs)) return corrupt("definitions (attributes)");
  const uint64_t n = r.count(30);
  io.vars.resize(n);
  for (auto& v : io.vars) {
    v.name = r.str();
    const uint32_t type = r.u32();
    if (!type_is_valid(static_cast<int>(type))) return corrupt("definitions (variable type)");
    v.type = static_cast<DataType>(type);
    const uint8_t flags = r.u8();
    if (flags & ~(kVarRecord | kVarJoined)) return corrupt("definitions (variable flags)");
    v.record = flags & kVarRecord;
    v.joined = flags & kVarJoined;
    const uint64_t nd = r.count(16);
    v.shape.resize(nd);
    v.dim_names.resize(nd);
    for (size_t d = 0; d < nd; ++d) {
      v.shape[d] = r.u64();
      v.dim_names[d] = r.str();
    }
    if (!r.ok() || !decode_attrs(r, &v.attrs))
      return corrupt("definitions (variables)");
  }
  if (r.ok() && r.left() > 0 && !decode_dims(r, &io.dims))  // version 6 on
    return corrupt("definitions (dimensions)");
  if (!r.ok() || r.left() != 0) return corrupt("definitions");
  return io;
}

}  // namespace tapio::subfile
