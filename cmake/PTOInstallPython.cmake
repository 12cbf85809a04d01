# Installs the pypto package (python/pypto) where the Python interpreter
# PTO_PYTHON looks for packages under the install prefix
# (lib/python3.X/dist-packages on Debian, lib/python3.X/site-packages
# elsewhere), plus a generated _installed.py that tells the package where
# libpto.so lies relative to itself, so that it needs no PTO_LIBRARY.
include(PTOFindPython)
execute_process(COMMAND ${PTO_PYTHON} -c
  "import sys; v = sys.version_info; d = 'dist-packages' if any(p.endswith('dist-packages') for p in sys.path) else 'site-packages'; print('lib/python%d.%d/%s' % (v[0], v[1], d))"
  OUTPUT_VARIABLE _pto_pydir OUTPUT_STRIP_TRAILING_WHITESPACE
  RESULT_VARIABLE _rc ERROR_QUIET)
if(NOT _rc EQUAL 0 OR NOT _pto_pydir)
  set(_pto_pydir lib/python3/site-packages)
endif()
set(PTO_INSTALL_PYTHONDIR ${_pto_pydir} CACHE STRING
  "Where cmake --install puts the pypto package (relative to the prefix, or absolute)")

# The library directory as seen from the installed package.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(PTO_PY_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
elseif(IS_ABSOLUTE "${PTO_INSTALL_PYTHONDIR}")
  set(PTO_PY_LIBDIR "${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}")
else()
  file(RELATIVE_PATH PTO_PY_LIBDIR /prefix/${PTO_INSTALL_PYTHONDIR}/pypto
    /prefix/${CMAKE_INSTALL_LIBDIR})
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/pypto_installed.py.in
  ${PROJECT_BINARY_DIR}/pypto/_installed.py @ONLY)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/pypto
  DESTINATION ${PTO_INSTALL_PYTHONDIR}
  FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
install(FILES ${PROJECT_BINARY_DIR}/pypto/_installed.py
  DESTINATION ${PTO_INSTALL_PYTHONDIR}/pypto)
