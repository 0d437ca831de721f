/* PIO 2.7.0's Fortran PIO_set_hint hands its character arguments to PIOc_set_hint with no
 * terminating NUL, so the C side reads the key on into whatever the compiler put after it
 * (in pioperformance built with gfortran: "nc_var_align_sizeWriting rundate to file", longer
 * than MPI_MAX_INFO_KEY, and MPI_Info_set aborts the run). pioperformance is linked with
 * -Wl,--wrap on that module procedure, so this one runs instead: the same call, with the
 * strings terminated. gfortran's convention: arguments by address, then the length of each
 * character argument; iosystem_desc_t holds only the iosysid. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

int PIOc_set_hint(int iosysid, const char *hint, const char *hintval);

void __wrap___piolib_mod_MOD_pio_set_hint(const int *iosysid, const char *hint,
                                          const char *hintval, size_t hint_len,
                                          size_t hintval_len)
{
    char *key = strndup(hint, hint_len);
    char *value = strndup(hintval, hintval_len);
    if (key && value)
        PIOc_set_hint(*iosysid, key, value);
    free(key);
    free(value);
}
