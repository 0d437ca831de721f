/* tapio's PIO-compatible C interface: the calls of NCAR's ParallelIO 2.x (PIOc_*) that history
 * and restart writers make, over tapio's engines (docs/pio.md). Programs written for PIO's
 * pio.h compile against this header unchanged: the constants have PIO's values (the netCDF
 * ones come from <netcdf.h>, as in PIO). Every call returns PIO_NOERR (0) or an error code
 * (netCDF's NC_E* or PIO's own, below), handled by the iosystem's error-handling mode. */
#ifndef TAPIO_PIO_H
#define TAPIO_PIO_H

/* The headers PIO's pio.h includes, which its programs rely on. */
#include <mpi.h>
#include <netcdf.h>
#include <netcdf_meta.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef NC_FillValue
#define NC_FillValue _FillValue
#endif

#define PIO_OFFSET MPI_OFFSET
#define PIO_Offset MPI_Offset
#define PIO_MAX_VARS NC_MAX_VARS
#define PIO_MAX_DIMS NC_MAX_DIMS
#define PIO_DEFAULT (-1)

/* Iotypes. SCORPIO (E3SM's PIO) numbers ADIOS 5; PIO 2.7 numbers GDAL 5. tapio takes 5 as
 * ADIOS (the subfile engine) and refuses GDAL, which it does not read. */
enum PIO_IOTYPE {
  PIO_IOTYPE_PNETCDF = 1,
  PIO_IOTYPE_NETCDF = 2,
  PIO_IOTYPE_NETCDF4C = 3,
  PIO_IOTYPE_NETCDF4P = 4,
  PIO_IOTYPE_GDAL = 5
};
#define PIO_IOTYPE_ADIOS 5

enum PIO_REARRANGERS { PIO_REARR_BOX = 1, PIO_REARR_SUBSET = 2 };

enum PIO_REARR_COMM_TYPE { PIO_REARR_COMM_P2P = 0, PIO_REARR_COMM_COLL };
enum PIO_REARR_COMM_FC_DIR {
  PIO_REARR_COMM_FC_2D_ENABLE = 0,
  PIO_REARR_COMM_FC_1D_COMP2IO,
  PIO_REARR_COMM_FC_1D_IO2COMP,
  PIO_REARR_COMM_FC_2D_DISABLE
};
#define PIO_REARR_COMM_UNLIMITED_PEND_REQ (-1)

enum PIO_ERROR_HANDLERS {
  PIO_INTERNAL_ERROR = -51, /* print the error and abort */
  PIO_BCAST_ERROR = -52,    /* every task returns the error */
  PIO_RETURN_ERROR = -53    /* the tasks that saw it return the error */
};

#define PIO_GLOBAL NC_GLOBAL
#define PIO_UNLIMITED NC_UNLIMITED

#define PIO_BYTE NC_BYTE
#define PIO_CHAR NC_CHAR
#define PIO_SHORT NC_SHORT
#define PIO_INT NC_INT
#define PIO_FLOAT NC_FLOAT
#define PIO_REAL NC_FLOAT
#define PIO_DOUBLE NC_DOUBLE
#define PIO_UBYTE NC_UBYTE
#define PIO_USHORT NC_USHORT
#define PIO_UINT NC_UINT
#define PIO_INT64 NC_INT64
#define PIO_UINT64 NC_UINT64
#define PIO_STRING NC_STRING

#define PIO_WRITE NC_WRITE
#define PIO_NOWRITE NC_NOWRITE
#define PIO_CLOBBER NC_CLOBBER
#define PIO_NOCLOBBER NC_NOCLOBBER
#define PIO_FILL NC_FILL
#define PIO_NOFILL NC_NOFILL
#define PIO_MAX_NAME NC_MAX_NAME
#define PIO_MAX_VAR_DIMS NC_MAX_VAR_DIMS
#define PIO_64BIT_OFFSET NC_64BIT_OFFSET
#define PIO_64BIT_DATA NC_64BIT_DATA

