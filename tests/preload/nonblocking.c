/* Non-blocking and persistent collectives of an ordinary MPI program, run
 * with and without libpatcoll-preload.so (run_tests.sh nonblocking): every
 * completion call the MPI standard offers (MPI_Wait, MPI_Test, their -all,
 * -any and -some forms, MPI_Request_get_status), the program's own
 * point-to-point requests in the same arrays, and, where the MPI library
 * has them (MPI-4), MPI_Allreduce_init & co. with MPI_Start / MPI_Startall.
 * Results are checked against values computed here; a request the MPI
 * library completed before patcoll's run (a proxy that escaped the shim)
 * shows as a wrong result.
 *
 *   nonblocking [--shim]   --shim: also the cases whose answer is the
 *                          shim's (MPI_Request_free on an active
 *                          collective is MPI_ERR_REQUEST)
 */
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, passed, failed;

static void check(int ok, const char *what) {
  if (ok) {
    ++passed;
  } else {
    ++failed;
    fprintf(stderr, "rank %d: FAIL %s\n", rank, what);
  }
}

enum { N = 4099 };

static void fill(int *v, int n, int salt) {
  for (int i = 0; i < n; ++i) v[i] = rank * 7 + i * 3 + salt;
}
/* The sum over ranks of fill()'s element i. */
static int sum_at(int i, int salt) { return 7 * size * (size - 1) / 2 + size * (i * 3 + salt); }

