/* tapio: Topology-Aware Parallel I/O. The C API: the stable ABI every binding builds on.
 *
 * Handles are opaque tokens, checked by every call: a closed engine or a handle of a finalized
 * context gives TAPIO_ERR_ARG, never a crash. Every function returns a tapio_status (TAPIO_OK =
 * 0); on error, tapio_last_error() gives a message naming the call, the file, the variable and
 * the rank.
 * Functions marked COLLECTIVE must be called by every rank of the context's communicator, in
 * the same order; they return the same status on every rank. The others are local.
 * See docs/api.md for the full contract. */
#ifndef TAPIO_H
#define TAPIO_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "tapio/tapio_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TAPIO_VERSION_MAJOR 0
#define TAPIO_VERSION_MINOR 1
#define TAPIO_VERSION_PATCH 0

#if defined(_WIN32)
#define TAPIO_API
#else
#define TAPIO_API __attribute__((visibility("default")))
#endif

typedef struct tapio_context tapio_context;
typedef struct tapio_io tapio_io;
typedef struct tapio_var tapio_var;
typedef struct tapio_engine tapio_engine;
typedef struct tapio_decomp tapio_decomp;

typedef enum tapio_mode {
  TAPIO_MODE_WRITE = 0,  /* create (truncate) */
  TAPIO_MODE_READ = 1,
  TAPIO_MODE_APPEND = 2  /* add steps to an existing file */
} tapio_mode;

typedef enum tapio_step_status {
  TAPIO_STEP_OK = 0,
  TAPIO_STEP_END_OF_STREAM = 1, /* read mode: no more steps (the writer closed the file) */
  TAPIO_STEP_NOT_READY = 2,     /* read mode: the writer has not finished the next step yet;
                                   call tapio_begin_step again later */
  TAPIO_STEP_WRITER_GONE = 3    /* read mode: the writer did not close the dataset and has
                                   committed nothing for `writer_timeout` seconds (killed):
                                   tapio_steps steps are committed, no more will come */
} tapio_step_status;

/* Variable flags. */
#define TAPIO_VAR_FIXED 1u /* not time-varying: one value for the whole file */
/* A joined (local) array, like ADIOS2's JoinedArray: the first dimension's length is not known
 * when the variable is defined (give shape[0] = 0). Each rank gives its own length for each
 * step with tapio_var_set_joined_count (particles, floats, tracers: any count, 0 included);
 * tapio puts the ranks' blocks one after another in rank order, offsets found by one exscan
 * when the step's puts are written. The other dimensions are the shape's (n x 3 positions).
 * A joined variable varies per step (not with TAPIO_VAR_FIXED). In read mode, its shape[0] is
 * the current step's length; tapio_var_blocks gives each writer's block (a NetCDF file keeps
 * one block per step). The subfile and collective engines write joined variables (the
 * collective engine as a CF ragged array); serial and mpiio refuse them at open. */
#define TAPIO_VAR_JOINED 2u

/* ---- library ---------------------------------------------------------------------- */
TAPIO_API const char* tapio_version(void);
/* The message of the last failed call on this thread ("" if none). */
TAPIO_API const char* tapio_last_error(void);
TAPIO_API const char* tapio_status_string(int status);

/* ---- context (COLLECTIVE) ------------------------------------------------------------ */
/* Bind tapio to `comm` (duplicated). config_path: a TOML file of rules (docs/tuning.md), or
 * NULL to use the file named by the TAPIO_CONFIG environment variable, if any; every rank must
 * be given the same file (else TAPIO_ERR_CONFIG on every rank). TAPIO_ERR_STATE before MPI_Init
 * or after MPI_Finalize. */
TAPIO_API int tapio_init(MPI_Comm comm, const char* config_path, tapio_context** ctx);
/* The same for a Fortran communicator handle (for bindings). */
TAPIO_API int tapio_init_f(MPI_Fint comm, const char* config_path, tapio_context** ctx);
/* Frees the context and every IO, variable and engine handle made from it (open engines are
 * closed). After MPI_Finalize: TAPIO_ERR_STATE, and nothing is closed or freed. */
TAPIO_API int tapio_finalize(tapio_context* ctx);

/* ---- IO groups: definitions (local; give the same definitions on every rank) --------- */
/* Declare (or get, if it exists) the IO group `name`. Config rules match this name. */
TAPIO_API int tapio_declare_io(tapio_context* ctx, const char* name, tapio_io** io);
/* Engine for files opened from this IO: "serial", "mpiio", "collective", "subfile"; NULL or
 * "" = chosen by the file path. The config file overrides it. */
