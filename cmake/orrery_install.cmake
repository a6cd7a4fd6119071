# The installed package: one library per layer (liborrery-core, -snapshot, -world, -scene, -draw, -gpu,
# -window; .a, or .so with -DBUILD_SHARED_LIBS=ON, each exporting only the orr_ functions), the public
# headers in include/orrery/, a CMake package (orrery::orrery, orrery::<library>, orrery::replay) and
# pkg-config files alike, the tool; and the checks that keep them honest: exports, layering, the
# examples, docs. Included at the end of CMakeLists.txt, after the modules (orrery_module) and the tests.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# ---- kinds of host: which modules each links (docs/architecture.md, Modules) ------------------------
# The in-tree examples and the layering test link these module sets, as a host links the installed
# libraries of the same name (orrery::world, orrery::scene, orrery::replay):
# world: a host that keeps and ticks worlds (entities, components, animation, sessions) and
#        never touches a GPU nor reads a glTF file: no Vulkan, no JSON, no image decoders, no Draco.
# scene: the world side with the glTF loader (and the decoders it links): a dedicated server that loads
#        models.
# replay: a host that renders snapshots (recorded or received) and never sees a world.
set(ORRERY_COMPONENT_world core assets world anim snapshot frame)
set(ORRERY_COMPONENT_scene ${ORRERY_COMPONENT_world} scene)
set(ORRERY_COMPONENT_replay core assets snapshot draw gpu)

get_property(orrery_all_modules GLOBAL PROPERTY ORRERY_MODULES)
get_property(orrery_compiled_modules GLOBAL PROPERTY ORRERY_MODULES_WITH_SOURCES)

# Every public header belongs to one module, so that it is staged (and installed) at all.
file(GLOB orrery_headers RELATIVE "${CMAKE_SOURCE_DIR}/include/orrery" CONFIGURE_DEPENDS
     "${CMAKE_SOURCE_DIR}/include/orrery/*.h")
get_property(orrery_staged GLOBAL PROPERTY ORRERY_STAGED_HEADERS)
set(orrery_unbuilt_headers "") # of optional modules this build leaves out: neither installed nor checked
if(NOT ORRERY_HAVE_WINDOW)
  list(APPEND orrery_unbuilt_headers window.h)
endif()
list(REMOVE_ITEM orrery_headers ${orrery_unbuilt_headers})
foreach(h ${orrery_headers})
  if(NOT h IN_LIST orrery_staged)
    message(FATAL_ERROR "include/orrery/${h} belongs to no module: name it in ORRERY_MODULE_HEADERS_<module> "
                        "(CMakeLists.txt), or name the header after its module")
  endif()
endforeach()

# ---- the libraries: one per layer ----------------------------------------------------------------
# Installed, each layer is a library of its own (liborrery-<name>.a, or .so with -DBUILD_SHARED_LIBS=ON),
# built from its modules' objects and linking only the layers below it and its own system libraries, so
# that a host loads what it uses and nothing else (a shared world host maps no Vulkan, no decoder):
#   core      core, assets: results, allocators, math, threads, the asset library (libm, meshoptimizer)
#   snapshot  the snapshot types and the recording format: what a recorder or a replayer reads
#   world     world, anim, frame: worlds ticked with no GPU (sessions extract into snapshots)
#   scene     the glTF loader and prefabs, with its JSON, image and Draco decoders
#   draw      the prepared draw protocol over snapshots (CPU only)
#   gpu       the Vulkan renderer (Vulkan, SPIR-V reflection, the GLSL compiler)
#   window    GLFW windows (where libglfw3-dev is installed)
# A library's Requires are the layers its headers include; its system libraries are private (pkg-config
# Libs.private: a static link needs them, a shared one carries them). Layers, not modules: assets sits
# with core because every host kind needs both; anim and frame with world because a host never ticks a
# world without them; snapshot, draw and gpu stay apart so that a recorder links snapshot alone and a
# host with its own backend links draw without Vulkan.
set(ORRERY_LIBS core snapshot world scene draw gpu)
set(ORRERY_LIB_MODULES_core core assets)
set(ORRERY_LIB_MODULES_snapshot snapshot)
set(ORRERY_LIB_REQUIRES_snapshot core)
set(ORRERY_LIB_MODULES_world world anim frame)
set(ORRERY_LIB_REQUIRES_world snapshot core)
set(ORRERY_LIB_MODULES_scene scene)
set(ORRERY_LIB_REQUIRES_scene world core)
set(ORRERY_LIB_MODULES_draw draw)
set(ORRERY_LIB_REQUIRES_draw snapshot core)
set(ORRERY_LIB_MODULES_gpu gpu)
set(ORRERY_LIB_REQUIRES_gpu draw snapshot core)
if(ORRERY_HAVE_WINDOW)
  list(APPEND ORRERY_LIBS window)
  set(ORRERY_LIB_MODULES_window window)
  set(ORRERY_LIB_REQUIRES_window gpu core)
