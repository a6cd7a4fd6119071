# readme_example: the C example the README shows is examples/first_render/main.c, the file the
# example_first_render test builds and runs, to the byte (so that the README cannot drift from code
# that compiles).
#   cmake -DSOURCE=<repo> -P cmake/check_readme.cmake
file(READ "${SOURCE}/README.md" readme)
file(READ "${SOURCE}/examples/first_render/main.c" example)
string(FIND "${readme}" "```c\n" start)
if(start EQUAL -1)
  message(FATAL_ERROR "readme_example: README.md has no ```c block")
endif()
math(EXPR start "${start} + 5")
string(SUBSTRING "${readme}" ${start} -1 rest)
string(FIND "${rest}" "```" end)
string(SUBSTRING "${rest}" 0 ${end} block)
if(NOT block STREQUAL example)
  message(FATAL_ERROR "readme_example: the README's C block differs from examples/first_render/main.c; "
                      "copy the file into the README")
endif()
message(STATUS "readme_example: the README shows examples/first_render/main.c")
