/* tapio: shared C definitions (status codes, element types). Part of the stable C ABI. */
#ifndef TAPIO_TYPES_H
#define TAPIO_TYPES_H

#ifdef __cplusplus
extern "C" {
#endif

/* Every tapio call returns one of these. TAPIO_OK is 0; errors are positive so that a
 * reduction with MAX across ranks yields "the worst" status. */
typedef enum tapio_status {
  TAPIO_OK = 0,
  TAPIO_ERR_ARG = 1,         /* bad argument: null handle, wrong rank of shape, ... */
  TAPIO_ERR_STATE = 2,       /* call not valid now: put outside a step, write in read mode */
  TAPIO_ERR_TYPE = 3,        /* element type does not match the variable */
  TAPIO_ERR_SHAPE = 4,       /* selection outside the shape, overlapping blocks, bad dims */
  TAPIO_ERR_NOT_FOUND = 5,   /* no such variable, attribute, step or file */
  TAPIO_ERR_CONFIG = 6,      /* config file or parameter invalid */
  TAPIO_ERR_IO = 7,          /* a system call failed */
  TAPIO_ERR_FORMAT = 8,      /* a file is not in the expected format, or is truncated */
  TAPIO_ERR_CHECKSUM = 9,    /* stored checksum does not match */
  TAPIO_ERR_MPI = 10,        /* an MPI call failed */
  TAPIO_ERR_NOMEM = 11,      /* allocation failed */
  TAPIO_ERR_UNSUPPORTED = 12,/* valid request that this engine or format cannot do */
  TAPIO_ERR_INTERNAL = 13,   /* a bug in tapio: please report */
  TAPIO_ERR_RANGE = 14       /* a value does not fit the type it is converted to (NC_ERANGE) */
} tapio_status;

/* Element types. Values are stable ABI. */
typedef enum tapio_type {
  TAPIO_INT8 = 1,
  TAPIO_UINT8 = 2,
  TAPIO_INT16 = 3,
  TAPIO_UINT16 = 4,
  TAPIO_INT32 = 5,
  TAPIO_UINT32 = 6,
  TAPIO_INT64 = 7,
  TAPIO_UINT64 = 8,
  TAPIO_FLOAT32 = 9,
  TAPIO_FLOAT64 = 10,
  TAPIO_CHAR = 11
} tapio_type;

#ifdef __cplusplus
}
#endif
#endif
