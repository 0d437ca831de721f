# Unit tests live beside the code they test (src/<layer>/*_test.cpp) and register here.
include_guard(GLOBAL)
find_package(GTest REQUIRED)

# Test-only code (test programs, their helpers) compiles at -O1 with line tables only (-g1)
# in the default RelWithDebInfo build: about half the CPU time of -O2 -g for a GoogleTest file
# (core's convert_test.cpp 14.9 s -> 6.1 s, roundtrip_test.cpp 8.7 s -> 4.5 s), which is most
# of a cold build; backtraces still name files and lines. The library keeps its flags.
set(TAPIO_TEST_COMPILE_OPTIONS $<$<CONFIG:RelWithDebInfo>:-O1> $<$<CONFIG:RelWithDebInfo>:-g1>)

# A test's timeout in seconds, scaled by TAPIO_TEST_TIMEOUT_SCALE (3 in sanitized builds).
function(tapio_test_timeout out seconds)
  set(scale 1)
  if(TAPIO_TEST_TIMEOUT_SCALE)
    set(scale ${TAPIO_TEST_TIMEOUT_SCALE})
  endif()
  math(EXPR scaled "${seconds} * ${scale}")
  set(${out} ${scaled} PARENT_SCOPE)
endfunction()

# The environment that makes a GoogleTest program of ctest's test `name` write its XML report
# (each case passed, failed or skipped, with the reason) where make test's list of skipped
# tests reads it (tests/skipped_tests.py): a skipped case passes as far as ctest can tell.
function(tapio_gtest_report out name)
  set(${out} "GTEST_OUTPUT=xml:${PROJECT_BINARY_DIR}/test-results/gtest/${name}.xml" PARENT_SCOPE)
endfunction()

# Under AddressSanitizer, tests/sanitizers/env.sh unwinds every allocation's stack in full
# (DWARF): Open MPI's libraries have no frame pointers, and only a full stack reaches the library
# that leaked for lsan.supp to match. That unwinding is most of a sanitized test's time
# (plan_test 79 s against 9.5 s). It is needed only where leaks are checked in a process that
# starts MPI: a program with no MPI unwinds by frame pointers and still checks leaks; an MPI
# program checks leaks at one rank count (tests/CMakeLists.txt: its first of two ranks or more),
# and at its others unwinds by frame pointers without a leak check (memory errors are still
# caught and still have stacks).
# The ctest property (ENVIRONMENT_MODIFICATION, CMake 3.22; older CMake ignores it and these
# tests run with full unwinding) appends to env.sh's options, where a later option wins.
function(tapio_sanitizer_env out kind)
  set(append "")
  if(TAPIO_SANITIZE MATCHES "address")
    if(kind STREQUAL "no_mpi")
      set(append "ASAN_OPTIONS=string_append::fast_unwind_on_malloc=1")
    elseif(kind STREQUAL "mpi_no_leak_check")
      set(append "ASAN_OPTIONS=string_append::fast_unwind_on_malloc=1:detect_leaks=0")
    endif()
  endif()
  set(${out} "${append}" PARENT_SCOPE)
endfunction()

# tapio_add_unit_test(NAME name SOURCES a_test.cpp ... LIBS tapio_x ...)
function(tapio_add_unit_test)
  cmake_parse_arguments(T "" "NAME" "SOURCES;LIBS" ${ARGN})
  add_executable(${T_NAME} ${T_SOURCES})
  target_compile_options(${T_NAME} PRIVATE ${TAPIO_TEST_COMPILE_OPTIONS})
  # One translation unit per 8 test files: each file's cost is mostly parsing GoogleTest and
  # the headers it tests (plan_test's 11 files: 21.7 s of CPU apart, 6.9 s together).
  set_target_properties(${T_NAME} PROPERTIES UNITY_BUILD ON)
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main)
  target_compile_definitions(${T_NAME} PRIVATE
    TAPIO_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    TAPIO_SHARED_DIR="${PROJECT_SOURCE_DIR}/../shared")
  add_test(NAME unit.${T_NAME} COMMAND ${T_NAME})
  tapio_test_timeout(timeout 120)
  tapio_gtest_report(report unit.${T_NAME})
  tapio_sanitizer_env(unwind no_mpi)
  set_tests_properties(unit.${T_NAME} PROPERTIES TIMEOUT ${timeout} LABELS unit
    ENVIRONMENT ${report} ENVIRONMENT_MODIFICATION "${unwind}")
endfunction()
