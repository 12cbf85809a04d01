# Locates LLVM (14 through 19) through its CMake package or llvm-config,
# and the test tools that ship with it (lit, FileCheck, not, count).

set(_pto_llvm_hints "")
find_program(PTO_LLVM_CONFIG NAMES llvm-config llvm-config-19 llvm-config-18
  llvm-config-17 llvm-config-16 llvm-config-15 llvm-config-14)
if(PTO_LLVM_CONFIG)
  execute_process(COMMAND ${PTO_LLVM_CONFIG} --cmakedir
    OUTPUT_VARIABLE _pto_llvm_cmakedir OUTPUT_STRIP_TRAILING_WHITESPACE
    RESULT_VARIABLE _rc ERROR_QUIET)
  if(_rc EQUAL 0)
    list(APPEND _pto_llvm_hints ${_pto_llvm_cmakedir})
  endif()
endif()
find_package(LLVM CONFIG HINTS ${_pto_llvm_hints})
if(NOT LLVM_FOUND)
  message(FATAL_ERROR "PTO needs LLVM 14 to 19 (its CMake package or llvm-config). "
    "On Debian: apt-get install llvm-14-dev llvm-14-tools "
    "(or run scripts/install-deps.sh).")
endif()
if(LLVM_VERSION_MAJOR LESS 14 OR LLVM_VERSION_MAJOR GREATER 19)
  message(FATAL_ERROR "PTO supports LLVM 14 to 19, found ${LLVM_PACKAGE_VERSION} in ${LLVM_DIR}")
endif()
message(STATUS "PTO: using LLVM ${LLVM_PACKAGE_VERSION} from ${LLVM_DIR}")

set(_pto_tool_dirs ${LLVM_TOOLS_BINARY_DIR})
find_program(PTO_FILECHECK NAMES FileCheck HINTS ${_pto_tool_dirs} NO_DEFAULT_PATH)
find_program(PTO_FILECHECK NAMES FileCheck FileCheck-${LLVM_VERSION_MAJOR})
find_program(PTO_NOT NAMES not HINTS ${_pto_tool_dirs})
find_program(PTO_COUNT NAMES count HINTS ${_pto_tool_dirs})

# lit: a lit/llvm-lit on PATH, or lit.py inside the LLVM installation.
find_program(PTO_LIT NAMES lit llvm-lit HINTS ${_pto_tool_dirs})
if(NOT PTO_LIT)
  find_file(PTO_LIT_PY lit.py
    HINTS ${LLVM_TOOLS_BINARY_DIR}/../build/utils/lit
          ${LLVM_LIBRARY_DIR}/../build/utils/lit
          ${LLVM_INSTALL_PREFIX}/build/utils/lit
    NO_DEFAULT_PATH)
endif()

if(PTO_BUILD_TESTS)
  if(NOT PTO_FILECHECK OR NOT PTO_NOT)
    message(FATAL_ERROR "FileCheck and not were not found next to LLVM ${LLVM_PACKAGE_VERSION}. "
      "On Debian: apt-get install llvm-${LLVM_VERSION_MAJOR}-tools "
      "(or run scripts/install-deps.sh).")
  endif()
  if(NOT PTO_LIT AND NOT PTO_LIT_PY)
    message(FATAL_ERROR "lit was not found (looked for lit/llvm-lit on PATH and lit.py "
      "under the LLVM installation). On Debian: apt-get install llvm-${LLVM_VERSION_MAJOR}-tools "
      "(or run scripts/install-deps.sh).")
  endif()
endif()

# mlir-opt of the same LLVM, for compatibility checks of the textual IR.
find_program(PTO_MLIR_OPT NAMES mlir-opt HINTS ${_pto_tool_dirs} NO_DEFAULT_PATH)
find_program(PTO_MLIR_OPT NAMES mlir-opt-${LLVM_VERSION_MAJOR} mlir-opt)

# LLVM for the layers that call it (the JIT, the LLVM IR translation): the
# static libraries of the components they use, or the shared libLLVM.
# Static by default: a program linked with libLLVM.so spends about 20 ms of
# CPU at every start relocating and initialising all of LLVM, which a user
# running pto-run on a small kernel (and a test suite that runs it thousands
# of times) pays even when nothing is compiled; the components a PTO tool
# uses load in a fraction of that.
option(PTO_LLVM_STATIC "Link LLVM's static component libraries instead of libLLVM.so" ON)
if(PTO_LLVM_STATIC AND NOT TARGET LLVMOrcJIT)
  message(STATUS "PTO: LLVM's static libraries are not installed; linking libLLVM.so")
  set(PTO_LLVM_STATIC OFF)
endif()
if(TARGET LLVM AND NOT PTO_LLVM_STATIC)
  set(PTO_LLVM_LIBS LLVM)
  set(PTO_PC_LLVM_LIBS "-L${LLVM_LIBRARY_DIR} -lLLVM-${LLVM_VERSION_MAJOR}")
else()
  llvm_map_components_to_libnames(PTO_LLVM_LIBS core analysis irreader passes
    orcjit native nativecodegen)
  set(PTO_PC_LLVM_LIBS "")
  foreach(_l ${PTO_LLVM_LIBS})
    string(APPEND PTO_PC_LLVM_LIBS " -l${_l}")
  endforeach()
  set(PTO_PC_LLVM_LIBS "-L${LLVM_LIBRARY_DIR}${PTO_PC_LLVM_LIBS}")
  # LLVM is C++: a C program linking its archives needs the C++ runtime.
  # --as-needed keeps out the shared libraries LLVMSupport names that no
  # linked component calls (libz3, for the static analyser's solver).
  list(APPEND PTO_LLVM_LIBS stdc++)
  string(APPEND PTO_PC_LLVM_LIBS " -lstdc++")
  if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
    add_link_options(-Wl,--as-needed)
  endif()
endif()
# Compiles target t against the LLVM-C headers (as system headers: their
# warnings are not ours) and links it with libLLVM. Compile options, not
# include directories: lib/CMakeLists.txt sets a layer's include path.
function(pto_use_llvm t)
  foreach(_d ${LLVM_INCLUDE_DIRS})
    target_compile_options(${t} PRIVATE -isystem ${_d})
  endforeach()
  target_link_libraries(${t} PUBLIC ${PTO_LLVM_LIBS})
endfunction()

# LLVM's own checks of pto-translate's output: opt -verify and llc of the
# LLVM we build against, and of the newest LLVM installed beside it (its
# versioned tools on PATH, opt-22 ...), which downstream toolchains run.
find_program(PTO_LLVM_OPT NAMES opt HINTS ${_pto_tool_dirs} NO_DEFAULT_PATH)
find_program(PTO_LLVM_LLC NAMES llc HINTS ${_pto_tool_dirs} NO_DEFAULT_PATH)
set(PTO_NEWEST_OPT "")
set(PTO_NEWEST_LLC "")
foreach(_v RANGE 30 15 -1)
  if(_v GREATER LLVM_VERSION_MAJOR AND NOT PTO_NEWEST_OPT)
    find_program(_pto_opt_${_v} NAMES opt-${_v})
    find_program(_pto_llc_${_v} NAMES llc-${_v})
    if(_pto_opt_${_v} AND _pto_llc_${_v})
      set(PTO_NEWEST_OPT ${_pto_opt_${_v}})
      set(PTO_NEWEST_LLC ${_pto_llc_${_v}})
    endif()
  endif()
endforeach()
