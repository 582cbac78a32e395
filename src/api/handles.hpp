// What the tests see of the C API's handles (src/api/handles.cpp): the
// executor collective or the background collective behind a PAT_Handle.
#pragma once

#include "mpi/handle.hpp"
#include "patcoll.h"

namespace patcoll::mpi {
// The executor collective behind a live PAT_Handle; null for a background
// collective or a handle that is not live.
Handle *collective_of(PAT_Handle_s *handle);
}  // namespace patcoll::mpi

namespace patcoll::runtime {
// The background collective behind a PAT_Handle; nullptr for any other
// handle.
void *background_of(PAT_Handle handle);
}  // namespace patcoll::runtime
