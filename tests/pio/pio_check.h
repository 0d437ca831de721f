/* What the PIO test programs share: a count of failures, CHECK (a call that must succeed; its
 * error's text is printed), EXPECT (a call that must return a given code), start (the
 * program's beginning) and finish (its end). */
#ifndef TAPIO_TESTS_PIO_CHECK_H
#define TAPIO_TESTS_PIO_CHECK_H
#include <pio.h>
#include <stdio.h>

static int failures = 0;

#define CHECK(call)                                                                 \
  do {                                                                              \
    int st_ = (call);                                                               \
    if (st_) {                                                                      \
      char text_[PIO_MAX_NAME + 1];                                                 \
      PIOc_strerror(st_, text_);                                                    \
      fprintf(stderr, "%s:%d: %s: %d %s\n", __FILE__, __LINE__, #call, st_, text_); \
      failures++;                                                                   \
    }                                                                               \
  } while (0)

#define EXPECT(call, code)                                                                \
  do {                                                                                    \
    int got_ = (call);                                                                    \
    if (got_ != (code)) {                                                                 \
      fprintf(stderr, "%s:%d: %s gave %d, expected %d\n", __FILE__, __LINE__, #call, got_, \
              (code));                                                                    \
      failures++;                                                                         \
    }                                                                                     \
  } while (0)

/* MPI up, this task's rank and the task count, PIO errors returned to the caller; with fewer
 * than `args` arguments, "usage: PROGRAM USAGE" and every task stops. */
static inline void start(int* argc, char*** argv, const char* program, int args,
                         const char* usage, int* rank, int* ntasks) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, ntasks);
  if (*argc < args + 1) {
    fprintf(stderr, "usage: %s %s\n", program, usage);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  CHECK(PIOc_set_iosystem_error_handling(PIO_DEFAULT, PIO_RETURN_ERROR, NULL));
}

/* Every task's failures summed; task 0 prints "PROGRAM OK" or "PROGRAM FAILED" (what the
 * ctest and pytest runs look for); MPI finalized; the exit status. */
static int finish(const char* program) {
  int rank, all = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("%s %s\n", program, all ? "FAILED" : "OK");
  MPI_Finalize();
  return all ? 1 : 0;
}

#endif