#define PIO_NOERR NC_NOERR
#define PIO_EBADID NC_EBADID
#define PIO_ENFILE NC_ENFILE
#define PIO_EEXIST NC_EEXIST
#define PIO_EINVAL NC_EINVAL
#define PIO_EPERM NC_EPERM
#define PIO_ENOTINDEFINE NC_ENOTINDEFINE
#define PIO_EINDEFINE NC_EINDEFINE
#define PIO_EINVALCOORDS NC_EINVALCOORDS
#define PIO_EMAXDIMS NC_EMAXDIMS
#define PIO_ENAMEINUSE NC_ENAMEINUSE
#define PIO_ENOTATT NC_ENOTATT
#define PIO_EMAXATTS NC_EMAXATTS
#define PIO_EBADTYPE NC_EBADTYPE
#define PIO_EBADDIM NC_EBADDIM
#define PIO_EUNLIMPOS NC_EUNLIMPOS
#define PIO_EMAXVARS NC_EMAXVARS
#define PIO_ENOTVAR NC_ENOTVAR
#define PIO_EGLOBAL NC_EGLOBAL
#define PIO_ENOTNC NC_ENOTNC
#define PIO_ESTS NC_ESTS
#define PIO_EMAXNAME NC_EMAXNAME
#define PIO_EUNLIMIT NC_EUNLIMIT
#define PIO_ENORECVARS NC_ENORECVARS
#define PIO_ECHAR NC_ECHAR
#define PIO_EEDGE NC_EEDGE
#define PIO_ESTRIDE NC_ESTRIDE
#define PIO_EBADNAME NC_EBADNAME
#define PIO_ERANGE NC_ERANGE
#define PIO_ENOMEM NC_ENOMEM
#define PIO_EVARSIZE NC_EVARSIZE
#define PIO_EDIMSIZE NC_EDIMSIZE
#define PIO_ETRUNC NC_ETRUNC
#define PIO_EAXISTYPE NC_EAXISTYPE
#define PIO_EIO NC_EIO
#define PIO_ENODATA NC_ENODATA
#define PIO_EHDFERR NC_EHDFERR
#define PIO_ECANTREAD NC_ECANTREAD
#define PIO_ECANTWRITE NC_ECANTWRITE
#define PIO_ECANTCREATE NC_ECANTCREATE
#define PIO_EFILEMETA NC_EFILEMETA
#define PIO_EDIMMETA NC_EDIMMETA
#define PIO_EATTMETA NC_EATTMETA
#define PIO_EVARMETA NC_EVARMETA
#define PIO_ENOCOMPOUND NC_ENOCOMPOUND
#define PIO_EATTEXISTS NC_EATTEXISTS
#define PIO_ENOTNC4 NC_ENOTNC4
#define PIO_ESTRICTNC3 NC_ESTRICTNC3
#define PIO_ENOTNC3 NC_ENOTNC3
#define PIO_ENOPAR NC_ENOPAR
#define PIO_EPARINIT NC_EPARINIT
#define PIO_EBADGRPID NC_EBADGRPID
#define PIO_EBADTYPID NC_EBADTYPID
#define PIO_ETYPDEFINED NC_ETYPDEFINED
#define PIO_EBADFIELD NC_EBADFIELD
#define PIO_EBADCLASS NC_EBADCLASS
#define PIO_EMAPTYPE NC_EMAPTYPE
#define PIO_ELATEFILL NC_ELATEFILL
#define PIO_ELATEDEF NC_ELATEDEF
#define PIO_EDIMSCALE NC_EDIMSCALE
#define PIO_ENOGRP NC_ENOGRP
#define PIO_ESTORAGE NC_ESTORAGE
#define PIO_EBADCHUNK NC_EBADCHUNK
#define PIO_ENOTBUILT NC_ENOTBUILT
#define PIO_EDISKLESS NC_EDISKLESS

