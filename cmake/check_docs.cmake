# docs_warnings: the API reference builds from the headers with no doxygen warning, and a warning
# fails it. Runs build/docs/Doxyfile as `make docs` does, then the same settings on one header with a
# broken reference, which must fail naming it.
#   cmake -DDOXYGEN=doxygen -DDOXYFILE=build/docs/Doxyfile -DWORK=build/docs_check -P cmake/check_docs.cmake
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/input")
file(READ "${DOXYFILE}" settings)
# the headers: no warning, exit 0 (into WORK, so that the real docs are not touched)
file(WRITE "${WORK}/Doxyfile.headers" "${settings}\nOUTPUT_DIRECTORY = ${WORK}/headers\n")
execute_process(COMMAND "${DOXYGEN}" "${WORK}/Doxyfile.headers" RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(NOT rc EQUAL 0 OR err MATCHES "warning")
  message(FATAL_ERROR "docs_warnings: doxygen on the headers: exit ${rc}\n${err}")
endif()
# a header with a warning: exit non-zero, the warning said
file(WRITE "${WORK}/input/broken.h" "/* A header whose comment refers to what does not exist. */\n"
           "/* Frobs: see \\ref orr_no_such_thing. */\nint orr_frob(int x);\n")
file(WRITE "${WORK}/Doxyfile.broken"
     "${settings}\nINPUT = ${WORK}/input\nOUTPUT_DIRECTORY = ${WORK}/broken\n")
execute_process(COMMAND "${DOXYGEN}" "${WORK}/Doxyfile.broken" RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(rc EQUAL 0 OR NOT err MATCHES "orr_no_such_thing")
  message(FATAL_ERROR "docs_warnings: a header with a broken reference did not fail the docs (exit ${rc}):\n${err}")
endif()
message(STATUS "docs_warnings: the headers build clean; a broken reference fails (exit ${rc})")
