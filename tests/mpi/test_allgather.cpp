// MPI driver: PAT_Allgather and PAT_Allgatherv with every registered
// algorithm against native, through the blocking, non-blocking and
// persistent calls: datatypes (MPI_INT, a vector type with holes,
// send/receive types that differ with matching signatures, MPI_DOUBLE),
// counts 0, 1, 5, 1000, MPI_IN_PLACE, communicators (world, a parity
// split), allgatherv's zero and unequal counts with packed and scattered
// displacements, PAT vectors right (the late rank really is late) and
// wrong (nobody is), neighbor_exchange's refusal at odd P, and bad input.
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

namespace patcoll::test {
namespace {

struct TypeCase {
  const char *name;
  MPI_Datatype send_type;
  int send_slots;  // ints one send element spans (extent)
  int send_ints;   // ints of data in one send element
  MPI_Datatype recv_type;
  int recv_slots;
  int factor;      // receive elements per send element
};

// Where rank r's block of an allgatherv lands: packed, or in reverse rank
// order with a gap of 3 elements after every block.
enum class Layout { packed, scattered };

class AllgatherSuite {
 public:
  AllgatherSuite() {
    MPI_Type_vector(2, 1, 2, MPI_INT, &vector_);
    MPI_Type_commit(&vector_);
    MPI_Type_contiguous(4, MPI_INT, &four_);
    MPI_Type_commit(&four_);
  }
  ~AllgatherSuite() {
    MPI_Type_free(&vector_);
    MPI_Type_free(&four_);
  }

  int run(const std::vector<Path> &paths) {
    Suite suite;
    suite.check(!paths.empty(), "no path to run");
    for (Path path : paths) {
      path_ = path;
      for (bool v : {false, true}) {
        v_ = v;
        algorithms_ = algorithms_of(v ? "allgatherv" : "allgather");
        sweep_communicators([&](MPI_Comm comm, bool only_large) { matrix(suite, comm, only_large); });
        pats(suite, MPI_COMM_WORLD);
        bad_input(suite, MPI_COMM_WORLD);
      }
    }
    return suite.finish();
  }

 private:
  std::vector<TypeCase> cases() const {
    return {{"MPI_INT", MPI_INT, 1, 1, MPI_INT, 1, 1},
            {"vector(2,1,2,MPI_INT)", vector_, 3, 2, vector_, 3, 1},
            {"contiguous(4,MPI_INT) sent, 4×MPI_INT received", four_, 4, 4, MPI_INT, 1, 4},
            {"MPI_DOUBLE as 2 ints", MPI_DOUBLE, 2, 2, MPI_DOUBLE, 2, 1}};
  }

  std::string label() const { return std::string(v_ ? "allgatherv" : "allgather") + to_string(path_); }

  int call(const std::string &algorithm, const void *send, int sendcount, MPI_Datatype sendtype, void *recv,
           int recvcount, const int *counts, const int *displs, MPI_Datatype recvtype, MPI_Comm comm) {
    const char *name = algorithm.c_str();
    PAT_Handle handle = nullptr;
    int rc = MPI_SUCCESS;
    switch (path_) {
      case Path::blocking:
        if (v_) return PAT_Allgatherv_with(name, send, sendcount, sendtype, recv, counts, displs, recvtype, comm);
        return PAT_Allgather_with(name, send, sendcount, sendtype, recv, recvcount, recvtype, comm);
      case Path::nonblocking:
        rc = v_ ? PAT_Iallgatherv_with(name, send, sendcount, sendtype, recv, counts, displs, recvtype, comm, &handle)
                : PAT_Iallgather_with(name, send, sendcount, sendtype, recv, recvcount, recvtype, comm, &handle);
        return rc != MPI_SUCCESS ? rc : complete_nonblocking(handle);
      case Path::persistent:
        rc = v_ ? PAT_Allgatherv_init_with(name, send, sendcount, sendtype, recv, counts, displs, recvtype, comm,
                                           MPI_INFO_NULL, &handle)
                : PAT_Allgather_init_with(name, send, sendcount, sendtype, recv, recvcount, recvtype, comm,
                                          MPI_INFO_NULL, &handle);
        return rc != MPI_SUCCESS ? rc : run_persistent(handle);
    }
    return MPI_ERR_INTERN;
  }

  // One call's buffers and arguments for `count` send elements per rank
  // (allgatherv: rank r sends count_of(r)).
  struct Case {
    std::vector<int> counts, displs;  // receive elements
    int span = 0;                     // receive elements the buffer spans
    int send_count = 0;
    std::vector<int> send, recv;
  };
  static int count_of(bool v, int rank, int count) { return !v ? count : rank % 3 == 1 ? 0 : count + rank % 4; }

