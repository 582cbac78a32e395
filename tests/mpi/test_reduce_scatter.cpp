// MPI driver: PAT_Reduce_scatter_block and PAT_Reduce_scatter with every
// registered algorithm against native, through the blocking, non-blocking
// and persistent calls: datatypes (MPI_INT, a vector type with holes,
// MPI_DOUBLE), counts 0, 1, 5, 1000, MPI_IN_PLACE, communicators (world, a
// parity split), reduce_scatter's zero and unequal counts, a
// non-commutative op (recursive_halving reduces it in rank order, the
// commutative-only algorithms refuse it with MPI_ERR_OP), PAT vectors right
// (the late rank really is late), wrong (another rank is) and none, and bad
// input.
#include <mpi.h>

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "mpi_test.hpp"
#include "patcoll.h"
#include "reduction_suite.hpp"  // strided_sum

namespace patcoll::test {
namespace {

struct TypeCase {
  const char *name;
  MPI_Datatype type;
  int slots;  // ints one element spans (extent)
  MPI_Op sum;  // the sum for this type (a user op for a derived type: Open MPI refuses predefined ones)
};

// x ∘ y = x: associative, not commutative; the result is the lowest rank's.
void left_wins(void *in, void *inout, int *len, MPI_Datatype *) {
  std::copy_n(static_cast<int *>(in), *len, static_cast<int *>(inout));
}

class ReduceScatterSuite {
 public:
  ReduceScatterSuite() {
    MPI_Type_vector(2, 1, 2, MPI_INT, &vector_);
    MPI_Type_commit(&vector_);
    MPI_Op_create(left_wins, 0, &left_wins_);
    MPI_Op_create(strided_sum, 1, &strided_sum_);
  }
  ~ReduceScatterSuite() {
    MPI_Type_free(&vector_);
    MPI_Op_free(&left_wins_);
    MPI_Op_free(&strided_sum_);
  }

  int run(const std::vector<Path> &paths) {
    Suite suite;
    suite.check(!paths.empty(), "no path to run");
    for (Path path : paths) {
      path_ = path;
      for (bool v : {false, true}) {
        v_ = v;
        algorithms_ = algorithms_of(v ? "reduce_scatter" : "reduce_scatter_block");
        sweep_communicators([&](MPI_Comm comm, bool only_large) { matrix(suite, comm, only_large); });
        non_commutative(suite, MPI_COMM_WORLD);
        pats(suite, MPI_COMM_WORLD);
        bad_input(suite, MPI_COMM_WORLD);
      }
    }
    return suite.finish();
  }

 private:
  std::vector<TypeCase> cases() const {
    return {{"MPI_INT", MPI_INT, 1, MPI_SUM},
            {"vector(2,1,2,MPI_INT)", vector_, 3, strided_sum_},
            {"MPI_DOUBLE", MPI_DOUBLE, 2, MPI_SUM}};
  }

  std::string label() const { return std::string(v_ ? "reduce_scatter" : "reduce_scatter_block") + to_string(path_); }

  int call(const std::string &algorithm, const void *send, void *recv, int recvcount, const int *counts,
           MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
    const char *name = algorithm.c_str();
    PAT_Handle handle = nullptr;
    int rc = MPI_SUCCESS;
    switch (path_) {
      case Path::blocking:
        if (v_) return PAT_Reduce_scatter_with(name, send, recv, counts, type, op, comm);
        return PAT_Reduce_scatter_block_with(name, send, recv, recvcount, type, op, comm);
      case Path::nonblocking:
        rc = v_ ? PAT_Ireduce_scatter_with(name, send, recv, counts, type, op, comm, &handle)
                : PAT_Ireduce_scatter_block_with(name, send, recv, recvcount, type, op, comm, &handle);
        return rc != MPI_SUCCESS ? rc : complete_nonblocking(handle);
      case Path::persistent:
        rc = v_ ? PAT_Reduce_scatter_init_with(name, send, recv, counts, type, op, comm, MPI_INFO_NULL, &handle)
                : PAT_Reduce_scatter_block_init_with(name, send, recv, recvcount, type, op, comm, MPI_INFO_NULL,
                                                     &handle);
        return rc != MPI_SUCCESS ? rc : run_persistent(handle);
    }
    return MPI_ERR_INTERN;
  }

  // One call's buffers: every rank's whole vector (the sum of the blocks)
  // and its block; in place, the whole vector in recv.
  struct Case {
    std::vector<int> counts;
    int whole = 0, own = 0;
    std::vector<int> send, recv;
  };
  static int count_of(bool v, int rank, int count) { return !v ? count : rank % 3 == 1 ? 0 : count + rank % 4; }

