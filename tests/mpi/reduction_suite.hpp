// The correctness matrix shared by the reduce and allreduce drivers: every
// registered algorithm against `native` over datatypes (int, float,
// double, a contiguous and a vector derived type, a 2×2-matrix type),
// ops (MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_BAND, a user commutative
// and a user non-commutative op), counts, roots, MPI_IN_PLACE, and
// communicators (world, a parity split with odd sizes), plus bad input.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "mpi/registry.hpp"
#include "mpi_test.hpp"
#include "patcoll.h"

namespace patcoll::test {

enum class Base { int32, float32, float64 };

struct TypeCase {
  std::string name;
  MPI_Datatype type;
  Base base;
  int slots;             // base values per element (extent / base size)
  std::vector<int> holes;  // slots that are not part of the type
};

struct OpCase {
  std::string name;
  MPI_Op op;
};

// 2×2 matrices of uint32 (as int): a ∘ b = a·b mod 2^32, associative and not
// commutative; MPI_Reduce_local(in, inout) computes inout = in ∘ inout.
inline void matrix_multiply(void *in, void *inout, int *len, MPI_Datatype *) {
  auto *a = static_cast<std::uint32_t *>(in);
  auto *b = static_cast<std::uint32_t *>(inout);
  for (int i = 0; i < *len; ++i, a += 4, b += 4) {
    std::uint32_t c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                          a[2] * b[1] + a[3] * b[3]};
    std::memcpy(b, c, sizeof c);
  }
}

inline void wrapping_sum(void *in, void *inout, int *len, MPI_Datatype *) {
  auto *a = static_cast<std::uint32_t *>(in);
  auto *b = static_cast<std::uint32_t *>(inout);
  for (int i = 0; i < *len; ++i) b[i] += a[i];
}

// Derived datatypes need user ops (Open MPI refuses predefined ops on
// them): a sum over contiguous(3, MPI_DOUBLE) and over vector(2,1,2,MPI_INT)
// elements (slots 0 and 2 of each 3-int extent; slot 1 is a hole).
inline void triple_sum(void *in, void *inout, int *len, MPI_Datatype *) {
  auto *a = static_cast<double *>(in);
  auto *b = static_cast<double *>(inout);
  for (int i = 0; i < 3 * *len; ++i) b[i] += a[i];
}

inline void strided_sum(void *in, void *inout, int *len, MPI_Datatype *) {
  auto *a = static_cast<std::uint32_t *>(in);
  auto *b = static_cast<std::uint32_t *>(inout);
  for (int i = 0; i < *len; ++i) {
    b[3 * i] += a[3 * i];
    b[3 * i + 2] += a[3 * i + 2];
  }
}

class ReductionSuite {
 public:
  ReductionSuite(const char *collective, bool rooted) : collective_(collective), rooted_(rooted) {
    MPI_Op_create(matrix_multiply, 0, &matrix_op_);
    MPI_Op_create(wrapping_sum, 1, &user_sum_);
    MPI_Op_create(triple_sum, 1, &triple_sum_);
    MPI_Op_create(strided_sum, 1, &strided_sum_);
    MPI_Type_contiguous(3, MPI_DOUBLE, &contig3_);
    MPI_Type_commit(&contig3_);
    MPI_Type_vector(2, 1, 2, MPI_INT, &vector_);
    MPI_Type_commit(&vector_);
    MPI_Type_contiguous(4, MPI_INT, &matrix_);
    MPI_Type_commit(&matrix_);
  }
  ~ReductionSuite() {
    MPI_Op_free(&matrix_op_);
    MPI_Op_free(&user_sum_);
    MPI_Op_free(&triple_sum_);
    MPI_Op_free(&strided_sum_);
    MPI_Type_free(&contig3_);
    MPI_Type_free(&vector_);
    MPI_Type_free(&matrix_);
  }

  // `paths`: the shard to run (paths_from_arguments); empty fails. The
  // persistent shard also restarts persistent handles.
  int run(const std::vector<Path> &paths) {
    Suite suite;
    suite.check(!paths.empty(), "no path to run");
    algorithms_ = algorithms_of(collective_);
    for (Path path : paths) {
      path_ = path;
      sweep_communicators([&](MPI_Comm comm, bool only_large) {
        matrix(suite, comm, only_large);
        if (path_ == Path::blocking) reactive_orders(suite, comm);
      });
      bad_input(suite, MPI_COMM_WORLD);
    }
    path_ = Path::blocking;
    if (std::find(paths.begin(), paths.end(), Path::persistent) != paths.end()) persistent_reuse(suite, MPI_COMM_WORLD);
    return suite.finish();
  }

