/* Stand-in for PIO's internal pio_error.h: the two error macros the chosen tests use, with the
 * behaviour the tests rely on (print the rank, code and place; finalize MPI; return the code,
 * which becomes the program's exit status and so fails the ctest test). */
#ifndef TAPIO_PIO_SUITE_PIO_ERROR_H
#define TAPIO_PIO_SUITE_PIO_ERROR_H

#include <config.h>
#include <pio.h>
#include <stdio.h>

/* A test's check failed: report it on this rank and leave main with the code. */
#define ERR(e) do {                                                                   \
        fprintf(stderr, "%d Error %d in %s, line %d\n", my_rank, e, __FILE__, __LINE__); \
        MPI_Finalize();                                                               \
        return e;                                                                     \
    } while (0)

/* An MPI call failed: report MPI's message and leave main with PIO_EIO. */
#define MPIERR(e) do {                                                                \
        MPI_Error_string(e, err_buffer, &resultlen);                                  \
        fprintf(stderr, "MPI error, line %d, file %s: %s\n", __LINE__, __FILE__, err_buffer); \
        MPI_Finalize();                                                               \
        return PIO_EIO;                                                               \
    } while (0)

/* MPIERR's message buffer; the library defines it (tapio's layer may not: pio_internal_shim.c). */
extern char err_buffer[MPI_MAX_ERROR_STRING];
extern int resultlen;

#endif