static int allreduce_ok(const int *r, int n, int salt) {
  for (int i = 0; i < n; ++i)
    if (r[i] != sum_at(i, salt)) return 0;
  return 1;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int shim = argc > 1 && strcmp(argv[1], "--shim") == 0;
  int *a = malloc(sizeof(int) * N), *b = malloc(sizeof(int) * N), *ra = malloc(sizeof(int) * N),
      *rb = malloc(sizeof(int) * N);
  int *whole = malloc(sizeof(int) * N * (size_t)size), *block = malloc(sizeof(int) * N);
  MPI_Request req[4];

  /* MPI_Wait */
  fill(a, N, 1);
  MPI_Iallreduce(a, ra, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]);
  MPI_Wait(&req[0], MPI_STATUS_IGNORE);
  check(req[0] == MPI_REQUEST_NULL && allreduce_ok(ra, N, 1), "Iallreduce + Wait");

  /* MPI_Test in a loop, reduce at root 1 */
  const int root = size > 1 ? 1 : 0;
  fill(a, N, 2);
  memset(ra, 0, sizeof(int) * N);
  MPI_Ireduce(a, ra, N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, &req[0]);
  for (int flag = 0; !flag;) {
    MPI_Test(&req[0], &flag, MPI_STATUS_IGNORE);
    if (!flag) sched_yield();
  }
  check(req[0] == MPI_REQUEST_NULL && (rank != root || allreduce_ok(ra, N, 2)), "Ireduce + Test");

  /* MPI_Waitall: the program's ring messages around a collective */
  int token_in = -1, token_out = rank;
  fill(a, N, 3);
  MPI_Irecv(&token_in, 1, MPI_INT, (rank + size - 1) % size, 5, MPI_COMM_WORLD, &req[0]);
  MPI_Iallreduce(a, ra, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[1]);
  MPI_Isend(&token_out, 1, MPI_INT, (rank + 1) % size, 5, MPI_COMM_WORLD, &req[2]);
  MPI_Status statuses[4];
  int rc = MPI_Waitall(3, req, statuses);
  check(rc == MPI_SUCCESS && allreduce_ok(ra, N, 3) && token_in == (rank + size - 1) % size &&
            statuses[0].MPI_SOURCE == (rank + size - 1) % size,
        "Waitall with point-to-point");
  check(req[0] == MPI_REQUEST_NULL && req[1] == MPI_REQUEST_NULL && req[2] == MPI_REQUEST_NULL, "Waitall nulls");

  /* MPI_Waitany over two collectives and a null request */
  fill(a, N, 4);
  fill(b, N, 5);
  req[0] = MPI_REQUEST_NULL;
  MPI_Iallreduce(a, ra, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[1]);
  MPI_Iallreduce(b, rb, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[2]);
  int seen = 0;
  for (int k = 0; k < 2; ++k) {
    int index = -1;
    MPI_Waitany(3, req, &index, MPI_STATUS_IGNORE);
    if (index == 1 || index == 2) seen |= 1 << index;
  }
  int index = 0;
  MPI_Waitany(3, req, &index, MPI_STATUS_IGNORE);
  check(seen == 6 && index == MPI_UNDEFINED && allreduce_ok(ra, N, 4) && allreduce_ok(rb, N, 5), "Waitany");

  /* MPI_Waitsome and MPI_Testsome */
  fill(a, N, 6);
  fill(b, N, 7);
  MPI_Iallreduce(a, ra, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]);
  MPI_Ireduce(b, rb, N, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &req[1]);
  int done = 0, indices[4], outcount = 0;
  while (done < 2) {
    MPI_Waitsome(2, req, &outcount, indices, MPI_STATUSES_IGNORE);
    if (outcount == MPI_UNDEFINED) break;
    done += outcount;
  }
  check(done == 2 && allreduce_ok(ra, N, 6) && (rank != 0 || allreduce_ok(rb, N, 7)), "Waitsome");
  fill(a, N, 8);
  MPI_Iallreduce(a, ra, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]);
  done = 0;
  while (!done) {
    MPI_Testsome(1, req, &outcount, indices, MPI_STATUSES_IGNORE);
    if (outcount == 1 && indices[0] == 0) done = 1;
    else sched_yield();
  }
  MPI_Testsome(1, req, &outcount, indices, MPI_STATUSES_IGNORE);
  check(outcount == MPI_UNDEFINED && allreduce_ok(ra, N, 8), "Testsome");

  /* MPI_Testall (nothing completes until everything does) and MPI_Testany */
  fill(a, N, 9);
  MPI_Iallreduce(a, ra, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]);
  MPI_Irecv(&token_in, 1, MPI_INT, (rank + size - 1) % size, 6, MPI_COMM_WORLD, &req[1]);
  MPI_Send(&token_out, 1, MPI_INT, (rank + 1) % size, 6, MPI_COMM_WORLD);
  for (int flag = 0; !flag;) {
    MPI_Testall(2, req, &flag, MPI_STATUSES_IGNORE);
    if (!flag) {
      check(req[0] != MPI_REQUEST_NULL && req[1] != MPI_REQUEST_NULL, "Testall completes nothing until all");
      sched_yield();
    }
  }
  check(allreduce_ok(ra, N, 9) && req[0] == MPI_REQUEST_NULL && req[1] == MPI_REQUEST_NULL, "Testall");
  fill(a, N, 10);
  MPI_Iallreduce(a, ra, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]);
  for (int flag = 0; !flag;) {
    MPI_Testany(1, req, &index, &flag, MPI_STATUS_IGNORE);
    if (!flag) sched_yield();
  }
  check(index == 0 && allreduce_ok(ra, N, 10), "Testany");

  /* MPI_Request_get_status leaves the request to MPI_Wait */
  fill(a, N, 11);
  MPI_Iallreduce(a, ra, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]);
  for (int flag = 0; !flag;) {
    MPI_Request_get_status(req[0], &flag, MPI_STATUS_IGNORE);
    if (!flag) sched_yield();
  }
  check(req[0] != MPI_REQUEST_NULL, "Request_get_status keeps the request");
  MPI_Wait(&req[0], MPI_STATUS_IGNORE);
  check(req[0] == MPI_REQUEST_NULL && allreduce_ok(ra, N, 11), "Request_get_status then Wait");

  /* Iscatter and Igather */
  if (rank == 0)
    for (int i = 0; i < N * size; ++i) whole[i] = i * 5 + 1;
  MPI_Iscatter(whole, N, MPI_INT, block, N, MPI_INT, 0, MPI_COMM_WORLD, &req[0]);
  MPI_Wait(&req[0], MPI_STATUS_IGNORE);
  int ok = 1;
  for (int i = 0; i < N; ++i) ok = ok && block[i] == (rank * N + i) * 5 + 1;
  check(ok, "Iscatter");
  for (int i = 0; i < N; ++i) block[i] = rank * 1000 + i;
  memset(whole, 0, sizeof(int) * N * (size_t)size);
  MPI_Igather(block, N, MPI_INT, whole, N, MPI_INT, size - 1, MPI_COMM_WORLD, &req[0]);
  MPI_Wait(&req[0], MPI_STATUS_IGNORE);
  ok = 1;
  if (rank == size - 1)
    for (int r = 0; r < size; ++r)
      for (int i = 0; i < N; ++i) ok = ok && whole[r * N + i] == r * 1000 + i;
  check(ok, "Igather");

  /* Ibcast (root size - 1) */
  for (int i = 0; i < N; ++i) block[i] = rank == size - 1 ? i * 3 + 2 : -1;
  MPI_Ibcast(block, N, MPI_INT, size - 1, MPI_COMM_WORLD, &req[0]);
  MPI_Wait(&req[0], MPI_STATUS_IGNORE);
  ok = 1;
  for (int i = 0; i < N; ++i) ok = ok && block[i] == i * 3 + 2;
  check(ok, "Ibcast");

  /* Iallgather and Iallgatherv (unequal counts in reverse rank order) */
  for (int i = 0; i < N; ++i) block[i] = rank * 1000 + i;
  memset(whole, 0, sizeof(int) * N * (size_t)size);
  MPI_Iallgather(block, N, MPI_INT, whole, N, MPI_INT, MPI_COMM_WORLD, &req[0]);
  MPI_Wait(&req[0], MPI_STATUS_IGNORE);
  ok = 1;
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < N; ++i) ok = ok && whole[r * N + i] == r * 1000 + i;
  check(ok, "Iallgather");
  {
    int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size), at = 0;
    for (int r = size - 1; r >= 0; --r) counts[r] = r % 3 == 1 ? 0 : N - r % 4, displs[r] = at, at += counts[r];
    memset(whole, 0, sizeof(int) * N * (size_t)size);
    MPI_Iallgatherv(block, counts[rank], MPI_INT, whole, counts, displs, MPI_INT, MPI_COMM_WORLD, &req[0]);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    ok = 1;
    for (int r = 0; r < size; ++r)
      for (int i = 0; i < counts[r]; ++i) ok = ok && whole[displs[r] + i] == r * 1000 + i;
    check(ok, "Iallgatherv");
    free(counts);
    free(displs);
  }

  /* Ireduce_scatter_block and Ireduce_scatter (unequal counts, some empty) */
  for (int i = 0; i < N * size; ++i) whole[i] = rank * 1000 + i;
  memset(block, 0, sizeof(int) * N);
  MPI_Ireduce_scatter_block(whole, block, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]);
  MPI_Wait(&req[0], MPI_STATUS_IGNORE);
  ok = 1;
  for (int i = 0; i < N; ++i) ok = ok && block[i] == 1000 * size * (size - 1) / 2 + size * (rank * N + i);
  check(ok, "Ireduce_scatter_block");
  {
    int *counts = malloc(sizeof(int) * (size_t)size), at = 0, mine = 0;
    for (int r = 0; r < size; ++r) {
      counts[r] = r % 3 == 1 ? 0 : N - r % 4;
      if (r == rank) mine = at;
      at += counts[r];
    }
    memset(block, 0, sizeof(int) * N);
    MPI_Ireduce_scatter(whole, block, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    ok = 1;
    for (int i = 0; i < counts[rank]; ++i) ok = ok && block[i] == 1000 * size * (size - 1) / 2 + size * (mine + i);
    check(ok, "Ireduce_scatter");
    free(counts);
  }

  /* The shim's answer to MPI_Request_free on an active collective. */
  if (shim) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    fill(a, N, 12);
    MPI_Iallreduce(a, ra, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]);
    MPI_Request keep = req[0];
    rc = MPI_Request_free(&req[0]);
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    check(cls == MPI_ERR_REQUEST && req[0] == keep, "Request_free of an active collective is MPI_ERR_REQUEST");
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    check(allreduce_ok(ra, N, 12), "the collective completes after the refused free");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  }

