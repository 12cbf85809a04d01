# Finds a Python interpreter that can import numpy (the test oracle). On
# Debian that is /usr/bin/python3 with python3-numpy; a python3 earlier on
# PATH may be a separate build without it.
set(PTO_PYTHON "" CACHE FILEPATH "Python interpreter with numpy for tests")
set(_cands ${PTO_PYTHON} /usr/bin/python3)
find_program(_path_python3 NAMES python3)
if(_path_python3)
  list(APPEND _cands ${_path_python3})
endif()
set(PTO_PYTHON_HAS_NUMPY False)
set(_found "")
foreach(c ${_cands})
  if(EXISTS ${c})
    execute_process(COMMAND ${c} -c "import numpy" RESULT_VARIABLE _rc
      OUTPUT_QUIET ERROR_QUIET)
    if(_rc EQUAL 0)
      set(_found ${c})
      break()
    endif()
  endif()
endforeach()
if(_found)
  set(PTO_PYTHON ${_found} CACHE FILEPATH "Python interpreter with numpy for tests" FORCE)
  set(PTO_PYTHON_HAS_NUMPY True)
  message(STATUS "PTO: tests use ${PTO_PYTHON} (numpy found)")
else()
  list(GET _cands -1 _any)
  set(PTO_PYTHON ${_any} CACHE FILEPATH "Python interpreter with numpy for tests" FORCE)
  message(WARNING "PTO: no Python interpreter that imports numpy was found "
    "(tried: ${_cands}). Numerical tests against numpy cannot run. "
    "On Debian: apt-get install python3-numpy (or run scripts/install-deps.sh).")
endif()

# A sanitized libpto.so inside a Python that is not: the sanitizer runtime
# must be loaded first, and Python's own allocations are not ours to check.
# PTO_PYTHON_SANITIZER_ENV is the environment (VAR=value items) every test
# that loads libpto.so into Python runs with.
set(PTO_PYTHON_SANITIZER_ENV "")
if(PTO_ENABLE_ASAN)
  if(CMAKE_C_COMPILER_ID STREQUAL "Clang")
    set(_asan_name libclang_rt.asan-${CMAKE_SYSTEM_PROCESSOR}.so)
  else()
    set(_asan_name libasan.so)
  endif()
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=${_asan_name}
    OUTPUT_VARIABLE _asan_rt OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(PTO_PYTHON_SANITIZER_ENV "LD_PRELOAD=${_asan_rt}"
    "ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1")
endif()
