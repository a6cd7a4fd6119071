# Runs the deferred example and checks its two images: forward (the built-in look: a red cube, a green
# sphere, a blue cube, left to right, on a grey ground) and deferred (a G-buffer, a lighting compute
# pass, a full-screen pass, in place of the view's built-in passes). The deferred image must draw the
# same pixels as the forward one and agree with it within the stated tolerance: no channel of a drawn
# pixel off by more than 8 of 255, at most 1% of them off by more than 2, a mean difference under 1
# level. The G-buffer draws exactly as many draw calls as the forward passes (it replaced them).
#   cmake -DEXE=<deferred> -DPNG_CHECK=<png_check> -DWORK=<folder> [-DVALIDATION=ON] -P check.cmake
cmake_minimum_required(VERSION 3.25)
include("${CMAKE_CURRENT_LIST_DIR}/../check/png.cmake")
run_example(deferred 2 --size 320x200 --out "${WORK}")
list(GET lines 0 forward)
list(GET lines 1 deferred)
string(JSON forward_calls GET "${forward}" draw_calls)
string(JSON forward_drawn GET "${forward}" drawn)
string(JSON forward_png GET "${forward}" png)
string(JSON deferred_calls GET "${deferred}" draw_calls)
string(JSON deferred_drawn GET "${deferred}" drawn)
string(JSON compared GET "${deferred}" compared)
string(JSON worst GET "${deferred}" max_diff)
string(JSON off GET "${deferred}" off_by_more_than_2)
string(JSON mean GET "${deferred}" mean_diff_x1000)
string(JSON deferred_png GET "${deferred}" png)
foreach(png "${forward_png}" "${deferred_png}")
  png_figures("${png}" f)
  if(NOT f_width EQUAL 320 OR NOT f_height EQUAL 200)
    message(FATAL_ERROR "${png}: ${f_width}x${f_height}, expected 320x200")
  endif()
  # not blank: each object in its colour, left to right
  foreach(c red green blue)
    expect_range("${png}: ${c} pixels" ${f_${c}_count} 500 20000)
  endforeach()
  math(EXPR lo "${f_red_x100} + 3000")
  expect_range("${png}: green centroid x (1/100 px)" ${f_green_x100} ${lo} 32000)
  math(EXPR lo "${f_green_x100} + 3000")
  expect_range("${png}: blue centroid x (1/100 px)" ${f_blue_x100} ${lo} 32000)
endforeach()
expect_range("forward: drawn pixels" ${forward_drawn} 20000 64000)
expect_range("deferred: drawn pixels" ${deferred_drawn} ${forward_drawn} ${forward_drawn})
expect_range("deferred: draw calls (the G-buffer's, in the forward passes' place)" ${deferred_calls} ${forward_calls}
             ${forward_calls})
expect_range("deferred: largest channel difference from forward" ${worst} 0 8)
math(EXPR most_off "${compared} / 100")
expect_range("deferred: pixels off by more than 2 of 255" ${off} 0 ${most_off})
expect_range("deferred: mean difference (1/1000 of a level)" ${mean} 0 999)
message("deferred: ${compared} drawn pixels compared with forward: largest difference ${worst}, ${off} off by "
        "more than 2, mean ${mean}/1000 of a level; ${deferred_calls} draw calls as forward")
