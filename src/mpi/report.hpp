// The arrival report (PATCOLL_REPORT=PATH; docs/guide/profile.md).
//
// Every blocking collective call is recorded once, at the end of the one
// call path (mpi/call.hpp's blocking_call) that the C API and the preload
// shim share: every call the shim intercepts (whoever serves it, the MPI
// library included) and every blocking PAT_* call.
// A call is (communicator, collective, call site, bytes per rank) with this
// rank's entry and exit times on MPI_Wtime.
//
// Per key and rank: rolling statistics over every call (count, time in the
// collective, its minimum and maximum, who served it) and a sample of
// PATCOLL_REPORT_SAMPLES calls with their entry and exit times: the first
// half of the cap, then evenly spaced calls over the whole run (the stride
// doubles when the second half is full). The sample depends only on the
// call's number at its key, so every rank keeps the same calls and their
// vectors line up. Memory: O(keys x cap), at most 1024 keys per rank (calls
// beyond that share one overflow key per collective).
//
// Across ranks without communication per call: a communicator is the list
// of its members' MPI_COMM_WORLD ranks plus how many communicators with the
// same list this rank recorded before (first use order, the same on every
// member); the k-th call of a collective on it is the same call on every
// member; a call site is identified by the number of the first call made
// there (a rank's return addresses differ with ASLR), printed with
// dladdr as rank 0's `function+0xOFF (object)` or `object+0xOFF`.
//
// Every PATCOLL_REPORT_FLUSH seconds a rank rewrites PATH.rank<R> (its
// data, local times, binary: patcoll-report reads it when PATH is
// missing). At MPI_Finalize the clocks are aligned to MPI_COMM_WORLD rank
// 0's (clock.hpp), rank 0 gathers every rank's data, writes PATH (JSON)
// and one trace per call site beside it (PATH minus `.json` +
// `.site<K>.trace`, the format `--pap trace:FILE` / `--pattern trace:FILE`
// replay), and the partial files are removed. With the library alone,
// every rank of MPI_COMM_WORLD must make at least one blocking PAT_* call
// (the gather at MPI_Finalize needs them all); the shim registers at
// MPI_Init.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string_view>

#include "core/ir.hpp"

namespace patcoll::mpi::report {

struct CommRecord;

// PATCOLL_REPORT is set (read once).
bool enabled();

// Records one call; its entry and exit (`leave`) times from MPI_Wtime.
// `served_by` must point to storage that outlives the process's MPI (a
// catalogue name, a literal). `cached`: where the caller keeps this
// communicator's record (the communicator's patcoll state, so no attribute
// of the recorder's own); nullptr looks it up by handle (intercommunicators,
// tools).
void record(CommRecord **cached, MPI_Comm comm, core::Collective collective, const void *call_site,
            std::int64_t bytes, double entry, double leave, std::string_view served_by);

// Registers the MPI_Finalize hook (the shim calls it from MPI_Init, so every
// rank takes part in the final gather); record() does it too.
void prepare();

// Bytes per rank of a reduction (count x size of datatype) and of a
// scatter/gather (one rank's block, on every rank the same); -1 when the
// datatype is MPI_DATATYPE_NULL (the call is erroneous; MPI will say so).
std::int64_t reduction_bytes(int count, MPI_Datatype datatype);
std::int64_t movement_bytes(core::Collective collective, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            const void *recvbuf, int recvcount, MPI_Datatype recvtype);

// --- for the tests and tools ---------------------------------------------

// Bytes held by the recorder on this rank (statistics and samples).
std::size_t memory_bytes();

}  // namespace patcoll::mpi::report
