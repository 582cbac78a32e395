/* patcoll — MPI collectives that stay fast when processes arrive late.
 *
 * The collectives take exactly the argument lists of their MPI
 * counterparts and return MPI error codes (MPI_SUCCESS on success). They
 * never abort and never invoke the communicator's error handler: on error
 * the code is returned, the user's buffers are untouched, and
 * PAT_Last_error() describes what was wrong.
 *
 * Algorithm selection, per collective ("reduce", "allreduce", "scatter",
 * "gather", "allgather", "allgatherv"), first match wins:
 *   1. the name given to PAT_<Coll>_with();
 *   2. PAT_Set_algorithm(comm, collective, name) for that communicator;
 *   3. PAT_Set_algorithm(MPI_COMM_NULL, collective, name) for the process;
 *   4. the environment: PATCOLL_REDUCE, PATCOLL_ALLREDUCE, PATCOLL_SCATTER,
 *      PATCOLL_GATHER, PATCOLL_ALLGATHER, PATCOLL_ALLGATHERV;
 *   5. "auto": without arrival times, a classic algorithm chosen by
 *      message size and process count; with a PAT vector (PAT_Set_arrivals,
 *      the PAT runtime, or the preload shim's history), the candidate the
 *      simulator predicts fastest on it under the communicator's cost
 *      model, "native" when none beats it, and (PATCOLL_AUTO_FEEDBACK=1,
 *      the default) checked against measured times (see
 *      docs/results/selection.md and docs/results/adaptive.md).
 *      PAT_Get_last_algorithm() says what served a call.
 * "native" calls the MPI library's own PMPI_* function. An unknown name is
 * MPI_ERR_ARG; a known algorithm whose restrictions the call does not meet
 * (e.g. a non-commutative op for a commutative-only algorithm) is
 * MPI_ERR_OP or MPI_ERR_ARG, unless PATCOLL_FALLBACK=1, in which case the
 * call falls back to "auto" and says so once on stderr.
 *
 * C99-clean.
 */
#ifndef PATCOLL_H
#define PATCOLL_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* libpatcoll.so is built with hidden visibility; what is declared here is
 * its interface. */
#if defined(__GNUC__) && __GNUC__ >= 4
#pragma GCC visibility push(default)
#endif

#define PATCOLL_VERSION_MAJOR 0
#define PATCOLL_VERSION_MINOR 1
#define PATCOLL_VERSION_PATCH 0

/* The version of the library actually loaded (compare with the
 * PATCOLL_VERSION_* of the header compiled against). Any pointer may be
 * NULL. Callable at any time, also before MPI_Init. Always MPI_SUCCESS. */
int PAT_Get_version(int *major, int *minor, int *patch);

/* Collectives (argument lists and semantics of MPI_Reduce & co). */
int PAT_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm);
int PAT_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int PAT_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm);
int PAT_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm);
int PAT_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm);
int PAT_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm);
int PAT_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int PAT_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm);
int PAT_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int PAT_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm);
int PAT_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm);

