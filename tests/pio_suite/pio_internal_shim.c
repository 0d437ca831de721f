/* What PIO's tests take from the library's internals, for a library that does not export it
 * (tapio's PIO layer keeps its internals to itself): written on PIO's public calls. Weak, so
 * that a library which does define these symbols (the real PIO's static libpioc) wins. */
#include <pio_internal.h>

__attribute__((weak)) char err_buffer[MPI_MAX_ERROR_STRING];
__attribute__((weak)) int resultlen;

__attribute__((weak)) int find_mpi_type(int pio_type, MPI_Datatype *mpi_type, int *type_size)
{
    MPI_Datatype type;
    int size;
    switch (pio_type)
    {
    case PIO_BYTE: type = MPI_SIGNED_CHAR; size = 1; break;
    case PIO_CHAR: type = MPI_CHAR; size = 1; break;
    case PIO_SHORT: type = MPI_SHORT; size = 2; break;
    case PIO_INT: type = MPI_INT; size = 4; break;
    case PIO_FLOAT: type = MPI_FLOAT; size = 4; break;
    case PIO_DOUBLE: type = MPI_DOUBLE; size = 8; break;
    default: return PIO_EBADTYPE;
    }
    if (mpi_type)
        *mpi_type = type;
    if (type_size)
        *type_size = size;
    return PIO_NOERR;
}

__attribute__((weak)) int PIOc_put_vars_tc(int ncid, int varid, const PIO_Offset *start,
                                           const PIO_Offset *count, const PIO_Offset *stride,
                                           nc_type xtype, const void *buf)
{
    switch (xtype)
    {
    case PIO_BYTE: return PIOc_put_vars_schar(ncid, varid, start, count, stride, buf);
    case PIO_CHAR: return PIOc_put_vars_text(ncid, varid, start, count, stride, buf);
    case PIO_SHORT: return PIOc_put_vars_short(ncid, varid, start, count, stride, buf);
    case PIO_INT: return PIOc_put_vars_int(ncid, varid, start, count, stride, buf);
    case PIO_LONG_INTERNAL: return PIOc_put_vars_long(ncid, varid, start, count, stride, buf);
    case PIO_FLOAT: return PIOc_put_vars_float(ncid, varid, start, count, stride, buf);
    case PIO_DOUBLE: return PIOc_put_vars_double(ncid, varid, start, count, stride, buf);
    default: return PIO_EBADTYPE;
    }
}

__attribute__((weak)) int PIOc_get_vars_tc(int ncid, int varid, const PIO_Offset *start,
                                           const PIO_Offset *count, const PIO_Offset *stride,
                                           nc_type xtype, void *buf)
{
    switch (xtype)
    {
    case PIO_BYTE: return PIOc_get_vars_schar(ncid, varid, start, count, stride, buf);
    case PIO_CHAR: return PIOc_get_vars_text(ncid, varid, start, count, stride, buf);
    case PIO_SHORT: return PIOc_get_vars_short(ncid, varid, start, count, stride, buf);
    case PIO_INT: return PIOc_get_vars_int(ncid, varid, start, count, stride, buf);
    case PIO_LONG_INTERNAL: return PIOc_get_vars_long(ncid, varid, start, count, stride, buf);
    case PIO_FLOAT: return PIOc_get_vars_float(ncid, varid, start, count, stride, buf);
    case PIO_DOUBLE: return PIOc_get_vars_double(ncid, varid, start, count, stride, buf);
    default: return PIO_EBADTYPE;
    }
}