#define PIO_FILL_BYTE NC_FILL_BYTE
#define PIO_FILL_CHAR NC_FILL_CHAR
#define PIO_FILL_SHORT NC_FILL_SHORT
#define PIO_FILL_INT NC_FILL_INT
#define PIO_FILL_FLOAT NC_FILL_FLOAT
#define PIO_FILL_DOUBLE NC_FILL_DOUBLE
#define PIO_FILL_UBYTE NC_FILL_UBYTE
#define PIO_FILL_USHORT NC_FILL_USHORT
#define PIO_FILL_UINT NC_FILL_UINT
#define PIO_FILL_INT64 NC_FILL_INT64
#define PIO_FILL_UINT64 NC_FILL_UINT64

#define PIO_EINDEP (-203)
#define PIO_EINSUFFBUF (-219)
#define PIO_FIRST_ERROR_CODE (-500)
#define PIO_EBADIOTYPE (-500)
#define PIO_EVARDIMMISMATCH (-501)
#define PIO_EBADREARR (-502)
#define PIO_REQ_NULL (NC_REQ_NULL - 1)

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default) /* libtapio_pio exports these calls and nothing else */
#endif

/* ---- library, iosystems --------------------------------------------------------------- */
int PIOc_strerror(int pioerr, char* errstr);
int PIOc_set_log_level(int level);
int PIOc_set_global_log_level(int iosysid, int level);
int PIOc_Init_Intracomm(MPI_Comm comp_comm, int num_iotasks, int stride, int base, int rearr,
                        int* iosysidp);
int PIOc_Init_Intracomm_from_F90(int f90_comp_comm, int num_iotasks, int stride, int base,
                                 int rearr, void* rearr_opts, int* iosysidp);
int PIOc_finalize(int iosysid);
int PIOc_free_iosystem(int iosysid);
int PIOc_Set_IOSystem_Error_Handling(int iosysid, int method);
int PIOc_set_iosystem_error_handling(int iosysid, int method, int* old_method);
int PIOc_get_numiotasks(int iosysid, int* numiotasks);
int PIOc_iam_iotask(int iosysid, bool* ioproc);
int PIOc_iotask_rank(int iosysid, int* iorank);
int PIOc_iosystem_is_active(int iosysid, bool* active);
int PIOc_iotype_available(int iotype);
int PIOc_set_rearr_opts(int iosysid, int comm_type, int fcd, bool enable_hs_c2i,
                        bool enable_isend_c2i, int max_pend_req_c2i, bool enable_hs_i2c,
                        bool enable_isend_i2c, int max_pend_req_i2c);
int PIOc_set_hint(int iosysid, const char* hint, const char* hintval);
int PIOc_set_blocksize(int newblocksize);
PIO_Offset PIOc_set_buffer_size_limit(PIO_Offset limit);
int PIOc_init_async(MPI_Comm world, int num_io_procs, int* io_proc_list, int component_count,
                    int* num_procs_per_comp, int** proc_list, MPI_Comm* io_comm,
                    MPI_Comm* comp_comm, int rearranger, int* iosysidp);
int PIOc_init_async_from_comms(MPI_Comm world, int component_count, MPI_Comm* comp_comm,
                               MPI_Comm io_comm, int rearranger, int* iosysidp);

/* ---- decompositions ------------------------------------------------------------------- */
/* compmap: 1-based global offsets, 0 = a hole (this task holds no element there). */
int PIOc_InitDecomp(int iosysid, int pio_type, int ndims, const int* gdimlen, int maplen,
                    const PIO_Offset* compmap, int* ioidp, const int* rearr,
                    const PIO_Offset* iostart, const PIO_Offset* iocount);
int PIOc_InitDecomp_bc(int iosysid, int basetype, int ndims, const int* gdimlen,
                       const long int* start, const long int* count, int* ioidp);
/* compmap: 0-based global offsets, -1 = a hole. */
int PIOc_init_decomp(int iosysid, int pio_type, int ndims, const int* gdimlen, int maplen,
                     const PIO_Offset* compmap, int* ioidp, int rearranger,
                     const PIO_Offset* iostart, const PIO_Offset* iocount);
