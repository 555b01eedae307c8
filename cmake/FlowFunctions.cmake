# flow_add_executable(TARGET SCRIPT [MEMORY SIZE] [BLOCK SIZE] [SET NAME=VALUE...]
#                     [IMPORTS HEADER...] [INCLUDE_DIRS DIR...])
#
# Builds the Flow script SCRIPT into the executable TARGET: `flowc emit` runs at build
# time (again whenever the script, a module it uses or a header it imports changes: flowc
# writes a depfile), and the C++ it writes is compiled with this project's compiler and
# flags and linked with Flow::runtime. MEMORY, BLOCK and SET are flowc's --memory,
# --block and --set (the plan the program starts from; the program's own flags still
# override them). IMPORTS names the C++ headers the script imports (their folders are
# searched by flowc and the compiler); INCLUDE_DIRS adds more folders for both.
function(flow_add_executable target script)
  cmake_parse_arguments(PARSE_ARGV 2 FLOW "" "MEMORY;BLOCK" "SET;IMPORTS;INCLUDE_DIRS")
  if(FLOW_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "flow_add_executable(${target}): unknown arguments: ${FLOW_UNPARSED_ARGUMENTS}")
  endif()
  get_filename_component(script "${script}" ABSOLUTE)
  get_filename_component(script_dir "${script}" DIRECTORY)
  set(dirs "${script_dir}")
  set(imports "")
  foreach(header IN LISTS FLOW_IMPORTS)
    get_filename_component(header "${header}" ABSOLUTE)
    get_filename_component(header_dir "${header}" DIRECTORY)
    list(APPEND imports "${header}")
    list(APPEND dirs "${header_dir}")
  endforeach()
  foreach(dir IN LISTS FLOW_INCLUDE_DIRS)
    get_filename_component(dir "${dir}" ABSOLUTE)
    list(APPEND dirs "${dir}")
  endforeach()
  list(REMOVE_DUPLICATES dirs)

  set(flowc_args "")
  foreach(dir IN LISTS dirs)
    list(APPEND flowc_args "-I${dir}")
  endforeach()
  if(FLOW_MEMORY)
    list(APPEND flowc_args --memory "${FLOW_MEMORY}")
  endif()
  if(FLOW_BLOCK)
    list(APPEND flowc_args --block "${FLOW_BLOCK}")
  endif()
  foreach(assignment IN LISTS FLOW_SET)
    list(APPEND flowc_args --set "${assignment}")
  endforeach()

  set(cpp "${CMAKE_CURRENT_BINARY_DIR}/${target}.flow.cpp")
  add_custom_command(
    OUTPUT "${cpp}"
    COMMAND Flow::flowc emit ${flowc_args} --color never -o "${cpp}" --depfile "${cpp}.d" "${script}"
    DEPENDS "${script}" ${imports} Flow::flowc
    DEPFILE "${cpp}.d"
    COMMENT "flowc: ${target} from ${script}"
    VERBATIM)
  add_executable(${target} "${cpp}")
  target_include_directories(${target} PRIVATE ${dirs})
  target_link_libraries(${target} PRIVATE Flow::runtime)
  target_compile_features(${target} PRIVATE cxx_std_20)
endfunction()