  Case make_case(const TypeCase &t, int count, Layout layout, int rank, int size, bool in_place) const {
    Case c;
    c.counts.resize(static_cast<std::size_t>(size));
    c.displs.resize(static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r) c.counts[static_cast<std::size_t>(r)] = count_of(v_, r, count) * t.factor;
    if (layout == Layout::packed) {
      std::partial_sum(c.counts.begin(), c.counts.end() - 1, c.displs.begin() + 1);
    } else {
      int at = 0;
      for (int r = size - 1; r >= 0; --r) c.displs[static_cast<std::size_t>(r)] = at, at += c.counts[static_cast<std::size_t>(r)] + 3;
    }
    for (int r = 0; r < size; ++r)
      c.span = std::max(c.span, c.displs[static_cast<std::size_t>(r)] + c.counts[static_cast<std::size_t>(r)]);
    c.send_count = count_of(v_, rank, count);
    c.send.resize(static_cast<std::size_t>(c.send_count) * t.send_slots);
    for (std::size_t i = 0; i < c.send.size(); ++i) c.send[i] = rank * 100000 + static_cast<int>(i);
    c.recv.assign(static_cast<std::size_t>(c.span) * t.recv_slots + 1, -1);
    if (in_place && c.send_count > 0)  // the rank's block where MPI_IN_PLACE expects it: its send block
      MPI_Sendrecv(c.send.data(), c.send_count, t.send_type, 0, 0,
                   c.recv.data() + static_cast<std::ptrdiff_t>(c.displs[static_cast<std::size_t>(rank)]) * t.recv_slots,
                   c.counts[static_cast<std::size_t>(rank)], t.recv_type, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    return c;
  }

  int run_case(const std::string &algorithm, const TypeCase &t, Case &c, bool in_place, MPI_Comm comm) {
    const int recvcount = c.counts.empty() ? 0 : c.counts[0];
    return call(algorithm, in_place ? MPI_IN_PLACE : static_cast<const void *>(c.send.data()), c.send_count,
                t.send_type, c.recv.data(), recvcount, c.counts.data(), c.displs.data(), t.recv_type, comm);
  }

  void matrix(Suite &suite, MPI_Comm comm, bool only_large) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const std::vector<int> counts = only_large ? std::vector<int>{1000} : std::vector<int>{0, 1, 5, 1000};
    const std::vector<Layout> layouts = v_ ? std::vector<Layout>{Layout::packed, Layout::scattered}
                                           : std::vector<Layout>{Layout::packed};
    for (const TypeCase &t : cases())
      for (int count : counts)
        for (Layout layout : layouts)
          for (bool in_place : {false, true}) {
            // The reference: native, with MPI_IN_PLACE as the case has it.
            Case expected = make_case(t, count, layout, rank, size, in_place);
            if (run_case("native", t, expected, in_place, comm) != MPI_SUCCESS) {
              suite.check(false, label() + ": native failed");
              continue;
            }
            for (const std::string &algorithm : algorithms_) {
              if (algorithm == "native") continue;
              Case c = make_case(t, count, layout, rank, size, in_place);
              const std::vector<int> send_before = c.send, recv_before = c.recv;
              const int rc = run_case(algorithm, t, c, in_place, comm);
              const std::string what = label() + " " + algorithm + " " + t.name + " count=" + std::to_string(count) +
                                       (layout == Layout::scattered ? " scattered displs" : "") +
                                       (in_place ? " in-place" : "") + " P=" + std::to_string(size);
              if (algorithm == "neighbor_exchange" && size % 2 != 0) {  // refused, buffers untouched
                suite.check(rc != MPI_SUCCESS && error_class(rc) == MPI_ERR_ARG,
                            what + ": expected MPI_ERR_ARG at odd P, got " + error_class_name(rc));
                suite.check(c.recv == recv_before, what + ": receive buffer touched by a refused call");
                continue;
              }
              suite.check(rc == MPI_SUCCESS, what + ": returned " + error_class_name(rc) + " " + PAT_Last_error());
              if (rc != MPI_SUCCESS) continue;
              suite.check(c.recv == expected.recv, what + ": result differs from native");
              suite.check(c.send == send_before, what + ": the send buffer was modified");
            }
          }
  }

  static int error_class(int rc) {
    int cls = rc;
    MPI_Error_class(rc, &cls);
    return cls;
  }

