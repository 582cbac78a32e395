// Declarations of every builder and generator, one header per area so that
// work on different areas does not collide; catalog.cpp lists them with
// their names and restrictions. Builders take (params, rank) and return
// that rank's Program; generators take params and return all ranks'.
#pragma once

#include <vector>

#include "../algorithm.hpp"

#include "allgather.hpp"           // allgather/allgatherv
#include "classic.hpp"             // reduce/allreduce classics
#include "pap.hpp"                 // slt, prr, scatter/gather families
#include "scheduled.hpp"            // clairvoyant, uni_greedy, bi_greedy
#include "bcast.hpp"                // MPI_Bcast
#include "alltoall.hpp"             // alltoall(v)
#include "reduce_scatter.hpp"       // reduce_scatter(_block)
#include "reactive.hpp"             // reactive reduce
