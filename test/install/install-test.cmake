# Installs the build into a temporary prefix and uses it as a downstream
# project would: every public header on its own, find_package(PTO) with the
# static and the shared library, and pkg-config (shared, and --static).
# Run by ctest as `cmake -P`; see test/install/CMakeLists.txt for the
# variables it is given.
cmake_minimum_required(VERSION 3.20)

foreach(v BUILD_DIR SOURCE_DIR WORK_DIR C_COMPILER PKG_CONFIG PYTHON PYTHONDIR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "install-test: ${v} is not set")
  endif()
endforeach()
if(NOT PKG_CONFIG)
  message(FATAL_ERROR "install-test: pkg-config was not found when PTO was "
    "configured; install it (scripts/install-deps.sh) and reconfigure")
endif()
separate_arguments(SANITIZE_FLAGS UNIX_COMMAND "${SANITIZE_FLAGS}")

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

# Runs a command; stops the test with its output when it fails.
function(run what)
  cmake_parse_arguments(R "" "WORKING_DIRECTORY;OUTPUT" "COMMAND;ENV" ${ARGN})
  if(R_ENV)
    set(R_COMMAND ${CMAKE_COMMAND} -E env ${R_ENV} ${R_COMMAND})
  endif()
  set(wd ${WORK_DIR})
  if(R_WORKING_DIRECTORY)
    set(wd ${R_WORKING_DIRECTORY})
  endif()
  execute_process(COMMAND ${R_COMMAND} WORKING_DIRECTORY ${wd}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${R_COMMAND}")
    message(FATAL_ERROR "install-test: ${what} failed (${rc})\n$ ${cmd}\n${out}${err}")
  endif()
  message(STATUS "install-test: ${what}: ok")
  if(R_OUTPUT)
    set(${R_OUTPUT} "${out}" PARENT_SCOPE)
  endif()
endfunction()

set(config_args "")
if(CONFIG)
  set(config_args --config ${CONFIG})
endif()
run("cmake --install" COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR}
    --prefix ${prefix} ${config_args})

# What an installation must hold.
foreach(f include/pto/IR.h include/pto/Platform.h include/pto/Runtime.h
          bin/pto-opt bin/pto-runtime-demo
          share/pto/platforms/a2a3.xml share/pto/platforms/a3.xml
          share/pto/platforms/pto-platform.rng lib/cmake/PTO/PTOConfig.cmake
          lib/cmake/PTO/PTOConfigVersion.cmake lib/cmake/PTO/PTOTargets.cmake)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "install-test: ${f} is not installed")
  endif()
