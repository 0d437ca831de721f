/* Stand-in for PIO's internal pio_internal.h: only what the chosen tests use of it. The
 * functions are internal to PIO (the real library defines them; for tapio's layer,
 * pio_internal_shim.c defines them on its public calls when the layer does not). */
#ifndef TAPIO_PIO_SUITE_PIO_INTERNAL_H
#define TAPIO_PIO_SUITE_PIO_INTERNAL_H

#include <config.h>
#include <pio.h>
#include <pio_error.h>
#include <limits.h>
#include <stdint.h>
/* test_darray_multivar checks PnetCDF's own fill behaviour with ncmpi_* calls. */
#if defined(_PNETCDF) && __has_include(<pnetcdf.h>)
#include <pnetcdf.h>
#endif

/* Size in bytes of an int or float in a netCDF file (test_darray, test_darray_append). */
#define NETCDF_INT_FLOAT_SIZE 4

/* The type id PIO uses for a C long in memory (test_pioc_putget's list of types). */
#define PIO_LONG_INTERNAL 13

/* The MPI datatype and size of a PIO type. */
int find_mpi_type(int pio_type, MPI_Datatype *mpi_type, int *type_size);

/* Strided put and get with the memory type given as a netCDF type id. */
int PIOc_put_vars_tc(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                     const PIO_Offset *stride, nc_type xtype, const void *buf);
int PIOc_get_vars_tc(int ncid, int varid, const PIO_Offset *start, const PIO_Offset *count,
                     const PIO_Offset *stride, nc_type xtype, void *buf);

#endif
