# patcoll_add_app(target source [libraries...]): an application example,
# linked to patcoll and MPI, with the shared helpers on its include path.
function(patcoll_add_app target source)
  add_executable(${target} ${source})
  target_include_directories(${target} PRIVATE ${CMAKE_SOURCE_DIR}/examples/common ${CMAKE_SOURCE_DIR}/examples/iterative)
  target_link_libraries(${target} PRIVATE patcoll MPI::MPI_C m ${ARGN})
endfunction()