endif()
# Every built module lies in one library.
set(orrery_placed "")
foreach(lib ${ORRERY_LIBS})
  list(APPEND orrery_placed ${ORRERY_LIB_MODULES_${lib}})
endforeach()
foreach(m ${orrery_all_modules})
  if(NOT m IN_LIST orrery_placed)
    message(FATAL_ERROR "module ${m} is in no installed library: name it in ORRERY_LIB_MODULES_<library>")
  endif()
endforeach()

# External libraries of some modules: what they link besides other modules (orrery_module's DEPS).
function(orrery_external_deps out)
  set(deps "")
  foreach(m ${ARGN})
    get_property(d GLOBAL PROPERTY ORRERY_EXTERNAL_DEPS_${m})
    list(APPEND deps ${d})
  endforeach()
  # each kept where it last appears: a static link needs a library after everything that uses it (the
  # C++ runtime after the gpu module's glslang)
  list(REVERSE deps)
  list(REMOVE_DUPLICATES deps)
  list(REVERSE deps)
  set(${out} ${deps} PARENT_SCOPE)
endfunction()
# A library's own system libraries: its modules', and libm, which every layer calls (cosf, fminf...).
function(orrery_lib_deps out lib)
  orrery_external_deps(deps ${ORRERY_LIB_MODULES_${lib}})
  if(MATH_LIB AND NOT MATH_LIB IN_LIST deps)
    list(APPEND deps ${MATH_LIB})
  endif()
  set(${out} ${deps} PARENT_SCOPE)
endfunction()

