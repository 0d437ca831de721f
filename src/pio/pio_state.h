// The PIO layer's objects: iosystems, decompositions and files, each found by the integer id
// PIO programs hold, and the error path every PIOc_* call returns through (pio_errors.cpp).
#pragma once
#include <tapio/tapio.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tapio_pio/pio.h"

namespace tapio_pio {

// A live decomposition's map (or holes) and the tapio decompositions made of it, one per shape
// of the variables it was given to (pio_maps.cpp).
struct TapioMap {
  std::shared_ptr<const std::vector<uint64_t>> offsets;
  std::vector<std::pair<std::vector<uint64_t>, tapio_decomp*>> by_shape;
};

struct IoSystem {
  int id = 0;
  MPI_Comm comm = MPI_COMM_NULL;  // the program's, duplicated (pio_comm.cpp)
  int rank = 0, size = 1;
  tapio_context* ctx = nullptr;
  int error_mode = PIO_INTERNAL_ERROR;
  int num_iotasks = 1, stride = 1, base = 0, rearranger = PIO_REARR_BOX;
  std::vector<TapioMap> maps;  // of its live decompositions (a few)
};

// A decomposition: which elements of a global array this task holds, in its memory order.
struct Decomp {
  int id = 0;
  int iosysid = 0;
  nc_type type = NC_INT;         // the memory type of write_darray/read_darray buffers
  std::vector<int> gdims;        // global shape (C order), without the record dimension
  int64_t maplen = 0;            // elements of the task's buffer, holes included
  // 0-based global offsets of the held (non-hole) elements; shared with the data held for a
  // flush, so that freeing the decomposition before closing a file is safe.
  std::shared_ptr<const std::vector<uint64_t>> offsets;
  std::vector<int64_t> held_at;  // buffer positions of those elements; empty: no holes
  bool duplicates = false;       // an offset mapped twice: for reading only, as in PIO
  // The most bytes a darray of it holds on any task: agreed at its first write_darray (-1:
  // not yet), so that later writes decide a flush without a message (pio_darray.cpp).
  int64_t most_bytes = -1;
  int64_t most_holes = -1;  // the most elements of `holes` on any task, agreed with it
  // This task's share of the elements no task maps (a slice of the global array each), when
  // the maps leave any: NC_NOFILL files get the fill value there, as PIO writes its holes.
  std::shared_ptr<const std::vector<uint64_t>> holes;
};

struct Attr {
  std::string name;
  nc_type type = NC_CHAR;
  std::vector<unsigned char> bytes;  // host order
};

struct Dim {
  std::string name;
  uint64_t len = 0;  // 0: unlimited (its current length is the file's frames)
};

struct Var {
  std::string name;
  nc_type type = NC_INT;
  std::vector<int> dimids;
  std::vector<Attr> atts;
  int64_t frame = -1;          // setframe's record; -1: not set (0 is used)
  int no_fill = -1;            // def_var_fill's setting; -1: the file's fill mode
  bool record = false;         // its first dimension is the unlimited one
  tapio_var* handle = nullptr;  // in the tapio IO once defined there
  tapio_var* read_handle = nullptr;  // write mode: in the reader's IO (File::reader)
};

// Data of one put, held until the file's next flush (write_darray, put_vara, ...).
struct Held {
  int var = 0;
  uint64_t frame = 0;               // record variables; 0 for the others
  std::shared_ptr<const std::vector<uint64_t>> offsets;  // a darray's; null: a box
  std::vector<uint64_t> start, count;  // the box without the record dimension
  tapio_type memtype = TAPIO_INT32;
  std::vector<unsigned char> data;
  // A darray's share of the buffer limit: its decomposition's most_bytes, with the fill of its
  // holes where the file leaves them unwritten (0 for a box and for the fill itself).
  int64_t most_bytes = 0;
  // A darray this task refused (its own array or map was wrong): held empty and never written,
  // so that every task counts the same darrays against the buffer limit.
  bool refused = false;
};

// A darray read ahead (pio_read_ahead.cpp): a frame of a variable through a decomposition
// (its offsets: the same object while the decomposition lives), its held elements packed at
// `at` in the buffer its batch read the variable's frames into (shared by those frames, so
// that nothing is copied out of it until the program asks).
struct ReadAhead {
  int var = 0;
  uint64_t frame = 0;
  std::shared_ptr<const std::vector<uint64_t>> offsets;
  std::shared_ptr<const unsigned char[]> buffer;
  const unsigned char* at = nullptr;
};

struct File {
  int ncid = 0;
  IoSystem* ios = nullptr;
  std::string path;
  int iotype = PIO_IOTYPE_PNETCDF;
  std::string engine_name;  // the iotype's tapio engine; once open, the one TAPIO_CONFIG chose
  int mode = 0;
  bool writable = false;
  bool created = false;      // by createfile (not an existing file opened for writing)
  bool define_mode = false;
  // PIOc_set_fill's mode: NC_NOFILL at create, NC_FILL at open, as in PIO (tapio_fills).
  int fill_mode = NC_NOFILL;
  // Whether the tapio engine, once open, fills what nobody writes (tapio_fills at its open):
  // when it does not, darrays write their decomposition's holes themselves (pio_darray.cpp).
  bool engine_fills = false;
  std::vector<Dim> dims;
  std::vector<Var> vars;
  std::vector<Attr> atts;
  tapio_io* io = nullptr;
  tapio_engine* engine = nullptr;  // opened at the first flush (write) or at open (read)
  uint64_t frames = 0;             // record count: written (write) or in the file (read)
  std::vector<Held> held;
  // Write mode: an engine reading what the file wrote (pio_reader.cpp), until the next flush.
  tapio_io* reader_io = nullptr;
  tapio_engine* reader = nullptr;
  std::vector<ReadAhead> read_ahead;  // read-only files: darrays read, not yet asked for
  int read_ahead_var = -1;            // the variable and frame of the last read_darray that
  uint64_t read_ahead_frame = 0;      // missed them: the next frame of it reads frames ahead
  bool defined_in_tapio = false;   // the tapio IO holds the definitions
  bool redefined = false;          // definitions changed after that (pio_recreate.cpp)
  int unlimited() const;           // dim id or -1
};

// Object tables (ids as PIO numbers them: iosysids, ioids from 512, ncids from 16).
IoSystem* find_iosystem(int iosysid);
Decomp* find_decomp(int ioid);
File* find_file(int ncid);
IoSystem& add_iosystem(std::unique_ptr<IoSystem> ios);
Decomp& add_decomp(std::unique_ptr<Decomp> d);
File& add_file(std::unique_ptr<File> f);
void remove_iosystem(int iosysid);
void remove_decomp(int ioid);
void remove_file(int ncid);
int default_error_mode();
// PIOc_set_buffer_size_limit's bytes: when the darrays held may take more on some task,
// write_darray syncs the file.
int64_t& buffer_limit();
void set_default_error_mode(int mode);

// The error path: records `message` (what, file, variable, rank) and applies the iosystem's
// error mode to `code`: aborts (PIO_INTERNAL_ERROR) or returns it. ios may be null.
int fail(const IoSystem* ios, int code, const std::string& message);
// A collective call's outcome: every task returns the worst code any task saw (with its
// message), in every mode but PIO_INTERNAL_ERROR, which aborts.
int agree(const IoSystem& ios, int code, const std::string& message);
// A tapio status as a PIO code, the last tapio message kept.
int from_tapio(int status);
// PIO's error text for a code (netCDF's for NC_E*), then the last message if it is this code's.
std::string error_text(int code);

// The file-level calls other files share. flush (collective): write held frames as tapio
// steps, opening the engine the first time: at a sync the frames before the newest; for a
// read everything, fixed data in a step; at close everything, fixed data in a step if one is
// written (else in place after the close, PIOc_closefile). lookup: the file, or PIO_EBADID
// through fail().
// *fixed_left (when given): whether fixed data is still held after it, agreed (a close that
// wrote no frame leaves it for write_in_place).
enum class Flush { kSync, kRead, kClose };
int flush(File& f, const char* call, Flush how, bool* fixed_left = nullptr);
// Collective: the definitions go to tapio and its engine opens the file, writing its header,
// at the first enddef of a new file, as PIO's does (or, if that failed, at the first flush).
// Definitions changed later make the file again at the next flush (recreate).
int open_for_writing(File& f, const char* call);
// Collective, where some task holds such data (the callers agree on it first): the held data
// `which` selects, written in place in the NetCDF file (frames already written, or fixed data
// after the close), then dropped.
int write_in_place(File& f, bool (*which)(const File&, const Held&), const char* call);
int lookup(int ncid, File** f, const char* call);
// Read and append: open the tapio engine and take the file's dimensions, variables and
// attributes (collective).
int open_existing(File& f, const char* call);
// Collective, a file whose definitions changed after tapio laid its header out: its contents
// are read (by the first task), and the file is made again with every definition and them.
int recreate(File& f, const char* call);
// Once f.engine is open: f.engine_name becomes the engine's (a TAPIO_CONFIG rule may have
// chosen another than the iotype's).
void take_engine_name(File& f);
int lookup_var(int ncid, int varid, File** f, Var** v, const char* call);
// Reads of a file (collective): the engine and v's handle to read with. A file open for
// writing writes all it holds first, then reads it back through a reader engine.
int reading(File& f, Var& v, tapio_engine** engine, tapio_var** handle, const char* call);
// Read-only files (collective): v's darray at `frame` through d (at `offsets`), its held
// elements unpacked into `array` (when `unpack_into`, false for a task whose array is short),
// from the read-ahead, or else read in one batch with the same frame of the variables after v
// with its dimensions and type (and, when the last miss was v's previous frame, the frames
// after it too), as many as the buffer limit allows, which the read-ahead keeps. False, the
// same on every task, when v is to be read alone: a file open for writing, no variable like
// v, or a batch that failed on some task.
bool read_ahead(File& f, int varid, Decomp& d, uint64_t frame,
                const std::shared_ptr<const std::vector<uint64_t>>& offsets, bool unpack_into,
                void* array);
// d's held elements, packed at `packed`, into the program's array (holes left as they are).
void unpack(const Decomp& d, const unsigned char* packed, void* array);

// The variable's selection for its next put or get, `offsets`: when they are a live
// decomposition's map (or holes), through the tapio decomposition made of them once per
// variable shape, so that a darray does not hand tapio its map again; other offsets (a frame
// of a fixed variable, a freed decomposition's) as they are (pio_maps.cpp). A tapio status.
int set_map(IoSystem& ios, tapio_var* handle,
            const std::shared_ptr<const std::vector<uint64_t>>& offsets);
// A new decomposition's map or holes, and one the program freed (its tapio decompositions go).
void remember_map(IoSystem& ios, const std::shared_ptr<const std::vector<uint64_t>>& offsets);
void forget_map(IoSystem& ios, const std::vector<uint64_t>* offsets);
// The most bytes a darray of d holds on any task: agreed (collective) the first time, kept.
int64_t most_bytes(const IoSystem& ios, Decomp& d);
// Closes the reader of a file open for writing, if any (collective).
int close_reader(File& f, const char* call);
// A new tapio IO for the file (the iotype's engine; a writer's parameters when `writing`).
int new_io(File& f, bool writing, tapio_io** io, const char* call);

// A variable's shape in one record (without the record dimension).
std::vector<uint64_t> record_shape(const File& f, const Var& v);
// The offsets, in an array of `shape`, of the elements of the box start/count in C order:
// every stride[d]-th element along dimension d (stride null: unit strides).
std::vector<uint64_t> box_offsets(const std::vector<uint64_t>& shape, const uint64_t* start,
                                  const uint64_t* count, const uint64_t* stride);

// "file 'x.nc'" and "file 'x.nc', variable 'v'" for messages.
std::string where(const File& f);
std::string where(const File& f, const Var& v);

// Element types.
bool valid_type(nc_type t);
tapio_type to_tapio(nc_type t);
nc_type from_tapio(tapio_type t);
size_t type_size(nc_type t);
// netCDF's default fill value of `t` into out (type_size(t) bytes).
void default_fill(nc_type t, void* out);
// n values of type `from` into `to`, as netCDF converts them: PIO_ERANGE when one does not fit
// (the others are still converted), PIO_ECHAR between text and numbers. Element by element:
// for attributes and other small arrays; bulk data goes to tapio's own conversions.
int convert_values(const void* in, nc_type from, void* out, nc_type to, size_t n);
Attr* find_attr(std::vector<Attr>& atts, const std::string& name);
// v's fill value (its _FillValue, or the type's default) into out (type_size(v.type) bytes).
void fill_value(const Var& v, void* out);
// Whether tapio fills what no task writes (its `fill` parameter): unless the file is
// NC_NOFILL and no variable asks for its fill (PIOc_def_var_fill). If not, the PIO layer
// writes the fill value into decomposition holes itself, as PIO does; the rest stays unwritten.
bool tapio_fills(const File& f);

}  // namespace tapio_pio
