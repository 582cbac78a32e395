# What `cmake --install build --prefix X` puts under X (docs/results/install.md):
#   include/patcoll.h                      the C API
#   lib/libpatcoll.so.V (soname .so.MAJOR)  exports PAT_* only
#   lib/libpatcoll-preload.so              the PMPI shim (LD_PRELOAD)
#   bin/patcoll-*                          the tools; share/patcoll/plot.py
#   lib/cmake/patcoll/                     find_package(patcoll) -> patcoll::patcoll
#   lib/pkgconfig/patcoll.pc               pkg-config --cflags --libs patcoll
#   share/doc/patcoll/                     README and docs/
#   share/man/man1, man3                   the tools' and the C API's man pages
# Only the MPI build installs a library; the core-only build installs the
# MPI-free tools.
include(CMakePackageConfigHelpers)

set(PATCOLL_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/patcoll)

if(TARGET patcoll AND NOT PATCOLL_SMPI)  # SMPI: a static library for smpirun only
  install(TARGETS patcoll EXPORT patcollTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(FILES ${CMAKE_SOURCE_DIR}/include/patcoll.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(EXPORT patcollTargets NAMESPACE patcoll:: DESTINATION ${PATCOLL_INSTALL_CMAKEDIR})
  configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/patcollConfig.cmake.in
                                ${CMAKE_BINARY_DIR}/patcollConfig.cmake
                                INSTALL_DESTINATION ${PATCOLL_INSTALL_CMAKEDIR})
  write_basic_package_version_file(${CMAKE_BINARY_DIR}/patcollConfigVersion.cmake
                                   COMPATIBILITY SameMajorVersion)
  install(FILES ${CMAKE_BINARY_DIR}/patcollConfig.cmake ${CMAKE_BINARY_DIR}/patcollConfigVersion.cmake
          DESTINATION ${PATCOLL_INSTALL_CMAKEDIR})
  # MPI's own flags are the wrapper compiler's business (mpicc); the .pc
  # names the MPI it was built against for reference.
  set(PATCOLL_PC_MPI "${MPI_C_COMPILER}")
  file(RELATIVE_PATH PATCOLL_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
  string(REGEX REPLACE "/$" "" PATCOLL_PC_TO_PREFIX "${PATCOLL_PC_TO_PREFIX}")
  configure_file(${CMAKE_SOURCE_DIR}/cmake/patcoll.pc.in ${CMAKE_BINARY_DIR}/patcoll.pc @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/patcoll.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()
if(TARGET patcoll-preload)
  install(TARGETS patcoll-preload LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()

# Tools that exist in this configuration (patcoll-info, when built, too).
foreach(tool patcoll-bench patcoll-sim patcoll-sched patcoll-calibrate patcoll-info)
  if(TARGET ${tool})
    install(TARGETS ${tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()
# patcoll-report, a script configured into the build's bin/ (it runs the
# patcoll-sim beside it).
if(TARGET patcoll-report)
  install(PROGRAMS ${CMAKE_RUNTIME_OUTPUT_DIRECTORY}/patcoll-report DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(FILES ${CMAKE_SOURCE_DIR}/tools/plot.py DESTINATION ${CMAKE_INSTALL_DATADIR}/patcoll)

# Man pages: section 1 for the tools installed, section 3 (the C API, link
# pages included) with the library.
foreach(tool patcoll-bench patcoll-sim patcoll-sched patcoll-calibrate patcoll-info patcoll-report)
  if(TARGET ${tool})
    install(FILES ${CMAKE_SOURCE_DIR}/man/man1/${tool}.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  endif()
endforeach()
if(TARGET patcoll AND NOT PATCOLL_SMPI)
  install(DIRECTORY ${CMAKE_SOURCE_DIR}/man/man3/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man3 FILES_MATCHING PATTERN "*.3")
endif()
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The installed tree, used from outside both ways (tests/install/run.sh):
# find_package(patcoll) in a CMake project and pkg-config with mpicc, each
# program run under mpirun; and libpatcoll.so exports only PAT_*.
if(TARGET patcoll AND NOT PATCOLL_MPI_TESTS_ONLY AND NOT PATCOLL_SMPI)
  add_test(NAME install-consumer
           COMMAND ${CMAKE_SOURCE_DIR}/tests/install/run.sh ${CMAKE_BINARY_DIR} ${CMAKE_BINARY_DIR}/install-test
                   ${MPI_C_COMPILER} ${PATCOLL_MPIEXEC} ${PATCOLL_MPIEXEC_FLAGS})
  set_tests_properties(install-consumer PROPERTIES TIMEOUT 600 PROCESSORS 2 LABELS mpi)
endif()