int PIOc_freedecomp(int iosysid, int ioid);
int PIOc_get_local_array_size(int ioid);
/* PIO's text decomposition files (E3SM's piodecomp*.dat): *gdims and *map are malloc'd, the
 * caller frees them. */
int PIOc_readmap(const char* file, int* ndims, int** gdims, PIO_Offset* fmaplen,
                 PIO_Offset** map, MPI_Comm comm);
int PIOc_readmap_from_f90(const char* file, int* ndims, int** gdims, PIO_Offset* maplen,
                          PIO_Offset** map, int f90_comm);
int PIOc_writemap(const char* file, int ndims, const int* gdims, PIO_Offset maplen,
                  PIO_Offset* map, MPI_Comm comm);
int PIOc_writemap_from_f90(const char* file, int ndims, const int* gdims, PIO_Offset maplen,
                           const PIO_Offset* map, int f90_comm);
/* PIO's NetCDF decomposition files: these names, as PIO 2.7 writes them. */
#define DECOMP_VERSION_ATT_NAME "PIO_library_version"
#define DECOMP_MAX_MAPLEN_ATT_NAME "max_maplen"
#define DECOMP_TITLE_ATT_NAME "title"
#define DECOMP_HISTORY_ATT_NAME "history"
#define DECOMP_SOURCE_ATT_NAME "source"
#define DECOMP_ORDER_ATT_NAME "array_order"
#define DECOMP_BACKTRACE_ATT_NAME "backtrace"
#define DECOMP_DIM_DIM "dims"
#define DECOMP_TASK_DIM_NAME "task"
#define DECOMP_MAPELEM_DIM_NAME "map_element"
#define DECOMP_NDIMS "ndims"
#define DECOMP_GLOBAL_SIZE_VAR_NAME "global_size"
#define DECOMP_MAPLEN_VAR_NAME "maplen"
#define DECOMP_MAP_VAR_NAME "map"
#define DECOMP_C_ORDER_STR "C"
#define DECOMP_FORTRAN_ORDER_STR "Fortran"
int PIOc_write_nc_decomp(int iosysid, const char* filename, int cmode, int ioid, char* title,
                         char* history, int fortran_order);
int PIOc_read_nc_decomp(int iosysid, const char* filename, int* ioidp, MPI_Comm comm,
                        int pio_type, char* title, char* history, int* fortran_order);

/* ---- files ---------------------------------------------------------------------------- */
int PIOc_createfile(int iosysid, int* ncidp, int* iotype, const char* fname, int mode);
int PIOc_create(int iosysid, const char* path, int cmode, int* ncidp);
int PIOc_openfile(int iosysid, int* ncidp, int* iotype, const char* fname, int mode);
int PIOc_openfile2(int iosysid, int* ncidp, int* iotype, const char* fname, int mode);
int PIOc_open(int iosysid, const char* path, int mode, int* ncidp);
int PIOc_closefile(int ncid);
int PIOc_deletefile(int iosysid, const char* filename);
int PIOc_sync(int ncid);
int PIOc_redef(int ncid);
int PIOc_enddef(int ncid);
int PIOc_File_is_Open(int ncid);
int PIOc_Set_File_Error_Handling(int ncid, int method);

/* ---- definitions ---------------------------------------------------------------------- */
int PIOc_def_dim(int ncid, const char* name, PIO_Offset len, int* idp);
int PIOc_def_var(int ncid, const char* name, nc_type xtype, int ndims, const int* dimidsp,
                 int* varidp);
int PIOc_set_fill(int ncid, int fillmode, int* old_modep);
int PIOc_def_var_fill(int ncid, int varid, int no_fill, const void* fill_value);
int PIOc_inq_var_fill(int ncid, int varid, int* no_fill, void* fill_valuep);
int PIOc_def_var_deflate(int ncid, int varid, int shuffle, int deflate, int deflate_level);
int PIOc_def_var_quantize(int ncid, int varid, int quantize_mode, int nsd);
int PIOc_rename_dim(int ncid, int dimid, const char* name);
int PIOc_rename_var(int ncid, int varid, const char* name);
int PIOc_rename_att(int ncid, int varid, const char* name, const char* newname);
int PIOc_del_att(int ncid, int varid, const char* name);

