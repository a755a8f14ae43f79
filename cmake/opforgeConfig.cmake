# opforgeConfig.cmake: the installed opforge as a CMake package, for op libraries built out
# of tree. Find it with
#
#   find_package(opforge REQUIRED)   # -Dopforge_DIR=$(opforge config --cmakedir)
#   opforge_add_op_library(zero_out OPDEFS opdefs/zero_out.pbtxt SOURCES zero_out.cc)
#
# Defines opforge::runtime (the runtime library and its headers), opforge_INCLUDE_DIRS,
# opforge_LIBRARIES, OPFORGE_PYTHON (the interpreter running the codegen) and
# opforge_add_op_library().

get_filename_component(_opforge_pkg "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(opforge_PACKAGE_DIR "${_opforge_pkg}")
set(opforge_INCLUDE_DIRS "${_opforge_pkg}/include")
set(opforge_LIBRARIES "${_opforge_pkg}/lib/libopforge_runtime.so")
set(_opforge_codegen "${CMAKE_CURRENT_LIST_DIR}/opforge_codegen.py")

if(NOT EXISTS "${opforge_LIBRARIES}")
  set(opforge_FOUND FALSE)
  set(opforge_NOT_FOUND_MESSAGE "opforge runtime library not found at ${opforge_LIBRARIES}")
  return()
endif()

if(NOT TARGET opforge::runtime)
  add_library(opforge::runtime SHARED IMPORTED)
  set_target_properties(opforge::runtime PROPERTIES
    IMPORTED_LOCATION "${opforge_LIBRARIES}"
    INTERFACE_INCLUDE_DIRECTORIES "${opforge_INCLUDE_DIRS}"
    INTERFACE_COMPILE_FEATURES cxx_std_17)
endif()

# The codegen needs a Python with jinja2 and protobuf: the one opforge is installed for.
if(NOT OPFORGE_PYTHON)
  if(Python3_EXECUTABLE)
    set(_opforge_py "${Python3_EXECUTABLE}")
  elseif(Python_EXECUTABLE)
    set(_opforge_py "${Python_EXECUTABLE}")
  else()
    find_package(Python3 COMPONENTS Interpreter REQUIRED)
    set(_opforge_py "${Python3_EXECUTABLE}")
  endif()
  set(OPFORGE_PYTHON "${_opforge_py}" CACHE FILEPATH "Python interpreter that runs the opforge codegen")
endif()

set(OPFORGE_ABI_TAG_OVERRIDE "" CACHE STRING
    "Testing only: embed this ABI tag instead of the installed opforge's (the library then fails to load)")
mark_as_advanced(OPFORGE_ABI_TAG_OVERRIDE)

# The codegen: in the package, or in an editable install the checkout's (opforge_checkout.txt).
set(_opforge_codegen_dir "${_opforge_pkg}/codegen")
if(NOT IS_DIRECTORY "${_opforge_codegen_dir}" AND EXISTS "${CMAKE_CURRENT_LIST_DIR}/opforge_checkout.txt")
  file(READ "${CMAKE_CURRENT_LIST_DIR}/opforge_checkout.txt" _opforge_checkout)
  string(STRIP "${_opforge_checkout}" _opforge_checkout)
  set(_opforge_codegen_dir "${_opforge_checkout}/codegen")
endif()
file(GLOB_RECURSE _opforge_codegen_deps "${_opforge_codegen_dir}/*.py" "${_opforge_codegen_dir}/templates/*.j2")

# opforge_add_op_library(<name> OPDEFS <files or dirs>... SOURCES <kernels>...
#                        [CUDA_SOURCES <files>...])
#
# Runs the opforge codegen over the opdefs (the same generator as the built-in ops: typed
# call structs in opforge/ops/<name>_ops.h, registration code, the embedded opdefs and ABI
# tag) and builds the shared library <name>.so for of.load_op_library().
function(opforge_add_op_library name)
  cmake_parse_arguments(ARG "" "" "OPDEFS;SOURCES;CUDA_SOURCES" ${ARGN})
  if(NOT ARG_OPDEFS)
    message(FATAL_ERROR "opforge_add_op_library(${name}): OPDEFS is required")
  endif()
  if(NOT ARG_SOURCES AND NOT ARG_CUDA_SOURCES)
    message(FATAL_ERROR "opforge_add_op_library(${name}): SOURCES is required")
  endif()
  if(ARG_CUDA_SOURCES AND NOT CMAKE_CUDA_COMPILER)
    message(FATAL_ERROR "opforge_add_op_library(${name}): CUDA_SOURCES need CUDA enabled "
                        "(project(... LANGUAGES CXX CUDA))")
  endif()
  set(opdefs "")
  set(opdef_deps "")
  foreach(p IN LISTS ARG_OPDEFS)
    get_filename_component(p "${p}" ABSOLUTE)
    list(APPEND opdefs "${p}")
    if(IS_DIRECTORY "${p}")
      file(GLOB_RECURSE found CONFIGURE_DEPENDS "${p}/*.pbtxt")
      list(APPEND opdef_deps ${found})
    else()
      list(APPEND opdef_deps "${p}")
    endif()
  endforeach()
  set(gen "${CMAKE_CURRENT_BINARY_DIR}/opforge_gen/${name}")
  set(outputs "${gen}/cpp/opforge/ops/${name}_ops.h" "${gen}/cpp/src/${name}_ops.cc"
              "${gen}/cpp/src/${name}_library.cc")
  set(opdef_args "")
  foreach(p IN LISTS opdefs)
    list(APPEND opdef_args --opdefs "${p}")
  endforeach()
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND "${OPFORGE_PYTHON}" "${_opforge_codegen}" library --name ${name} ${opdef_args} --out "${gen}"
    DEPENDS ${opdef_deps} ${_opforge_codegen_deps} "${_opforge_codegen}"
    COMMENT "opforge codegen: op library ${name}"
    VERBATIM)
  add_library(${name} SHARED ${ARG_SOURCES} ${ARG_CUDA_SOURCES} ${outputs})
  target_include_directories(${name} PRIVATE "${gen}/cpp")
  target_link_libraries(${name} PRIVATE opforge::runtime)
  # A compiler that links a static libstdc++ (seen on a GPU machine's /opt/gcc) must keep that
  # copy's symbols inside the library, or it clashes with the process's shared libstdc++.
  target_link_options(${name} PRIVATE "LINKER:--exclude-libs,ALL")
  set_target_properties(${name} PROPERTIES
    PREFIX ""
    CXX_STANDARD 17
    CXX_STANDARD_REQUIRED ON
    POSITION_INDEPENDENT_CODE ON
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(OPFORGE_ABI_TAG_OVERRIDE)
    target_compile_definitions(${name} PRIVATE "OPFORGE_ABI_TAG_OVERRIDE=\"${OPFORGE_ABI_TAG_OVERRIDE}\"")
  endif()
endfunction()