 private:
  std::vector<std::pair<TypeCase, OpCase>> combinations() const {
    const TypeCase i32{"MPI_INT", MPI_INT, Base::int32, 1, {}};
    const TypeCase f32{"MPI_FLOAT", MPI_FLOAT, Base::float32, 1, {}};
    const TypeCase f64{"MPI_DOUBLE", MPI_DOUBLE, Base::float64, 1, {}};
    const TypeCase c3{"contiguous(3,MPI_DOUBLE)", contig3_, Base::float64, 3, {}};
    const TypeCase vec{"vector(2,1,2,MPI_INT)", vector_, Base::int32, 3, {1}};
    const TypeCase mat{"contiguous(4,MPI_INT) 2x2 matrix", matrix_, Base::int32, 4, {}};
    return {{i32, {"MPI_SUM", MPI_SUM}},   {i32, {"MPI_PROD", MPI_PROD}}, {i32, {"MPI_MAX", MPI_MAX}},
            {i32, {"MPI_MIN", MPI_MIN}},   {i32, {"MPI_BAND", MPI_BAND}}, {i32, {"user commutative", user_sum_}},
            {f32, {"MPI_SUM", MPI_SUM}},   {f32, {"MPI_MAX", MPI_MAX}},   {f64, {"MPI_SUM", MPI_SUM}},
            {f64, {"MPI_PROD", MPI_PROD}}, {f64, {"MPI_MIN", MPI_MIN}},   {c3, {"user sum", triple_sum_}},
            {vec, {"user strided sum", strided_sum_}},   {mat, {"user non-commutative", matrix_op_}}};
  }

  // Input value of base slot `slot` of rank `rank`; small integers so that
  // every summation order gives the same floating-point result.
  static double value(int rank, std::int64_t slot, const std::string &op) {
    if (op == "MPI_PROD") return ((rank + slot) % 3 == 0) ? -1.0 : ((rank + slot) % 3 == 1 ? 1.0 : 2.0);
    if (op == "MPI_BAND") return static_cast<double>((0x5a5a5a5a ^ (rank * 0x01010101) ^ (slot * 0x00100010)) & 0x7fffffff);
    return static_cast<double>((rank * 31 + slot * 7) % 13 - 6);
  }

  struct Buffer {
    Base base;
    std::vector<char> bytes;
    Buffer(Base b, std::int64_t slots) : base(b), bytes(static_cast<std::size_t>(slots) * width(b)) {}
    static std::size_t width(Base b) { return b == Base::float64 ? 8 : 4; }
    std::int64_t slots() const { return static_cast<std::int64_t>(bytes.size() / width(base)); }
    void set(std::int64_t i, double v) {
      if (base == Base::int32) reinterpret_cast<std::int32_t *>(bytes.data())[i] = static_cast<std::int32_t>(v);
      else if (base == Base::float32) reinterpret_cast<float *>(bytes.data())[i] = static_cast<float>(v);
      else reinterpret_cast<double *>(bytes.data())[i] = v;
    }
    double get(std::int64_t i) const {
      if (base == Base::int32) return reinterpret_cast<const std::int32_t *>(bytes.data())[i];
      if (base == Base::float32) return reinterpret_cast<const float *>(bytes.data())[i];
      return reinterpret_cast<const double *>(bytes.data())[i];
    }
    void *data() { return bytes.data(); }
  };

  void fill_input(Buffer &b, int rank, const TypeCase &t, const std::string &op) const {
    for (std::int64_t s = 0; s < b.slots(); ++s) b.set(s, value(rank, s, op));
    if (t.type == matrix_) {  // small matrices with entries 0..3
      for (std::int64_t s = 0; s < b.slots(); ++s) b.set(s, (rank * 5 + s * 3) % 4);
    }
    for (std::int64_t e = 0; e < b.slots() / t.slots; ++e)
      for (int h : t.holes) b.set(e * t.slots + h, -777);  // holes hold a marker nobody may change
  }
  static void fill_sentinel(Buffer &b) {
    for (std::int64_t s = 0; s < b.slots(); ++s) b.set(s, -99);
  }
  // Compares the slots that belong to the datatype (holes are not data).
  static bool same(const Buffer &a, const Buffer &b, const TypeCase &t) {
    for (std::int64_t s = 0; s < a.slots(); ++s) {
      if (is_hole(t, s)) continue;
      const double x = a.get(s), y = b.get(s);
      if (a.base == Base::int32 ? x != y : !(std::fabs(x - y) <= 1e-5 * std::max(1.0, std::fabs(y)))) return false;
    }
    return true;
  }
  static bool is_hole(const TypeCase &t, std::int64_t slot) {
    for (int h : t.holes)
      if (slot % t.slots == h) return true;
    return false;
  }
  // The holes of `after` still hold what they held in `before`.
  static bool holes_untouched(const Buffer &before, const Buffer &after, const TypeCase &t) {
    for (std::int64_t s = 0; s < before.slots(); ++s)
      if (is_hole(t, s) && before.get(s) != after.get(s)) return false;
    return true;
  }