/* ---- inquiry -------------------------------------------------------------------------- */
int PIOc_inq_format(int ncid, int* formatp);
int PIOc_inq(int ncid, int* ndimsp, int* nvarsp, int* ngattsp, int* unlimdimidp);
int PIOc_inq_ndims(int ncid, int* ndimsp);
int PIOc_inq_nvars(int ncid, int* nvarsp);
int PIOc_inq_natts(int ncid, int* ngattsp);
int PIOc_inq_unlimdim(int ncid, int* unlimdimidp);
int PIOc_inq_unlimdims(int ncid, int* nunlimdimsp, int* unlimdimidsp);
int PIOc_inq_type(int ncid, nc_type xtype, char* name, PIO_Offset* sizep);
int PIOc_inq_dim(int ncid, int dimid, char* name, PIO_Offset* lenp);
int PIOc_inq_dimid(int ncid, const char* name, int* idp);
int PIOc_inq_dimname(int ncid, int dimid, char* name);
int PIOc_inq_dimlen(int ncid, int dimid, PIO_Offset* lenp);
int PIOc_inq_varid(int ncid, const char* name, int* varidp);
int PIOc_inq_var(int ncid, int varid, char* name, nc_type* xtypep, int* ndimsp, int* dimidsp,
                 int* nattsp);
int PIOc_inq_varname(int ncid, int varid, char* name);
int PIOc_inq_vartype(int ncid, int varid, nc_type* xtypep);
int PIOc_inq_varndims(int ncid, int varid, int* ndimsp);
int PIOc_inq_vardimid(int ncid, int varid, int* dimidsp);
int PIOc_inq_varnatts(int ncid, int varid, int* nattsp);
int PIOc_inq_att(int ncid, int varid, const char* name, nc_type* xtypep, PIO_Offset* lenp);
int PIOc_inq_attid(int ncid, int varid, const char* name, int* idp);
int PIOc_inq_attlen(int ncid, int varid, const char* name, PIO_Offset* lenp);
int PIOc_inq_atttype(int ncid, int varid, const char* name, nc_type* xtypep);
int PIOc_inq_attname(int ncid, int varid, int attnum, char* name);

/* ---- frames and distributed arrays ---------------------------------------------------- */
int PIOc_setframe(int ncid, int varid, int frame);
int PIOc_advanceframe(int ncid, int varid);
int PIOc_write_darray(int ncid, int varid, int ioid, PIO_Offset arraylen, void* array,
                      void* fillvalue);
int PIOc_write_darray_multi(int ncid, const int* varids, int ioid, int nvars,
                            PIO_Offset arraylen, void* array, const int* frame,
                            void** fillvalue, bool flushtodisk);
int PIOc_read_darray(int ncid, int varid, int ioid, PIO_Offset arraylen, void* array);

/* ---- attributes: TAPIO_PIO_ATT(suffix, C type) declares put_att_ and get_att_ ---------- */
int PIOc_put_att(int ncid, int varid, const char* name, nc_type xtype, PIO_Offset len,
                 const void* op);
int PIOc_get_att(int ncid, int varid, const char* name, void* ip);
int PIOc_put_att_text(int ncid, int varid, const char* name, PIO_Offset len, const char* op);
int PIOc_get_att_text(int ncid, int varid, const char* name, char* ip);
#define TAPIO_PIO_ATT(S, T)                                                                  \
  int PIOc_put_att_##S(int ncid, int varid, const char* name, nc_type xtype, PIO_Offset len,  \
                       const T* op);                                                          \
  int PIOc_get_att_##S(int ncid, int varid, const char* name, T* ip);
