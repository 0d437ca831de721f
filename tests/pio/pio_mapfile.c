/* PIO's text decomposition files: PIOc_writemap then PIOc_readmap give every task its map
 * back; a file written for more tasks than run is PIO_EINVAL on every task. Usage:
 * pio_mapfile PATH [FOREIGN_FILE]: FOREIGN_FILE is a map for more tasks (E3SM's 16-task
 * piodecomp*.dat). Prints "pio_mapfile OK" on success. */
#include "pio_check.h"

int main(int argc, char** argv) {
  int rank, ntasks;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ntasks);
  PIOc_set_iosystem_error_handling(PIO_DEFAULT, PIO_RETURN_ERROR, NULL);
  int gdims[2] = {3, 4 * ntasks};
  PIO_Offset map[5];
  const PIO_Offset maplen = rank % 2 ? 5 : 3; /* lengths differ between tasks */
  for (int i = 0; i < maplen; i++) map[i] = i == 1 ? 0 : rank * 5 + i + 1; /* one hole */
  if (PIOc_writemap(argv[1], 2, gdims, maplen, map, MPI_COMM_WORLD)) failures++;
  int ndims = 0, *dims_in = NULL;
  PIO_Offset len_in = -1, *map_in = NULL;
  if (PIOc_readmap(argv[1], &ndims, &dims_in, &len_in, &map_in, MPI_COMM_WORLD)) failures++;
  if (ndims != 2 || dims_in[0] != 3 || dims_in[1] != 4 * ntasks || len_in != maplen ||
      memcmp(map_in, map, sizeof(PIO_Offset) * maplen)) {
    fprintf(stderr, "task %d: the map read back differs\n", rank);
    failures++;
  }
  free(dims_in);
  free(map_in);
  if (argc > 2 && PIOc_readmap(argv[2], &ndims, &dims_in, &len_in, &map_in, MPI_COMM_WORLD) !=
                      PIO_EINVAL) {
    fprintf(stderr, "task %d: a map for more tasks was taken\n", rank);
    failures++;
  }
  return finish("pio_mapfile");
}
