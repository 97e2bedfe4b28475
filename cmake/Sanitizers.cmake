# ANYSHAPE_SANITIZE: OFF, address (ASan and UBSan) or thread (TSan), for
# the whole build (ON means address, as before the thread mode). The
# suite under each is scripts/test-sanitizers (CI runs the address one).
#
# ANYSHAPE_SANITIZE_COMPILER=OFF leaves the MLIR passes (ir/dhlo,
# ir/import, codegen/) uninstrumented: half the build's compile time,
# and 1.4x that under ASan, for code the sanitizers see least of (it runs
# once per compile, on one thread, over MLIR's own uninstrumented data
# structures). CI builds that way to stay well under its hour; only a
# full build by hand (scripts/test-sanitizers --full) instruments them.
set(ANYSHAPE_SANITIZE OFF CACHE STRING
    "OFF, address (ASan and UBSan) or thread (TSan)")
option(ANYSHAPE_SANITIZE_COMPILER
       "Instrument the MLIR passes too (with ANYSHAPE_SANITIZE)" ON)

set(ANYSHAPE_SANITIZER_FLAGS "")
if(ANYSHAPE_SANITIZE STREQUAL "address" OR ANYSHAPE_SANITIZE STREQUAL "ON")
  set(ANYSHAPE_SANITIZER_FLAGS -fsanitize=address,undefined
      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
elseif(ANYSHAPE_SANITIZE STREQUAL "thread")
  # gRPC's and TBB's inline header code is left uninstrumented, as their
  # libraries are (the list says why). The compiler reads a copy named by
  # the list's digest: ccache hashes neither the list's content nor -D
  # flags (they vanish in its preprocessed input), only this path, so an
  # edited list must change it or ccache serves objects built without it.
  set(ignorelist ${CMAKE_SOURCE_DIR}/tests/sanitizers/tsan-ignorelist.txt)
  file(SHA1 ${ignorelist} ignorelist_digest)
  set(ignorelist_copy
      ${CMAKE_BINARY_DIR}/tsan-ignorelist-${ignorelist_digest}.txt)
  configure_file(${ignorelist} ${ignorelist_copy} COPYONLY)
  set(ANYSHAPE_SANITIZER_FLAGS -fsanitize=thread
      -fsanitize-ignorelist=${ignorelist_copy})
  add_link_options(-fsanitize=thread)
elseif(ANYSHAPE_SANITIZE)
  message(FATAL_ERROR "ANYSHAPE_SANITIZE is '${ANYSHAPE_SANITIZE}': "
                      "OFF, address or thread")
endif()
if(ANYSHAPE_SANITIZER_FLAGS)
  add_compile_options(${ANYSHAPE_SANITIZER_FLAGS} -fno-omit-frame-pointer)
endif()

# Called in a directory's CMakeLists.txt: its targets, and those of the
# directories it adds afterwards, compile without the sanitizer unless
# ANYSHAPE_SANITIZE_COMPILER is on (linking still uses the runtime).
function(anyshape_compiler_passes_directory)
  if(NOT ANYSHAPE_SANITIZER_FLAGS OR ANYSHAPE_SANITIZE_COMPILER)
    return()
  endif()
  get_property(options DIRECTORY PROPERTY COMPILE_OPTIONS)
  list(REMOVE_ITEM options ${ANYSHAPE_SANITIZER_FLAGS})
  set_property(DIRECTORY PROPERTY COMPILE_OPTIONS ${options})
endfunction()