TAPIO_PIO_ATT(schar, signed char)
TAPIO_PIO_ATT(short, short)
TAPIO_PIO_ATT(int, int)
TAPIO_PIO_ATT(long, long)
TAPIO_PIO_ATT(float, float)
TAPIO_PIO_ATT(double, double)
TAPIO_PIO_ATT(uchar, unsigned char)
TAPIO_PIO_ATT(ushort, unsigned short)
TAPIO_PIO_ATT(uint, unsigned int)
TAPIO_PIO_ATT(longlong, long long)
TAPIO_PIO_ATT(ulonglong, unsigned long long)
#undef TAPIO_PIO_ATT

/* ---- whole-array, element, box and strided access (collective) ------------------------ */
int PIOc_put_var(int ncid, int varid, const void* buf);
int PIOc_get_var(int ncid, int varid, void* buf);
int PIOc_put_var1(int ncid, int varid, const PIO_Offset* index, const void* buf);
int PIOc_get_var1(int ncid, int varid, const PIO_Offset* index, void* buf);
int PIOc_put_vara(int ncid, int varid, const PIO_Offset* start, const PIO_Offset* count,
                  const void* buf);
int PIOc_get_vara(int ncid, int varid, const PIO_Offset* start, const PIO_Offset* count,
                  void* buf);
int PIOc_put_vars(int ncid, int varid, const PIO_Offset* start, const PIO_Offset* count,
                  const PIO_Offset* stride, const void* buf);
int PIOc_get_vars(int ncid, int varid, const PIO_Offset* start, const PIO_Offset* count,
                  const PIO_Offset* stride, void* buf);
/* With the memory type given (NC_NAT: the variable's own). */
int PIOc_put_vars_tc(int ncid, int varid, const PIO_Offset* start, const PIO_Offset* count,
                     const PIO_Offset* stride, nc_type xtype, const void* buf);
int PIOc_get_vars_tc(int ncid, int varid, const PIO_Offset* start, const PIO_Offset* count,
                     const PIO_Offset* stride, nc_type xtype, void* buf);
#define TAPIO_PIO_ACCESS(S, T)                                                                \
  int PIOc_put_var_##S(int ncid, int varid, const T* op);                                    \
  int PIOc_get_var_##S(int ncid, int varid, T* buf);                                         \
  int PIOc_put_var1_##S(int ncid, int varid, const PIO_Offset* index, const T* op);          \
  int PIOc_get_var1_##S(int ncid, int varid, const PIO_Offset* index, T* buf);               \
  int PIOc_put_vara_##S(int ncid, int varid, const PIO_Offset* start, const PIO_Offset* count, \
                        const T* op);                                                         \
  int PIOc_get_vara_##S(int ncid, int varid, const PIO_Offset* start, const PIO_Offset* count, \
                        T* buf);                                                              \
  int PIOc_put_vars_##S(int ncid, int varid, const PIO_Offset* start, const PIO_Offset* count, \
                        const PIO_Offset* stride, const T* op);                               \
  int PIOc_get_vars_##S(int ncid, int varid, const PIO_Offset* start, const PIO_Offset* count, \
                        const PIO_Offset* stride, T* buf);
TAPIO_PIO_ACCESS(text, char)
TAPIO_PIO_ACCESS(schar, signed char)
TAPIO_PIO_ACCESS(short, short)
TAPIO_PIO_ACCESS(int, int)
TAPIO_PIO_ACCESS(long, long)
TAPIO_PIO_ACCESS(float, float)
TAPIO_PIO_ACCESS(double, double)
TAPIO_PIO_ACCESS(uchar, unsigned char)
TAPIO_PIO_ACCESS(ushort, unsigned short)
TAPIO_PIO_ACCESS(uint, unsigned int)
TAPIO_PIO_ACCESS(longlong, long long)
TAPIO_PIO_ACCESS(ulonglong, unsigned long long)
#undef TAPIO_PIO_ACCESS

/* ---- decomposition access (put_vard/get_vard: a record of a darray, as write_darray and
 * read_darray with that frame) ----------------------------------------------------------- */
int PIOc_put_vard(int ncid, int varid, int decompid, const PIO_Offset recnum, const void* buf);
int PIOc_get_vard(int ncid, int varid, int decompid, const PIO_Offset recnum, void* buf);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif /* TAPIO_PIO_H */
