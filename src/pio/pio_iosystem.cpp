// Iosystems: a communicator, tapio's context on it, the I/O task settings that become tapio's
// aggregators, and the error-handling mode.
#include "pio/pio_comm.h"
#include "pio/pio_state.h"

namespace tapio_pio {
namespace {

bool valid_mode(int method) {
  return method == PIO_INTERNAL_ERROR || method == PIO_BCAST_ERROR ||
         method == PIO_RETURN_ERROR;
}

int init(MPI_Comm comm, int num_iotasks, int stride, int base, int rearr, int* iosysidp) {
  if (!iosysidp || num_iotasks < 1 || stride < 1 || base < 0 ||
      (rearr != PIO_REARR_BOX && rearr != PIO_REARR_SUBSET))
    return fail(nullptr, PIO_EINVAL,
                "PIOc_Init_Intracomm: bad argument (num_iotasks >= 1, stride >= 1, base >= 0, "
                "rearranger BOX or SUBSET, iosysidp not NULL)");
  auto ios = std::make_unique<IoSystem>();
  if (!comm::duplicate(comm, &ios->comm, &ios->rank, &ios->size))
    return fail(nullptr, PIO_EINVAL, "PIOc_Init_Intracomm: the communicator is not usable");
  if (base >= ios->size || num_iotasks > ios->size) num_iotasks = ios->size;
  ios->num_iotasks = num_iotasks;
  ios->stride = stride;
  ios->base = base;
  ios->rearranger = rearr;
  ios->error_mode = default_error_mode();
  const int st = tapio_init(ios->comm, nullptr, &ios->ctx);
  if (st != TAPIO_OK) {
    const std::string why = tapio_last_error();
    comm::release(&ios->comm);
    return fail(ios.get(), from_tapio(st), "PIOc_Init_Intracomm: " + why);
  }
  *iosysidp = add_iosystem(std::move(ios)).id;
  return PIO_NOERR;
}

}  // namespace
}  // namespace tapio_pio

using namespace tapio_pio;

