// The PAT runtime's background collectives ([PS] Figs. 6, 8, 10, 12): scatter
// bsln / bsbn and gather bsls / bsbn (catalogue rows with the `background`
// capability, core/catalog.cpp), the slin / sbn / sls Programs with the
// part [PS] moves to the background thread run by that thread after the
// exchange at PAT_Edge. They are persistent collectives of the C API
// (PAT_Scatter_init / PAT_Gather_init with the algorithm named, PAT_Start
// before the edge, PAT_Wait after it; src/api/handles.cpp); these are the
// runtime's halves of those calls. MPI error codes; PAT_Last_error says why.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string_view>

#include "core/ir.hpp"
#include "patcoll.h"

namespace patcoll::runtime {

// A catalogue row with the `background` capability (name or alias).
bool is_background_algorithm(core::Collective, std::string_view name);
// The PAT runtime is running and `comm` is (congruent to) its communicator:
// a background row's persistent collective then runs part of it in the
// runtime's thread; anywhere else it is its base in the foreground.
bool runtime_communicator(MPI_Comm comm);
// Collective over comm (the runtime's communicator); outside a phase.
int background_init(core::Collective, const char *algorithm, const void *sendbuf, int sendcount,
                    MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                    MPI_Comm comm, void **handle);
int background_start(void *handle);  // before the phase's edge
// The collective call itself after the edge: the foreground part, or
// waiting for the background part; everything in the foreground when the
// handle was not started or no edge came since.
int background_run(void *handle);
bool background_started(void *handle);
bool background_part_pending(void *handle);  // started, armed, background part not finished
int background_free(void *handle);           // not while started

// For tests: the Program-cache counters of a live background collective
// (false when `handle` is not one; api/handles.hpp finds the collective
// behind a PAT_Handle).
bool background_cache_counts(void *handle, std::uint64_t &hits, std::uint64_t &misses);

}  // namespace patcoll::runtime
