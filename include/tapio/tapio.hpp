// tapio C++ API: RAII wrappers over the C API (header-only, so the ABI stays the C one).
// Every failing call throws tapio::Error, carrying the status code and the message; collective
// calls fail on every rank alike, so every rank throws.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tapio/tapio.h"

namespace tapio {
// The wrappers are inline functions of header-only classes; the inline namespace gives them
// linkage names of their own (tapio::cxx::Engine::close), so that a program that also links
// tapio's internal classes statically (the crash tests do) never has the linker merge
// tapio::Engine::close with the engine's own. Code still writes tapio::Engine.
inline namespace cxx {

class Error : public std::runtime_error {
 public:
  Error(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

inline void check(int status) {
  if (status != TAPIO_OK) throw Error(status, tapio_last_error());
}

// The tapio_type of a C++ element type.
template <typename T> constexpr tapio_type type_of();
template <> constexpr tapio_type type_of<int8_t>() { return TAPIO_INT8; }
template <> constexpr tapio_type type_of<uint8_t>() { return TAPIO_UINT8; }
template <> constexpr tapio_type type_of<int16_t>() { return TAPIO_INT16; }
template <> constexpr tapio_type type_of<uint16_t>() { return TAPIO_UINT16; }
template <> constexpr tapio_type type_of<int32_t>() { return TAPIO_INT32; }
template <> constexpr tapio_type type_of<uint32_t>() { return TAPIO_UINT32; }
template <> constexpr tapio_type type_of<int64_t>() { return TAPIO_INT64; }
template <> constexpr tapio_type type_of<uint64_t>() { return TAPIO_UINT64; }
template <> constexpr tapio_type type_of<float>() { return TAPIO_FLOAT32; }
template <> constexpr tapio_type type_of<double>() { return TAPIO_FLOAT64; }
template <> constexpr tapio_type type_of<char>() { return TAPIO_CHAR; }

using Dims = std::vector<uint64_t>;

// A decomposition (tapio_decomp_from_offsets): this rank's part of every array of `shape`,
// made once and given to any number of variables of that shape (Variable::set_decomp).
class Decomposition {
 public:
  // From element offsets into the flattened array (memory in list order).
  static Decomposition offsets(tapio_context* ctx, const Dims& shape,
                               const std::vector<uint64_t>& offsets) {
    Decomposition d;
    check(tapio_decomp_from_offsets(ctx, static_cast<int>(shape.size()), shape.data(),
                                    offsets.size(), offsets.data(), &d.d_));
    return d;
  }
  // From runs (offset, length) of consecutive elements.
  static Decomposition runs(tapio_context* ctx, const Dims& shape,
                            const std::vector<uint64_t>& offsets,
                            const std::vector<uint64_t>& lengths) {
    if (offsets.size() != lengths.size())
      throw Error(TAPIO_ERR_ARG, "offsets and lengths differ in size");
    Decomposition d;
    check(tapio_decomp_from_runs(ctx, static_cast<int>(shape.size()), shape.data(),
                                 offsets.size(), offsets.data(), lengths.data(), &d.d_));
    return d;
  }
  Decomposition(Decomposition&& o) noexcept : d_(o.d_) { o.d_ = nullptr; }
  Decomposition& operator=(Decomposition&& o) noexcept { std::swap(d_, o.d_); return *this; }
  Decomposition(const Decomposition&) = delete;
  Decomposition& operator=(const Decomposition&) = delete;
  // Variables that took it keep their selection.
  ~Decomposition() { if (d_) tapio_decomp_free(d_); }
  tapio_decomp* get() const { return d_; }
  uint64_t size() const { uint64_t n; check(tapio_decomp_size(d_, &n)); return n; }

 private:
  Decomposition() = default;
  tapio_decomp* d_ = nullptr;
};

class Variable {
 public:
  Variable() = default;
  explicit Variable(tapio_var* v) : v_(v) {}
  tapio_var* get() const { return v_; }

  std::string name() const { const char* n; check(tapio_var_name(v_, &n)); return n; }
  tapio_type type() const { tapio_type t; check(tapio_var_type(v_, &t)); return t; }
  Dims shape() const {
    int nd;
    check(tapio_var_ndims(v_, &nd));
    Dims s(nd);
    check(tapio_var_shape(v_, s.data()));
    return s;
  }
  bool is_record() const { int r; check(tapio_var_is_record(v_, &r)); return r != 0; }
  bool is_joined() const { int j; check(tapio_var_is_joined(v_, &j)); return j != 0; }
  // A joined variable: this rank's length along dimension 0 for the next put.
  void set_joined_count(uint64_t count) { check(tapio_var_set_joined_count(v_, count)); }
  void set_selection(const Dims& start, const Dims& count) {
    check(tapio_var_set_selection(v_, start.data(), count.data()));
  }
  void set_offsets(const std::vector<uint64_t>& offsets) {
    check(tapio_var_set_offsets(v_, offsets.size(), offsets.data()));
  }
  void set_runs(const std::vector<uint64_t>& offsets, const std::vector<uint64_t>& lengths) {
    if (offsets.size() != lengths.size()) throw Error(TAPIO_ERR_ARG, "offsets and lengths differ in size");
    check(tapio_var_set_runs(v_, offsets.size(), offsets.data(), lengths.data()));
  }
  void set_decomp(const Decomposition& d) { check(tapio_var_set_decomp(v_, d.get())); }
  void set_step_selection(uint64_t start, uint64_t count) {
    check(tapio_var_set_step_selection(v_, start, count));
  }
  uint64_t selection_size() const { uint64_t n; check(tapio_var_selection_size(v_, &n)); return n; }

 private:
  tapio_var* v_ = nullptr;
};

class Engine {
 public:
  Engine() = default;
  explicit Engine(tapio_engine* e) : e_(e) {}
  Engine(Engine&& o) noexcept : e_(o.e_) { o.e_ = nullptr; }
  Engine& operator=(Engine&& o) noexcept { std::swap(e_, o.e_); return *this; }
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;
  // Closing in the destructor cannot report errors; call close() to see them.
  ~Engine() { if (e_) tapio_close(e_); }

  tapio_step_status begin_step() { tapio_step_status s; check(tapio_begin_step(e_, &s)); return s; }
  void end_step() { check(tapio_end_step(e_)); }
  template <typename T> void put(Variable& v, const T* data) {
    check(tapio_put(e_, v.get(), type_of<T>(), data));
  }
  template <typename T> void put(Variable& v, const std::vector<T>& data) { put(v, data.data()); }
  template <typename T> void get(Variable& v, T* data) {
    check(tapio_get(e_, v.get(), type_of<T>(), data));
  }
  template <typename T> void get(Variable& v, std::vector<T>& data) { get(v, data.data()); }
  // The box start/count (one entry per dimension) for this put or get alone: the variable's
  // selection is left as it was (tapio_put_sel, tapio_get_sel).
  template <typename T>
  void put(Variable& v, const std::vector<uint64_t>& start, const std::vector<uint64_t>& count,
           const T* data) {
    check(tapio_put_sel(e_, v.get(), start.data(), count.data(), type_of<T>(), data));
  }
  template <typename T>
  void get(Variable& v, const std::vector<uint64_t>& start, const std::vector<uint64_t>& count,
           T* data) {
    check(tapio_get_sel(e_, v.get(), start.data(), count.data(), type_of<T>(), data));
  }
  // This rank's reason not to commit the open write step: its end_step fails on every rank.
  void fail_step(tapio_status code, const std::string& message) {
    check(tapio_fail_step(e_, code, message.c_str()));
  }
  void perform_puts() { check(tapio_perform_puts(e_)); }
  void perform_gets() { check(tapio_perform_gets(e_)); }
  uint64_t current_step() const { uint64_t s; check(tapio_current_step(e_, &s)); return s; }
  uint64_t steps() const { uint64_t s; check(tapio_steps(e_, &s)); return s; }
  std::string engine_name() const { const char* n; check(tapio_engine_name(e_, &n)); return n; }
  // Read mode: the bytes of `v` over every step, as put and as stored (tapio_var_stored_bytes).
  std::pair<uint64_t, uint64_t> stored_bytes(Variable& v) const {
    uint64_t bytes = 0, stored = 0;
    check(tapio_var_stored_bytes(e_, v.get(), &bytes, &stored));
    return {bytes, stored};
  }
  // Read mode: the blocks the file stores of `v` at `step` (tapio_var_blocks), as
  // (start, count) pairs.
  std::vector<std::pair<Dims, Dims>> blocks(Variable& v, uint64_t step) const {
    const size_t nd = v.shape().size();
    size_t n = 0;
    check(tapio_var_blocks(e_, v.get(), step, 0, nullptr, nullptr, &n));
    Dims starts(n * nd), counts(n * nd);
    check(tapio_var_blocks(e_, v.get(), step, n, starts.data(), counts.data(), &n));
    std::vector<std::pair<Dims, Dims>> out;
    for (size_t i = 0; i < n; ++i)
      out.emplace_back(Dims(starts.begin() + i * nd, starts.begin() + (i + 1) * nd),
                       Dims(counts.begin() + i * nd, counts.begin() + (i + 1) * nd));
    return out;
  }
  void close() {
    tapio_engine* e = e_;
    e_ = nullptr;
    check(tapio_close(e));
  }

 private:
  tapio_engine* e_ = nullptr;
};

// A declared dimension: length 0 = the unlimited one.
struct Dimension {
  std::string name;
  uint64_t length = 0;
  bool operator==(const Dimension& o) const { return name == o.name && length == o.length; }
};

class IO {
 public:
  IO() = default;
  explicit IO(tapio_io* io) : io_(io) {}
  tapio_io* get() const { return io_; }

  void set_engine(const std::string& engine) { check(tapio_io_set_engine(io_, engine.c_str())); }
  void set_parameter(const std::string& key, const std::string& value) {
    check(tapio_io_set_parameter(io_, key.c_str(), value.c_str()));
  }
  template <typename T>
  Variable define_variable(const std::string& name, const Dims& shape,
                           const std::vector<std::string>& dim_names = {}, unsigned flags = 0) {
    std::vector<const char*> names;
    for (const auto& n : dim_names) names.push_back(n.c_str());
    tapio_var* v;
    check(tapio_define_variable(io_, name.c_str(), type_of<T>(), static_cast<int>(shape.size()),
                                shape.data(), names.empty() ? nullptr : names.data(), flags, &v));
    return Variable(v);
  }
  // Declares a dimension (length 0: the unlimited one): a NetCDF file numbers the declared
  // dimensions first, in declaration order (docs/api.md §1.3, "Dimension order").
  void define_dimension(const std::string& name, uint64_t length) {
    check(tapio_define_dimension(io_, name.c_str(), length));
  }
  // The declared dimensions in order (after opening a file for reading or appending: the
  // file's); length 0 = unlimited.
  std::vector<Dimension> dimensions() const {
    size_t n;
    check(tapio_io_dimension_count(io_, &n));
    std::vector<Dimension> out;
    for (size_t i = 0; i < n; ++i) {
      const char* name;
      uint64_t length;
      check(tapio_io_dimension(io_, i, &name, &length));
      out.push_back(Dimension{name, length});
    }
    return out;
  }
  Variable inquire_variable(const std::string& name) {
    tapio_var* v;
    check(tapio_inquire_variable(io_, name.c_str(), &v));
    return Variable(v);
  }
  std::vector<std::string> variable_names() const {
    size_t n;
    check(tapio_io_variable_count(io_, &n));
    std::vector<std::string> out;
    for (size_t i = 0; i < n; ++i) {
      const char* name;
      check(tapio_io_variable_name(io_, i, &name));
      out.push_back(name);
    }
    return out;
  }
  template <typename T>
  void define_attribute(const std::string& name, const std::vector<T>& values,
                        const std::string& var = "") {
    check(tapio_define_attribute(io_, var.empty() ? nullptr : var.c_str(), name.c_str(),
                                 type_of<T>(), values.size(), values.data()));
  }
  void define_attribute(const std::string& name, const std::string& value,
                        const std::string& var = "") {
    check(tapio_define_string_attribute(io_, var.empty() ? nullptr : var.c_str(), name.c_str(),
                                        value.c_str()));
  }
  template <typename T>
  std::vector<T> read_attribute(const std::string& name, const std::string& var = "") const {
    const char* v = var.empty() ? nullptr : var.c_str();
    tapio_type t;
    size_t n;
    check(tapio_inquire_attribute(io_, v, name.c_str(), &t, &n));
    if (t != type_of<T>()) throw Error(TAPIO_ERR_TYPE, "attribute '" + name + "' has another type");
    std::vector<T> out(n);
    check(tapio_read_attribute(io_, v, name.c_str(), out.data()));
    return out;
  }
  std::string read_string_attribute(const std::string& name, const std::string& var = "") const {
    const auto chars = read_attribute<char>(name, var);
    return std::string(chars.begin(), chars.end());
  }
  Engine open(const std::string& path, tapio_mode mode) {
    tapio_engine* e;
    check(tapio_open(io_, path.c_str(), mode, &e));
    return Engine(e);
  }

 private:
  tapio_io* io_ = nullptr;
};

class Context {
 public:
  explicit Context(MPI_Comm comm, const std::string& config_path = "") {
    check(tapio_init(comm, config_path.empty() ? nullptr : config_path.c_str(), &ctx_));
  }
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  ~Context() { if (ctx_) tapio_finalize(ctx_); }

  IO declare_io(const std::string& name) {
    tapio_io* io;
    check(tapio_declare_io(ctx_, name.c_str(), &io));
    return IO(io);
  }
  tapio_context* get() const { return ctx_; }

 private:
  tapio_context* ctx_ = nullptr;
};

inline std::string version() { return tapio_version(); }

}  // namespace cxx
}  // namespace tapio
