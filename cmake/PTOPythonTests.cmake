# The Python front end's tests: pytest over test/Python with the package of
# this checkout (python/) and this build's shared library. When no Python
# with numpy and pytest was found, the test still exists and fails saying
# why, so that a missing dependency is never mistaken for a pass.
execute_process(COMMAND ${PTO_PYTHON} -c "import pytest"
  RESULT_VARIABLE _pytest_rc OUTPUT_QUIET ERROR_QUIET)
# torch is optional for users but not for the suite when installed: the
# torch tests then must run (a broken import fails them instead of skipping).
# PTO_REQUIRE_TORCH=ON makes a missing torch an error too (CI).
option(PTO_REQUIRE_TORCH "The Python tests fail when torch cannot be imported" OFF)
execute_process(COMMAND ${PTO_PYTHON} -c "import torch"
  RESULT_VARIABLE _torch_rc OUTPUT_QUIET ERROR_QUIET)

set(_py_env
  "PYTHONPATH=${PROJECT_SOURCE_DIR}/python"
  "PTO_LIBRARY=$<TARGET_FILE:pto_shared>"
  "PYTHONDONTWRITEBYTECODE=1"
  # compile counts and times of a fresh process: no JIT objects on disk
  "PTO_JIT_CACHE=0")
if(_torch_rc EQUAL 0 OR PTO_REQUIRE_TORCH)
  list(APPEND _py_env "PTO_TEST_TORCH=1")
endif()
list(APPEND _py_env ${PTO_PYTHON_SANITIZER_ENV})

if(NOT PTO_PYTHON_HAS_NUMPY)
  add_test(NAME python
    COMMAND ${CMAKE_COMMAND} -E echo
      "python tests cannot run: no Python interpreter that imports numpy was found (tried ${PTO_PYTHON}); on Debian: apt-get install python3-numpy python3-pytest, or configure with -DPTO_PYTHON=/path/to/python3")
  set_tests_properties(python PROPERTIES FAIL_REGULAR_EXPRESSION "tests cannot run")
elseif(NOT _pytest_rc EQUAL 0)
  add_test(NAME python
    COMMAND ${CMAKE_COMMAND} -E echo
      "python tests cannot run: ${PTO_PYTHON} cannot import pytest; on Debian: apt-get install python3-pytest (scripts/install-deps.sh)")
  set_tests_properties(python PROPERTIES FAIL_REGULAR_EXPRESSION "tests cannot run")
else()
  add_test(NAME python
    COMMAND ${PTO_PYTHON} -m pytest -q -p no:cacheprovider ${PROJECT_SOURCE_DIR}/test/Python
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  # kernels run JIT-compiled by default (about 0.1-1 s of compile per kernel
  # on top of the interpreter's suite), and machines here are shared
  set_tests_properties(python PROPERTIES ENVIRONMENT "${_py_env}" TIMEOUT 1800)
endif()
