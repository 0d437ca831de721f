# Sourced (POSIX sh) from the repository's root by make test-asan / make test-tsan: the
# sanitizers' options for every process the suite starts (ctest's MPI tests through mpiexec,
# pytest's tools), with the suppressions of this folder. POSIX sh passes no arguments to a
# sourced file, hence the variable.
# Usage: TAPIO_SANITIZE=address,undefined (or thread); . tests/sanitizers/env.sh
here="$(pwd)/tests/sanitizers"
case "$TAPIO_SANITIZE" in
  *address*)
    # Open MPI keeps memory until exit on purpose (lsan.supp); the rest must be clean. Its
    # plugins stay loaded at exit so that leak reports name them (unloaded, every frame of
    # theirs is an <unknown module> no suppression can match).
    export OMPI_MCA_mca_base_component_disable_dlclose=1
    # Full unwinding at malloc: Open MPI's libraries have no frame pointers, so the fast
    # unwinder stops in them and the suppressions never see the library that leaked.
    export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:fast_unwind_on_malloc=0"
    export LSAN_OPTIONS="suppressions=$here/lsan.supp:print_suppressions=0"
    export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
    ;;
  *thread*)
    export TSAN_OPTIONS="suppressions=$here/tsan.supp:halt_on_error=1:second_deadlock_stack=1"
    ;;
esac
