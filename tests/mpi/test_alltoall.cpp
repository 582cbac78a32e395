// MPI driver: PAT_Alltoall and PAT_Alltoallv with every registered
// algorithm against native, over datatypes (MPI_INT, MPI_DOUBLE, a vector
// type with holes, send and receive types that differ but have matching
// signatures), counts (0, 1, 5, 1000 per pair; alltoallv: zero and unequal
// pairs, packed and scattered displacements), MPI_IN_PLACE, communicators
// (world, a parity split), the three call paths, PAT vectors that are
// right (the predicted late rank is late) and wrong (another rank is),
// plus bad input. The reactive algorithms (blocking calls only: MPI_ERR_ARG
// on the other paths) also run under arrival orders that change every
// call (each rank waits its own time), against native.
#include <mpi.h>

#include <functional>
#include <string>
#include <unistd.h>
#include <vector>

#include "core/algorithm.hpp"
#include "mpi/registry.hpp"
#include "mpi_test.hpp"
#include "patcoll.h"

namespace patcoll::test {
namespace {

class AlltoallSuite {
 public:
  AlltoallSuite() {
    MPI_Type_vector(2, 1, 2, MPI_INT, &vector_);
    MPI_Type_commit(&vector_);
    MPI_Type_contiguous(4, MPI_INT, &four_);
    MPI_Type_commit(&four_);
  }
  ~AlltoallSuite() {
    MPI_Type_free(&vector_);
    MPI_Type_free(&four_);
  }

  int run(const std::vector<Path> &paths) {
    Suite suite;
    suite.check(!paths.empty(), "no path to run");
    algorithms_ = algorithms_of("alltoall");
    v_algorithms_ = algorithms_of("alltoallv");
    suite.check(algorithms_.size() >= 5, "alltoall lists native, pairwise, linear, bruck, clairvoyant");
    suite.check(v_algorithms_.size() >= 4, "alltoallv lists native, pairwise, linear, clairvoyant");
    for (Path path : paths) {
      path_ = path;
      sweep_communicators([&](MPI_Comm comm, bool only_large) {
        matrix(suite, comm, only_large);
        v_matrix(suite, comm, only_large);
      });
      pats(suite, MPI_COMM_WORLD);
      if (path_ == Path::blocking) reactive_orders(suite, MPI_COMM_WORLD);
      bad_input(suite, MPI_COMM_WORLD);
    }
    return suite.finish();
  }

 private:
  // Send side (send_type, count · send_factor per pair), receive side
  // (recv_type, count · recv_factor per pair); `slots`: ints one element
  // of the type spans (extent).
  struct TypeCase {
    std::string name;
    MPI_Datatype send_type;
    int send_factor, send_slots;
    MPI_Datatype recv_type;
    int recv_factor, recv_slots;
  };
  std::vector<TypeCase> cases() const {
    return {{"MPI_INT", MPI_INT, 1, 1, MPI_INT, 1, 1},
            {"vector(2,1,2,MPI_INT)", vector_, 1, 3, vector_, 1, 3},
            {"contiguous(4,MPI_INT) sent, 4×MPI_INT received", four_, 1, 4, MPI_INT, 4, 1},
            {"MPI_DOUBLE", MPI_DOUBLE, 1, 2, MPI_DOUBLE, 1, 2}};
  }

  std::string label() const { return std::string("alltoall") + to_string(path_); }

  static bool is_reactive(const std::string &algorithm) {
    for (patcoll::core::Collective c : {patcoll::core::Collective::alltoall, patcoll::core::Collective::alltoallv})
      for (const auto &entry : patcoll::mpi::entries(c))
        if (entry.name == algorithm) return static_cast<bool>(entry.capabilities & patcoll::core::reactive);
    return false;
  }
  // A reactive algorithm serves blocking calls only: MPI_ERR_ARG on the
  // non-blocking and persistent paths.
  bool check_return(Suite &suite, const std::string &algorithm, int rc, const std::string &what) {
    return check_call(suite, path_ != Path::blocking && is_reactive(algorithm), rc, what);
  }

