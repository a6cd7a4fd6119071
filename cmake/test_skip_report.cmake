# CTest entry skip_report: a skipped test must not read as passed. Runs the scene executable's sample
# group against a sample folder that does not exist and checks that it exits 77 (CTest's
# SKIP_RETURN_CODE), that it recorded each skipped test with its reason, and that the summary `make
# test` prints names them.   cmake -DEXE=<test_scene> -DSOURCE=<source dir> -DWORK=<scratch dir> -P this
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env --unset=ORRERY_REQUIRE_ASSETS ORRERY_ASSETS=${WORK}/no-such-folder
          ORRT_GROUPS=samples ORRERY_SKIP_LOG=${WORK}/scene_samples.txt ${EXE}
  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(NOT rc EQUAL 77)
  message(FATAL_ERROR "the sample tests without their folder exited ${rc}, not 77 (skipped)")
endif()
if(NOT EXISTS "${WORK}/scene_samples.txt")
  message(FATAL_ERROR "no skip was recorded in ${WORK}/scene_samples.txt")
endif()
file(STRINGS "${WORK}/scene_samples.txt" lines)
list(LENGTH lines n)
if(n LESS 1)
  message(FATAL_ERROR "no skip was recorded in ${WORK}/scene_samples.txt")
endif()
foreach(line ${lines})
  if(NOT line MATCHES "^test_[a-z_]+: sample models not found at ${WORK}/no-such-folder")
    message(FATAL_ERROR "skip record '${line}' does not name the test and the missing folder")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -DDIR=${WORK} -P ${SOURCE}/cmake/skipped.cmake
                ERROR_VARIABLE summary RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT summary MATCHES "SKIPPED in scene_samples: ${n} test\\(s\\): test_valid_models_load")
  message(FATAL_ERROR "the summary does not name the skipped tests:\n${summary}")
endif()
# and the same executable, with its folder present, passes (exit 0): 77 means a skip, nothing else
if(EXISTS "${ASSETS}/gltf-invalid/index.json")
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ORRERY_ASSETS=${ASSETS} ORRT_GROUPS=samples
                          ORRERY_SKIP_LOG=${WORK}/present.txt ${EXE}
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the sample tests with their folder exited ${rc}, not 0")
  endif()
endif()
file(REMOVE_RECURSE "${WORK}")
message("skip reporting: ${n} skipped tests recorded, exit 77, summary names them")
