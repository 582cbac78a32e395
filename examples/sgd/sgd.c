/* Data-parallel SGD over allreduce, in the shape of [PA] section 6: every
 * rank trains the same small neural network on its own shard of a real
 * data set, the gradients are summed with an allreduce each iteration, and
 * every rank applies the same update.
 *
 * Data: the handwritten digits of scikit-learn (UCI optdigits test part:
 * 1797 8x8 images, 10 classes), the file sklearn/datasets/data/digits.csv.gz
 * that Debian's python3-sklearn ships; read here directly with zlib (no
 * Python). A fixed shuffle puts 1500 images into training, 297 into test;
 * training image i belongs to rank i mod P.
 *
 * Network: 64 -> h1 -> h2 -> 10, ReLU, softmax cross-entropy, plain C,
 * float32, one flat parameter vector (so one allreduce of all gradients).
 * Per iteration a rank takes the next --batch images of its shard, runs
 * forward and backward layer by layer, and calls PAT_Edge just before the
 * last layer it processes (the input layer's weight gradient), as [PA]
 * section 6 does with tiny-dnn; the fraction passed is the share of the
 * phase measured before that layer in the previous iteration.
 *
 * Ranks are uneven in speed like real nodes: rank r is s_r times slower
 * (s_r fixed in [1, --slowdown], times a per-iteration jitter), emulated by
 * sleeping (s_r - 1) times the measured compute before the edge and at the
 * end, so the edge still sits at the right fraction of the phase.
 *
 * Allreduces: any registered name (PAT_Allreduce_with), `auto`, and `mpi`:
 * a plain MPI_Allreduce with no PAT call at all (the mode the preload shim
 * serves). The default list takes clairvoyant when the registry has it.
 * Each algorithm trains from the same initial weights on the same batches;
 * rounds interleave the algorithms (A B C A B C ...).
 *
 * Checks: rank 0 trains the same network once serially (the P batch
 * gradients summed in rank order), and every algorithm's final weights must
 * match it within floating-point reassociation (max |w - w_serial| <=
 * 1e-3 max |w_serial|), on every rank, with the test accuracy within one
 * percentage point of the serial one; and the serial training must reach
 * --min-accuracy on the test images (the network learns at all).
 *
 *   mpirun -np 8 patcoll-sgd [--iters=100] [--rounds=5] [--batch=32] [--h1=256] [--h2=128]
 *          [--lr=0.2] [--min-accuracy=0] [--slowdown=3] [--jitter=0.2] [--algs=ring,rabenseifner,prr,slt,clairvoyant,auto,native]
 *          [--baseline=ring] [--data=PATH] [--seed=1]
 */
#include <math.h>
#include <mpi.h>
#include <patcoll.h>
#include <zlib.h>

#include "app_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FEATURES = 64, CLASSES = 10, SAMPLES_MAX = 4096, TEST_SAMPLES = 297 };
static const char *default_data = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz";

typedef struct {
  int count;
  float *x;   /* count x FEATURES, scaled to [0, 1] */
  int *label; /* count */
} dataset;

/* Reads digits.csv.gz: one image per line, 64 pixel values 0..16, then the
 * digit. Returns 0 on success. */
static int load_digits(const char *path, dataset *all) {
  gzFile file = gzopen(path, "rb");
  if (!file) return 1;
  all->x = malloc(sizeof(float) * SAMPLES_MAX * FEATURES);
  all->label = malloc(sizeof(int) * SAMPLES_MAX);
  all->count = 0;
  char line[1024];
  int bad = 0;
  while (!bad && gzgets(file, line, sizeof line) && all->count < SAMPLES_MAX) {
    char *cursor = line, *end = NULL;
    float *row = all->x + (size_t)all->count * FEATURES;
    for (int f = 0; f <= FEATURES && !bad; ++f) {
      const long value = strtol(cursor, &end, 10);
      if (end == cursor || value < 0 || value > 16 || (f == FEATURES && value > 9)) bad = 1;
      else if (f < FEATURES) row[f] = (float)value / 16.0f;
      else all->label[all->count] = (int)value;
      cursor = end + (*end == ',');
    }
    if (!bad) ++all->count;
  }
  gzclose(file);
  return bad || all->count <= TEST_SAMPLES;
}

/* ---- the network ---------------------------------------------------------- */