  // Spins `seconds` (an arrival delay; sleeping would let the scheduler
  // blur short ones).
  static void spin(double seconds) {
    const double until = MPI_Wtime() + seconds;
    while (MPI_Wtime() < until) {
    }
  }
  // The delay of `rank` before call #iteration: a permutation that
  // changes every call, or one late rank (rank 0, the coordinator, among
  // them).
  static double delay_of(int rank, int size, int iteration) {
    if (iteration % 4 == 3) return rank == (iteration / 4) % size ? 0.003 : 0.0;
    const int place = (rank * 7 + iteration * 3) % size;
    return 0.002 * static_cast<double>((place * 5 + iteration) % size) / size;
  }

  // Reactive algorithms under arrival orders that change every call:
  // alltoall over counts and MPI_IN_PLACE, alltoallv with zero and
  // unequal pairs, against native.
  void reactive_orders(Suite &suite, MPI_Comm comm) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (const std::string &algorithm : algorithms_) {
      if (!is_reactive(algorithm)) continue;
      for (int iteration = 0; iteration < 12; ++iteration) {
        const int count = iteration % 3 == 0 ? 1 : iteration % 3 == 1 ? 1000 : 5 + iteration;
        const bool in_place = iteration % 2 == 1;
        predict_reactive_coordinator(suite, comm, iteration);
        only_ = algorithm;
        compare(suite, comm, cases()[iteration % 5 == 4 ? 1 : 0], count, in_place,
                " arrival order #" + std::to_string(iteration), [&] { spin(delay_of(rank, size, iteration)); });
        only_.clear();
      }
    }
    for (const std::string &algorithm : v_algorithms_) {
      if (!is_reactive(algorithm)) continue;
      for (int iteration = 0; iteration < 12; ++iteration) {
        predict_reactive_coordinator(suite, comm, iteration);
        const bool in_place = iteration % 3 == 2;
        // Pair (s, d): zero for a third of the pairs, unequal otherwise
        // (symmetric in place, as MPI_IN_PLACE requires).
        auto pair = [&](int s, int d) {
          return in_place ? ((s + d + iteration) % 3) * 40 : ((s + 2 * d + iteration) % 3) * (1 + s + 50 * d);
        };
        std::vector<int> sendcounts(size), sdispls(size), recvcounts(size), rdispls(size);
        int send_end = 0, recv_end = 0;
        for (int k = 0; k < size; ++k) {
          sendcounts[k] = pair(rank, k), sdispls[k] = send_end, send_end += sendcounts[k];
          recvcounts[k] = pair(k, rank), rdispls[k] = recv_end, recv_end += recvcounts[k];
        }
        auto fresh = [&](int n, bool data) {
          std::vector<int> v(static_cast<std::size_t>(n) + 1);
          for (std::size_t i = 0; i < v.size(); ++i) v[i] = data ? rank * 1000000 + static_cast<int>(i) : -1;
          return v;
        };
        auto run = [&](const std::string &name, std::vector<int> &send, std::vector<int> &recv) {
          spin(delay_of(rank, size, iteration));
          return PAT_Alltoallv_with(name.c_str(), in_place ? MPI_IN_PLACE : static_cast<const void *>(send.data()),
                                    sendcounts.data(), sdispls.data(), MPI_INT, recv.data(), recvcounts.data(),
                                    rdispls.data(), MPI_INT, comm);
        };
        std::vector<int> expected_send = fresh(send_end, true), expected = fresh(recv_end, in_place);
        std::vector<int> send = expected_send, recv = fresh(recv_end, in_place);
        const std::string what = label() + "v " + algorithm + " arrival order #" + std::to_string(iteration) +
                                 (in_place ? " in-place" : "") + " P=" + std::to_string(size);
        if (run("native", expected_send, expected) != MPI_SUCCESS) {
          suite.check(false, what + ": native failed");
          continue;
        }
        const int rc = run(algorithm, send, recv);
        if (check_return(suite, algorithm, rc, what)) {
          suite.check(recv == expected, what + ": received blocks differ from native");
          suite.check(send == expected_send, what + ": the send buffer was modified");
        }
      }
    }
    predict_reactive_coordinator(suite, comm, 0);  // cleared
  }

