# Helpers for the examples' checks (include()d by their check.cmake): png_check's figures for one
# PNG, and centroids as integers (CMake's math is integer).
#   png_figures(FILE PREFIX)   sets PREFIX_width, PREFIX_height and, for red, green and blue,
#                              PREFIX_<colour>_count, PREFIX_<colour>_x100, PREFIX_<colour>_y100 (the
#                              centroid in hundredths of a pixel; -100 when the colour is absent)
# Needs PNG_CHECK (the png_check executable).
function(png_figures file prefix)
  if(NOT EXISTS "${file}")
    message(FATAL_ERROR "${file}: the example did not write it")
  endif()
  execute_process(COMMAND ${PNG_CHECK} ${file} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "png_check ${file}: exit ${rc}: ${err}")
  endif()
  string(JSON w GET "${out}" width)
  string(JSON h GET "${out}" height)
  set(${prefix}_width ${w} PARENT_SCOPE)
  set(${prefix}_height ${h} PARENT_SCOPE)
  foreach(c red green blue)
    string(JSON n GET "${out}" ${c} count)
    set(${prefix}_${c}_count ${n} PARENT_SCOPE)
    foreach(axis x y)
      string(JSON v GET "${out}" ${c} ${axis}100)
      set(${prefix}_${c}_${axis}100 ${v} PARENT_SCOPE)
    endforeach()
  endforeach()
  message("${out}")
endfunction()

# Fails unless `value` lies within lo..hi (integers).
function(expect_range what value lo hi)
  if(value LESS lo OR value GREATER hi)
    message(FATAL_ERROR "${what} is ${value}, expected ${lo}..${hi}")
  endif()
endfunction()

# Runs example NAME (EXE, in a fresh WORK folder; --validation added when VALIDATION is on) with the
# arguments after `expected`, prints its output and sets `lines` in the caller to its lines, which must
# be `expected` of them (one per frame or step).
function(run_example name expected)
  file(REMOVE_RECURSE "${WORK}")
  file(MAKE_DIRECTORY "${WORK}")
  set(args ${ARGN})
  if(VALIDATION)
    list(APPEND args --validation)
  endif()
  execute_process(COMMAND ${EXE} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name} ${args}: exit ${rc}: ${err}")
  endif()
  message("${out}")
  string(REGEX REPLACE "\n$" "" out "${out}")
  string(REPLACE "\n" ";" got "${out}")
  list(LENGTH got n)
  if(NOT n EQUAL expected)
    message(FATAL_ERROR "${name}: ${n} lines, expected ${expected}")
  endif()
  set(lines "${got}" PARENT_SCOPE)
endfunction()
