/* The config.h PIO's tests include (PIO generates it from cmake_config.h.in): the harness's
 * own, the same for tapio's PIO layer and for the real PIO. The tests choose their iotypes
 * from it (tests/cunit/test_common.c: get_iotypes): PnetCDF (_PNETCDF) and classic netCDF,
 * which is always on. No _NETCDF4: tapio writes no NetCDF-4 yet, and Debian's netCDF is
 * serial, so the real PIO built here has no parallel NetCDF-4 either. */
#ifndef TAPIO_PIO_SUITE_CONFIG_H
#define TAPIO_PIO_SUITE_CONFIG_H

#define PIO_VERSION_MAJOR 2
#define PIO_VERSION_MINOR 7
#define PIO_VERSION_PATCH 0

#define _PNETCDF

#endif