  int call(const std::string &algorithm, const void *send, int sendcount, MPI_Datatype sendtype, void *recv,
           int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    const char *name = algorithm.c_str();
    PAT_Handle handle = nullptr;
    int rc = MPI_SUCCESS;
    switch (path_) {
      case Path::blocking:
        return PAT_Alltoall_with(name, send, sendcount, sendtype, recv, recvcount, recvtype, comm);
      case Path::nonblocking:
        rc = PAT_Ialltoall_with(name, send, sendcount, sendtype, recv, recvcount, recvtype, comm, &handle);
        return rc != MPI_SUCCESS ? rc : complete_nonblocking(handle);
      case Path::persistent:
        rc = PAT_Alltoall_init_with(name, send, sendcount, sendtype, recv, recvcount, recvtype, comm, MPI_INFO_NULL,
                                    &handle);
        return rc != MPI_SUCCESS ? rc : run_persistent(handle);
    }
    return MPI_ERR_INTERN;
  }

  int call_v(const std::string &algorithm, const void *send, const int *sendcounts, const int *sdispls,
             MPI_Datatype sendtype, void *recv, const int *recvcounts, const int *rdispls, MPI_Datatype recvtype,
             MPI_Comm comm) {
    const char *name = algorithm.c_str();
    PAT_Handle handle = nullptr;
    int rc = MPI_SUCCESS;
    switch (path_) {
      case Path::blocking:
        return PAT_Alltoallv_with(name, send, sendcounts, sdispls, sendtype, recv, recvcounts, rdispls, recvtype, comm);
      case Path::nonblocking:
        rc = PAT_Ialltoallv_with(name, send, sendcounts, sdispls, sendtype, recv, recvcounts, rdispls, recvtype, comm,
                                 &handle);
        return rc != MPI_SUCCESS ? rc : complete_nonblocking(handle);
      case Path::persistent:
        rc = PAT_Alltoallv_init_with(name, send, sendcounts, sdispls, sendtype, recv, recvcounts, rdispls, recvtype,
                                     comm, MPI_INFO_NULL, &handle);
        return rc != MPI_SUCCESS ? rc : run_persistent(handle);
    }
    return MPI_ERR_INTERN;
  }

