# pkgconfig: the package files name their dependencies by -l NAME (and -L DIR), never by a library file
# (an absolute path, a versioned name such as libdraco.so.7.0.0), so that they hold after an upgrade of
# a dependency and on another machine.   cmake -DDIR=build/pkgconfig -P cmake/check_pkgconfig.cmake
file(GLOB pcs "${DIR}/*.pc")
if(NOT pcs)
  message(FATAL_ERROR "pkgconfig: no .pc files in ${DIR}")
endif()
foreach(pc ${pcs})
  file(STRINGS "${pc}" lines REGEX "^Libs")
  foreach(line ${lines})
    if(line MATCHES "\\.so|\\.a( |$)|(^|: | )/")
      message(FATAL_ERROR "pkgconfig: ${pc}: '${line}' names a library file instead of -l NAME")
    endif()
    message(STATUS "${pc}: ${line}")
  endforeach()
endforeach()