# Shared, a library exports the public API only: the orr_ functions of include/orrery/*.h, and core's
# also the internals the other layers call (src/core/internal.h, cmake/orrery-core.map); the `exports`
# test compares the result with the headers.
set(orrery_lib_targets "")
foreach(lib ${ORRERY_LIBS})
  set(objects "")
  set(roots "")
  foreach(m ${ORRERY_LIB_MODULES_${lib}})
    if(m IN_LIST orrery_compiled_modules)
      list(APPEND objects $<TARGET_OBJECTS:orrery_${m}>)
    endif()
    list(APPEND roots "$<BUILD_INTERFACE:${CMAKE_BINARY_DIR}/include/${m}>")
  endforeach()
  set(t orrery_lib_${lib})
  add_library(${t} ${objects})
  list(APPEND orrery_lib_targets ${t})
  set_target_properties(${t} PROPERTIES OUTPUT_NAME orrery-${lib} VERSION ${PROJECT_VERSION}
                        SOVERSION ${PROJECT_VERSION_MAJOR} LINKER_LANGUAGE C)
  target_include_directories(${t} PUBLIC ${roots} $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  foreach(r ${ORRERY_LIB_REQUIRES_${lib}})
    target_link_libraries(${t} PUBLIC orrery_lib_${r})
  endforeach()
  orrery_lib_deps(deps ${lib})
  target_link_libraries(${t} PRIVATE ${deps})
  if(BUILD_SHARED_LIBS)
    set(map "${CMAKE_SOURCE_DIR}/cmake/orrery.map")
    if(EXISTS "${CMAKE_SOURCE_DIR}/cmake/orrery-${lib}.map")
      set(map "${CMAKE_SOURCE_DIR}/cmake/orrery-${lib}.map")
    endif()
    target_link_options(${t} PRIVATE "LINKER:--version-script=${map}" "LINKER:--no-undefined")
    # installed, a library finds the layers below it beside itself, wherever the prefix (a host's own
    # run path reaches only the libraries it names itself)
    set_target_properties(${t} PROPERTIES LINK_DEPENDS "${map}" INSTALL_RPATH "$ORIGIN")
  endif()
endforeach()
if(ORRERY_HAVE_DRACO) # its one C++ file (src/scene/gltf_draco.cpp)
  set_target_properties(orrery_lib_scene PROPERTIES LINKER_LANGUAGE CXX)
endif()
# Every library: what the tool links, as a host linking orrery::orrery would.
add_library(orrery INTERFACE)
target_link_libraries(orrery INTERFACE ${orrery_lib_targets})
add_custom_target(orrery_libraries) # cmake --build build --target orrery_libraries: every library
add_dependencies(orrery_libraries ${orrery_lib_targets})

# A library file as linker flags: /usr/lib/x86_64-linux-gnu/libdraco.so.7.0.0 -> -ldraco (after
# -L DIR where DIR is not one the linker searches anyway). The package files then name no version of
# a dependency (libmeshoptimizer.so.0.18 is gone after an upgrade; the -dev package's unversioned
# link follows it) and no path of this machine's. Anything else (-lstdc++, -pthread) is kept.
function(orrery_link_name out item)
  if(item MATCHES "^(.*)/lib([^/]+)\\.(so|a)(\\.[0-9.]+)?$")
    set(flags "-l${CMAKE_MATCH_2}")
    if(NOT CMAKE_MATCH_1 IN_LIST CMAKE_C_IMPLICIT_LINK_DIRECTORIES)
      set(flags "-L${CMAKE_MATCH_1};${flags}")
    endif()
    set(${out} "${flags}" PARENT_SCOPE)
  else()
    set(${out} "${item}" PARENT_SCOPE)
  endif()
endfunction()

# What a static consumer links after a library, as linker flags (orrery_link_name): for an imported
# library target its file, for an interface target (pkg-config's) its own link items, recursively,
# else the item itself.
function(orrery_link_files out)
  set(files "")
  foreach(dep ${ARGN})
    set(items "${dep}")
    if(TARGET ${dep})
      get_target_property(type ${dep} TYPE)
      if(type STREQUAL "INTERFACE_LIBRARY")
        get_target_property(items ${dep} INTERFACE_LINK_LIBRARIES)
      else()
        get_target_property(items ${dep} IMPORTED_LOCATION)
        if(NOT items)
          get_target_property(configs ${dep} IMPORTED_CONFIGURATIONS)
          list(GET configs 0 config)
          get_target_property(items ${dep} IMPORTED_LOCATION_${config})
        endif()
      endif()
      if(NOT items)
        set(items "")
      endif()
    endif()
    foreach(item ${items})
      if(TARGET ${item})
        orrery_link_files(nested ${item})
        list(APPEND files ${nested})
      else()
        orrery_link_name(flags "${item}")
        list(APPEND files ${flags})
      endif()
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES files)
  set(${out} "${files}" PARENT_SCOPE)
endfunction()