  // alltoallv: pair (s, d) carries ((s + 2d) mod 4)·scale elements (zero
  // and unequal pairs), or ((s + d) mod 3)·scale in place (symmetric, as
  // MPI_IN_PLACE requires). Displacements packed, or scattered: the pairs
  // in reverse rank order with a gap of 3 elements before each.
  void v_matrix(Suite &suite, MPI_Comm comm, bool only_large) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    struct VType {
      std::string name;
      MPI_Datatype type;
      int slots;
    };
    const std::vector<VType> types{{"MPI_INT", MPI_INT, 1}, {"vector(2,1,2,MPI_INT)", vector_, 3}};
    const std::vector<int> scales = only_large ? std::vector<int>{300} : std::vector<int>{1, 300};
    for (const VType &t : types)
      for (int scale : scales)
        for (bool scattered : {false, true})
          for (bool in_place : {false, true}) {
            auto pair = [&](int s, int d) { return (in_place ? (s + d) % 3 : (s + 2 * d) % 4) * scale; };
            std::vector<int> sendcounts(size), sdispls(size), recvcounts(size), rdispls(size);
            int send_end = 0, recv_end = 0;
            for (int k = 0; k < size; ++k) {
              sendcounts[k] = pair(rank, k);
              recvcounts[k] = pair(k, rank);
            }
            for (int i = 0; i < size; ++i) {
              const int k = scattered ? size - 1 - i : i;
              sdispls[k] = send_end + (scattered ? 3 : 0);
              send_end = sdispls[k] + sendcounts[k];
              rdispls[k] = recv_end + (scattered ? 3 : 0);
              recv_end = rdispls[k] + recvcounts[k];
            }
            const std::size_t send_ints = static_cast<std::size_t>(send_end) * t.slots;
            const std::size_t recv_ints = static_cast<std::size_t>(recv_end) * t.slots;
            auto fresh_send = [&] {
              std::vector<int> v(send_ints);
              for (std::size_t i = 0; i < v.size(); ++i) v[i] = rank * 1000000 + static_cast<int>(i);
              return v;
            };
            auto fresh_recv = [&] {
              std::vector<int> v(recv_ints);
              for (std::size_t i = 0; i < v.size(); ++i) v[i] = in_place ? rank * 1000000 + static_cast<int>(i) : -1;
              return v;
            };
            auto run = [&](const std::string &algorithm, std::vector<int> &send, std::vector<int> &recv) {
              return call_v(algorithm, in_place ? MPI_IN_PLACE : static_cast<const void *>(send.data()),
                            sendcounts.data(), sdispls.data(), t.type, recv.data(), recvcounts.data(), rdispls.data(),
                            t.type, comm);
            };
            // The reference: the MPI library's blocking MPI_Alltoallv (Open
            // MPI 4.1's non-blocking one gets MPI_IN_PLACE with a
            // non-contiguous type wrong at P = 7).
            std::vector<int> expected_send = fresh_send(), expected = fresh_recv();
            const Path path = path_;
            path_ = Path::blocking;
            const int native_rc = run("native", expected_send, expected);
            path_ = path;
            if (native_rc != MPI_SUCCESS) {
              suite.check(false, label() + ": native alltoallv failed");
              continue;
            }
            for (const std::string &algorithm : v_algorithms_) {
              if (algorithm == "native") continue;
              std::vector<int> send = fresh_send(), recv = fresh_recv();
              const std::vector<int> send_before = send;
              const int rc = run(algorithm, send, recv);
              const std::string what = label() + "v " + algorithm + " " + t.name + " scale=" + std::to_string(scale) +
                                       (scattered ? " scattered displacements" : " packed") +
                                       (in_place ? " in-place" : "") + " P=" + std::to_string(size);
              if (!check_return(suite, algorithm, rc, what)) continue;
              suite.check(recv == expected, what + ": received blocks differ from native");
              suite.check(send == send_before, what + ": the send buffer was modified");
            }
          }
  }

