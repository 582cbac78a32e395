// The correctness matrix shared by the scatter and gather drivers: every
// registered algorithm against `native` over datatypes (MPI_INT,
// MPI_DOUBLE, a vector type with holes, and send/receive types that differ
// but have matching signatures), counts (0, 1, 5, 1000), roots,
// MPI_IN_PLACE at the root and communicators (world, a parity split), plus
// bad input.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "mpi_test.hpp"
#include "patcoll.h"

namespace patcoll::test {

class MovementSuite {
 public:
  explicit MovementSuite(bool scatter) : scatter_(scatter), name_(scatter ? "scatter" : "gather") {
    MPI_Type_vector(2, 1, 2, MPI_INT, &vector_);
    MPI_Type_commit(&vector_);
    MPI_Type_contiguous(4, MPI_INT, &four_);
    MPI_Type_commit(&four_);
  }
  ~MovementSuite() {
    MPI_Type_free(&vector_);
    MPI_Type_free(&four_);
  }

  // `paths`: the shard to run (paths_from_arguments); empty fails.
  int run(const std::vector<Path> &paths) {
    Suite suite;
    suite.check(!paths.empty(), "no path to run");
    algorithms_ = algorithms_of(name_);
    for (Path path : paths) {
      path_ = path;
      sweep_communicators([&](MPI_Comm comm, bool only_large) { matrix(suite, comm, only_large); });
      bad_input(suite, MPI_COMM_WORLD);
    }
    return suite.finish();
  }

 private:
  // One datatype case: the root's whole-communicator side uses
  // (whole_type, whole_per_rank), every rank's own side (own_type,
  // own_count); both describe own_count·own_ints ints per rank. `slots`
  // is the number of ints one element of each type spans (extent).
  struct TypeCase {
    std::string name;
    MPI_Datatype whole_type;
    int whole_factor;  // whole_per_rank = count · whole_factor
    int whole_slots;
    MPI_Datatype own_type;
    int own_slots;
    int ints_per_own;  // ints of data in one own element
  };

  std::vector<TypeCase> cases() const {
    return {{"MPI_INT", MPI_INT, 1, 1, MPI_INT, 1, 1},
            {"vector(2,1,2,MPI_INT)", vector_, 1, 3, vector_, 3, 2},
            {"4×MPI_INT at the root, contiguous(4,MPI_INT) at every rank", MPI_INT, 4, 1, four_, 4, 4},
            {"MPI_DOUBLE as 2 ints", MPI_DOUBLE, 1, 2, MPI_DOUBLE, 2, 2}};
  }

  std::string label() const { return std::string(name_) + to_string(path_); }

  int call(const std::string &algorithm, const void *send, int sendcount, MPI_Datatype sendtype, void *recv,
           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    const char *name = algorithm.c_str();
    PAT_Handle handle = nullptr;
    int rc = MPI_SUCCESS;
    switch (path_) {
      case Path::blocking:
        if (scatter_) return PAT_Scatter_with(name, send, sendcount, sendtype, recv, recvcount, recvtype, root, comm);
        return PAT_Gather_with(name, send, sendcount, sendtype, recv, recvcount, recvtype, root, comm);
      case Path::nonblocking:
        rc = scatter_ ? PAT_Iscatter_with(name, send, sendcount, sendtype, recv, recvcount, recvtype, root, comm, &handle)
                      : PAT_Igather_with(name, send, sendcount, sendtype, recv, recvcount, recvtype, root, comm, &handle);
        return rc != MPI_SUCCESS ? rc : complete_nonblocking(handle);
      case Path::persistent:
        rc = scatter_ ? PAT_Scatter_init_with(name, send, sendcount, sendtype, recv, recvcount, recvtype, root, comm,
                                              MPI_INFO_NULL, &handle)
                      : PAT_Gather_init_with(name, send, sendcount, sendtype, recv, recvcount, recvtype, root, comm,
                                             MPI_INFO_NULL, &handle);
        return rc != MPI_SUCCESS ? rc : run_persistent(handle);
    }
    return MPI_ERR_INTERN;
  }