/* The same with the algorithm named explicitly (NULL or "" = as selected). */
int PAT_Reduce_with(const char *algorithm, const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op, int root, MPI_Comm comm);
int PAT_Allreduce_with(const char *algorithm, const void *sendbuf, void *recvbuf, int count,
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int PAT_Scatter_with(const char *algorithm, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int PAT_Gather_with(const char *algorithm, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int PAT_Allgather_with(const char *algorithm, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                       void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int PAT_Allgatherv_with(const char *algorithm, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                        void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                        MPI_Comm comm);
int PAT_Bcast_with(const char *algorithm, void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int PAT_Alltoall_with(const char *algorithm, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int PAT_Alltoallv_with(const char *algorithm, const void *sendbuf, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                       MPI_Datatype recvtype, MPI_Comm comm);
int PAT_Reduce_scatter_block_with(const char *algorithm, const void *sendbuf, void *recvbuf, int recvcount,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int PAT_Reduce_scatter_with(const char *algorithm, const void *sendbuf, void *recvbuf, const int recvcounts[],
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);

/* Picks the algorithm of `collective` for `comm`, or for the whole process
 * when comm is MPI_COMM_NULL. name NULL or "" clears the choice.
 * MPI_ERR_ARG for an unknown collective or algorithm. */
int PAT_Set_algorithm(MPI_Comm comm, const char *collective, const char *name);

/* The arrival-time (PAT) vector that PAP-aware algorithms use on `comm`:
 * one value per rank, seconds, relative (only differences matter), the
 * same on every rank. NULL clears it (balanced arrivals are assumed).
 * Collective over comm: a non-finite value on any rank, or vectors that
 * differ between ranks, are MPI_ERR_ARG on every rank and the previous
 * vector stays (docs/results/agreement.md). */
int PAT_Set_arrivals(MPI_Comm comm, const double *arrivals);

/* Hockney cost model (seconds, seconds per byte) used for segment sizing
 * and schedule round times on `comm` (MPI_COMM_NULL: process default).
 * Every value must be positive and finite (else MPI_ERR_ARG). With a
 * communicator the call is collective and the model must be the same on
 * every rank (else MPI_ERR_ARG everywhere, the previous model stays); the
 * process default is checked at the first collective on a communicator.
 * Successful setters clear PAT_Last_error(). */
int PAT_Set_cost_model(MPI_Comm comm, double alpha, double beta, double gamma);

/* Number of registered algorithms of `collective` ("native" included,
 * "auto" not: it is a rule, not an algorithm), and the canonical name of
 * the index-th (a static string); -1 / NULL for an unknown collective or
 * an index out of range. Every call that takes an algorithm name also
 * accepts its aliases (`bnom` for `binomial`, ...) and reports the
 * canonical name. patcoll-info lists each one's restrictions,
 * capabilities and aliases. */
int PAT_Algorithm_count(const char *collective);
const char *PAT_Algorithm_name(const char *collective, int index);

/* The algorithm that served the last call of `collective` on `comm` through
 * patcoll ("native" when the MPI library's own did), e.g. what `auto`
 * chose; *name is NULL before the first call. The string is static. A
 * local call. MPI_ERR_COMM for MPI_COMM_NULL, MPI_ERR_ARG for an unknown
 * collective or a NULL `name`. */
int PAT_Get_last_algorithm(MPI_Comm comm, const char *collective, const char **name);

/* ---- PAT runtime ([PS] Fig. 4; docs/results/runtime.md) -------------------------
 * A background thread per process predicts this process's arrival at the
 * next collective and exchanges the predictions, so that the PAP-aware
 * algorithms get a PAT vector without PAT_Set_arrivals:
 *
 *   MPI_Init_thread(..., MPI_THREAD_MULTIPLE, ...); PAT_Init(MPI_COMM_WORLD);
 *   for (...) { PAT_ProcessingStart(); compute 50%; PAT_Edge(0.5);
 *               compute the rest; PAT_ProcessingEnd(); PAT_Scatter(...); }
 *   PAT_Finalize();
 *
 * PAT_Init(comm) is collective over comm; it needs MPI_THREAD_MULTIPLE
 * (otherwise MPI_ERR_OTHER, and the collectives keep working without
 * PATs). One runtime per process: PAT_Init twice is MPI_ERR_OTHER. At
 * PAT_Edge(f) (0 < f <= 1, once per phase, same number of edges on every
 * rank) the arrival is predicted and exchanged in the background; the next
 * collective on comm waits for that exchange and then uses the vector.
 * State errors (no PAT_Init, PAT_Finalize twice, PAT_Edge outside
 * ProcessingStart/End, two edges in a phase) are MPI_ERR_OTHER; bad
 * arguments MPI_ERR_ARG; PAT_Last_error() says which. PAT_Finalize is
 * collective over comm; a runtime not finalised is stopped at MPI_Finalize. */
int PAT_Init(MPI_Comm comm);
int PAT_Finalize(void);
int PAT_Initialized(int *flag);
/* PAT_Set_algorithm on the runtime's communicator (before PAT_Init: for
 * the whole process). */
int PAT_UseAlg(const char *collective, const char *name);
int PAT_ProcessingStart(void);
int PAT_Edge(double fraction);
int PAT_ProcessingEnd(void);
/* The predictor: "edge" (elapsed / fraction; the default), "last" (the
 * previous phase's measured length), "sma" / "sma:<k>" (mean of the last k
 * measured lengths, k = 5 by default). Also the environment variable
 * PATCOLL_PREDICTOR, read at PAT_Init; this call takes precedence. */
int PAT_Set_predictor(const char *name);
/* The newest exchanged PAT vector (one value per rank of the runtime's
 * communicator, seconds, earliest = 0; zeros before the first exchange);
 * waits for an exchange in flight. */
int PAT_Get_arrivals(double *arrivals);
/* This process's prediction at its last edge and the measured length of
 * its last completed phase (seconds; NaN when there is none yet). */
int PAT_Get_prediction(double *predicted, double *measured);

/* ---- Non-blocking and persistent collectives (docs/results/executor.md) ---------
 * A PAT_Handle stands for one collective in flight (non-blocking) or one
 * collective set up once and started many times (persistent, MPI-4 style:
 * the Program, the buffers and the memory are fixed once, which is what
 * iterative applications need). Completion: PAT_Wait (blocks) or PAT_Test
 * (never blocks; *flag = 1 when complete). A non-blocking collective's
 * handle is freed by the PAT_Wait / successful PAT_Test that completes it
 * (*handle becomes NULL, as MPI_Wait sets MPI_REQUEST_NULL); PAT_Wait and
 * PAT_Test on NULL return at once. A persistent one stays until
 * PAT_Handle_free (not while started and not completed: MPI_ERR_OTHER).
 * Progress is made inside PAT_Test / PAT_Wait and, when the PAT runtime is
 * initialised, by its background thread (user ops may then be called from
 * that thread). Same argument checks, error codes and algorithm selection
 * as the blocking calls; the *_with variants name the algorithm, and a
 * persistent collective also takes it from the info key
 * "patcoll_algorithm". Starts on a communicator must come in the same
 * order on every rank, as MPI requires for collectives. */
typedef struct PAT_Handle_s *PAT_Handle;

int PAT_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                MPI_Comm comm, PAT_Handle *handle);
int PAT_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   PAT_Handle *handle);
int PAT_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, PAT_Handle *handle);
int PAT_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm, PAT_Handle *handle);
int PAT_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, PAT_Handle *handle);
int PAT_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                    PAT_Handle *handle);
int PAT_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, PAT_Handle *handle);
int PAT_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm, PAT_Handle *handle);
int PAT_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                   PAT_Handle *handle);
int PAT_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm, PAT_Handle *handle);
int PAT_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                        MPI_Comm comm, PAT_Handle *handle);
int PAT_Ireduce_with(const char *algorithm, const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, int root, MPI_Comm comm, PAT_Handle *handle);
int PAT_Iallreduce_with(const char *algorithm, const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, PAT_Handle *handle);
int PAT_Iscatter_with(const char *algorithm, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, PAT_Handle *handle);
int PAT_Igather_with(const char *algorithm, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, PAT_Handle *handle);
int PAT_Iallgather_with(const char *algorithm, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                        void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, PAT_Handle *handle);
int PAT_Iallgatherv_with(const char *algorithm, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         MPI_Comm comm, PAT_Handle *handle);
int PAT_Ibcast_with(const char *algorithm, void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                    PAT_Handle *handle);
int PAT_Ialltoall_with(const char *algorithm, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                       void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, PAT_Handle *handle);
int PAT_Ialltoallv_with(const char *algorithm, const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                        MPI_Datatype recvtype, MPI_Comm comm, PAT_Handle *handle);
int PAT_Ireduce_scatter_block_with(const char *algorithm, const void *sendbuf, void *recvbuf, int recvcount,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, PAT_Handle *handle);
int PAT_Ireduce_scatter_with(const char *algorithm, const void *sendbuf, void *recvbuf, const int recvcounts[],
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, PAT_Handle *handle);

