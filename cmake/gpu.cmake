# GPU backends (issue 5): libopforge_cuda.so (nvcc) and libopforge_hip.so (hipcc,
# HIP_PLATFORM=amd), built from the same kernels/gpu/*.cu against kernels/gpu/gpu_port.h.
# Each is a separate shared library that `import opforge` loads when present, so the CPU
# package never depends on a GPU toolkit or driver.
#
#   OPFORGE_CUDA  ON/OFF  default: ON when nvcc is found (and not OPFORGE_SANITIZE, and not an
#                         editable development install: there GPU backends are built when asked)
#   OPFORGE_HIP   ON/OFF  default: ON when hipcc and libamdhip64 are found (same exceptions)
#   OPFORGE_CUDA_ARCHITECTURES  default "80-real;90-real;90-virtual" (sm_80, sm_90 + PTX)
#   OPFORGE_HIP_ARCHITECTURES   default "gfx90a;gfx942" (those hipcc's clang cannot target are
#                               skipped with a warning)
include(CheckLanguage)

file(GLOB OPFORGE_GPU_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/kernels/gpu/*.cu)
file(GLOB OPFORGE_GPU_HEADERS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/kernels/gpu/*.h)

# An editable install (SKBUILD_STATE=editable) is the op author's loop: the GPU backends
# would multiply every rebuild, so they are built only when asked (-Ccmake.define.OPFORGE_CUDA=ON).
set(_opforge_gpu_auto ON)
if(OPFORGE_SANITIZE OR SKBUILD_STATE STREQUAL "editable")
  set(_opforge_gpu_auto OFF)
endif()

# ---- CUDA
set(_opforge_cuda_default OFF)
if(_opforge_gpu_auto AND NOT DEFINED OPFORGE_CUDA)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(_opforge_cuda_default ON)
  endif()
endif()
option(OPFORGE_CUDA "Build the CUDA backend (libopforge_cuda.so)" ${_opforge_cuda_default})

if(OPFORGE_CUDA)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(OPFORGE_CUDA_ARCHITECTURES "80-real;90-real;90-virtual" CACHE STRING "CUDA architectures")
    set(CMAKE_CUDA_ARCHITECTURES ${OPFORGE_CUDA_ARCHITECTURES})
  endif()
  enable_language(CUDA)
  set(CMAKE_CUDA_STANDARD 17)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  add_library(opforge_cuda SHARED ${OPFORGE_GPU_SOURCES})
  target_include_directories(opforge_cuda PRIVATE ${CMAKE_SOURCE_DIR}/kernels)
  target_link_libraries(opforge_cuda PRIVATE opforge_runtime ${CMAKE_DL_LIBS})
  # nvcc warns (2810) on assigning to a [[nodiscard]] class such as Status.
  target_compile_options(opforge_cuda PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--diag-suppress=2810>)
  # The CUDA runtime is linked statically: the library needs only the driver (libcuda.so.1),
  # which the static runtime opens itself; without one it reports no devices.
  set_target_properties(opforge_cuda PROPERTIES
    CUDA_RUNTIME_LIBRARY Static
    INSTALL_RPATH "$ORIGIN")
  install(TARGETS opforge_cuda LIBRARY DESTINATION opforge/lib)
  message(STATUS "opforge: CUDA backend ON (${CMAKE_CUDA_COMPILER}, architectures ${CMAKE_CUDA_ARCHITECTURES})")
else()
  message(STATUS "opforge: CUDA backend OFF")
endif()

# ---- HIP (hipcc drives the compile; the host linker links its objects with libamdhip64)
set(_opforge_hip_default OFF)
find_program(OPFORGE_HIPCC hipcc)
find_library(OPFORGE_AMDHIP64 amdhip64)
if(_opforge_gpu_auto AND OPFORGE_HIPCC AND OPFORGE_AMDHIP64)
  set(_opforge_hip_default ON)
endif()
option(OPFORGE_HIP "Build the HIP backend (libopforge_hip.so)" ${_opforge_hip_default})

if(OPFORGE_HIP)
  if(NOT OPFORGE_HIPCC OR NOT OPFORGE_AMDHIP64)
    message(FATAL_ERROR "OPFORGE_HIP=ON needs hipcc and libamdhip64 (Debian: apt-get install hipcc libamdhip64-dev)")
  endif()
  set(OPFORGE_HIP_ARCHITECTURES "gfx90a;gfx942" CACHE STRING "AMD GPU architectures")
  # Keep the architectures this hipcc's clang can target.
  set(_probe ${CMAKE_BINARY_DIR}/hip_probe.cu)
  file(WRITE ${_probe} "#include <hip/hip_runtime.h>\n__global__ void k(float* x) { x[0] = 1.f; }\n")
  set(_hip_arch_flags)
  set(_hip_archs)
  foreach(_arch ${OPFORGE_HIP_ARCHITECTURES})
    execute_process(
      COMMAND ${CMAKE_COMMAND} -E env HIP_PLATFORM=amd ${OPFORGE_HIPCC} -x hip --offload-arch=${_arch}
              -c ${_probe} -o ${CMAKE_BINARY_DIR}/hip_probe_${_arch}.o
      RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
    if(_rc EQUAL 0)
      list(APPEND _hip_arch_flags --offload-arch=${_arch})
      list(APPEND _hip_archs ${_arch})
    else()
      message(WARNING "opforge: hipcc cannot target ${_arch}; the HIP backend is built without it")
    endif()
  endforeach()
  if(NOT _hip_archs)
    message(FATAL_ERROR "opforge: hipcc can target none of ${OPFORGE_HIP_ARCHITECTURES}")
  endif()
  set(_hip_objects)
  foreach(_src ${OPFORGE_GPU_SOURCES})
    get_filename_component(_name ${_src} NAME_WE)
    set(_obj ${CMAKE_BINARY_DIR}/hip/${_name}.o)
    add_custom_command(
      OUTPUT ${_obj}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/hip
      COMMAND ${CMAKE_COMMAND} -E env HIP_PLATFORM=amd ${OPFORGE_HIPCC} -x hip -std=c++17 -O3 -fPIC
              -DOPFORGE_HIP ${_hip_arch_flags}
              -I${CMAKE_SOURCE_DIR}/kernels -I${CMAKE_SOURCE_DIR}/runtime/include -I${OPFORGE_GEN_DIR}/cpp
              -c ${_src} -o ${_obj}
      DEPENDS ${_src} ${OPFORGE_GPU_HEADERS} ${OPFORGE_GEN_SOURCES}
      COMMENT "hipcc ${_name}.cu"
      VERBATIM)
    list(APPEND _hip_objects ${_obj})
  endforeach()
  set_source_files_properties(${_hip_objects} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  add_library(opforge_hip SHARED ${_hip_objects})
  set_target_properties(opforge_hip PROPERTIES LINKER_LANGUAGE CXX INSTALL_RPATH "$ORIGIN")
  target_link_libraries(opforge_hip PRIVATE opforge_runtime ${OPFORGE_AMDHIP64} ${CMAKE_DL_LIBS})
  install(TARGETS opforge_hip LIBRARY DESTINATION opforge/lib)
  message(STATUS "opforge: HIP backend ON (${OPFORGE_HIPCC}, architectures ${_hip_archs})")
else()
  message(STATUS "opforge: HIP backend OFF")
endif()
