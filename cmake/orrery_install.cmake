# The installed package: one library built from every module's objects (liborrery.a, or liborrery.so
# with -DBUILD_SHARED_LIBS=ON, exporting only the orr_ functions), the public headers in
# include/orrery/, a CMake package (orrery::orrery and the components world and replay), pkg-config
# files, the tool; and the checks that keep them honest: exports, layering, the examples, docs.
# Included at the end of CMakeLists.txt, after the modules (orrery_module) and the tests.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# ---- components: which modules a kind of host links (docs/architecture.md, Modules)  ------------------------
# world: a host that keeps and ticks worlds (entities, components, animation, sessions) and
#        never touches a GPU nor reads a glTF file: no Vulkan, no JSON, no image decoders, no Draco.
# scene: the world side with the glTF loader (and the decoders it links): a dedicated server that loads
#        models.
# replay: a host that renders snapshots (recorded or received) and never sees a world.
set(ORRERY_COMPONENT_world core assets world anim snapshot frame)
set(ORRERY_COMPONENT_scene ${ORRERY_COMPONENT_world} scene)
set(ORRERY_COMPONENT_replay core assets snapshot draw gpu)
set(ORRERY_COMPONENTS world scene replay)

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

# ---- the library --------------------------------------------------------------------------------
set(orrery_objects "")
set(orrery_roots "")
foreach(m ${orrery_compiled_modules})
  list(APPEND orrery_objects $<TARGET_OBJECTS:orrery_${m}>)
endforeach()
foreach(m ${orrery_all_modules})
  list(APPEND orrery_roots "$<BUILD_INTERFACE:${CMAKE_BINARY_DIR}/include/${m}>")
endforeach()
add_library(orrery ${orrery_objects})
set_target_properties(orrery PROPERTIES OUTPUT_NAME orrery VERSION ${PROJECT_VERSION}
                      SOVERSION ${PROJECT_VERSION_MAJOR} LINKER_LANGUAGE C)
if(ORRERY_HAVE_DRACO) # its one C++ file (src/scene/gltf_draco.cpp)
  set_target_properties(orrery PROPERTIES LINKER_LANGUAGE CXX)
endif()
target_include_directories(orrery PUBLIC ${orrery_roots} $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)

# External libraries, per component: what each module links besides other modules (orrery_module's DEPS).
function(orrery_external_deps out)
  set(deps "")
  foreach(m ${ARGN})
    get_property(d GLOBAL PROPERTY ORRERY_EXTERNAL_DEPS_${m})
    list(APPEND deps ${d})
  endforeach()
  # each kept where it last appears: a static link needs a library after everything that uses it (the
  # C++ runtime after the gpu module's glslang as well as after the scene module's Draco)
  list(REVERSE deps)
  list(REMOVE_DUPLICATES deps)
  list(REVERSE deps)
  set(${out} ${deps} PARENT_SCOPE)
endfunction()
orrery_external_deps(orrery_deps_all ${orrery_all_modules})
target_link_libraries(orrery PRIVATE ${orrery_deps_all})
if(BUILD_SHARED_LIBS)
  # Only the public API is exported: the orr_ functions of include/orrery/*.h (the `exports` test
  # compares the two); orri_ internals and the embedded libraries' symbols stay inside.
  set(orrery_map "${CMAKE_SOURCE_DIR}/cmake/orrery.map")
  target_link_options(orrery PRIVATE "LINKER:--version-script=${orrery_map}" "LINKER:--no-undefined")
  set_target_properties(orrery PROPERTIES LINK_DEPENDS "${orrery_map}")
endif()

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

# What a static consumer links after liborrery.a, per component, as linker flags (orrery_link_name):
# for an imported library target its file, for an interface target (pkg-config's) its own link items,
# recursively, else the item itself.
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
install(TARGETS orrery EXPORT orreryTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(BUILD_SHARED_LIBS) # the installed tool finds the installed library beside it, wherever the prefix
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

set(orrery_cmake_dir "${CMAKE_INSTALL_LIBDIR}/cmake/orrery")
if(BUILD_SHARED_LIBS)
  set(ORRERY_LIBRARY_TYPE SHARED)
  set(ORRERY_SONAME "$<TARGET_SONAME_FILE_NAME:orrery>")
else()
  set(ORRERY_LIBRARY_TYPE STATIC)
  set(ORRERY_SONAME "")
endif()
set(ORRERY_LIBRARY_DIR "${CMAKE_INSTALL_LIBDIR}")
set(ORRERY_COMPONENT_LINKS "")
set(ORRERY_PC_DIR "${CMAKE_BINARY_DIR}/pkgconfig")
string(REGEX REPLACE "[^/]+" ".." ORRERY_PC_UP "${CMAKE_INSTALL_LIBDIR}/pkgconfig") # pc dir -> prefix
foreach(c all ${ORRERY_COMPONENTS})
  if(c STREQUAL "all")
    set(mods ${orrery_all_modules})
    set(ORRERY_PC_NAME orrery)
    set(ORRERY_PC_WHAT "every module")
  else()
    set(mods ${ORRERY_COMPONENT_${c}})
    set(ORRERY_PC_NAME orrery-${c})
    list(JOIN mods ", " ORRERY_PC_WHAT)
    set(ORRERY_PC_WHAT "the ${c} side: ${ORRERY_PC_WHAT}")
  endif()
  orrery_external_deps(deps ${mods})
  orrery_link_files(files ${deps})
  # a shared liborrery.so carries its own dependencies; a static one is followed by them
  if(BUILD_SHARED_LIBS)
    set(files "")
  endif()
  string(APPEND ORRERY_COMPONENT_LINKS "set(_orrery_links_${c} \"${files}\")\n")
  set(ORRERY_PC_PRIVATE "$<JOIN:${files}, >")
  configure_file("${CMAKE_SOURCE_DIR}/cmake/orrery.pc.in" "${ORRERY_PC_DIR}/${ORRERY_PC_NAME}.pc.in" @ONLY)
  file(GENERATE OUTPUT "${ORRERY_PC_DIR}/${ORRERY_PC_NAME}.pc" INPUT "${ORRERY_PC_DIR}/${ORRERY_PC_NAME}.pc.in")
  install(FILES "${ORRERY_PC_DIR}/${ORRERY_PC_NAME}.pc" DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
endforeach()
string(REPLACE ";" " " ORRERY_COMPONENT_NAMES "${ORRERY_COMPONENTS}")
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

# exports: the library defines every orr_ function the headers declare and, shared, exports nothing
# else; static, its other global symbols are orri_ internals.
find_program(ORRERY_NM NAMES nm REQUIRED)
add_test(NAME exports COMMAND ${CMAKE_COMMAND} -DLIB=$<TARGET_FILE:orrery> -DTYPE=${ORRERY_LIBRARY_TYPE}
         -DHEADERS=${CMAKE_SOURCE_DIR}/include/orrery "-DSKIP=${orrery_unbuilt_headers}" -DNM=${ORRERY_NM} -P ${CMAKE_SOURCE_DIR}/cmake/check_exports.cmake)
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
# name: folder under examples/; component: the modules it links (all, or one of ORRERY_COMPONENTS)
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