  std::string label() const { return std::string(collective_) + to_string(path_); }

  // A reactive algorithm serves blocking calls only: MPI_ERR_ARG on the
  // non-blocking and persistent paths.
  bool refuses_path(const std::string &algorithm) const {
    if (path_ == Path::blocking) return false;
    patcoll::core::Collective c;
    patcoll::core::parse_collective(collective_, c);
    for (const auto &entry : patcoll::mpi::entries(c))
      if (entry.name == algorithm) return static_cast<bool>(entry.capabilities & patcoll::core::reactive);
    return false;
  }

  // Reactive algorithms under changing arrival orders: each rank sleeps a
  // different time before every call (a new order each iteration, on
  // MPI_COMM_WORLD and on the parity split), against native.
  void reactive_orders(Suite &suite, MPI_Comm comm) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (const std::string &algorithm : algorithms_) {
      patcoll::core::Collective c;
      patcoll::core::parse_collective(collective_, c);
      bool reactive = false;
      for (const auto &entry : patcoll::mpi::entries(c))
        if (entry.name == algorithm) reactive = static_cast<bool>(entry.capabilities & patcoll::core::reactive);
      if (!reactive) continue;
      for (int iteration = 0; iteration < 12; ++iteration) {
        const int count = iteration % 3 == 0 ? 1 : 5000 + iteration;
        const int root = rooted_ ? iteration % size : 0;
        predict_reactive_coordinator(suite, comm, iteration);
        std::vector<int> send(static_cast<std::size_t>(count)), got(static_cast<std::size_t>(count), -1),
            expected(static_cast<std::size_t>(count), -2);
        for (int i = 0; i < count; ++i) send[static_cast<std::size_t>(i)] = (i * 5 + rank * 3 + iteration) % 11 - 5;
        int rc = call("native", send.data(), expected.data(), count, MPI_INT, MPI_SUM, root, comm);
        // Arrival order: a permutation that changes every iteration.
        const int place = (rank * 7 + iteration * 3) % size;
        const double delay = 0.002 * static_cast<double>((place * 5 + iteration) % size) / size;
        const double until = MPI_Wtime() + delay;
        while (MPI_Wtime() < until) {
        }
        if (rc == MPI_SUCCESS) rc = call(algorithm, send.data(), got.data(), count, MPI_INT, MPI_SUM, root, comm);
        const std::string what = label() + " " + algorithm + " arrival order #" + std::to_string(iteration) +
                                 " count=" + std::to_string(count) + " root=" + std::to_string(root) +
                                 " P=" + std::to_string(size);
        suite.check(rc == MPI_SUCCESS, what + ": returned " + error_class_name(rc) + " " + PAT_Last_error());
        if (rc == MPI_SUCCESS && (!rooted_ || rank == root)) suite.check(got == expected, what + ": result differs from native");
      }
      predict_reactive_coordinator(suite, comm, 0);  // cleared
    }
  }

  int call(const std::string &algorithm, const void *send, void *recv, int count, MPI_Datatype type, MPI_Op op,
           int root, MPI_Comm comm) {
    const char *name = algorithm.c_str();
    PAT_Handle handle = nullptr;
    int rc = MPI_SUCCESS;
    switch (path_) {
      case Path::blocking:
        if (rooted_) return PAT_Reduce_with(name, send, recv, count, type, op, root, comm);
        return PAT_Allreduce_with(name, send, recv, count, type, op, comm);
      case Path::nonblocking:
        rc = rooted_ ? PAT_Ireduce_with(name, send, recv, count, type, op, root, comm, &handle)
                     : PAT_Iallreduce_with(name, send, recv, count, type, op, comm, &handle);
        return rc != MPI_SUCCESS ? rc : complete_nonblocking(handle);
      case Path::persistent:
        rc = rooted_ ? PAT_Reduce_init_with(name, send, recv, count, type, op, root, comm, MPI_INFO_NULL, &handle)
                     : PAT_Allreduce_init_with(name, send, recv, count, type, op, comm, MPI_INFO_NULL, &handle);
        return rc != MPI_SUCCESS ? rc : run_persistent(handle);
    }
    return MPI_ERR_INTERN;
  }

  // One persistent collective per algorithm, started 3 times with new
  // input each time (the Program and buffers fixed at init), then one
  // named through the info key, all against native.
  void persistent_reuse(Suite &suite, MPI_Comm comm) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int count = 300;
    std::vector<int> send(count), recv(count), expected(count);
    for (const std::string &algorithm : algorithms_) {
      PAT_Handle handle = nullptr;
      MPI_Info info = MPI_INFO_NULL;
      MPI_Info_create(&info);
      MPI_Info_set(info, "patcoll_algorithm", algorithm.c_str());
      int rc = rooted_ ? PAT_Reduce_init(send.data(), recv.data(), count, MPI_INT, MPI_SUM, size - 1, comm, info, &handle)
                       : PAT_Allreduce_init(send.data(), recv.data(), count, MPI_INT, MPI_SUM, comm, info, &handle);
      MPI_Info_free(&info);
      const std::string what = std::string(collective_) + " [persistent] " + algorithm + " started 3 times";
      path_ = Path::persistent;
      const bool refuses = refuses_path(algorithm);
      path_ = Path::blocking;
      if (refuses) {
        int cls = rc;
        MPI_Error_class(rc, &cls);
        suite.check(rc != MPI_SUCCESS && cls == MPI_ERR_ARG && handle == nullptr,
                    what + ": a reactive algorithm's init returned " + error_class_name(rc));
        continue;
      }
      suite.check(rc == MPI_SUCCESS, what + ": init returned " + error_class_name(rc));
      if (rc != MPI_SUCCESS) continue;
      for (int round = 0; round < 3; ++round) {
        for (int i = 0; i < count; ++i) send[i] = (i * 7 + rank * 3 + round * 11) % 17;
        std::fill(recv.begin(), recv.end(), -1);
        rc = PAT_Start(handle);
        if (rc == MPI_SUCCESS) rc = PAT_Wait(&handle);
        suite.check(rc == MPI_SUCCESS && handle != nullptr, what + ": start/wait returned " + error_class_name(rc));
        rc = rooted_ ? PAT_Reduce_with("native", send.data(), expected.data(), count, MPI_INT, MPI_SUM, size - 1, comm)
                     : PAT_Allreduce_with("native", send.data(), expected.data(), count, MPI_INT, MPI_SUM, comm);
        if (!rooted_ || rank == size - 1)
          suite.check(rc == MPI_SUCCESS && recv == expected, what + ": round " + std::to_string(round) + " differs from native");
      }
      suite.check(PAT_Handle_free(&handle) == MPI_SUCCESS && handle == nullptr, what + ": PAT_Handle_free");
    }
  }

  void matrix(Suite &suite, MPI_Comm comm, bool only_large = false) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    std::vector<int> counts = only_large ? std::vector<int>{1000} : std::vector<int>{0, 1, size - 1, size + 1, 1000};
    std::vector<int> roots = rooted_ ? std::vector<int>{0, size - 1} : std::vector<int>{0};
    if (rooted_ && size > 2) roots.push_back(size / 2);
    for (const auto &[t, o] : combinations()) {
      for (int count : counts) {
        if (count < 0) continue;
        for (int root : roots) {
          if (root > 0 && only_large) continue;
          for (bool in_place : {false, true}) {
            const bool has_result = !rooted_ || rank == root;
            const std::int64_t slots = static_cast<std::int64_t>(count) * t.slots;
            Buffer input(t.base, slots), expected(t.base, slots), got(t.base, slots);
            fill_input(input, rank, t, o.name);
            // Expected: native, same inputs, never MPI_IN_PLACE (the result is
            // the same by definition, and MPICH 4.0.2 crashes on
            // MPI_Reduce(MPI_IN_PLACE) at a non-zero root: pmodels/mpich#6540).
            fill_sentinel(expected);
            if (std::getenv("PATCOLL_TEST_VERBOSE") && rank == 0)
              std::fprintf(stderr, "case %s %s count=%d root=%d%s\n", t.name.c_str(), o.name.c_str(), count, root,
                           in_place ? " in-place" : "");
            int rc = call("native", input.data(), expected.data(), count, t.type, o.op, root, comm);
            if (rc != MPI_SUCCESS) {
              suite.check(false, "native failed");
              continue;
            }
            for (const std::string &algorithm : algorithms_) {
              if (algorithm == "native") continue;
              fill_sentinel(got);
              if (in_place && has_result) got = input;
              const Buffer input_copy = input, got_before = got;
              rc = call(algorithm, in_place && has_result ? MPI_IN_PLACE : input.data(), got.data(), count, t.type,
                        o.op, root, comm);
              const std::string what = label() + " " + algorithm + " " + t.name + " " + o.name +
                                       " count=" + std::to_string(count) + " root=" + std::to_string(root) +
                                       (in_place ? " in-place" : "") + " P=" + std::to_string(size);
              if (rc == MPI_SUCCESS) {
                suite.check(!refuses_path(algorithm), what + ": a reactive algorithm served a non-blocking call");
                suite.check(!has_result || same(got, expected, t), what + ": result differs from native");
                suite.check(holes_untouched(got_before, got, t), what + ": wrote into the datatype's holes");
                suite.check(input.bytes == input_copy.bytes, what + ": the send buffer was modified");
              } else {
                // Only a commutative-only algorithm may refuse, and only a non-commutative op.
                int cls = rc;
                MPI_Error_class(rc, &cls);
                const bool refused_properly =
                    (cls == MPI_ERR_OP && o.op == matrix_op_) || (cls == MPI_ERR_ARG && refuses_path(algorithm));
                suite.check(refused_properly, what + ": returned " + error_class_name(rc) + " " + PAT_Last_error());
                Buffer untouched(t.base, slots);
                fill_sentinel(untouched);
                if (in_place && has_result) untouched = input;
                suite.check(got.bytes == untouched.bytes, what + ": buffer touched by a refused call");
              }
            }
          }
        }
      }
    }
  }

  void expect_error(Suite &suite, int expected_class, const std::string &what, const std::function<int(void *)> &bad) {
    std::vector<int> recv(16, -5);
    const int rc = bad(recv.data());
    int cls = rc;
    MPI_Error_class(rc, &cls);
    suite.check(rc != MPI_SUCCESS && cls == expected_class,
                label() + " " + what + ": expected class " + error_class_name(expected_class) +
                    ", got " + error_class_name(rc));
    suite.check(std::vector<int>(16, -5) == recv, label() + " " + what + ": receive buffer touched");
    suite.check(std::strlen(PAT_Last_error()) > 0, what + ": no error message");
    // The next collective on the same communicator still works.
    int one = 1, sum = 0, size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int rc2 = call("auto", &one, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    suite.check(rc2 == MPI_SUCCESS && (rank != 0 && rooted_ ? true : sum == size),
                label() + " " + what + ": next collective failed");
  }

  void bad_input(Suite &suite, MPI_Comm comm) {
    int size;
    MPI_Comm_size(comm, &size);
    std::vector<int> send(16, 1);
    for (const std::string &algorithm : algorithms_) {
      const std::string a = algorithm + ": ";
      if (rooted_) {
        expect_error(suite, MPI_ERR_ROOT, a + "root = size", [&](void *recv) {
          return call(algorithm, send.data(), recv, 16, MPI_INT, MPI_SUM, size, comm);
        });
        expect_error(suite, MPI_ERR_ROOT, a + "root = -1", [&](void *recv) {
          return call(algorithm, send.data(), recv, 16, MPI_INT, MPI_SUM, -1, comm);
        });
      }
      // An (op, datatype) pair MPI-3.1 §5.9.2 rejects is MPI_ERR_OP before
      // any data moves, for every algorithm and native too (MPI_Reduce_local
      // would abort the job: MPI_ERRORS_ARE_FATAL), whatever the count.
      struct BadPair { MPI_Datatype type; MPI_Op op; const char *what; };
      const BadPair bad_pairs[] = {{MPI_FLOAT, MPI_BAND, "MPI_FLOAT + MPI_BAND"},
                                   {MPI_DOUBLE, MPI_BXOR, "MPI_DOUBLE + MPI_BXOR"},
                                   {MPI_DOUBLE, MPI_LAND, "MPI_DOUBLE + MPI_LAND"},
                                   {MPI_INT, MPI_MAXLOC, "MPI_INT + MPI_MAXLOC"},
                                   {MPI_2INT, MPI_SUM, "MPI_2INT + MPI_SUM"},
                                   {MPI_CHAR, MPI_SUM, "MPI_CHAR + MPI_SUM"},
                                   {MPI_INT, MPI_REPLACE, "MPI_INT + MPI_REPLACE"},
                                   {contig3_, MPI_SUM, "contiguous(3,MPI_DOUBLE) + MPI_SUM"}};
      for (const BadPair &pair : bad_pairs)
        for (int count : {1, 4}) {
          expect_error(suite, MPI_ERR_OP, a + pair.what + " count=" + std::to_string(count), [&](void *recv) {
            return call(algorithm, send.data(), recv, count, pair.type, pair.op, 0, comm);
          });
        }
      // ...while the pairs MPI allows work: MPI_MAXLOC on MPI_2INT.
      {
        int rank;
        MPI_Comm_rank(comm, &rank);
        std::vector<int> pairs_in(8), got(8, -1), expected(8, -1);
        for (int i = 0; i < 4; ++i) {
          pairs_in[2 * i] = (rank * 7 + i * 3) % 5;
          pairs_in[2 * i + 1] = rank;
        }
        const int rc_native = call("native", pairs_in.data(), expected.data(), 4, MPI_2INT, MPI_MAXLOC, 0, comm);
        const int rc = call(algorithm, pairs_in.data(), got.data(), 4, MPI_2INT, MPI_MAXLOC, 0, comm);
        int cls = rc;
        MPI_Error_class(rc, &cls);
        if (refuses_path(algorithm))
          suite.check(cls == MPI_ERR_ARG && std::strlen(PAT_Last_error()) > 0,
                      std::string(collective_) + " " + a + "a reactive algorithm on this path returned " +
                          error_class_name(rc));
        else
        suite.check(rc_native == MPI_SUCCESS && rc == MPI_SUCCESS && (!(rooted_ && rank != 0) ? got == expected : true),
                    std::string(collective_) + " " + a + "MPI_2INT + MPI_MAXLOC differs from native or failed: " +
                        error_class_name(rc) + " " + PAT_Last_error());
      }
      if (algorithm == "native") continue;  // the MPI library's checks and error handler are its own
      expect_error(suite, MPI_ERR_COUNT, a + "negative count", [&](void *recv) {
        return call(algorithm, send.data(), recv, -1, MPI_INT, MPI_SUM, 0, comm);
      });
      expect_error(suite, MPI_ERR_BUFFER, a + "null send buffer", [&](void *recv) {
        return call(algorithm, nullptr, recv, 16, MPI_INT, MPI_SUM, 0, comm);
      });
      expect_error(suite, MPI_ERR_OP, a + "MPI_OP_NULL", [&](void *recv) {
        return call(algorithm, send.data(), recv, 16, MPI_INT, MPI_OP_NULL, 0, comm);
      });
      expect_error(suite, MPI_ERR_TYPE, a + "MPI_DATATYPE_NULL", [&](void *recv) {
        return call(algorithm, send.data(), recv, 16, MPI_DATATYPE_NULL, MPI_SUM, 0, comm);
      });
    }
    expect_error(suite, MPI_ERR_ARG, "unknown algorithm", [&](void *recv) {
      return call("no_such_algorithm", send.data(), recv, 16, MPI_INT, MPI_SUM, 0, comm);
    });
    // Every commutative-only algorithm refuses a non-commutative op.
    patcoll::core::Collective c;
    patcoll::core::parse_collective(collective_, c);
    for (const auto &entry : patcoll::mpi::entries(c)) {
      if (!(entry.restrictions & patcoll::core::needs_commutative)) continue;
      const std::string algorithm(entry.name);
      expect_error(suite, MPI_ERR_OP, algorithm + " with a non-commutative op", [&](void *recv) {
        return call(algorithm, send.data(), recv, 4, matrix_, matrix_op_, 0, comm);
      });
    }
  }

  const char *collective_;
  bool rooted_;
  Path path_ = Path::blocking;
  std::vector<std::string> algorithms_;
  MPI_Op matrix_op_, user_sum_, triple_sum_, strided_sum_;
  MPI_Datatype contig3_, vector_, matrix_;
};

}  // namespace patcoll::test