endforeach()
file(GLOB_RECURSE libdirs_pc ${prefix}/*/pto.pc)
file(GLOB_RECURSE static_libs ${prefix}/*/libpto.a)
file(GLOB_RECURSE shared_libs ${prefix}/*/libpto.so)
file(GLOB_RECURSE runtime_pc ${prefix}/*/pto-runtime.pc)
file(GLOB_RECURSE runtime_libs ${prefix}/*/libpto_runtime.a)
foreach(v libdirs_pc static_libs shared_libs runtime_pc runtime_libs)
  list(LENGTH ${v} n)
  if(NOT n EQUAL 1)
    message(FATAL_ERROR "install-test: expected one of ${v}, found: ${${v}}")
  endif()
endforeach()
get_filename_component(pcdir ${libdirs_pc} DIRECTORY)
get_filename_component(libdir ${shared_libs} DIRECTORY)

# The package files must point into the prefix only, never back into the
# source or build tree.
file(GLOB_RECURSE meta ${prefix}/*.cmake ${prefix}/*.pc)
foreach(f ${meta})
  file(READ ${f} text)
  foreach(tree ${SOURCE_DIR} ${BUILD_DIR})
    string(FIND "${text}" "${tree}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "install-test: ${f} refers to ${tree}")
    endif()
  endforeach()
endforeach()

# Every public header compiles on its own with the project's warnings.
file(GLOB headers RELATIVE ${prefix}/include ${prefix}/include/pto/*.h)
foreach(h ${headers})
  string(MAKE_C_IDENTIFIER ${h} id)
  file(WRITE ${WORK_DIR}/hdr_${id}.c "#include <${h}>\nint main(void) { return 0; }\n")
  run("header ${h}" COMMAND ${C_COMPILER} -std=c11 -Wall -Wextra -Wpedantic
      -Werror -fsyntax-only -I${prefix}/include ${WORK_DIR}/hdr_${id}.c)
endforeach()

# find_package(PTO): static and shared.
set(ds ${WORK_DIR}/downstream)
string(REPLACE ";" " " flags "${SANITIZE_FLAGS}")
run("configure a downstream project" COMMAND ${CMAKE_COMMAND}
    -S ${SOURCE_DIR}/test/install/downstream -B ${ds}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${C_COMPILER}
    -DCMAKE_BUILD_TYPE=Release "-DCMAKE_C_FLAGS=${flags}"
    "-DCMAKE_EXE_LINKER_FLAGS=${flags}")
run("build it" COMMAND ${CMAKE_COMMAND} --build ${ds})
foreach(kind static shared)
  run("find_package(PTO), ${kind} library" COMMAND ${ds}/roundtrip_${kind}
      OUTPUT out)
  if(NOT out MATCHES "downstream: ok")
    message(FATAL_ERROR "install-test: roundtrip_${kind} printed:\n${out}")
  endif()
endforeach()
run("find_package(PTO), the runtime" COMMAND ${ds}/runtime_static OUTPUT out)
if(NOT out MATCHES "downstream runtime: ok")
  message(FATAL_ERROR "install-test: runtime_static printed:\n${out}")
endif()

# pkg-config: the shared library, then the static one with --static (whose
# private libraries, such as -lm, a static link needs).
set(pc_env PKG_CONFIG_PATH=${pcdir})
run("pkg-config --cflags --libs pto" ENV ${pc_env}
    COMMAND ${PKG_CONFIG} --cflags --libs pto OUTPUT pc_shared)
run("pkg-config --static --cflags --libs pto" ENV ${pc_env}
    COMMAND ${PKG_CONFIG} --static --cflags --libs pto OUTPUT pc_static)
separate_arguments(pc_shared UNIX_COMMAND "${pc_shared}")
separate_arguments(pc_static UNIX_COMMAND "${pc_static}")
if(NOT "-lm" IN_LIST pc_static)
  message(FATAL_ERROR "install-test: pkg-config --static gives no -lm: ${pc_static}")
endif()
# -lpto would pick libpto.so next to libpto.a: ask for the archive.
list(TRANSFORM pc_static REPLACE "^-lpto$" "-l:libpto.a")
set(main ${SOURCE_DIR}/test/install/downstream/main.c)
run("link with pkg-config (shared)" COMMAND ${C_COMPILER} -std=c11
    ${SANITIZE_FLAGS} ${main} ${pc_shared} -o ${WORK_DIR}/pc_shared)
run("link with pkg-config --static" COMMAND ${C_COMPILER} -std=c11
    ${SANITIZE_FLAGS} ${main} ${pc_static} -o ${WORK_DIR}/pc_static)
run("run the pkg-config (shared) program" ENV LD_LIBRARY_PATH=${libdir}
    COMMAND ${WORK_DIR}/pc_shared OUTPUT out)
# No LD_LIBRARY_PATH: the static program must not need libpto.so.
run("run the pkg-config --static program" COMMAND ${WORK_DIR}/pc_static
    OUTPUT out2)
if(NOT out MATCHES "downstream: ok" OR NOT out2 MATCHES "downstream: ok")
  message(FATAL_ERROR "install-test: pkg-config programs printed:\n${out}${out2}")
endif()
# pto-runtime.pc: the runtime is a static library only, so its plain
# --libs already carry threads, -lm and libxml2.
run("pkg-config --cflags --libs pto-runtime" ENV ${pc_env}
    COMMAND ${PKG_CONFIG} --cflags --libs pto-runtime OUTPUT pc_rt)
separate_arguments(pc_rt UNIX_COMMAND "${pc_rt}")
run("link the runtime with pkg-config" COMMAND ${C_COMPILER} -std=c11
    ${SANITIZE_FLAGS} ${SOURCE_DIR}/test/install/downstream/runtime_main.c
    ${pc_rt} -o ${WORK_DIR}/pc_runtime)
run("run the pkg-config runtime program" COMMAND ${WORK_DIR}/pc_runtime
    OUTPUT out)
if(NOT out MATCHES "downstream runtime: ok")
  message(FATAL_ERROR "install-test: pc_runtime printed:\n${out}")
endif()

# The installed tool runs.
run("installed pto-opt" ENV --unset=LD_LIBRARY_PATH
    COMMAND ${prefix}/bin/pto-opt --version OUTPUT out)
if(NOT out MATCHES "PTO")
  message(FATAL_ERROR "install-test: pto-opt --version printed: ${out}")
endif()
# The installed runtime demo runs its synthetic graph on the model of an
# installed platform description.
run("installed pto-runtime-demo" ENV --unset=LD_LIBRARY_PATH
    COMMAND ${prefix}/bin/pto-runtime-demo --backend sim --report text
      --platform ${prefix}/share/pto/platforms/a3.xml OUTPUT out)
if(NOT out MATCHES "health report \\(sim, platform a3\\)\nmakespan: ")
  message(FATAL_ERROR "install-test: pto-runtime-demo printed: ${out}")
endif()
# The installed pto-run runs a bundled example (no LD_LIBRARY_PATH).
run("installed pto-run" ENV --unset=LD_LIBRARY_PATH COMMAND ${prefix}/bin/pto-run
    ${SOURCE_DIR}/examples/softmax.pto --random 0 OUTPUT out)
if(NOT out MATCHES "out0: tensor<4x32x1x256xf32>")
  message(FATAL_ERROR "install-test: pto-run printed: ${out}")
endif()

# The Python package from the prefix, with only the one PYTHONPATH line the
# docs give, finds the prefix's libpto.so without PTO_LIBRARY. Run from the
# work directory, so that the checkout's python/ is not on the path.
if(IS_ABSOLUTE "${PYTHONDIR}")
  set(pydir ${PYTHONDIR})
else()
  set(pydir ${prefix}/${PYTHONDIR})
endif()
foreach(f pypto/__init__.py pypto/_installed.py)
  if(NOT EXISTS ${pydir}/${f})
    message(FATAL_ERROR "install-test: ${pydir}/${f} is not installed")
  endif()
endforeach()
run("installed Python package" ENV --unset=PTO_LIBRARY --unset=LD_LIBRARY_PATH
    PYTHONPATH=${pydir} PYTHONDONTWRITEBYTECODE=1 ${PYTHON_ENV}
    COMMAND ${PYTHON} ${SOURCE_DIR}/test/install/check_python.py ${prefix}
      ${prefix} OUTPUT out)
if(NOT out MATCHES "installed pypto: ok")
  message(FATAL_ERROR "install-test: check_python.py printed: ${out}")
endif()

# `pip install ./python` works offline (the in-tree build backend needs
# nothing from an index); that package finds the library via PTO_LIBRARY.
run("pip install ./python, offline" ENV PYTHONDONTWRITEBYTECODE=1 ${PYTHON_ENV}
    COMMAND ${PYTHON} -m pip install --no-index --no-deps --quiet
      --target ${WORK_DIR}/pip ${SOURCE_DIR}/python)
run("pip-installed Python package" ENV PTO_LIBRARY=${libdir}
    PYTHONPATH=${WORK_DIR}/pip PYTHONDONTWRITEBYTECODE=1 ${PYTHON_ENV}
    COMMAND ${PYTHON} ${SOURCE_DIR}/test/install/check_python.py
      ${WORK_DIR}/pip ${prefix} OUTPUT out)
if(NOT out MATCHES "installed pypto: ok")
  message(FATAL_ERROR "install-test: check_python.py printed: ${out}")
endif()
message(STATUS "install-test: all checks passed")
