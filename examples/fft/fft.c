/* Parallel FFT over gather, in the shape of [PS] section 6: a master-worker
 * radix-2 decimation-in-frequency (DIF) FFT whose parts are gathered.
 *
 * Per iteration: the master (rank 0) makes a new signal x of N complex
 * doubles and applies log2(P) radix-2 DIF stages to it,
 *
 *   a[n] = x[n] + x[n + L/2],  b[n] = (x[n] - x[n + L/2]) W_L^n,
 *   FFT_L(x)[2k] = FFT_{L/2}(a)[k],  FFT_L(x)[2k+1] = FFT_{L/2}(b)[k],
 *
 * which leaves P independent blocks of M = N/P points; block j's transform
 * holds X[k P + bitrev(j)]. It sends block j to rank j (point to point, as
 * in [PS]), every rank (the master too) transforms its block with FFTW,
 * the blocks are gathered at the master with the gather under test, and the
 * master interleaves them into X. The result is checked against a
 * single-process FFTW transform of x.
 *
 * Imbalance comes from the work: node r is s_r times slower than the
 * fastest (s_r fixed per rank, in [1, --slowdown]; times a per-iteration
 * jitter), emulated by sleeping (s_r - 1) times the measured duration after
 * each real transform, so a phase lasts s_r times its real work without
 * taking the shared cores from the others. The master is also late by the
 * split and the sends it does before its own transform.
 *
 * Gathers: foreground ones by name (PAT_Gather_with: linear, linear_sync, binomial, sls,
 * sbn, native, auto, ...), the background ones bsls/bsbn with a handle
 * (PAT_Gather_init_with / PAT_Start / PAT_Run), and `mpi`: a plain MPI_Gather
 * with no PAT call at all (the mode that the preload shim serves). The PAT
 * runtime marks every phase (ProcessingStart, Edge at half the transforms,
 * ProcessingEnd) for every algorithm except `mpi`, so the classic ones pay
 * its cost too. Algorithms run in blocks of --iters iterations, interleaved
 * round by round (A B C A B C ...); the summary gives the median over
 * rounds, [min, max], and the ratio of medians to --baseline.
 *
 *   mpirun -np 8 patcoll-fft [--log2n=17] [--iters=20] [--rounds=10] [--work=40]
 *          [--slowdown=3] [--jitter=0.2] [--algs=linear_sync,binomial,sls,sbn,bsls,bsbn,native,linear]
 *          [--baseline=linear_sync] [--check=last|all] [--seed=1]
 *
 * P must be a power of two (radix-2 split). Exit status 0 when every
 * checked result matched (relative max error < 1e-9), 1 otherwise. */
#include <complex.h> /* before fftw3.h: fftw_complex is double _Complex */
#include <fftw3.h>
#include <math.h>
#include <mpi.h>
#include <patcoll.h>

#include "app_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef double _Complex complex_t;

static int is_background(const char *name) { return strcmp(name, "bsls") == 0 || strcmp(name, "bsbn") == 0; }
static int is_plain_mpi(const char *name) { return strcmp(name, "mpi") == 0; }

/* log2(P) radix-2 DIF stages in place on x[0..N): afterwards block j
 * (x[j M .. (j+1) M)) is the sequence whose M-point transform is
 * X[k P + bitrev(j)]. twiddle[n] = W_N^n for n < N/2. */
static void dif_split(complex_t *x, long n_total, int parts, const complex_t *twiddle) {
  for (long length = n_total; length > n_total / parts; length /= 2) {
    const long half = length / 2, stride = n_total / length; /* W_L^n = W_N^(n N/L) */
    for (long start = 0; start < n_total; start += length)
      for (long n = 0; n < half; ++n) {
        const complex_t u = x[start + n], v = x[start + n + half];
        x[start + n] = u + v;
        x[start + n + half] = (u - v) * twiddle[n * stride];
      }
  }
}

static int bit_reverse(int value, int bits) {
  int result = 0;
  for (int b = 0; b < bits; ++b) result |= ((value >> b) & 1) << (bits - 1 - b);
  return result;
}