  // Runs one case with `algorithm`; own/whole buffers are initialised by
  // the caller. Returns the MPI code.
  int run_case(const std::string &algorithm, const TypeCase &t, int count, int root, bool in_place,
               std::vector<int> &own, std::vector<int> &whole, MPI_Comm comm) {
    int rank;
    MPI_Comm_rank(comm, &rank);
    const bool is_root = rank == root;
    const int whole_count = count * t.whole_factor;
    void *own_ptr = in_place && is_root ? MPI_IN_PLACE : static_cast<void *>(own.data());
    if (scatter_)
      return call(algorithm, whole.data(), whole_count, t.whole_type, own_ptr, count, t.own_type, root, comm);
    return call(algorithm, own_ptr, count, t.own_type, whole.data(), whole_count, t.whole_type, root, comm);
  }

  void matrix(Suite &suite, MPI_Comm comm, bool only_large = false) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const std::vector<int> counts = only_large ? std::vector<int>{1000} : std::vector<int>{0, 1, 5, 1000};
    std::vector<int> roots{0};
    if (size > 1 && !only_large) roots.push_back(size - 1);
    if (size > 2 && !only_large) roots.push_back(size / 2);
    for (const TypeCase &t : cases()) {
      for (int count : counts) {
        for (int root : roots) {
          for (bool in_place : {false, true}) {
            const bool is_root = rank == root;
            const std::size_t own_ints = static_cast<std::size_t>(count) * t.own_slots;
            const std::size_t whole_ints = static_cast<std::size_t>(count) * t.whole_factor * t.whole_slots * size;
            auto fresh_own = [&] {
              std::vector<int> v(own_ints);
              for (std::size_t i = 0; i < v.size(); ++i) v[i] = scatter_ ? -1 : rank * 100000 + static_cast<int>(i);
              return v;
            };
            auto fresh_whole = [&] {
              std::vector<int> v(is_root ? whole_ints : 0);
              for (std::size_t i = 0; i < v.size(); ++i) v[i] = scatter_ ? 7000000 + static_cast<int>(i) : -1;
              // Gather in place: the root's own block already sits in its slot.
              return v;
            };
            // The reference: native without MPI_IN_PLACE for gather (the
            // in-place run then starts with the root's block pre-filled).
            std::vector<int> expected_own = fresh_own(), expected_whole = fresh_whole();
            int rc = run_case("native", t, count, root, in_place && scatter_, expected_own, expected_whole, comm);
            if (rc != MPI_SUCCESS) {
              suite.check(false, label() + ": native failed");
              continue;
            }
            for (const std::string &algorithm : algorithms_) {
              if (algorithm == "native") continue;
              std::vector<int> own = fresh_own(), whole = fresh_whole();
              if (!scatter_ && in_place && is_root) {
                // Pre-fill the root's own block of the result (where MPI_IN_PLACE data lives).
                const std::size_t per_rank = whole.size() / static_cast<std::size_t>(size);
                std::copy(expected_whole.begin() + static_cast<std::ptrdiff_t>(per_rank * root),
                          expected_whole.begin() + static_cast<std::ptrdiff_t>(per_rank * (root + 1)),
                          whole.begin() + static_cast<std::ptrdiff_t>(per_rank * root));
              }
              const std::vector<int> own_before = own, whole_before = whole;
              rc = run_case(algorithm, t, count, root, in_place, own, whole, comm);
              const std::string what = label() + " " + algorithm + " " + t.name + " count=" +
                                       std::to_string(count) + " root=" + std::to_string(root) +
                                       (in_place ? " in-place" : "") + " P=" + std::to_string(size);
              suite.check(rc == MPI_SUCCESS, what + ": returned " + error_class_name(rc) + " " + PAT_Last_error());
              if (rc != MPI_SUCCESS) continue;
              if (scatter_) {
                if (!(in_place && is_root)) suite.check(own == expected_own, what + ": received block differs from native");
                suite.check(whole == whole_before, what + ": the root's send buffer was modified");
              } else {
                if (is_root) suite.check(whole == expected_whole, what + ": gathered result differs from native");
                suite.check(own == own_before, what + ": the send buffer was modified");
              }
            }
          }
        }
      }
    }
  }