typedef struct {
  int h1, h2, batch;
  long w1, b1, w2, b2, w3, b3, size; /* offsets into the flat parameter vector */
  float *a0, *z1, *a1, *z2, *a2, *z3, *d3, *d2, *d1; /* batch activations and deltas */
} network;

static void network_init(network *net, int h1, int h2, int batch) {
  net->h1 = h1;
  net->h2 = h2;
  net->batch = batch;
  net->w1 = 0;
  net->b1 = net->w1 + (long)h1 * FEATURES;
  net->w2 = net->b1 + h1;
  net->b2 = net->w2 + (long)h2 * h1;
  net->w3 = net->b2 + h2;
  net->b3 = net->w3 + (long)CLASSES * h2;
  net->size = net->b3 + CLASSES;
  const size_t b = (size_t)batch;
  net->a0 = malloc(sizeof(float) * b * FEATURES);
  net->z1 = malloc(sizeof(float) * b * (size_t)h1);
  net->a1 = malloc(sizeof(float) * b * (size_t)h1);
  net->z2 = malloc(sizeof(float) * b * (size_t)h2);
  net->a2 = malloc(sizeof(float) * b * (size_t)h2);
  net->z3 = malloc(sizeof(float) * b * CLASSES);
  net->d3 = malloc(sizeof(float) * b * CLASSES);
  net->d2 = malloc(sizeof(float) * b * (size_t)h2);
  net->d1 = malloc(sizeof(float) * b * (size_t)h1);
}

static void network_free(network *net) {
  free(net->a0), free(net->z1), free(net->a1), free(net->z2), free(net->a2);
  free(net->z3), free(net->d3), free(net->d2), free(net->d1);
}

/* He-uniform weights, zero biases, from a fixed generator. */
static void initial_weights(const network *net, float *w, unsigned seed) {
  unsigned state = seed * 2654435761u + 99991u;
  const long layers[3][3] = {{net->w1, FEATURES, net->h1}, {net->w2, net->h1, net->h2}, {net->w3, net->h2, CLASSES}};
  memset(w, 0, sizeof(float) * (size_t)net->size);
  for (int l = 0; l < 3; ++l) {
    const float limit = sqrtf(6.0f / (float)layers[l][1]);
    for (long i = 0; i < layers[l][1] * layers[l][2]; ++i) {
      state = state * 1664525u + 1013904223u;
      w[layers[l][0] + i] = limit * (2.0f * (float)(state >> 8) / 16777216.0f - 1.0f);
    }
  }
}

/* out[b][o] = act(bias[o] + sum_i w[o][i] in[b][i]) */
static void dense(const float *in, int inputs, const float *w, const float *bias, int outputs, int batch, float *z,
                  float *out) {
  for (int b = 0; b < batch; ++b)
    for (int o = 0; o < outputs; ++o) {
      float sum = 0;
      const float *row = w + (size_t)o * inputs, *x = in + (size_t)b * inputs;
#pragma omp simd reduction(+ : sum) /* vectorised (-fopenmp-simd): same order in every run */
      for (int i = 0; i < inputs; ++i) sum += row[i] * x[i];
      sum += bias[o];
      z[(size_t)b * outputs + o] = sum;
      if (out) out[(size_t)b * outputs + o] = sum > 0 ? sum : 0;
    }
}

/* grad_w[o][i] += sum_b delta[b][o] in[b][i]; grad_b[o] += sum_b delta[b][o] */
static void weight_gradient(const float *delta, int outputs, const float *in, int inputs, int batch, float *grad_w,
                            float *grad_b) {
  for (int b = 0; b < batch; ++b)
    for (int o = 0; o < outputs; ++o) {
      const float d = delta[(size_t)b * outputs + o];
      float *row = grad_w + (size_t)o * inputs;
      const float *x = in + (size_t)b * inputs;
      for (int i = 0; i < inputs; ++i) row[i] += d * x[i];
      grad_b[o] += d;
    }
}

/* delta_in[b][i] = (sum_o delta[b][o] w[o][i]) * (z_in[b][i] > 0) */
static void back_delta(const float *delta, int outputs, const float *w, const float *z_in, int inputs, int batch,
                       float *delta_in) {
  for (int b = 0; b < batch; ++b) {
    float *out = delta_in + (size_t)b * inputs;
    for (int i = 0; i < inputs; ++i) out[i] = 0;
    for (int o = 0; o < outputs; ++o) {
      const float d = delta[(size_t)b * outputs + o];
      const float *row = w + (size_t)o * inputs;
      for (int i = 0; i < inputs; ++i) out[i] += d * row[i];
    }
    for (int i = 0; i < inputs; ++i)
      if (z_in[(size_t)b * inputs + i] <= 0) out[i] = 0;
  }
}

