# Writes BuildId.h with the git commit of the source tree (plus "-dirty"
# when it has uncommitted changes), rewriting it only when the id changes
# so that unchanged builds stay cached. Run at every build by the
# anyshape_build_id target: the compile cache key includes this id, so an
# object compiled by other code is never served.
execute_process(COMMAND git -C ${SOURCE_DIR} rev-parse HEAD
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE failed ERROR_QUIET)
if(failed)
  set(commit "unknown")
else()
  execute_process(COMMAND git -C ${SOURCE_DIR} status --porcelain
                          --untracked-files=no
                  OUTPUT_VARIABLE changes ERROR_QUIET)
  if(NOT changes STREQUAL "")
    string(TIMESTAMP now "%s")
    set(commit "${commit}-dirty-${now}")
  endif()
endif()
set(content "#pragma once\n#define ANYSHAPE_BUILD_ID \"${commit}\"\n")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} old)
endif()
if(NOT old STREQUAL content)
  file(WRITE ${OUTPUT} "${content}")
endif()