  void expect_error(Suite &suite, int expected_class, const std::string &what, const std::function<int(void *)> &bad) {
    std::vector<int> recv(64, -5);
    const int rc = bad(recv.data());
    int cls = rc;
    MPI_Error_class(rc, &cls);
    suite.check(rc != MPI_SUCCESS && cls == expected_class,
                label() + " " + what + ": expected " + error_class_name(expected_class) + ", got " +
                    error_class_name(rc));
    suite.check(std::vector<int>(64, -5) == recv, label() + " " + what + ": receive buffer touched");
    // The next collective on the same communicator still works.
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<int> whole(static_cast<std::size_t>(size), rank), own(1, rank);
    const int rc2 = scatter_ ? PAT_Scatter(whole.data(), 1, MPI_INT, own.data(), 1, MPI_INT, 0, MPI_COMM_WORLD)
                             : PAT_Gather(own.data(), 1, MPI_INT, whole.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    suite.check(rc2 == MPI_SUCCESS, label() + " " + what + ": next collective failed");
  }

  void bad_input(Suite &suite, MPI_Comm comm) {
    int size;
    MPI_Comm_size(comm, &size);
    std::vector<int> send(static_cast<std::size_t>(8 * size), 1);
    for (const std::string &algorithm : algorithms_) {
      const std::string a = algorithm + ": ";
      expect_error(suite, MPI_ERR_ROOT, a + "root = size", [&](void *recv) {
        return scatter_ ? call(algorithm, send.data(), 8, MPI_INT, recv, 8, MPI_INT, size, comm)
                        : call(algorithm, send.data(), 8, MPI_INT, recv, 8, MPI_INT, size, comm);
      });
      if (algorithm == "native") continue;
      expect_error(suite, MPI_ERR_COUNT, a + "negative count", [&](void *recv) {
        return call(algorithm, send.data(), -1, MPI_INT, recv, -1, MPI_INT, 0, comm);
      });
      expect_error(suite, MPI_ERR_BUFFER, a + "null buffer", [&](void *recv) {
        return scatter_ ? call(algorithm, send.data(), 8, MPI_INT, nullptr, 8, MPI_INT, 0, comm)
                        : call(algorithm, nullptr, 8, MPI_INT, recv, 8, MPI_INT, 0, comm);
      });
      expect_error(suite, MPI_ERR_TYPE, a + "MPI_DATATYPE_NULL", [&](void *recv) {
        return call(algorithm, send.data(), 8, MPI_DATATYPE_NULL, recv, 8, MPI_DATATYPE_NULL, 0, comm);
      });
      if (size == 1) {  // only the root can see a signature mismatch; with P = 1 every rank is the root
        expect_error(suite, MPI_ERR_TRUNCATE, a + "send/receive signature mismatch at the root", [&](void *recv) {
          return call(algorithm, send.data(), 8, MPI_INT, recv, 4, MPI_INT, 0, comm);
        });
      }
    }
    expect_error(suite, MPI_ERR_ARG, "unknown algorithm", [&](void *recv) {
      return call("no_such_algorithm", send.data(), 8, MPI_INT, recv, 8, MPI_INT, 0, comm);
    });
  }

  bool scatter_;
  const char *name_;
  Path path_ = Path::blocking;
  std::vector<std::string> algorithms_;
  MPI_Datatype vector_, four_;
};

}  // namespace patcoll::test