  // One case of every algorithm against native; `before` runs on every
  // rank before each call (a PAT case's delay).
  void compare(Suite &suite, MPI_Comm comm, const TypeCase &t, int count, bool in_place, const std::string &note,
               const std::function<void()> &before = {}) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const std::size_t send_ints = static_cast<std::size_t>(count) * t.send_factor * t.send_slots * size;
    const std::size_t recv_ints = static_cast<std::size_t>(count) * t.recv_factor * t.recv_slots * size;
    auto fresh_send = [&] {
      std::vector<int> v(send_ints);
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = rank * 1000000 + static_cast<int>(i);
      return v;
    };
    auto fresh_recv = [&] {
      std::vector<int> v(recv_ints);
      // In place: the receive buffer holds the data to send (recv layout).
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = in_place ? rank * 1000000 + static_cast<int>(i) : -1;
      return v;
    };
    auto run = [&](const std::string &algorithm, std::vector<int> &send, std::vector<int> &recv) {
      if (before) before();
      return call(algorithm, in_place ? MPI_IN_PLACE : static_cast<const void *>(send.data()), count * t.send_factor,
                  t.send_type, recv.data(), count * t.recv_factor, t.recv_type, comm);
    };
    std::vector<int> expected_send = fresh_send(), expected = fresh_recv();
    if (run("native", expected_send, expected) != MPI_SUCCESS) {
      suite.check(false, label() + ": native failed");
      return;
    }
    for (const std::string &algorithm : algorithms_) {
      if (algorithm == "native" || (!only_.empty() && algorithm != only_)) continue;
      std::vector<int> send = fresh_send(), recv = fresh_recv();
      const std::vector<int> send_before = send;
      const int rc = run(algorithm, send, recv);
      const std::string what = label() + " " + algorithm + " " + t.name + " count=" + std::to_string(count) +
                               (in_place ? " in-place" : "") + note + " P=" + std::to_string(size);
      if (!check_return(suite, algorithm, rc, what)) continue;
      suite.check(recv == expected, what + ": received blocks differ from native");
      suite.check(send == send_before, what + ": the send buffer was modified");
    }
  }

  void matrix(Suite &suite, MPI_Comm comm, bool only_large = false) {
    const std::vector<int> counts = only_large ? std::vector<int>{1000} : std::vector<int>{0, 1, 5, 1000};
    for (const TypeCase &t : cases())
      for (int count : counts)
        for (bool in_place : {false, true}) {
          // In place, the receive side describes both: the differing-type
          // case is the same as MPI_INT's there.
          if (in_place && t.send_type != t.recv_type) continue;
          compare(suite, comm, t, count, in_place, "");
        }
  }

  // PAT vectors: the last rank predicted late by 2 ms; right: it is (it
  // sleeps 2 ms before the call), wrong: rank 0 is instead.
  void pats(Suite &suite, MPI_Comm comm) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    std::vector<double> arrivals(static_cast<std::size_t>(size), 0.0);
    arrivals.back() = 2e-3;
    suite.check(PAT_Set_arrivals(comm, arrivals.data()) == MPI_SUCCESS, label() + ": PAT_Set_arrivals failed");
    for (int late : {size - 1, 0}) {
      const std::string note = late == size - 1 ? " PATs right" : " PATs wrong";
      for (int count : {5, 1000})
        for (bool in_place : {false, true})
          compare(suite, comm, cases()[0], count, in_place, note, [&] {
            if (rank == late) usleep(2000);
          });
    }
    // alltoallv under the same PAT vector, nobody late (wrong PATs).
    v_matrix(suite, comm, true);
    PAT_Set_arrivals(comm, nullptr);
  }

  void expect_error(Suite &suite, int expected_class, const std::string &what, const std::function<int(void *)> &bad) {
    std::vector<int> recv(64, -5);
    const int rc = bad(recv.data());
    int cls = rc;
    MPI_Error_class(rc, &cls);
    suite.check(rc != MPI_SUCCESS && cls == expected_class,
                label() + " " + what + ": expected " + error_class_name(expected_class) + ", got " +
                    error_class_name(rc) + " (" + PAT_Last_error() + ")");
    suite.check(std::vector<int>(64, -5) == recv, label() + " " + what + ": receive buffer touched");
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<int> send(static_cast<std::size_t>(size), 1), into(static_cast<std::size_t>(size), 0);
    suite.check(PAT_Alltoall(send.data(), 1, MPI_INT, into.data(), 1, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS,
                label() + " " + what + ": next collective failed");
  }

  void bad_input(Suite &suite, MPI_Comm comm) {
    int size;
    MPI_Comm_size(comm, &size);
    std::vector<int> send(static_cast<std::size_t>(64), 1);
    const int per_pair = 64 / size >= 2 ? 2 : 1;  // recv(64) holds size·per_pair ints
    for (const std::string &algorithm : algorithms_) {
      if (algorithm == "native") continue;
      const std::string a = algorithm + ": ";
      expect_error(suite, MPI_ERR_COUNT, a + "negative count", [&](void *recv) {
        return call(algorithm, send.data(), -1, MPI_INT, recv, -1, MPI_INT, comm);
      });
      expect_error(suite, MPI_ERR_BUFFER, a + "null sendbuf", [&](void *recv) {
        return call(algorithm, nullptr, per_pair, MPI_INT, recv, per_pair, MPI_INT, comm);
      });
      expect_error(suite, MPI_ERR_BUFFER, a + "recvbuf MPI_IN_PLACE", [&](void *) {
        return call(algorithm, send.data(), per_pair, MPI_INT, MPI_IN_PLACE, per_pair, MPI_INT, comm);
      });
      expect_error(suite, MPI_ERR_TYPE, a + "MPI_DATATYPE_NULL", [&](void *recv) {
        return call(algorithm, send.data(), per_pair, MPI_DATATYPE_NULL, recv, per_pair, MPI_DATATYPE_NULL, comm);
      });
      expect_error(suite, MPI_ERR_TRUNCATE, a + "send and receive signatures differ", [&](void *recv) {
        return call(algorithm, send.data(), per_pair, MPI_INT, recv, per_pair + 1, MPI_INT, comm);
      });
      expect_error(suite, MPI_ERR_BUFFER, a + "overlapping buffers", [&](void *recv) {
        return call(algorithm, recv, per_pair, MPI_INT, static_cast<int *>(recv) + 1, per_pair, MPI_INT, comm);
      });
    }
    // alltoallv
    std::vector<int> ones(static_cast<std::size_t>(size), 1), packed(static_cast<std::size_t>(size));
    for (int i = 0; i < size; ++i) packed[static_cast<std::size_t>(i)] = i;
    std::vector<int> negative = ones;
    negative.back() = -1;
    std::vector<int> twos(static_cast<std::size_t>(size), 2), packed_twos(static_cast<std::size_t>(size));
    for (int i = 0; i < size; ++i) packed_twos[static_cast<std::size_t>(i)] = 2 * i;
    for (const std::string &algorithm : v_algorithms_) {
      if (algorithm == "native") continue;
      const std::string a = "alltoallv " + algorithm + ": ";
      expect_error(suite, MPI_ERR_COUNT, a + "a negative sendcount", [&](void *recv) {
        return call_v(algorithm, send.data(), negative.data(), packed.data(), MPI_INT, recv, ones.data(),
                      packed.data(), MPI_INT, comm);
      });
      expect_error(suite, MPI_ERR_ARG, a + "recvcounts NULL", [&](void *recv) {
        return call_v(algorithm, send.data(), ones.data(), packed.data(), MPI_INT, recv, nullptr, packed.data(),
                      MPI_INT, comm);
      });
      expect_error(suite, MPI_ERR_TYPE, a + "MPI_DATATYPE_NULL", [&](void *recv) {
        return call_v(algorithm, send.data(), ones.data(), packed.data(), MPI_DATATYPE_NULL, recv, ones.data(),
                      packed.data(), MPI_INT, comm);
      });
      expect_error(suite, MPI_ERR_BUFFER, a + "overlapping buffers", [&](void *recv) {
        return call_v(algorithm, recv, twos.data(), packed_twos.data(), MPI_INT, static_cast<int *>(recv) + 1,
                      twos.data(), packed_twos.data(), MPI_INT, comm);
      });
      expect_error(suite, MPI_ERR_BUFFER, a + "recvbuf MPI_IN_PLACE", [&](void *) {
        return call_v(algorithm, send.data(), ones.data(), packed.data(), MPI_INT, MPI_IN_PLACE, ones.data(),
                      packed.data(), MPI_INT, comm);
      });
    }
    expect_error(suite, MPI_ERR_ARG, "unknown algorithm", [&](void *recv) {
      return call("no_such_algorithm", send.data(), 1, MPI_INT, recv, 1, MPI_INT, comm);
    });
  }

  Path path_ = Path::blocking;
  std::vector<std::string> algorithms_, v_algorithms_;
  std::string only_;  // compare(): this algorithm only (empty: every one)
  MPI_Datatype vector_, four_;
};

}  // namespace
}  // namespace patcoll::test

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rc;
  {
    patcoll::test::AlltoallSuite suite;
    rc = suite.run(patcoll::test::paths_from_arguments(argc, argv));
  }
  MPI_Finalize();
  return rc;
}