  Case make_case(const TypeCase &t, int count, int rank, int size, bool in_place) const {
    Case c;
    for (int r = 0; r < size; ++r) c.counts.push_back(count_of(v_, r, count));
    c.whole = std::accumulate(c.counts.begin(), c.counts.end(), 0);
    c.own = c.counts[static_cast<std::size_t>(rank)];
    c.send.resize(static_cast<std::size_t>(c.whole) * t.slots + 1);
    for (std::size_t i = 0; i < c.send.size(); ++i) c.send[i] = rank * 1000 + static_cast<int>(i % 997);
    if (t.type == MPI_DOUBLE)  // small whole numbers: every sum exact
      for (std::size_t i = 0; i + 1 < c.send.size(); i += 2) {
        const double d = rank + static_cast<double>(i % 13);
        std::copy_n(reinterpret_cast<const int *>(&d), 2, &c.send[i]);
      }
    if (in_place) {
      c.recv = c.send;
      c.send.clear();
    } else {
      c.recv.assign(static_cast<std::size_t>(c.own) * t.slots + 1, -1);
    }
    return c;
  }

  int run_case(const std::string &algorithm, const TypeCase &t, Case &c, bool in_place, MPI_Op op, MPI_Comm comm) {
    return call(algorithm, in_place ? MPI_IN_PLACE : static_cast<const void *>(c.send.data()), c.recv.data(),
                c.counts.empty() ? 0 : c.counts[0], c.counts.data(), t.type, op, comm);
  }

  // The result: the block's data (the holes of the vector type, and under
  // MPI_IN_PLACE the rest of recvbuf, are not the result).
  static std::vector<int> result(const TypeCase &t, const Case &c) {
    std::vector<int> out;
    for (int e = 0; e < c.own; ++e)
      for (int s = 0; s < t.slots; ++s)
        if (t.type != MPI_DATATYPE_NULL && !(t.slots == 3 && s == 1))
          out.push_back(c.recv[static_cast<std::size_t>(e) * t.slots + s]);
    return out;
  }

  void compare(Suite &suite, const std::string &algorithm, const TypeCase &t, int count, bool in_place, MPI_Op op,
               MPI_Comm comm, const std::string &extra) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    Case expected = make_case(t, count, rank, size, in_place);
    if (const int rc = run_case("native", t, expected, in_place, op, comm); rc != MPI_SUCCESS) {
      suite.check(false, label() + ": native failed (" + error_class_name(rc) + ") " + t.name + " count=" +
                             std::to_string(count) + (in_place ? " in-place" : "") + extra);
      return;
    }
    Case c = make_case(t, count, rank, size, in_place);
    const std::vector<int> send_before = c.send, recv_before = c.recv;
    const int rc = run_case(algorithm, t, c, in_place, op, comm);
    const std::string what = label() + " " + algorithm + " " + t.name + " count=" + std::to_string(count) +
                             (in_place ? " in-place" : "") + extra + " P=" + std::to_string(size);
    suite.check(rc == MPI_SUCCESS, what + ": returned " + error_class_name(rc) + " " + PAT_Last_error());
    if (rc != MPI_SUCCESS) return;
    suite.check(result(t, c) == result(t, expected), what + ": result differs from native");
    if (!in_place) {
      suite.check(c.send == send_before, what + ": the send buffer was modified");
      suite.check(c.recv.back() == -1, what + ": written past the block");
    }
  }

  void matrix(Suite &suite, MPI_Comm comm, bool only_large) {
    const std::vector<int> counts = only_large ? std::vector<int>{1000} : std::vector<int>{0, 1, 5, 1000};
    for (const TypeCase &t : cases())
      for (int count : counts)
        for (bool in_place : {false, true})
          for (const std::string &algorithm : algorithms_)
            if (algorithm != "native") compare(suite, algorithm, t, count, in_place, t.sum, comm, "");
  }

  static int error_class(int rc) {
    int cls = rc;
    MPI_Error_class(rc, &cls);
    return cls;
  }

  // recursive_halving reduces in rank order; the others are commutative
  // only and refuse the op (MPI_ERR_OP, buffers untouched); auto picks one
  // that takes it.
  void non_commutative(Suite &suite, MPI_Comm comm) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const TypeCase t = cases()[0];
    for (int count : {1, 5, 1000})
      for (bool in_place : {false, true})
        for (const std::string &algorithm : algorithms_) {
          if (algorithm == "native") continue;
          if (algorithm == "recursive_halving" || algorithm == "auto") {
            compare(suite, algorithm, t, count, in_place, left_wins_, comm, " non-commutative");
            continue;
          }
          Case c = make_case(t, count, rank, size, in_place);
          const std::vector<int> recv_before = c.recv;
          const int rc = run_case(algorithm, t, c, in_place, left_wins_, comm);
          const std::string what = label() + " " + algorithm + " non-commutative count=" + std::to_string(count) +
                                   (in_place ? " in-place" : "") + " P=" + std::to_string(size);
          suite.check(rc != MPI_SUCCESS && error_class(rc) == MPI_ERR_OP,
                      what + ": expected MPI_ERR_OP, got " + error_class_name(rc));
          suite.check(c.recv == recv_before, what + ": receive buffer touched by a refused call");
        }
  }

