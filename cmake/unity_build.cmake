# Unity builds (MMREPLAY_UNITY_BUILD): the sources a batch cannot hold.
#
# kernelsim/constants.h names the kernel's constants as the kernel does (PROT_READ, MADV_FREE,
# MAP_PRIVATE, ...), and <sys/mman.h> defines the same names as macros. A file that includes the
# system header for real system calls (calibrate's probes, record) would turn the model's
# declarations in a later file of its batch into numbers, so such files are compiled alone.

set(MMREPLAY_SYSTEM_MMAN_REGEX "#include <(sys|linux)/mman\\.h>")

# The regex of an #include that brings the system's mman header in: the header itself, or a
# project header that includes it (as "tools/calibrate/user_pages.h", from the source root).
function(_mmreplay_mman_include_regex root out)
  file(GLOB_RECURSE headers RELATIVE ${root} ${root}/common/*.h ${root}/formats/*.h
       ${root}/kernelsim/*.h ${root}/replay/*.h ${root}/tools/*.h ${root}/tests/*.h ${root}/bench/*.h)
  set(regex "${MMREPLAY_SYSTEM_MMAN_REGEX}")
  foreach(header ${headers})
    file(STRINGS ${root}/${header} hits REGEX "${MMREPLAY_SYSTEM_MMAN_REGEX}")
    if(hits)
      string(REPLACE "." "\\." escaped "${header}")
      string(APPEND regex "|#include \"${escaped}\"")
    endif()
  endforeach()
  set(${out} "${regex}" PARENT_SCOPE)
endfunction()

function(_mmreplay_unity_skip_in_dir dir include_regex)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target ${targets})
    get_target_property(sources ${target} SOURCES)
    if(NOT sources)
      continue()
    endif()
    get_target_property(target_dir ${target} SOURCE_DIR)
    foreach(source ${sources})
      if(NOT source MATCHES "\\.cpp$" OR source MATCHES "^\\$<")
        continue()
      endif()
      cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY ${target_dir} OUTPUT_VARIABLE path)
      if(NOT EXISTS ${path})
        continue()
      endif()
      file(STRINGS ${path} hits REGEX "${include_regex}")
      if(hits)
        set_source_files_properties(${path} DIRECTORY ${dir}
                                    PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
      endif()
    endforeach()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(subdir ${subdirs})
    _mmreplay_unity_skip_in_dir(${subdir} "${include_regex}")
  endforeach()
endfunction()

# Marks every source under ROOT's targets that includes <sys/mman.h> (directly or through one of
# the project's headers) SKIP_UNITY_BUILD_INCLUSION.
function(mmreplay_unity_exclude_system_mman root)
  _mmreplay_mman_include_regex(${root} include_regex)
  _mmreplay_unity_skip_in_dir(${root} "${include_regex}")
endfunction()