  // PAP-aware algorithms with a PAT vector saying the last rank is late:
  // right (it sleeps 2 ms before the call) and wrong (nobody waits).
  void pats(Suite &suite, MPI_Comm comm) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    std::vector<double> arrivals(static_cast<std::size_t>(size), 0.0);
    arrivals.back() = 2e-3;
    const TypeCase t = cases()[0];
    for (int count : {1, 1000}) {
      Case expected = make_case(t, count, Layout::packed, rank, size, false);
      suite.check(run_case("native", t, expected, false, comm) == MPI_SUCCESS, label() + ": native failed");
      for (bool right : {true, false}) {
        suite.check(PAT_Set_arrivals(comm, arrivals.data()) == MPI_SUCCESS, label() + ": PAT_Set_arrivals failed");
        for (const std::string &algorithm : {std::string("clairvoyant"), std::string("auto")}) {
          for (bool in_place : {false, true}) {
            Case c = make_case(t, count, Layout::packed, rank, size, in_place);
            if (right && rank == size - 1) usleep(2000);
            const int rc = run_case(algorithm, t, c, in_place, comm);
            const std::string what = label() + " " + algorithm + " with " + (right ? "right" : "wrong") +
                                     " PATs count=" + std::to_string(count) + (in_place ? " in-place" : "") +
                                     " P=" + std::to_string(size);
            suite.check(rc == MPI_SUCCESS, what + ": returned " + error_class_name(rc) + " " + PAT_Last_error());
            if (rc == MPI_SUCCESS) suite.check(c.recv == expected.recv, what + ": result differs from native");
          }
        }
        suite.check(PAT_Set_arrivals(comm, nullptr) == MPI_SUCCESS, label() + ": clearing the PATs failed");
      }
    }
  }

  void expect_error(Suite &suite, int expected_class, const std::string &what, const std::function<int(void *)> &bad) {
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<int> recv(static_cast<std::size_t>(64 * size), -5);
    const int rc = bad(recv.data());
    suite.check(rc != MPI_SUCCESS && error_class(rc) == expected_class,
                label() + " " + what + ": expected " + error_class_name(expected_class) + ", got " +
                    error_class_name(rc));
    suite.check(std::vector<int>(static_cast<std::size_t>(64 * size), -5) == recv,
                label() + " " + what + ": receive buffer touched");
    // The next collective on the same communicator still works.
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::vector<int> all(static_cast<std::size_t>(size), -1);
    const int rc2 = PAT_Allgather(&rank, 1, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD);
    std::vector<int> ranks(static_cast<std::size_t>(size));
    std::iota(ranks.begin(), ranks.end(), 0);
    suite.check(rc2 == MPI_SUCCESS && all == ranks, label() + " " + what + ": next collective failed");
  }

  void bad_input(Suite &suite, MPI_Comm comm) {
    int size;
    MPI_Comm_size(comm, &size);
    std::vector<int> send(8, 1), counts(static_cast<std::size_t>(size), 8), displs(static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r) displs[static_cast<std::size_t>(r)] = 8 * r;
    std::vector<int> negative = counts;
    negative.back() = -1;
    for (const std::string &algorithm : algorithms_) {
      if (algorithm == "native") continue;
      const std::string a = algorithm + ": ";
      auto bad = [&](const void *s, int sendcount, MPI_Datatype st, void *r, int recvcount, const int *c,
                     MPI_Datatype rt) { return call(algorithm, s, sendcount, st, r, recvcount, c, displs.data(), rt, comm); };
      expect_error(suite, MPI_ERR_COUNT, a + "negative count", [&](void *recv) {
        return v_ ? bad(send.data(), 8, MPI_INT, recv, 0, negative.data(), MPI_INT)
                  : bad(send.data(), 8, MPI_INT, recv, -1, counts.data(), MPI_INT);
      });
      expect_error(suite, MPI_ERR_BUFFER, a + "null receive buffer", [&](void *) {
        return bad(send.data(), 8, MPI_INT, nullptr, 8, counts.data(), MPI_INT);
      });
      expect_error(suite, MPI_ERR_BUFFER, a + "recvbuf = MPI_IN_PLACE", [&](void *) {
        return bad(send.data(), 8, MPI_INT, MPI_IN_PLACE, 8, counts.data(), MPI_INT);
      });
      expect_error(suite, MPI_ERR_TYPE, a + "MPI_DATATYPE_NULL", [&](void *recv) {
        return bad(send.data(), 8, MPI_DATATYPE_NULL, recv, 8, counts.data(), MPI_DATATYPE_NULL);
      });
      expect_error(suite, MPI_ERR_TRUNCATE, a + "send and receive blocks differ", [&](void *recv) {
        return bad(send.data(), 4, MPI_INT, recv, 8, counts.data(), MPI_INT);
      });
      if (v_)
        expect_error(suite, MPI_ERR_ARG, a + "recvcounts = NULL", [&](void *recv) {
          return bad(send.data(), 8, MPI_INT, recv, 8, nullptr, MPI_INT);
        });
    }
    expect_error(suite, MPI_ERR_ARG, "unknown algorithm", [&](void *recv) {
      return call("no_such_algorithm", send.data(), 8, MPI_INT, recv, 8, counts.data(), displs.data(), MPI_INT, comm);
    });
  }

  bool v_ = false;
  Path path_ = Path::blocking;
  std::vector<std::string> algorithms_;
  MPI_Datatype vector_, four_;
};

}  // namespace
}  // namespace patcoll::test

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rc;
  {
    patcoll::test::AllgatherSuite suite;
    rc = suite.run(patcoll::test::paths_from_arguments(argc, argv));
  }
  MPI_Finalize();
  return rc;
}
