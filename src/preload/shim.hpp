// The shim's one entry for a collective call, with the call site passed in
// (the C entry points of preload.cpp and the Fortran ones of fortran.cpp
// take the caller's return address).
#pragma once

#include "mpi/handle.hpp"

namespace patcoll::preload {

int serve_call(const mpi::NativeCall &call, const void *site);

}  // namespace patcoll::preload
