# Runs the README's example on examples/prefab/pawn.gltf (an orange-red cube 1.5 m above the origin)
# and checks the PNG it writes: 640x360, and the cube on it, a patch of red pixels near the middle of
# the picture (the camera looks at the model's centre), neither a speck nor the whole frame.
#   cmake -DEXE=<first_render> -DPNG_CHECK=<png_check> -DSOURCE=<repo> -DWORK=<folder> -P check.cmake
cmake_minimum_required(VERSION 3.25)
include("${CMAKE_CURRENT_LIST_DIR}/../check/png.cmake")
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(png "${WORK}/pawn.png")
execute_process(COMMAND ${EXE} "${SOURCE}/examples/prefab/pawn.gltf" "${png}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "first_render: exit ${rc}: ${err}")
endif()
if(NOT out STREQUAL "first_render: wrote ${png} (640x360)\n")
  message(FATAL_ERROR "first_render printed '${out}', expected the line naming ${png}")
endif()
png_figures("${png}" f)
if(NOT f_width EQUAL 640 OR NOT f_height EQUAL 360)
  message(FATAL_ERROR "${png}: ${f_width}x${f_height}, expected 640x360")
endif()
# the cube covers a good part of the frame (the camera frames its box) but not all of it
expect_range("${png}: red pixels" ${f_red_count} 20000 100000)
expect_range("${png}: red centroid x (1/100 px)" ${f_red_x100} 30000 34000)
expect_range("${png}: red centroid y (1/100 px)" ${f_red_y100} 15000 21000)
message("first_render: ${png} shows the model (${f_red_count} red pixels)")