/* Persistent: collective over comm (like the MPI-4 MPI_Reduce_init & co.). */
int PAT_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                    MPI_Comm comm, MPI_Info info, PAT_Handle *handle);
int PAT_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                       MPI_Info info, PAT_Handle *handle);
int PAT_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, PAT_Handle *handle);
int PAT_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, PAT_Handle *handle);
int PAT_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, PAT_Handle *handle);
int PAT_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Info info, PAT_Handle *handle);
int PAT_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info,
                   PAT_Handle *handle);
int PAT_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, PAT_Handle *handle);
int PAT_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                       void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                       MPI_Comm comm, MPI_Info info, PAT_Handle *handle);
int PAT_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                                  MPI_Op op, MPI_Comm comm, MPI_Info info, PAT_Handle *handle);
int PAT_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                            MPI_Op op, MPI_Comm comm, MPI_Info info, PAT_Handle *handle);
int PAT_Reduce_init_with(const char *algorithm, const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                         MPI_Op op, int root, MPI_Comm comm, MPI_Info info, PAT_Handle *handle);
int PAT_Allreduce_init_with(const char *algorithm, const void *sendbuf, void *recvbuf, int count,
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, PAT_Handle *handle);
int PAT_Scatter_init_with(const char *algorithm, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                          void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                          PAT_Handle *handle);
int PAT_Gather_init_with(const char *algorithm, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                         PAT_Handle *handle);
int PAT_Allgather_init_with(const char *algorithm, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                            PAT_Handle *handle);
int PAT_Allgatherv_init_with(const char *algorithm, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                             MPI_Comm comm, MPI_Info info, PAT_Handle *handle);
int PAT_Bcast_init_with(const char *algorithm, void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                        MPI_Info info, PAT_Handle *handle);
int PAT_Alltoall_init_with(const char *algorithm, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                           PAT_Handle *handle);
int PAT_Alltoallv_init_with(const char *algorithm, const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, PAT_Handle *handle);
int PAT_Reduce_scatter_block_init_with(const char *algorithm, const void *sendbuf, void *recvbuf, int recvcount,
                                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                       PAT_Handle *handle);