# ---- install --------------------------------------------------------------------------------------
install(TARGETS ${orrery_lib_targets} ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(BUILD_SHARED_LIBS) # the installed tool finds the installed libraries beside it, wherever the prefix
  set_target_properties(orrery_tool PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
endif()
install(TARGETS orrery_tool RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
set(orrery_install_excludes "")
foreach(h ${orrery_unbuilt_headers})
  list(APPEND orrery_install_excludes PATTERN ${h} EXCLUDE)
endforeach()
install(DIRECTORY "${CMAKE_SOURCE_DIR}/include/orrery" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h" ${orrery_install_excludes})
# the GLSL header of the scene's bindings, beside gpu_shared.h which it includes (technique.h)
install(FILES "${CMAKE_SOURCE_DIR}/include/orrery/scene.glsl" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/orrery)

# Package files: per library a pkg-config file (orrery-<library>.pc: Requires the libraries below it,
# Libs.private its system libraries as -l names) and an imported target orrery::<library> in the CMake
# package; besides them orrery.pc / orrery::orrery (every library) and orrery-replay.pc /
# orrery::replay (a renderer of snapshots: gpu, draw, snapshot, core).
set(orrery_cmake_dir "${CMAKE_INSTALL_LIBDIR}/cmake/orrery")
if(BUILD_SHARED_LIBS)
  set(ORRERY_LIBRARY_TYPE SHARED)
else()
  set(ORRERY_LIBRARY_TYPE STATIC)
endif()
set(ORRERY_LIBRARY_DIR "${CMAKE_INSTALL_LIBDIR}")
set(ORRERY_PC_DIR "${CMAKE_BINARY_DIR}/pkgconfig")
string(REGEX REPLACE "[^/]+" ".." ORRERY_PC_UP "${CMAKE_INSTALL_LIBDIR}/pkgconfig") # pc dir -> prefix
set(ORRERY_PACKAGE_LIBS "")
function(orrery_pc name what requires libs private)
  set(ORRERY_PC_NAME ${name})
  set(ORRERY_PC_WHAT "${what}")
  list(TRANSFORM requires REPLACE "(.+)" "orrery-\\1 = ${PROJECT_VERSION}")
  string(JOIN ", " ORRERY_PC_REQUIRES ${requires})
  set(ORRERY_PC_LIBS "${libs}")
  string(JOIN " " ORRERY_PC_PRIVATE ${private})
  configure_file("${CMAKE_SOURCE_DIR}/cmake/orrery.pc.in" "${ORRERY_PC_DIR}/${name}.pc" @ONLY)
  install(FILES "${ORRERY_PC_DIR}/${name}.pc" DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
endfunction()
foreach(lib ${ORRERY_LIBS})
  orrery_lib_deps(deps ${lib})
  orrery_link_files(files ${deps})
  list(JOIN ORRERY_LIB_MODULES_${lib} ", " mods)
  orrery_pc(orrery-${lib} "the ${lib} library (${mods})" "${ORRERY_LIB_REQUIRES_${lib}}"
            "-L\${libdir} -lorrery-${lib}" "${files}")
  # the CMake package's record of it (cmake/orreryConfig.cmake.in): file, soname, requires, system links
  if(BUILD_SHARED_LIBS) # a shared library carries its own system libraries
    set(soname "$<TARGET_SONAME_FILE_NAME:orrery_lib_${lib}>")
    set(links "")
  else()
    set(soname "")
    set(links "${files}")
  endif()
  string(APPEND ORRERY_PACKAGE_LIBS
         "set(_orrery_file_${lib} \"$<TARGET_FILE_NAME:orrery_lib_${lib}>\")\n"
         "set(_orrery_soname_${lib} \"${soname}\")\n"
         "set(_orrery_requires_${lib} \"${ORRERY_LIB_REQUIRES_${lib}}\")\n"
         "set(_orrery_links_${lib} \"${links}\")\n")
endforeach()
orrery_pc(orrery "every library" "${ORRERY_LIBS}" "" "")
orrery_pc(orrery-replay "a renderer of snapshots with no world (gpu, draw, snapshot, core)" "gpu" "" "")
string(REPLACE ";" " " ORRERY_LIB_NAMES "${ORRERY_LIBS}")
configure_package_config_file("${CMAKE_SOURCE_DIR}/cmake/orreryConfig.cmake.in"
                              "${CMAKE_BINARY_DIR}/package/orreryConfig.cmake.in" INSTALL_DESTINATION ${orrery_cmake_dir}
                              PATH_VARS ORRERY_LIBRARY_DIR CMAKE_INSTALL_INCLUDEDIR)
file(GENERATE OUTPUT "${CMAKE_BINARY_DIR}/package/orreryConfig.cmake" INPUT "${CMAKE_BINARY_DIR}/package/orreryConfig.cmake.in")
write_basic_package_version_file("${CMAKE_BINARY_DIR}/package/orreryConfigVersion.cmake"
                                 COMPATIBILITY SameMinorVersion)
install(FILES "${CMAKE_BINARY_DIR}/package/orreryConfig.cmake" "${CMAKE_BINARY_DIR}/package/orreryConfigVersion.cmake"
        DESTINATION ${orrery_cmake_dir})

# ---- checks ----------------------------------------------------------------------------------------
# pkgconfig: the package files link their dependencies by -l NAME, never a library file's path.
add_test(NAME pkgconfig COMMAND ${CMAKE_COMMAND} -DDIR=${ORRERY_PC_DIR} -P ${CMAKE_SOURCE_DIR}/cmake/check_pkgconfig.cmake)
set_tests_properties(pkgconfig PROPERTIES LABELS unit)

# exports: the libraries define every orr_ function the headers declare, each once, and, shared, export
# nothing else but the core internals the other layers call; static, their other global symbols are
# orri_ internals.
find_program(ORRERY_NM NAMES nm REQUIRED)
set(orrery_export_libs "")
foreach(lib ${ORRERY_LIBS})
  list(APPEND orrery_export_libs "${lib}=$<TARGET_FILE:orrery_lib_${lib}>")
endforeach()
list(JOIN orrery_export_libs "," orrery_export_libs)
add_test(NAME exports COMMAND ${CMAKE_COMMAND} "-DLIBS=${orrery_export_libs}" -DTYPE=${ORRERY_LIBRARY_TYPE}
         -DHEADERS=${CMAKE_SOURCE_DIR}/include/orrery
         -DINTERNAL=${CMAKE_SOURCE_DIR}/src/core/internal.h "-DSKIP=${orrery_unbuilt_headers}" -DNM=${ORRERY_NM} -P ${CMAKE_SOURCE_DIR}/cmake/check_exports.cmake)
set_tests_properties(exports PROPERTIES LABELS unit)

# layering: each module's sources compile with the include directories its target has; a header the
# design keeps out of reach must not be found with them.
foreach(m ${orrery_compiled_modules})
  file(GENERATE OUTPUT "${CMAKE_BINARY_DIR}/layering/${m}.includes"
       CONTENT "$<JOIN:$<TARGET_PROPERTY:orrery_${m},INCLUDE_DIRECTORIES>,\n>\n")
endforeach()
# a replay host: the include roots of the replay component's modules, nothing else
set(orrery_replay_roots "")
foreach(m ${ORRERY_COMPONENT_replay})
  list(APPEND orrery_replay_roots "$<TARGET_PROPERTY:orrery_${m},INTERFACE_INCLUDE_DIRECTORIES>")
endforeach()
file(GENERATE OUTPUT "${CMAKE_BINARY_DIR}/layering/replay.includes"
     CONTENT "$<JOIN:$<REMOVE_DUPLICATES:${orrery_replay_roots}>,\n>\n")
add_test(NAME layering COMMAND ${CMAKE_COMMAND} -DCC=${CMAKE_C_COMPILER} -DDIR=${CMAKE_BINARY_DIR}/layering
         -P ${CMAKE_SOURCE_DIR}/cmake/check_layering.cmake)
set_tests_properties(layering PROPERTIES LABELS unit)

# typed_ids: a mesh id compared with (or passed as) a material id does not compile.
add_test(NAME typed_ids COMMAND ${CMAKE_COMMAND} -DCC=${CMAKE_C_COMPILER} -DINCLUDE=${CMAKE_SOURCE_DIR}/include
         -DDIR=${CMAKE_BINARY_DIR} -P ${CMAKE_SOURCE_DIR}/cmake/check_typed_ids.cmake)
set_tests_properties(typed_ids PROPERTIES LABELS unit)

# ---- examples -------------------------------------------------------------------------------------
# Built here against the in-tree modules of their component (a dedicated server links the world side
# and the glTF loader only); CI also builds them against the installed package (scripts/check_install.sh).
add_executable(example_dedicated_server "${CMAKE_SOURCE_DIR}/examples/dedicated_server/main.c")
foreach(m ${ORRERY_COMPONENT_scene})
  target_link_libraries(example_dedicated_server PRIVATE orrery_${m})
endforeach()
add_test(NAME example_dedicated_server
         COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:example_dedicated_server> -DSOURCE=${CMAKE_SOURCE_DIR}
                 -P ${CMAKE_SOURCE_DIR}/examples/dedicated_server/check.cmake)
set_tests_properties(example_dedicated_server PROPERTIES LABELS unit)

# The rendering examples (a GPU: lavapipe on a CPU machine; label gpu, validation on) and the tool
# their checks read the PNGs with (stb_image: a test tool, not an example).
add_executable(example_png_check "${CMAKE_SOURCE_DIR}/examples/check/png_check.c")
target_link_libraries(example_png_check PRIVATE PkgConfig::STB)
set_target_properties(example_png_check PROPERTIES OUTPUT_NAME png_check)
# name: folder under examples/; component: the modules it links (all, or world, scene or replay)
function(orrery_example name component)
  add_executable(example_${name} "${CMAKE_SOURCE_DIR}/examples/${name}/main.c")
  if(component STREQUAL "all")
    target_link_libraries(example_${name} PRIVATE orrery_modules)
  else()
    foreach(m ${ORRERY_COMPONENT_${component}})
      target_link_libraries(example_${name} PRIVATE orrery_${m})
    endforeach()
  endif()
  add_test(NAME example_${name}
           COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:example_${name}> -DPNG_CHECK=$<TARGET_FILE:example_png_check>
                   -DSOURCE=${CMAKE_SOURCE_DIR} -DWORK=${CMAKE_BINARY_DIR}/examples/${name} -DVALIDATION=ON
                   -P ${CMAKE_SOURCE_DIR}/examples/${name}/check.cmake)
  set_tests_properties(example_${name} PROPERTIES LABELS gpu TIMEOUT 600)
endfunction()
orrery_example(first_render all)
# the README shows first_render's source as it is
add_test(NAME readme_example COMMAND ${CMAKE_COMMAND} -DSOURCE=${CMAKE_SOURCE_DIR} -P ${CMAKE_SOURCE_DIR}/cmake/check_readme.cmake)
set_tests_properties(readme_example PROPERTIES LABELS unit)
orrery_example(minimal_host all)
orrery_example(prefab all)
orrery_example(replay_host replay)
orrery_example(post_process replay)
orrery_example(scene_techniques replay)
orrery_example(deferred replay)
orrery_example(mesh_markers replay)

# ---- docs -------------------------------------------------------------------------------------------
# The API reference, HTML from the headers' comments (the headers stay the source of truth) with
# docs/api.md as its main page and the other docs/ pages beside it. Built with everything else when
# doxygen is there (again only when a header or a page changed) and installed into
# share/doc/orrery/html; `make docs` runs doxygen again whatever changed. A doxygen warning fails both.
find_program(ORRERY_DOXYGEN doxygen)
option(ORRERY_DOCS "Build the API reference with the library and install it (needs doxygen)" ON)
if(ORRERY_DOXYGEN)
  configure_file("${CMAKE_SOURCE_DIR}/cmake/Doxyfile.in" "${CMAKE_BINARY_DIR}/docs/Doxyfile" @ONLY)
  add_custom_target(docs COMMAND ${ORRERY_DOXYGEN} "${CMAKE_BINARY_DIR}/docs/Doxyfile"
                    COMMAND ${CMAKE_COMMAND} -E touch "${CMAKE_BINARY_DIR}/docs/html.stamp"
                    COMMAND ${CMAKE_COMMAND} -E echo "docs: ${CMAKE_BINARY_DIR}/docs/html/index.html"
                    WORKING_DIRECTORY "${CMAKE_SOURCE_DIR}" VERBATIM)
  if(ORRERY_DOCS)
    file(GLOB orrery_doc_inputs CONFIGURE_DEPENDS "${CMAKE_SOURCE_DIR}/include/orrery/*.h" "${CMAKE_SOURCE_DIR}/docs/*.md")
    add_custom_command(OUTPUT "${CMAKE_BINARY_DIR}/docs/html.stamp"
                       COMMAND ${ORRERY_DOXYGEN} "${CMAKE_BINARY_DIR}/docs/Doxyfile"
                       COMMAND ${CMAKE_COMMAND} -E touch "${CMAKE_BINARY_DIR}/docs/html.stamp"
                       DEPENDS ${orrery_doc_inputs} "${CMAKE_BINARY_DIR}/docs/Doxyfile"
                               "${CMAKE_SOURCE_DIR}/cmake/doxygen_filter.awk"
                       WORKING_DIRECTORY "${CMAKE_SOURCE_DIR}" COMMENT "API reference (doxygen)" VERBATIM)
    add_custom_target(docs_html ALL DEPENDS "${CMAKE_BINARY_DIR}/docs/html.stamp")
    install(DIRECTORY "${CMAKE_BINARY_DIR}/docs/html/" DESTINATION "${CMAKE_INSTALL_DOCDIR}/html")
  endif()
  # the headers give no doxygen warning, and a warning fails make docs (cmake/check_docs.cmake)
  add_test(NAME docs_warnings COMMAND ${CMAKE_COMMAND} -DDOXYGEN=${ORRERY_DOXYGEN}
           -DDOXYFILE=${CMAKE_BINARY_DIR}/docs/Doxyfile -DWORK=${CMAKE_BINARY_DIR}/docs_check
           -P ${CMAKE_SOURCE_DIR}/cmake/check_docs.cmake)
  set_tests_properties(docs_warnings PROPERTIES LABELS unit WORKING_DIRECTORY "${CMAKE_SOURCE_DIR}")
else()
  if(ORRERY_DOCS)
    message(STATUS "doxygen not found: the API reference is neither built nor installed (apt-get install doxygen)")
  endif()
  add_custom_target(docs COMMAND ${CMAKE_COMMAND} -E echo
                    "docs: doxygen is not installed; install it (apt-get install doxygen) and run make docs again"
                    COMMAND ${CMAKE_COMMAND} -E false VERBATIM)
endif()