TAPIO_API int tapio_io_set_engine(tapio_io* io, const char* engine);
/* Set a parameter (docs/tuning.md): checked at once, overridden by the config file. */
TAPIO_API int tapio_io_set_parameter(tapio_io* io, const char* key, const char* value);

/* Define a variable: global shape[ndims] (ndims 0 = scalar), C order (last index fastest).
 * dim_names: ndims names, or NULL for default names ("dim<length>", shared by length).
 * flags: 0 = one value per step (record variable), TAPIO_VAR_FIXED = one value per file.
 * TAPIO_ERR_STATE while a file that cannot take it is open from `io` (any but a subfile
 * dataset being written). */
TAPIO_API int tapio_define_variable(tapio_io* io, const char* name, tapio_type type, int ndims,
                                    const uint64_t* shape, const char* const* dim_names,
                                    unsigned flags, tapio_var** var);
/* Declare a dimension (optional): a NetCDF file numbers its dimensions in declaration order,
 * then any other a variable names; a declared dimension no variable uses is still written.
 * Variables use it by name (dim_names of tapio_define_variable, lengths must agree).
 * length 0 = the unlimited dimension: steps go along it, and its name becomes the
 * record_dimension parameter. Declaring it again with the same length changes nothing.
 * After opening a NetCDF file for reading or appending, the IO's dimensions are the file's,
 * in its order. */
TAPIO_API int tapio_define_dimension(tapio_io* io, const char* name, uint64_t length);
TAPIO_API int tapio_io_dimension_count(tapio_io* io, size_t* count);
/* The index-th declared dimension (name valid until the IO's definitions change; length 0 =
 * unlimited). name or length may be NULL. */
TAPIO_API int tapio_io_dimension(tapio_io* io, size_t index, const char** name,
                                 uint64_t* length);
/* Look a variable up by name (after opening for reading, the file's variables are here). */
TAPIO_API int tapio_inquire_variable(tapio_io* io, const char* name, tapio_var** var);
TAPIO_API int tapio_io_variable_count(tapio_io* io, size_t* count);
/* Name of the index-th variable; valid until the IO's definitions change. */
TAPIO_API int tapio_io_variable_name(tapio_io* io, size_t index, const char** name);

/* Attributes. var_name NULL = global attribute. count elements of `type` (host order). */
TAPIO_API int tapio_define_attribute(tapio_io* io, const char* var_name, const char* name,
                                     tapio_type type, size_t count, const void* data);
TAPIO_API int tapio_define_string_attribute(tapio_io* io, const char* var_name,
                                            const char* name, const char* value);
TAPIO_API int tapio_inquire_attribute(tapio_io* io, const char* var_name, const char* name,
                                      tapio_type* type, size_t* count);
/* Copy the attribute's values into data (count elements of its type). */
TAPIO_API int tapio_read_attribute(tapio_io* io, const char* var_name, const char* name,
                                   void* data);
TAPIO_API int tapio_io_attribute_count(tapio_io* io, const char* var_name, size_t* count);
TAPIO_API int tapio_io_attribute_name(tapio_io* io, const char* var_name, size_t index,
                                      const char** name);

/* ---- variables -------------------------------------------------------------------- */
TAPIO_API int tapio_var_name(tapio_var* var, const char** name);
TAPIO_API int tapio_var_type(tapio_var* var, tapio_type* type);
TAPIO_API int tapio_var_ndims(tapio_var* var, int* ndims);
/* shape must hold ndims entries. */
TAPIO_API int tapio_var_shape(tapio_var* var, uint64_t* shape);
TAPIO_API int tapio_var_dim_name(tapio_var* var, int dim, const char** name);
/* 1 if the variable has a value per step, 0 if fixed. */
TAPIO_API int tapio_var_is_record(tapio_var* var, int* is_record);

/* This rank's selection for the next puts and gets of var (local; it stays until replaced).
 * A block: start/count[ndims]. A refused selection (outside the shape, ...) leaves none:
 * var's next put then fails its step on every rank, and its next get fails, with this error,
 * until a valid selection is set; no put ever falls back to an older selection. The same
 * holds for the offsets, runs and joined count below. */
TAPIO_API int tapio_var_set_selection(tapio_var* var, const uint64_t* start,
                                      const uint64_t* count);