#if MPI_VERSION >= 4
  /* Persistent: three starts with new input, MPI_Startall of two, free. */
  MPI_Allreduce_init(a, ra, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]);
  MPI_Reduce_init(b, rb, N, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]);
  for (int round = 0; round < 3; ++round) {
    fill(a, N, 20 + round);
    MPI_Start(&req[0]);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    check(req[0] != MPI_REQUEST_NULL && allreduce_ok(ra, N, 20 + round), "Allreduce_init + Start + Wait");
    fill(a, N, 30 + round);
    fill(b, N, 40 + round);
    MPI_Startall(2, req);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    check(allreduce_ok(ra, N, 30 + round) && (rank != 0 || allreduce_ok(rb, N, 40 + round)), "Startall + Waitall");
  }
  int flag = 0;
  MPI_Test(&req[0], &flag, MPI_STATUS_IGNORE);
  check(flag == 1 && req[0] != MPI_REQUEST_NULL, "an inactive persistent request tests complete");
  MPI_Request_free(&req[0]);
  MPI_Request_free(&req[1]);
  check(req[0] == MPI_REQUEST_NULL && req[1] == MPI_REQUEST_NULL, "Request_free of persistent collectives");
#endif

  int totals[2] = {passed, failed}, sums[2];
  MPI_Reduce(totals, sums, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("nonblocking: %d passed, %d failed\n", sums[0], sums[1]);
  free(a), free(b), free(ra), free(rb), free(whole), free(block);
  MPI_Finalize();
  return 0;
}