  // PAP-aware algorithms and auto with a PAT vector saying the middle rank
  // is late: right (it sleeps 2 ms before the call), wrong (rank 0 sleeps
  // instead), none.
  void pats(Suite &suite, MPI_Comm comm) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    std::vector<double> arrivals(static_cast<std::size_t>(size), 0.0);
    arrivals[static_cast<std::size_t>(size / 2)] = 2e-3;
    const TypeCase t = cases()[0];
    for (int count : {1, 1000})
      for (int which : {0, 1, 2}) {  // right, wrong, none
        const bool right = which == 0, none = which == 2;
        if (!none) suite.check(PAT_Set_arrivals(comm, arrivals.data()) == MPI_SUCCESS, label() + ": PAT_Set_arrivals failed");
        for (const std::string &algorithm : {std::string("clairvoyant"), std::string("auto")})
          for (bool in_place : {false, true}) {
            Case expected = make_case(t, count, rank, size, in_place);
            suite.check(run_case("native", t, expected, in_place, MPI_SUM, comm) == MPI_SUCCESS, label() + ": native failed");
            Case c = make_case(t, count, rank, size, in_place);
            if (!none && rank == (right ? size / 2 : 0)) usleep(2000);
            const int rc = run_case(algorithm, t, c, in_place, MPI_SUM, comm);
            const std::string what = label() + " " + algorithm + " with " +
                                     (right ? "right" : none ? "no" : "wrong") + " PATs count=" + std::to_string(count) +
                                     (in_place ? " in-place" : "") + " P=" + std::to_string(size);
            suite.check(rc == MPI_SUCCESS, what + ": returned " + error_class_name(rc) + " " + PAT_Last_error());
            if (rc == MPI_SUCCESS) suite.check(result(t, c) == result(t, expected), what + ": result differs from native");
          }
        if (!none) suite.check(PAT_Set_arrivals(comm, nullptr) == MPI_SUCCESS, label() + ": clearing the PATs failed");
      }
  }

  void expect_error(Suite &suite, int expected_class, const std::string &what, const std::function<int(void *)> &bad) {
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<int> recv(64, -5);
    const int rc = bad(recv.data());
    suite.check(rc != MPI_SUCCESS && error_class(rc) == expected_class,
                label() + " " + what + ": expected " + error_class_name(expected_class) + ", got " +
                    error_class_name(rc));
    suite.check(std::vector<int>(64, -5) == recv, label() + " " + what + ": receive buffer touched");
    // The next collective on the same communicator still works.
    std::vector<int> ones(static_cast<std::size_t>(size), 1);
    int got = -1;
    const int rc2 = PAT_Reduce_scatter_block(ones.data(), &got, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    suite.check(rc2 == MPI_SUCCESS && got == size, label() + " " + what + ": next collective failed");
  }

  void bad_input(Suite &suite, MPI_Comm comm) {
    int size;
    MPI_Comm_size(comm, &size);
    std::vector<int> send(static_cast<std::size_t>(8 * size), 1), counts(static_cast<std::size_t>(size), 8);
    std::vector<int> negative = counts;
    negative.back() = -1;
    for (const std::string &algorithm : algorithms_) {
      if (algorithm == "native") continue;
      const std::string a = algorithm + ": ";
      auto bad = [&](const void *s, void *r, int recvcount, const int *c, MPI_Datatype type, MPI_Op op) {
        return call(algorithm, s, r, recvcount, c, type, op, comm);
      };
      expect_error(suite, MPI_ERR_COUNT, a + "negative count", [&](void *recv) {
        return bad(send.data(), recv, -1, negative.data(), MPI_INT, MPI_SUM);
      });
      expect_error(suite, MPI_ERR_BUFFER, a + "recvbuf = MPI_IN_PLACE",
                   [&](void *) { return bad(send.data(), MPI_IN_PLACE, 8, counts.data(), MPI_INT, MPI_SUM); });
      expect_error(suite, MPI_ERR_TYPE, a + "MPI_DATATYPE_NULL",
                   [&](void *recv) { return bad(send.data(), recv, 8, counts.data(), MPI_DATATYPE_NULL, MPI_SUM); });
      expect_error(suite, MPI_ERR_OP, a + "MPI_OP_NULL",
                   [&](void *recv) { return bad(send.data(), recv, 8, counts.data(), MPI_INT, MPI_OP_NULL); });
      if (v_)
        expect_error(suite, MPI_ERR_ARG, a + "recvcounts = NULL",
                     [&](void *recv) { return bad(send.data(), recv, 8, nullptr, MPI_INT, MPI_SUM); });
    }
    expect_error(suite, MPI_ERR_ARG, "unknown algorithm", [&](void *recv) {
      return call("no_such_algorithm", send.data(), recv, 8, counts.data(), MPI_INT, MPI_SUM, comm);
    });
  }

  bool v_ = false;
  Path path_ = Path::blocking;
  std::vector<std::string> algorithms_;
  MPI_Datatype vector_;
  MPI_Op left_wins_, strided_sum_;
};

}  // namespace
}  // namespace patcoll::test

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rc;
  {
    patcoll::test::ReduceScatterSuite suite;
    rc = suite.run(patcoll::test::paths_from_arguments(argc, argv));
  }
  MPI_Finalize();
  return rc;
}