/* An irregular selection: n element offsets into the flattened (C-order) global array,
 * 0-based, like PIO's compdof (minus one). Memory holds the elements in list order. */
TAPIO_API int tapio_var_set_offsets(tapio_var* var, size_t n, const uint64_t* offsets);
/* An irregular selection as n runs (offset, length) of consecutive elements. */
TAPIO_API int tapio_var_set_runs(tapio_var* var, size_t n, const uint64_t* offsets,
                                 const uint64_t* lengths);
/* Decompositions: this rank's part of every array of one shape, made once (as PIO's
 * PIOc_InitDecomp) and given to any number of variables of that shape, in any IO and file of
 * the context: the offsets are read and checked when it is made, setting it reads nothing,
 * and an engine finds its plan by the object (an engine still checks a selection against the
 * variable once per variable, and hashes a new one once). Local. A decomposition lives until
 * tapio_decomp_free or tapio_finalize; a variable that took it keeps its selection after.
 * From n element offsets into the flattened (C-order) array of shape[ndims], 0-based, memory
 * in list order (as tapio_var_set_offsets); an offset outside the shape is TAPIO_ERR_SHAPE. */
TAPIO_API int tapio_decomp_from_offsets(tapio_context* ctx, int ndims, const uint64_t* shape,
                                        size_t n, const uint64_t* offsets,
                                        tapio_decomp** decomp);
/* The same from n runs (offset, length) of consecutive elements (as tapio_var_set_runs). */
TAPIO_API int tapio_decomp_from_runs(tapio_context* ctx, int ndims, const uint64_t* shape,
                                     size_t n, const uint64_t* offsets, const uint64_t* lengths,
                                     tapio_decomp** decomp);
/* Elements of the decomposition (this rank's). */
TAPIO_API int tapio_decomp_size(tapio_decomp* decomp, uint64_t* elements);
TAPIO_API int tapio_decomp_free(tapio_decomp* decomp);
/* var's selection for its next puts and gets becomes decomp's. var's shape must be decomp's
 * (TAPIO_ERR_SHAPE); a joined variable, or one of another context, takes none
 * (TAPIO_ERR_ARG). A refusal leaves var without a selection, as a refused
 * tapio_var_set_offsets does. */
TAPIO_API int tapio_var_set_decomp(tapio_var* var, tapio_decomp* decomp);
/* Write mode, a joined variable (TAPIO_VAR_JOINED): this rank's length along the first
 * dimension for the next put (0: nothing this step). The put's data holds count x shape[1] x
 * ... elements. A count above INT64_MAX (a negative count passed through a signed type) is
 * TAPIO_ERR_ARG. tapio_var_set_selection on a joined variable is for reading (a range of the
 * step's array); a write selection of it is TAPIO_ERR_ARG. */
TAPIO_API int tapio_var_set_joined_count(tapio_var* var, uint64_t count);
/* 1 if var is a joined array, else 0. */
TAPIO_API int tapio_var_is_joined(tapio_var* var, int* is_joined);
/* Read mode: the steps a get covers; the buffer holds step_count selections one after
 * another. Without it, a get inside a step reads the current step. */
TAPIO_API int tapio_var_set_step_selection(tapio_var* var, uint64_t step_start,
                                           uint64_t step_count);
/* Elements in the current selection (per step). */
TAPIO_API int tapio_var_selection_size(tapio_var* var, uint64_t* elements);

/* ---- engines ---------------------------------------------------------------------- */
/* COLLECTIVE. Open `path` with the IO's definitions (write) or the file's (read, append). */
TAPIO_API int tapio_open(tapio_io* io, const char* path, tapio_mode mode, tapio_engine** engine);
/* COLLECTIVE. Write: start the next step. Read: advance to the next step (TAPIO_STEP_OK), or
 * report in *status that there is none: TAPIO_STEP_END_OF_STREAM, TAPIO_STEP_NOT_READY or
 * TAPIO_STEP_WRITER_GONE (status may be NULL in write mode). */
TAPIO_API int tapio_begin_step(tapio_engine* engine, tapio_step_status* status);
/* Local. Queue this rank's data for var's current selection. memtype is data's type: another
 * numeric type than var's is converted now, into tapio's buffer (a value var's type cannot
 * hold: TAPIO_ERR_RANGE); text and numbers do not convert (TAPIO_ERR_TYPE).
 * DEFERRED: data must stay valid and unchanged until tapio_end_step/tapio_perform_puts.
 * A put that fails inside a write step (its variable's last selection was refused too)
 * fails that step's tapio_end_step on every rank, and nothing of the step is committed. */
