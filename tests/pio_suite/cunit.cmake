# PIO's C tests (tests/cunit), each run at the 4 ranks it targets (TARGET_NTASKS; PIO's own
# run_tests.sh runs them at 4, its CMake at 5 with one idle rank to show a larger
# communicator is split). The pioc ones also need test_shared.c, which test_common.c's
# library holds.
set(pio_cunit_tests test_simple test_darray_frame test_decomp_frame test_darray_fill
  test_darray_multi test_darray_multivar test_darray_multivar2 test_darray_multivar3 test_darray
  test_darray_append test_pioc_putget test_pioc_fill)
set(cunit "${pio_src}/tests/cunit")

# test_darray_multivar checks PnetCDF itself with ncmpi_* calls (the real PIO links PnetCDF).
pkg_check_modules(PNETCDF IMPORTED_TARGET pnetcdf)

# The tests' shared helpers, once for all (a static library: each program takes what it uses).
add_library(pio_suite_common STATIC ${cunit}/test_common.c ${cunit}/test_shared.c ${pio_shim})
target_include_directories(pio_suite_common BEFORE PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include
  ${cunit})
target_link_libraries(pio_suite_common PUBLIC ${pio_c_library} MPI::MPI_C)
# PIO compiles its tests as C99 (tests/cunit/CMakeLists.txt); their warnings are PIO's.
set_target_properties(pio_suite_common PROPERTIES C_STANDARD 99 C_EXTENSIONS ON)
target_compile_options(pio_suite_common PUBLIC -w)
# In a sanitizer build (make test-asan): test_darray.c declares an array of a length that may be
# 0 (line 90), which UBSan stops on; PIO's code, not the library under test. With that one
# check off, all 12 pass under ASan + UBSan, leak checks included, against the real PIO.
if(TAPIO_SANITIZE MATCHES "undefined")
  target_compile_options(pio_suite_common PUBLIC -fno-sanitize=vla-bound)
endif()

foreach(test IN LISTS pio_cunit_tests)
  if(test STREQUAL "test_darray_multivar" AND NOT PNETCDF_FOUND)
    message(STATUS "pio_suite: ${test} is not built: it calls PnetCDF itself and PnetCDF "
      "(Debian libpnetcdf-dev) was not found")
    continue()
  endif()
  add_executable(pio_${test} ${cunit}/${test}.c)
  set_target_properties(pio_${test} PROPERTIES OUTPUT_NAME ${test} C_STANDARD 99
    C_EXTENSIONS ON)
  target_link_libraries(pio_${test} PRIVATE pio_suite_common)
  if(test STREQUAL "test_darray_multivar")
    target_link_libraries(pio_${test} PRIVATE PkgConfig::PNETCDF)
  endif()
  pio_suite_add_test(cunit.${test}.np4 pio_${test} 4)
endforeach()
message(STATUS "pio_suite: PIO's C tests against ${pio_c_library}")