static void softmax_delta(network *net, const int *labels, int batch) {
  for (int b = 0; b < batch; ++b) {
    const float *z = net->z3 + (size_t)b * CLASSES;
    float *d = net->d3 + (size_t)b * CLASSES, top = z[0], sum = 0;
    for (int c = 1; c < CLASSES; ++c) top = fmaxf(top, z[c]);
    for (int c = 0; c < CLASSES; ++c) sum += (d[c] = expf(z[c] - top));
    for (int c = 0; c < CLASSES; ++c) d[c] = d[c] / sum - (c == labels[b] ? 1.0f : 0.0f);
  }
}

/* What happens at the edge: called once per phase just before the last
 * layer; `before` is the compute time spent so far. */
typedef void (*edge_hook)(void *context, double before);

/* Gradient (sum over the batch) of the loss at weights w, into grad
 * (zeroed here). Layer order: forward 1..3, backward 3..1; the edge hook
 * runs before the input layer's weight gradient, the last layer. */
static void batch_gradient(network *net, const float *w, const dataset *data, const int *samples, float *grad,
                           edge_hook hook, void *context) {
  const int batch = net->batch, h1 = net->h1, h2 = net->h2;
  int labels[1024];
  const double start = app_now();
  for (int b = 0; b < batch; ++b) {
    memcpy(net->a0 + (size_t)b * FEATURES, data->x + (size_t)samples[b] * FEATURES, sizeof(float) * FEATURES);
    labels[b] = data->label[samples[b]];
  }
  memset(grad, 0, sizeof(float) * (size_t)net->size);
  dense(net->a0, FEATURES, w + net->w1, w + net->b1, h1, batch, net->z1, net->a1);
  dense(net->a1, h1, w + net->w2, w + net->b2, h2, batch, net->z2, net->a2);
  dense(net->a2, h2, w + net->w3, w + net->b3, CLASSES, batch, net->z3, NULL);
  softmax_delta(net, labels, batch);
  weight_gradient(net->d3, CLASSES, net->a2, h2, batch, grad + net->w3, grad + net->b3);
  back_delta(net->d3, CLASSES, w + net->w3, net->z2, h2, batch, net->d2);
  weight_gradient(net->d2, h2, net->a1, h1, batch, grad + net->w2, grad + net->b2);
  back_delta(net->d2, h2, w + net->w2, net->z1, h1, batch, net->d1);
  if (hook) hook(context, app_now() - start);
  weight_gradient(net->d1, h1, net->a0, FEATURES, batch, grad + net->w1, grad + net->b1);
}

/* Share of the test set classified right with weights w. */
static double accuracy(network *net, const float *w, const dataset *test) {
  int right = 0;
  network one;
  network_init(&one, net->h1, net->h2, 1);
  for (int s = 0; s < test->count; ++s) {
    memcpy(one.a0, test->x + (size_t)s * FEATURES, sizeof(float) * FEATURES);
    dense(one.a0, FEATURES, w + one.w1, w + one.b1, one.h1, 1, one.z1, one.a1);
    dense(one.a1, one.h1, w + one.w2, w + one.b2, one.h2, 1, one.z2, one.a2);
    dense(one.a2, one.h2, w + one.w3, w + one.b3, CLASSES, 1, one.z3, NULL);
    int best = 0;
    for (int c = 1; c < CLASSES; ++c)
      if (one.z3[c] > one.z3[best]) best = c;
    right += best == test->label[s];
  }
  network_free(&one);
  return (double)right / test->count;
}

/* The batch of `rank` at `iteration`: the next images of its shard. */
static void batch_samples(int rank, int size, long iteration, int batch, int train_count, int *samples) {
  const int shard = (train_count - rank + size - 1) / size; /* images rank, rank + P, ... */
  for (int b = 0; b < batch; ++b) samples[b] = rank + size * (int)((iteration * batch + b) % shard);
}

static void sgd_step(float *w, const float *gradient_sum, long size, float step) {
  for (long i = 0; i < size; ++i) w[i] -= step * gradient_sum[i];
}

/* ---- the slow node and the PAT edge ---------------------------------------- */