TAPIO_API int tapio_put(tapio_engine* engine, tapio_var* var, tapio_type memtype,
                        const void* data);
/* Local. Queue a read of var's current selection (and step selection) into data, of type
 * memtype (another numeric type than var's is converted once read). DEFERRED: data is filled
 * by tapio_end_step/tapio_perform_gets. */
TAPIO_API int tapio_get(tapio_engine* engine, tapio_var* var, tapio_type memtype, void* data);
/* Local. tapio_put and tapio_get with the selection given with the data, as nc_put_vara and
 * ncmpi_put_vara_all take it: the box start/count[ndims] (C order, 0-based; NULL for a 0-d
 * variable) applies to this call only and leaves var's selection as it was. A box outside
 * the shape fails the put, and so its step on every rank, like any failed put. A joined
 * variable takes no write box (its rows are placed by tapio). */
TAPIO_API int tapio_put_sel(tapio_engine* engine, tapio_var* var, const uint64_t* start,
                            const uint64_t* count, tapio_type memtype, const void* data);
TAPIO_API int tapio_get_sel(tapio_engine* engine, tapio_var* var, const uint64_t* start,
                            const uint64_t* count, tapio_type memtype, void* data);
/* Local, inside a write step. The program's own reason not to commit this step (a NaN found,
 * a local check failed): its tapio_end_step then fails on every rank with `code` (not
 * TAPIO_OK) and `message`, and nothing of the step is committed; earlier steps stay. The
 * bindings call it when a step's block raises on one rank. */
TAPIO_API int tapio_fail_step(tapio_engine* engine, tapio_status code, const char* message);
/* COLLECTIVE. Execute queued puts / gets now. */
TAPIO_API int tapio_perform_puts(tapio_engine* engine);
TAPIO_API int tapio_perform_gets(tapio_engine* engine);
/* COLLECTIVE. Write: the step is written and becomes visible to readers. Read: queued gets
 * are executed. */
TAPIO_API int tapio_end_step(tapio_engine* engine);
/* Write: the step being written (0-based; in append mode continues the file's count).
 * Read: the current step. */
TAPIO_API int tapio_current_step(tapio_engine* engine, uint64_t* step);
/* Steps in the file (read) or written so far (write, append). */
TAPIO_API int tapio_steps(tapio_engine* engine, uint64_t* steps);
/* LOCAL, read mode. The bytes of `var` over every step, as put (*bytes) and as stored
 * (*stored): they differ where the subfile engine's `operator` parameter encoded the
 * variable's blocks (docs/format.md, "Operators"); *bytes / *stored is its compression ratio.
 * A NetCDF file stores every byte as put. Reads every step's metadata of a subfile dataset. */
TAPIO_API int tapio_var_stored_bytes(tapio_engine* engine, tapio_var* var, uint64_t* bytes,
                                     uint64_t* stored);
/* LOCAL, read mode. The blocks the file stores of `var` at `step` (a fixed variable's
 * whatever the step), as their writers selected them: block i starts at
 * starts[i*ndims .. (i+1)*ndims) and spans counts[i*ndims .. (i+1)*ndims), for
 * i < min(*nblocks, capacity). *nblocks is set to the number of blocks; with capacity 0,
 * starts and counts may be NULL. A NetCDF file stores a variable's step as one block (its
 * whole shape); a subfile dataset stores each put as a block. A block written as an offset
 * list (tapio_var_set_offsets/_runs) is no box: TAPIO_ERR_UNSUPPORTED. Readers use this to
 * split their work the way the data was written. A joined variable's blocks come in their
 * order along dimension 0 (a batch's by writer rank). */
TAPIO_API int tapio_var_blocks(tapio_engine* engine, tapio_var* var, uint64_t step,
                               size_t capacity, uint64_t* starts, uint64_t* counts,
                               size_t* nblocks);
/* Name of the engine that opened the file ("serial", ...). */
TAPIO_API int tapio_engine_name(tapio_engine* engine, const char** name);
/* COLLECTIVE. Completes an open step, flushes, writes the profile (parameter `profile`), frees
 * the handle (even on error). */
TAPIO_API int tapio_close(tapio_engine* engine);

#ifdef __cplusplus
}
#endif
#endif /* TAPIO_H */