extern "C" {

int PIOc_Init_Intracomm(MPI_Comm comp_comm, int num_iotasks, int stride, int base, int rearr,
                        int* iosysidp) {
  return init(comp_comm, num_iotasks, stride, base, rearr, iosysidp);
}

int PIOc_Init_Intracomm_from_F90(int f90_comp_comm, int num_iotasks, int stride, int base,
                                 int rearr, void* /*rearr_opts: tapio plans the exchange*/,
                                 int* iosysidp) {
  return init(comm::from_fortran(f90_comp_comm), num_iotasks, stride, base, rearr, iosysidp);
}

int PIOc_free_iosystem(int iosysid) {
  IoSystem* ios = find_iosystem(iosysid);
  if (!ios) return fail(nullptr, PIO_EBADID, "PIOc_free_iosystem: no iosystem " +
                                                 std::to_string(iosysid));
  const int st = tapio_finalize(ios->ctx);  // closes the files tapio still holds open
  comm::release(&ios->comm);
  const std::string why = st == TAPIO_OK ? "" : tapio_last_error();
  const IoSystem copy = *ios;
  remove_iosystem(iosysid);
  return st == TAPIO_OK ? PIO_NOERR
                        : fail(&copy, from_tapio(st), "PIOc_free_iosystem: " + why);
}

int PIOc_finalize(int iosysid) { return PIOc_free_iosystem(iosysid); }

int PIOc_set_iosystem_error_handling(int iosysid, int method, int* old_method) {
  if (!valid_mode(method))
    return fail(find_iosystem(iosysid), PIO_EINVAL,
                "PIOc_set_iosystem_error_handling: unknown method " + std::to_string(method));
  if (iosysid == PIO_DEFAULT) {
    if (old_method) *old_method = default_error_mode();
    set_default_error_mode(method);
    return PIO_NOERR;
  }
  IoSystem* ios = find_iosystem(iosysid);
  if (!ios)
    return fail(nullptr, PIO_EBADID,
                "PIOc_set_iosystem_error_handling: no iosystem " + std::to_string(iosysid));
  if (old_method) *old_method = ios->error_mode;
  ios->error_mode = method;
  return PIO_NOERR;
}

int PIOc_Set_IOSystem_Error_Handling(int iosysid, int method) {
  int old = PIO_INTERNAL_ERROR;
  const int st = PIOc_set_iosystem_error_handling(iosysid, method, &old);
  return st == PIO_NOERR ? old : st;
}

int PIOc_get_numiotasks(int iosysid, int* numiotasks) {
  IoSystem* ios = find_iosystem(iosysid);
  if (!ios) return fail(nullptr, PIO_EBADID, "PIOc_get_numiotasks: no such iosystem");
  if (numiotasks) *numiotasks = ios->num_iotasks;
  return PIO_NOERR;
}

int PIOc_iam_iotask(int iosysid, bool* ioproc) {
  IoSystem* ios = find_iosystem(iosysid);
  if (!ios) return fail(nullptr, PIO_EBADID, "PIOc_iam_iotask: no such iosystem");
  // Every task takes part in tapio's I/O; the aggregators among them are chosen at open.
  if (ioproc) *ioproc = true;
  return PIO_NOERR;
}

int PIOc_iotask_rank(int iosysid, int* iorank) {
  IoSystem* ios = find_iosystem(iosysid);
  if (!ios) return fail(nullptr, PIO_EBADID, "PIOc_iotask_rank: no such iosystem");
  if (iorank) *iorank = ios->rank;
  return PIO_NOERR;
}

int PIOc_iosystem_is_active(int iosysid, bool* active) {
  if (active) *active = find_iosystem(iosysid) != nullptr;
  return PIO_NOERR;
}

int PIOc_iotype_available(int iotype) {
  return iotype == PIO_IOTYPE_PNETCDF || iotype == PIO_IOTYPE_NETCDF ||
         iotype == PIO_IOTYPE_ADIOS;
}

int PIOc_set_rearr_opts(int iosysid, int comm_type, int fcd, bool, bool, int, bool, bool,
                        int) {
  if (!find_iosystem(iosysid)) return fail(nullptr, PIO_EBADID, "PIOc_set_rearr_opts: no such iosystem");
  if (comm_type != PIO_REARR_COMM_P2P && comm_type != PIO_REARR_COMM_COLL)
    return fail(find_iosystem(iosysid), PIO_EINVAL, "PIOc_set_rearr_opts: unknown comm_type");
  if (fcd < PIO_REARR_COMM_FC_2D_ENABLE || fcd > PIO_REARR_COMM_FC_2D_DISABLE)
    return fail(find_iosystem(iosysid), PIO_EINVAL, "PIOc_set_rearr_opts: unknown flow control");
  return PIO_NOERR;  // tapio plans its own exchange rounds (docs/pio.md)
}

int PIOc_set_hint(int iosysid, const char* hint, const char* hintval) {
  if (!find_iosystem(iosysid)) return fail(nullptr, PIO_EBADID, "PIOc_set_hint: no such iosystem");
  if (!hint || !hintval) return fail(find_iosystem(iosysid), PIO_EINVAL, "PIOc_set_hint: NULL hint");
  return PIO_NOERR;  // MPI-IO hints: tapio's parameters and TAPIO_CONFIG take their place
}

int PIOc_set_blocksize(int newblocksize) {
  return newblocksize > 0 ? PIO_NOERR
                          : fail(nullptr, PIO_EINVAL, "PIOc_set_blocksize: size must be > 0");
}

PIO_Offset PIOc_set_buffer_size_limit(PIO_Offset limit) {
  const PIO_Offset old = buffer_limit();
  if (limit > 0) buffer_limit() = limit;
  return old;
}

int PIOc_set_log_level(int) { return PIO_NOERR; }
int PIOc_set_global_log_level(int, int) { return PIO_NOERR; }

// PIO's I/O servers: tapio has none, and needs none (its aggregators are compute tasks).
// The tasks PIO would make servers return at once, with their io_comm, and have nothing to
// do; each component's tasks get an iosystem on their own communicator and write through it.
int PIOc_init_async(MPI_Comm world, int num_io_procs, int* io_proc_list, int component_count,
                    int* num_procs_per_comp, int** proc_list, MPI_Comm* io_comm,
                    MPI_Comm* comp_comm, int rearranger, int* iosysidp) {
  if (num_io_procs < 1 || component_count < 1 || !num_procs_per_comp || !iosysidp ||
      !comp_comm)
    return fail(nullptr, PIO_EINVAL, "PIOc_init_async: bad argument (num_io_procs >= 1, "
                "component_count >= 1, num_procs_per_comp, comp_comm and iosysidp given)");
  const int me = comm::rank_in(world);
  bool io = false;
  for (int i = 0; i < num_io_procs; ++i) io = io || (io_proc_list ? io_proc_list[i] : i) == me;
  MPI_Comm io_group = MPI_COMM_NULL;
  if (!comm::split(world, io, &io_group))
    return fail(nullptr, PIO_EIO, "PIOc_init_async: MPI_Comm_split failed");
  if (io_comm) *io_comm = io_group;
  int next = num_io_procs;  // without proc_list, components follow the I/O tasks
  int code = PIO_NOERR;
  for (int c = 0; c < component_count; ++c) {
    bool member = false;
    for (int i = 0; i < num_procs_per_comp[c]; ++i)
      member = member || (proc_list && proc_list[c] ? proc_list[c][i] : next + i) == me;
    next += num_procs_per_comp[c];
    if (!comm::split(world, member, &comp_comm[c]))
      return fail(nullptr, PIO_EIO, "PIOc_init_async: MPI_Comm_split failed");
    if (member && code == PIO_NOERR)
      code = init(comp_comm[c], num_io_procs, 1, 0,
                  rearranger ? rearranger : PIO_REARR_BOX, &iosysidp[c]);
  }
  return code;
}

int PIOc_init_async_from_comms(MPI_Comm /*world*/, int component_count, MPI_Comm* comp_comm,
                               MPI_Comm /*io_comm*/, int rearranger, int* iosysidp) {
  if (component_count < 1 || !comp_comm || !iosysidp)
    return fail(nullptr, PIO_EINVAL, "PIOc_init_async_from_comms: bad argument");
  for (int c = 0; c < component_count; ++c)
    if (comp_comm[c] != MPI_COMM_NULL)
      if (int st = init(comp_comm[c], 1, 1, 0, rearranger ? rearranger : PIO_REARR_BOX,
                        &iosysidp[c]))
        return st;
  return PIO_NOERR;
}

}  // extern "C"