typedef struct {
  int use_runtime;
  double slowdown;        /* this iteration's s_r x jitter */
  double edge_fraction;   /* share of the phase before the last layer (last iteration's) */
  double before, edge_at; /* compute before the edge; wall time at the edge */
} phase_state;

static void at_edge(void *context, double before) {
  phase_state *phase = context;
  sleep_ms((phase->slowdown - 1.0) * before * 1e3); /* the slow node's share of the layers so far */
  phase->before = before;
  if (phase->use_runtime) PAT_Edge(phase->edge_fraction);
  phase->edge_at = app_now();
}

int main(int argc, char **argv) {
  int rank = 0, size = 1;
  app_init(&argc, &argv, &rank, &size);

  static const char *const known[] = {"iters", "rounds", "batch", "h1", "h2", "lr", "slowdown", "jitter",
                                      "algs", "baseline", "data", "seed", "min-accuracy", NULL};
  double iters_d, rounds_d, batch_d, h1_d, h2_d, lr, max_slowdown, jitter, seed_d, min_accuracy;
  int ok = app_check_options(argc, argv, known) && app_number(argc, argv, "iters", 100, 1, 1e6, &iters_d) &&
           app_number(argc, argv, "rounds", 5, 1, 1000, &rounds_d) &&
           app_number(argc, argv, "batch", 32, 1, 1024, &batch_d) &&
           app_number(argc, argv, "h1", 256, 1, 4096, &h1_d) && app_number(argc, argv, "h2", 128, 1, 4096, &h2_d) &&
           app_number(argc, argv, "lr", 0.2, 1e-6, 10, &lr) &&
           app_number(argc, argv, "min-accuracy", 0, 0, 1, &min_accuracy) &&
           app_number(argc, argv, "slowdown", 3, 1, 100, &max_slowdown) &&
           app_number(argc, argv, "jitter", 0.2, 0, 10, &jitter) && app_number(argc, argv, "seed", 1, 0, 1e9, &seed_d);
  const char *data_path = app_option(argc, argv, "data", default_data);
  /* Default: the paper's algorithms, clairvoyant once registered, auto, native. */
  char default_list[256];
  snprintf(default_list, sizeof default_list, "ring,rabenseifner,prr,slt%s,auto,native",
           app_registered("allreduce", "clairvoyant") ? ",clairvoyant" : "");
  char list_storage[512];
  const char *algs[APP_MAX_ALGS];
  int baseline_index = 0;
  const int alg_count = ok ? app_algorithm_list(argc, argv, "patcoll-sgd", "allreduce", default_list, "", "ring", rank,
                                                list_storage, sizeof list_storage, algs, &baseline_index)
                           : 0;
  if (alg_count == 0) ok = 0;
  dataset all = {0, NULL, NULL};
  if (ok && load_digits(data_path, &all) != 0) {
    if (rank == 0)
      fprintf(stderr, "patcoll-sgd: cannot read the digits data set from %s (Debian: apt-get install python3-sklearn)\n",
              data_path);
    ok = 0;
  }
  if (!ok) {
    MPI_Finalize();
    return 2;
  }
  const int iters = (int)iters_d, rounds = (int)rounds_d, batch = (int)batch_d;
  const unsigned seed = (unsigned)seed_d;

  /* Fixed shuffle, then test = the last TEST_SAMPLES, train = the rest. */
  int *order = malloc(sizeof(int) * (size_t)all.count);
  for (int i = 0; i < all.count; ++i) order[i] = i;
  unsigned state = 2024u;
  for (int i = all.count - 1; i > 0; --i) {
    state = state * 1664525u + 1013904223u;
    const int j = (int)((state >> 8) % (unsigned)(i + 1)), t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  dataset train = {all.count - TEST_SAMPLES, malloc(sizeof(float) * (size_t)all.count * FEATURES),
                   malloc(sizeof(int) * (size_t)all.count)};
  dataset test = {TEST_SAMPLES, train.x + (size_t)train.count * FEATURES, train.label + train.count};
  for (int i = 0; i < all.count; ++i) {
    memcpy(train.x + (size_t)i * FEATURES, all.x + (size_t)order[i] * FEATURES, sizeof(float) * FEATURES);
    train.label[i] = all.label[order[i]];
  }
  if (size > train.count) {
    if (rank == 0) fprintf(stderr, "patcoll-sgd: more ranks than training images\n");
    MPI_Finalize();
    return 2;
  }

  network net;
  network_init(&net, (int)h1_d, (int)h2_d, batch);
  const long n = net.size;
  const float step = (float)(lr / ((double)size * batch)); /* the mean gradient over all P batches */
  float *weights = malloc(sizeof(float) * (size_t)n), *grad = malloc(sizeof(float) * (size_t)n);
  float *sum = malloc(sizeof(float) * (size_t)n), *serial = NULL;
  int *samples = malloc(sizeof(int) * (size_t)batch);

  /* Serial reference on rank 0: the same P batches per iteration, summed in
   * rank order. */
  double serial_accuracy = 0, serial_scale = 0;
  if (rank == 0) {
    serial = malloc(sizeof(float) * (size_t)n);
    initial_weights(&net, serial, seed);
    for (long it = 0; it < iters; ++it) {
      memset(sum, 0, sizeof(float) * (size_t)n);
      for (int r = 0; r < size; ++r) {
        batch_samples(r, size, it, batch, train.count, samples);
        batch_gradient(&net, serial, &train, samples, grad, NULL, NULL);
        for (long i = 0; i < n; ++i) sum[i] += grad[i];
      }
      sgd_step(serial, sum, n, step);
    }
    serial_accuracy = accuracy(&net, serial, &test);
    for (long i = 0; i < n; ++i) serial_scale = fmax(serial_scale, fabs(serial[i]));
  }
  MPI_Bcast(&serial_accuracy, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);

  const int uses_runtime = app_start_runtime("patcoll-sgd", algs, alg_count, rank);
  const double node_slowdown = app_node_slowdown(rank, max_slowdown, seed);
  double *slowdowns = rank == 0 ? malloc(sizeof(double) * (size_t)size) : NULL;
  MPI_Gather(&node_slowdown, 1, MPI_DOUBLE, slowdowns, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);

  double *total[APP_MAX_ALGS], *run_time[APP_MAX_ALGS], *elapsed_time[APP_MAX_ALGS];
  double final_accuracy[APP_MAX_ALGS], deviation[APP_MAX_ALGS];
  double *t_in = malloc(sizeof(double) * (size_t)iters), *t_out = malloc(sizeof(double) * (size_t)iters);
  double *first_in = malloc(sizeof(double) * (size_t)iters), *last_out = malloc(sizeof(double) * (size_t)iters);
  for (int a = 0; a < alg_count; ++a) {
    total[a] = malloc(sizeof(double) * (size_t)rounds);
    run_time[a] = malloc(sizeof(double) * (size_t)rounds);
    elapsed_time[a] = malloc(sizeof(double) * (size_t)rounds);
    final_accuracy[a] = 1.0;
    deviation[a] = 0;
  }
  /* First guess of the edge fraction: multiply-adds before the last layer. */
  const double last_layer = (double)FEATURES * net.h1;
  const double all_layers = 2.0 * FEATURES * net.h1 + 3.0 * net.h1 * net.h2 + 3.0 * net.h2 * CLASSES;
  double measured_fraction = 1.0 - last_layer / all_layers;

  for (int r = 0; r < rounds; ++r) {
    for (int a = 0; a < alg_count; ++a) {
      const char *alg = algs[a];
      const int plain = strcmp(alg, "mpi") == 0;
      initial_weights(&net, weights, seed);
      phase_state phase = {!plain, 1.0, measured_fraction, 0, 0};
      MPI_Barrier(MPI_COMM_WORLD);
      const double start = app_now();
      for (int it = 0; it < iters; ++it) {
        phase.slowdown = node_slowdown * app_jitter(rank, it, jitter, seed);
        batch_samples(rank, size, it, batch, train.count, samples);
        const double phase_start = app_now();
        if (!plain) PAT_ProcessingStart();
        batch_gradient(&net, weights, &train, samples, grad, at_edge, &phase);
        const double after = app_now() - phase.edge_at; /* the last layer */
        sleep_ms((phase.slowdown - 1.0) * after * 1e3);
        if (!plain) PAT_ProcessingEnd();
        const double phase_end = app_now();
        phase.edge_fraction = fmin(1.0, fmax(1e-3, (phase.edge_at - phase_start) / (phase_end - phase_start)));
        t_in[it] = app_now();
        const int rc = plain ? MPI_Allreduce(grad, sum, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD)
                             : PAT_Allreduce_with(alg, grad, sum, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        t_out[it] = app_now();
        if (rc != MPI_SUCCESS) {
          fprintf(stderr, "rank %d: allreduce %s: %s\n", rank, alg, plain ? "MPI error" : PAT_Last_error());
          MPI_Abort(MPI_COMM_WORLD, 1);
        }
        sgd_step(weights, sum, n, step);
      }
      const double own_total = app_now() - start;
      measured_fraction = phase.edge_fraction;
      /* Timing ([PA] §3): run time max(exit) - min(entry) and average
       * elapsed time per allreduce; total = the slowest rank's training. */
      double own_elapsed = 0, elapsed_sum = 0, slowest = 0;
      for (int it = 0; it < iters; ++it) own_elapsed += t_out[it] - t_in[it];
      MPI_Reduce(t_in, first_in, iters, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
      MPI_Reduce(t_out, last_out, iters, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      MPI_Reduce(&own_elapsed, &elapsed_sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
      MPI_Reduce(&own_total, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      /* Every rank's weights against the serial reference. */
      if (rank == 0) memcpy(sum, serial, sizeof(float) * (size_t)n);
      MPI_Bcast(sum, (int)n, MPI_FLOAT, 0, MPI_COMM_WORLD);
      double scale = 0, own_deviation = 0, worst = 0;
      for (long i = 0; i < n; ++i) {
        scale = fmax(scale, fabs(sum[i]));
        own_deviation = fmax(own_deviation, fabs(weights[i] - sum[i]));
      }
      own_deviation /= scale > 0 ? scale : 1.0;
      MPI_Reduce(&own_deviation, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      if (rank == 0) {
        double run_sum = 0;
        for (int it = 0; it < iters; ++it) run_sum += last_out[it] - first_in[it];
        total[a][r] = slowest;
        run_time[a][r] = run_sum / iters;
        elapsed_time[a][r] = elapsed_sum / size / iters;
        deviation[a] = fmax(deviation[a], worst);
        const double acc = accuracy(&net, weights, &test);
        if (r == 0 || fabs(acc - serial_accuracy) > fabs(final_accuracy[a] - serial_accuracy))
          final_accuracy[a] = acc; /* the round farthest from the serial training */
      }
    }
  }
  if (uses_runtime) PAT_Finalize();

  int status = 0;
  if (rank == 0) {
    printf("patcoll-sgd: P = %d, digits (%d train / %d test images), network 64-%d-%d-10 (%ld parameters, "
           "allreduce of %ld floats), batch %d per rank, %d iterations x %d rounds, slowdown up to %.2f, jitter %.2f\n",
           size, train.count, test.count, net.h1, net.h2, n, n, batch, iters, rounds, max_slowdown, jitter);
    printf("node slowdown:");
    for (int j = 0; j < size; ++j) printf(" %.2f", slowdowns[j]);
    printf("\nedge fraction (share of the phase before the last layer): %.3f\n", measured_fraction);
    printf("serial reference: test accuracy %.4f (required: %.4f)\n", serial_accuracy, min_accuracy);
    if (!(serial_accuracy >= min_accuracy)) status = 1;
    printf("per column: median over rounds [min, max], then the ratio to %s paired by round, median [min, max]\n",
           algs[baseline_index]);
    printf("%-13s %47s %47s %47s %9s %10s\n", "allreduce", "training time s", "allreduce run time ms",
           "allreduce elapsed ms", "accuracy", "deviation");
    for (int a = 0; a < alg_count; ++a) {
      printf("%-13s", algs[a]);
      app_print_stat(total[a], total[baseline_index], rounds, 1.0);
      app_print_stat(run_time[a], run_time[baseline_index], rounds, 1e3);
      app_print_stat(elapsed_time[a], elapsed_time[baseline_index], rounds, 1e3);
      printf(" %9.4f %10.2e\n", final_accuracy[a], deviation[a]);
      if (!(deviation[a] <= 1e-3) || !(fabs(final_accuracy[a] - serial_accuracy) <= 0.01)) status = 1;
    }
    printf("check (every rank's weights within 1e-3 of the serial training, accuracy within 0.01 and >= %.2f): %s\n",
           min_accuracy,
           status ? "FAILED" : "ok");
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  network_free(&net);
  free(all.x), free(all.label), free(order), free(train.x), free(train.label);
  free(weights), free(grad), free(sum), free(serial), free(samples), free(slowdowns);
  free(t_in), free(t_out), free(first_in), free(last_out);
  for (int a = 0; a < alg_count; ++a) free(total[a]), free(run_time[a]), free(elapsed_time[a]);
  MPI_Finalize();
  return status;
}
