# PIO's benchmark, tests/performance/pioperformance.F90, unmodified, built with its read path
# (-DDOREAD) against the chosen library: scripts/bench_pio.py runs it (make bench-pio). The
# timing module it uses (perf_mod: GPTL's) comes with the real PIO; against tapio a small stub
# on MPI_Wtime stands in for it (perf_mod_stub.F90), the one part swapped.
set(perf_src "${pio_src}/tests/performance/pioperformance.F90")
add_executable(pio_pioperf ${perf_src})
set_target_properties(pio_pioperf PROPERTIES OUTPUT_NAME pioperf
  Fortran_MODULE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/pioperf_mod)
target_compile_definitions(pio_pioperf PRIVATE DOREAD)
target_compile_options(pio_pioperf PRIVATE -ffree-line-length-none -w)
target_include_directories(pio_pioperf PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/include)
target_link_libraries(pio_pioperf PRIVATE ${pio_fortran_library} MPI::MPI_Fortran)
if(TAPIO_PIO_SUITE_LIBRARY STREQUAL "tapio")
  add_library(pio_perf_mod_stub STATIC perf_mod_stub.F90)
  target_link_libraries(pio_perf_mod_stub PUBLIC MPI::MPI_Fortran)
  set_target_properties(pio_perf_mod_stub PROPERTIES Fortran_MODULE_DIRECTORY
    ${CMAKE_CURRENT_BINARY_DIR}/perf_mod_stub)
  target_include_directories(pio_perf_mod_stub PUBLIC ${CMAKE_CURRENT_BINARY_DIR}/perf_mod_stub)
  target_link_libraries(pio_pioperf PRIVATE pio_perf_mod_stub)
else()
  # The real PIO's Fortran PIO_set_hint passes unterminated strings (pio_set_hint_fix.c).
  target_sources(pio_pioperf PRIVATE pio_set_hint_fix.c)
  target_link_options(pio_pioperf PRIVATE -Wl,--wrap=__piolib_mod_MOD_pio_set_hint)
endif()
message(STATUS "pio_suite: PIO's pioperformance against ${pio_fortran_library}")