/* The signal of (round, iteration): the same for every algorithm. */
static void make_signal(complex_t *x, long n_total, unsigned seed, long iteration) {
  unsigned state = seed * 2654435761u + (unsigned)iteration * 40503u + 12345u;
  for (long i = 0; i < n_total; ++i) {
    state = state * 1664525u + 1013904223u;
    const double re = (double)(state >> 8) / 16777216.0 - 0.5;
    state = state * 1664525u + 1013904223u;
    const double im = (double)(state >> 8) / 16777216.0 - 0.5;
    x[i] = re + I * im;
  }
}

/* max |X - reference| / max |reference|. */
static double relative_error(const complex_t *x, const complex_t *reference, long n_total) {
  double error = 0, scale = 0;
  for (long i = 0; i < n_total; ++i) {
    error = fmax(error, cabs(x[i] - reference[i]));
    scale = fmax(scale, cabs(reference[i]));
  }
  return scale > 0 ? error / scale : error;
}

int main(int argc, char **argv) {
  int rank = 0, size = 1;
  app_init(&argc, &argv, &rank, &size);

  static const char *const known[] = {"log2n", "iters", "rounds", "work", "slowdown", "jitter",
                                      "algs", "baseline", "check", "seed", NULL};
  double log2n = 17, iters_d = 20, rounds_d = 10, work_d = 40, max_slowdown = 3, jitter = 0.2, seed_d = 1;
  int ok = app_check_options(argc, argv, known) && app_number(argc, argv, "log2n", 17, 1, 26, &log2n) &&
           app_number(argc, argv, "iters", 20, 1, 1e6, &iters_d) &&
           app_number(argc, argv, "rounds", 10, 1, 1000, &rounds_d) &&
           app_number(argc, argv, "work", 40, 1, 1e4, &work_d) &&
           app_number(argc, argv, "slowdown", 3, 1, 100, &max_slowdown) &&
           app_number(argc, argv, "jitter", 0.2, 0, 10, &jitter) && app_number(argc, argv, "seed", 1, 0, 1e9, &seed_d);
  const char *check_mode = app_option(argc, argv, "check", "last");
  const long n_total = 1L << (int)log2n;
  int log2p = 0;
  while ((1 << log2p) < size) ++log2p;
  if (ok && (1 << log2p) != size) {
    if (rank == 0) fprintf(stderr, "patcoll-fft: P = %d is not a power of two (radix-2 split)\n", size);
    ok = 0;
  }
  if (ok && n_total < size) {
    if (rank == 0) fprintf(stderr, "patcoll-fft: N = 2^%d is smaller than P = %d\n", (int)log2n, size);
    ok = 0;
  }
  if (ok && strcmp(check_mode, "last") != 0 && strcmp(check_mode, "all") != 0) {
    if (rank == 0) fprintf(stderr, "patcoll-fft: --check must be last or all\n");
    ok = 0;
  }
  char list_storage[512];
  const char *algs[APP_MAX_ALGS];
  int baseline_index = 0;
  const int alg_count = ok ? app_algorithm_list(argc, argv, "patcoll-fft", "gather", "linear_sync,binomial,sls,sbn,bsls,bsbn,native,linear",
                                                "bsls,bsbn", "linear_sync", rank, list_storage, sizeof list_storage, algs,
                                                &baseline_index)
                           : 0;
  if (alg_count == 0) ok = 0;
  if (!ok) {
    MPI_Finalize();
    return 2;
  }
  const int iters = (int)iters_d, rounds = (int)rounds_d, work = (int)work_d;
  const unsigned seed = (unsigned)seed_d;
  const long block = n_total / size; /* M */
  const int check_all = strcmp(check_mode, "all") == 0;

  /* Buffers: the master's whole vector (split in place), its input copy,
   * the gathered blocks and the interleaved spectrum; every rank's block
   * in and out. */
  complex_t *signal = NULL, *input = NULL, *gathered = NULL, *spectrum = NULL, *reference = NULL, *twiddle = NULL;
  complex_t *part_in = fftw_alloc_complex((size_t)block), *part_out = fftw_alloc_complex((size_t)block);
  fftw_plan part_plan = fftw_plan_dft_1d((int)block, part_in, part_out, FFTW_FORWARD, FFTW_ESTIMATE);
  fftw_plan whole_plan = NULL;
  if (rank == 0) {
    signal = fftw_alloc_complex((size_t)n_total);
    input = fftw_alloc_complex((size_t)n_total);
    gathered = fftw_alloc_complex((size_t)n_total);
    spectrum = fftw_alloc_complex((size_t)n_total);
    reference = fftw_alloc_complex((size_t)n_total);
    twiddle = fftw_alloc_complex((size_t)(n_total / 2 > 0 ? n_total / 2 : 1));
    for (long n = 0; n < n_total / 2; ++n) twiddle[n] = cexp(-2.0 * M_PI * I * (double)n / (double)n_total);
    whole_plan = fftw_plan_dft_1d((int)n_total, input, reference, FFTW_FORWARD, FFTW_ESTIMATE);
  }
  memset(part_out, 0, sizeof(complex_t) * (size_t)block);

  const int uses_runtime = app_start_runtime("patcoll-fft", algs, alg_count, rank);

  const double node_slowdown = app_node_slowdown(rank, max_slowdown, seed);
  double *slowdowns = rank == 0 ? malloc(sizeof(double) * (size_t)size) : NULL;
  MPI_Gather(&node_slowdown, 1, MPI_DOUBLE, slowdowns, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);

  double *t_in = malloc(sizeof(double) * (size_t)iters), *t_out = malloc(sizeof(double) * (size_t)iters);
  double *first_in = malloc(sizeof(double) * (size_t)iters), *last_out = malloc(sizeof(double) * (size_t)iters);
  double *elapsed = malloc(sizeof(double) * (size_t)iters), *elapsed_sum = malloc(sizeof(double) * (size_t)iters);
  double *total[APP_MAX_ALGS], *run_time[APP_MAX_ALGS], *elapsed_time[APP_MAX_ALGS], worst_error[APP_MAX_ALGS];
  for (int a = 0; a < alg_count; ++a) {
    total[a] = malloc(sizeof(double) * (size_t)rounds);
    run_time[a] = malloc(sizeof(double) * (size_t)rounds);
    elapsed_time[a] = malloc(sizeof(double) * (size_t)rounds);
    worst_error[a] = 0;
  }
  MPI_Request *requests = malloc(sizeof(MPI_Request) * (size_t)size); /* the master's sends */
  const int edge_after = work >= 2 ? work / 2 : 1; /* transforms done at the edge */
  const int gather_count = (int)(2 * block);       /* complex doubles as pairs of MPI_DOUBLE */

  for (int r = 0; r < rounds; ++r) {
    for (int a = 0; a < alg_count; ++a) {
      const char *alg = algs[a];
      const int plain = is_plain_mpi(alg), background = is_background(alg);
      PAT_Handle handle = NULL;
      if (background && PAT_Gather_init_with(alg, part_out, gather_count, MPI_DOUBLE, gathered, gather_count, MPI_DOUBLE, 0,
                                        MPI_COMM_WORLD, MPI_INFO_NULL, &handle) != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: PAT_Gather_init(%s): %s\n", rank, alg, PAT_Last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
      MPI_Barrier(MPI_COMM_WORLD);
      const double block_start = app_now();
      for (int it = 0; it < iters; ++it) {
        const long iteration = (long)r * iters + it; /* same signal and jitter for every algorithm */
        if (rank == 0) {
          make_signal(signal, n_total, seed, iteration);
          memcpy(input, signal, sizeof(complex_t) * (size_t)n_total);
          dif_split(signal, n_total, size, twiddle);
          for (int j = 1; j < size; ++j)
            MPI_Isend(signal + j * block, gather_count, MPI_DOUBLE, j, 17, MPI_COMM_WORLD, &requests[j - 1]);
          memcpy(part_in, signal, sizeof(complex_t) * (size_t)block);
          MPI_Waitall(size - 1, requests, MPI_STATUSES_IGNORE);
        } else {
          MPI_Recv(part_in, gather_count, MPI_DOUBLE, 0, 17, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        const double slowdown = node_slowdown * app_jitter(rank, iteration, jitter, seed);
        if (!plain) {
          if (background) PAT_Start(handle);
          PAT_ProcessingStart();
        }
        for (int w = 0; w < work; ++w) {
          const double start = app_now();
          fftw_execute(part_plan);
          sleep_ms((slowdown - 1.0) * (app_now() - start) * 1e3);
          if (!plain && w + 1 == edge_after) PAT_Edge((double)edge_after / work);
        }
        if (!plain) PAT_ProcessingEnd();
        t_in[it] = app_now();
        int rc;
        if (plain)
          rc = MPI_Gather(part_out, gather_count, MPI_DOUBLE, gathered, gather_count, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        else if (background)
          rc = PAT_Run(handle);
        else
          rc = PAT_Gather_with(alg, part_out, gather_count, MPI_DOUBLE, gathered, gather_count, MPI_DOUBLE, 0,
                               MPI_COMM_WORLD);
        t_out[it] = app_now();
        if (rc != MPI_SUCCESS) {
          fprintf(stderr, "rank %d: gather %s: %s\n", rank, alg, plain ? "MPI error" : PAT_Last_error());
          MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (rank == 0) {
          for (int j = 0; j < size; ++j) {
            const int r_index = bit_reverse(j, log2p);
            for (long k = 0; k < block; ++k) spectrum[k * size + r_index] = gathered[j * block + k];
          }
          if (check_all) {
            fftw_execute(whole_plan);
            worst_error[a] = fmax(worst_error[a], relative_error(spectrum, reference, n_total));
          }
        }
      }
      const double block_time = app_now() - block_start;
      if (background) PAT_Handle_free(&handle);
      if (rank == 0 && !check_all) { /* the last iteration, outside the timing */
        fftw_execute(whole_plan);
        worst_error[a] = fmax(worst_error[a], relative_error(spectrum, reference, n_total));
      }
      /* Gather run time r = max(exit) - min(entry) and average elapsed
       * time (mean of exit - entry) per call ([PS] eqs. 1, 2). */
      for (int it = 0; it < iters; ++it) elapsed[it] = t_out[it] - t_in[it];
      MPI_Reduce(t_in, first_in, iters, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
      MPI_Reduce(t_out, last_out, iters, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      MPI_Reduce(elapsed, elapsed_sum, iters, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
      if (rank == 0) {
        double run_sum = 0, elapsed_total = 0;
        for (int it = 0; it < iters; ++it) {
          run_sum += last_out[it] - first_in[it];
          elapsed_total += elapsed_sum[it] / size;
        }
        total[a][r] = block_time;
        run_time[a][r] = run_sum / iters;
        elapsed_time[a][r] = elapsed_total / iters;
      }
    }
  }
  if (uses_runtime) PAT_Finalize();

  int status = 0;
  if (rank == 0) {
    printf("patcoll-fft: P = %d, N = 2^%d complex doubles (%ld per rank), %d iterations x %d rounds, %d transforms "
           "per iteration, slowdown up to %.2f, jitter %.2f\n",
           size, (int)log2n, block, iters, rounds, work, max_slowdown, jitter);
    printf("node slowdown:");
    for (int j = 0; j < size; ++j) printf(" %.2f", slowdowns[j]);
    printf("\nper column: median over rounds [min, max], then the ratio to %s paired by round, median [min, max]\n",
           algs[baseline_index]);
    printf("%-8s %47s %47s %47s %10s\n", "gather", "total time s", "gather run time ms", "gather elapsed ms",
           "max error");
    for (int a = 0; a < alg_count; ++a) {
      printf("%-8s", algs[a]);
      app_print_stat(total[a], total[baseline_index], rounds, 1.0);
      app_print_stat(run_time[a], run_time[baseline_index], rounds, 1e3);
      app_print_stat(elapsed_time[a], elapsed_time[baseline_index], rounds, 1e3);
      printf(" %10.2e\n", worst_error[a]);
      if (!(worst_error[a] < 1e-9)) status = 1;
    }
    printf("check (%s iteration%s against single-process FFTW, relative error < 1e-9): %s\n",
           check_all ? "every" : "the last", check_all ? "" : " of every block", status ? "FAILED" : "ok");
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  fftw_destroy_plan(part_plan);
  if (whole_plan) fftw_destroy_plan(whole_plan);
  fftw_free(part_in);
  fftw_free(part_out);
  fftw_free(signal);
  fftw_free(input);
  fftw_free(gathered);
  fftw_free(spectrum);
  fftw_free(reference);
  fftw_free(twiddle);
  free(slowdowns);
  free(requests);
  free(t_in);
  free(t_out);
  free(first_in);
  free(last_out);
  free(elapsed);
  free(elapsed_sum);
  for (int a = 0; a < alg_count; ++a) {
    free(total[a]);
    free(run_time[a]);
    free(elapsed_time[a]);
  }
  MPI_Finalize();
  return status;
}
