# Adds the ctest `style.clang_format`: every tracked C++ file must already be
# formatted by clang-format-19 (the project's .clang-format). Skipped, with a
# message, when clang-format-19 is not installed.
find_program(CLANG_FORMAT_19 clang-format-19)
if(CLANG_FORMAT_19)
  add_test(NAME style.clang_format
           COMMAND ${CMAKE_SOURCE_DIR}/scripts/check-format ${CLANG_FORMAT_19}
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
else()
  message(STATUS "clang-format-19 not found: style.clang_format test skipped")
endif()
