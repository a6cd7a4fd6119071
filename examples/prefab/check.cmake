# Runs the prefab example and checks each step against what it promises:
#   parented  the child keeps its world pose (x = 2, scale 0.5) under Parent_Instance;
#   moved     its local position zeroed, it sits at the parent's origin, still at scale 0.5;
#   both      the parent draws blue (its cloned material), the child the prefab's orange-red (the
#             shared material is untouched);
# and in the PNGs: a blue cube (the parent's) and a red one (the child's), the red one to the right
# of the blue one after parenting, and straight below it (same x, lower) once moved.
#   cmake -DEXE=<prefab> -DPNG_CHECK=<png_check> -DSOURCE=<repository> -DWORK=<folder> [-DVALIDATION=ON]
#         -P check.cmake
cmake_minimum_required(VERSION 3.25)
include("${CMAKE_CURRENT_LIST_DIR}/../check/png.cmake")
run_example(prefab 2 --model "${SOURCE}/examples/prefab/pawn.gltf" --out "${WORK}" --size 320x240)

# A number as printed (6 or 3 decimals) to an integer in those units: "-2.500000" -> -2500000.
function(fixed value out)
  string(REPLACE "." "" v "${value}")
  string(REGEX MATCH "^(-?)0*([0-9]+)$" v "${v}") # leading zeros off (REGEX REPLACE would repeat)
  set(${out} "${CMAKE_MATCH_1}${CMAKE_MATCH_2}" PARENT_SCOPE)
endfunction()
# The numbers of one instance's "world", "scale" and "color" in a line (as printed, not reformatted).
function(instance line name)
  set(num "(-?[0-9]+\\.[0-9]+)")
  if(NOT line MATCHES "\"${name}\": {\"world\": \\[${num}, ${num}, ${num}\\], \"scale\": ${num}, \"parent\": \"([^\"]*)\", \"color\": \\[${num}, ${num}, ${num}\\]}")
    message(FATAL_ERROR "no ${name} in ${line}")
  endif()
  set(i 1)
  foreach(field x y z scale parent r g b)
    set(v "${CMAKE_MATCH_${i}}")
    if(NOT field STREQUAL "parent")
      fixed("${v}" v)
    endif()
    set(${name}_${field} "${v}" PARENT_SCOPE)
    math(EXPR i "${i} + 1")
  endforeach()
endfunction()
function(expect what got want)
  if(NOT "${got}" STREQUAL "${want}")
    message(FATAL_ERROR "${what}: ${got}, expected ${want}")
  endif()
endfunction()

foreach(k 0 1)
  list(GET lines ${k} line)
  string(JSON step GET "${line}" step)
  string(JSON png GET "${line}" png)
  instance("${line}" Parent_Instance)
  instance("${line}" Child_Instance)
  # the parent: at the origin, a root, drawn blue (1/1000 units for colours)
  expect("${step}: parent position (um)" "${Parent_Instance_x} ${Parent_Instance_y} ${Parent_Instance_z}" "0 0 0")
  expect("${step}: parent scale" "${Parent_Instance_scale}" 1000000)
  expect("${step}: parent's parent" "${Parent_Instance_parent}" "")
  expect("${step}: parent colour" "${Parent_Instance_r} ${Parent_Instance_g} ${Parent_Instance_b}" "0 0 1000")
  # the child: under the parent, half size, the prefab's own paint
  expect("${step}: child's parent" "${Child_Instance_parent}" Parent_Instance)
  expect("${step}: child scale" "${Child_Instance_scale}" 500000)
  expect("${step}: child colour" "${Child_Instance_r} ${Child_Instance_g} ${Child_Instance_b}" "850 200 100")
  png_figures("${png}" f)
  expect("${png}: size" "${f_width}x${f_height}" 320x240)
  expect_range("${png}: blue pixels" ${f_blue_count} 300 60000)
  expect_range("${png}: red pixels" ${f_red_count} 100 60000)
  if(k EQUAL 0)
    expect("parented: step" "${step}" parented)
    expect("parented: child position kept (um)" "${Child_Instance_x} ${Child_Instance_y} ${Child_Instance_z}" "2000000 0 0")
    # the child's cube to the right of the parent's, by more than 60 pixels
    math(EXPR lo "${f_blue_x100} + 6000")
    expect_range("${png}: red centroid x (1/100 px)" ${f_red_x100} ${lo} 32000)
    set(blue_x ${f_blue_x100})
    set(blue_y ${f_blue_y100})
  else()
    expect("moved: step" "${step}" moved)
    expect("moved: child at the parent's origin (um)" "${Child_Instance_x} ${Child_Instance_y} ${Child_Instance_z}" "0 0 0")
    # the same camera: the parent's cube has not moved, the child's is now straight below it
    math(EXPR lo "${blue_x} - 50")
    math(EXPR hi "${blue_x} + 50")
    expect_range("${png}: blue centroid x (1/100 px)" ${f_blue_x100} ${lo} ${hi})
    math(EXPR lo "${blue_y} - 50")
    math(EXPR hi "${blue_y} + 50")
    expect_range("${png}: blue centroid y (1/100 px)" ${f_blue_y100} ${lo} ${hi})
    # (within 10 pixels: perspective and the parent's overhang show its faces off-centre; it stood
    # 125 pixels to the right before)
    math(EXPR lo "${f_blue_x100} - 1000")
    math(EXPR hi "${f_blue_x100} + 1000")
    expect_range("${png}: red centroid x (1/100 px)" ${f_red_x100} ${lo} ${hi})
    math(EXPR lo "${f_blue_y100} + 2000")
    expect_range("${png}: red centroid y (1/100 px)" ${f_red_y100} ${lo} 24000)
  endif()
endforeach()
message("prefab: the child kept its world pose when parented, then moved to the parent's origin; only the parent is blue")