int PAT_Reduce_scatter_init_with(const char *algorithm, const void *sendbuf, void *recvbuf, const int recvcounts[],
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, PAT_Handle *handle);

int PAT_Start(PAT_Handle handle);
int PAT_Wait(PAT_Handle *handle);
int PAT_Test(PAT_Handle *handle, int *flag);
int PAT_Handle_free(PAT_Handle *handle);

/* Background collectives ([PS] Figs. 6, 8, 10, 12; docs/results/runtime.md) are
 * persistent collectives named "bsln" / "bsbn" (PAT_Scatter_init) and
 * "bsls" / "bsbn" (PAT_Gather_init) on the PAT runtime's communicator:
 * the slin / sbn / sls Programs with every non-root's part (scatter) or
 * the root's part (gather) run by the runtime's thread right after the
 * exchange at the edge. These names are algorithms like any other (the
 * `background` capability in patcoll-info): in a blocking or non-blocking
 * call, or a persistent collective without the runtime or on another
 * communicator, they run their base (slin, sbn, sls) in the foreground.
 * PAT_Get_last_algorithm reports their own name either way (for the
 * runtime's collective: on the communicator given to PAT_Init). Contiguous datatypes only; no MPI_IN_PLACE for
 * gathers; init collective and outside a phase. Per use, on every rank:
 * PAT_Start(handle) before the phase's edge, PAT_Wait(&handle) after it
 * (do not touch the buffers in between). A started handle must be waited
 * for before the next edge (else that PAT_Edge is MPI_ERR_OTHER); PAT_Start
 * twice is MPI_ERR_OTHER. Free them before PAT_Finalize.
 *
 * PAT_Run(handle): start (if not started) and wait in one call; for a
 * background collective, the whole collective in the foreground when it
 * was not started or no edge came since. Kept because it is the [PS]
 * papers' name for the call after the edge, and code written against
 * patcoll 0.1 uses it. */
int PAT_Run(PAT_Handle handle);

/* A description of the last error returned on the calling thread ("" if
 * none). */
const char *PAT_Last_error(void);

#if defined(__GNUC__) && __GNUC__ >= 4
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* PATCOLL_H */
