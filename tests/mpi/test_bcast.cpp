// MPI driver: PAT_Bcast with every registered algorithm against native,
// through the blocking, non-blocking and persistent calls: datatypes
// (MPI_INT, MPI_DOUBLE, a vector type with holes), counts (0, 1, 5, 1000),
// roots (0, P−1, P/2), communicators (world, a parity split, 64-byte
// segments); PAT vectors that are right (the late rank really is late),
// wrong (another rank is predicted late) and random; bad input. A
// reactive algorithm (bcast/reactive) under changing arrival orders and
// one late rank on the blocking path; MPI_ERR_ARG on the others.
#include <mpi.h>

#include <chrono>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "mpi/registry.hpp"
#include "mpi_test.hpp"
#include "patcoll.h"

namespace patcoll::test {
namespace {

class BcastSuite {
 public:
  BcastSuite() {
    MPI_Type_vector(2, 1, 2, MPI_INT, &vector_);
    MPI_Type_commit(&vector_);
  }
  ~BcastSuite() { MPI_Type_free(&vector_); }

  int run(const std::vector<Path> &paths) {
    Suite suite;
    suite.check(!paths.empty(), "no path to run");
    algorithms_ = algorithms_of("bcast");
    for (Path path : paths) {
      path_ = path;
      sweep_communicators([&](MPI_Comm comm, bool only_large) {
        matrix(suite, comm, only_large);
        if (path_ == Path::blocking) reactive_orders(suite, comm);
      });
      with_pats(suite, MPI_COMM_WORLD);
      bad_input(suite, MPI_COMM_WORLD);
    }
    return suite.finish();
  }

 private:
  struct TypeCase {
    std::string name;
    MPI_Datatype type;
    int slots;  // ints one element spans (its extent)
  };

  std::string label() const { return std::string("bcast") + to_string(path_); }

  int call(const std::string &algorithm, void *buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
    const char *name = algorithm.c_str();
    PAT_Handle handle = nullptr;
    int rc = MPI_SUCCESS;
    switch (path_) {
      case Path::blocking:
        return PAT_Bcast_with(name, buffer, count, type, root, comm);
      case Path::nonblocking:
        rc = PAT_Ibcast_with(name, buffer, count, type, root, comm, &handle);
        return rc != MPI_SUCCESS ? rc : complete_nonblocking(handle);
      case Path::persistent:
        rc = PAT_Bcast_init_with(name, buffer, count, type, root, comm, MPI_INFO_NULL, &handle);
        return rc != MPI_SUCCESS ? rc : run_persistent(handle);
    }
    return MPI_ERR_INTERN;
  }

  // The buffer of a case: the root's holds its data, every other rank's -1
  // (the holes of a vector type stay -1 at every rank).
  static std::vector<int> fresh(const TypeCase &t, int count, int rank, int root) {
    std::vector<int> v(static_cast<std::size_t>(count) * t.slots + 1, -1);  // +1: a guard past the end
    if (rank == root)
      for (std::size_t i = 0; i + 1 < v.size(); ++i)
        if (t.slots != 3 || i % 3 != 1) v[i] = 7000000 + static_cast<int>(i);
    return v;
  }

  static bool is_reactive(const std::string &algorithm) {
    for (const auto &entry : patcoll::mpi::entries(patcoll::core::Collective::bcast))
      if (entry.name == algorithm) return static_cast<bool>(entry.capabilities & patcoll::core::reactive);
    return false;
  }
  // A reactive algorithm serves blocking calls only: MPI_ERR_ARG on the
  // non-blocking and persistent paths.
  bool refuses_path(const std::string &algorithm) const { return path_ != Path::blocking && is_reactive(algorithm); }

  bool check_return(Suite &suite, const std::string &algorithm, int rc, const std::string &what) {
    return check_call(suite, refuses_path(algorithm), rc, what);
  }

  // Reactive algorithms under changing arrival orders: each rank waits a
  // different time before every call (a new order each iteration), and
  // one rank late by 3 ms (its predecessor holds the whole message when
  // it comes); roots, counts and the vector type vary, against native.
  void reactive_orders(Suite &suite, MPI_Comm comm) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const TypeCase int_type{"MPI_INT", MPI_INT, 1}, vector_type{"vector(2,1,2,MPI_INT)", vector_, 3};
    for (const std::string &algorithm : algorithms_) {
      if (!is_reactive(algorithm)) continue;
      for (int iteration = 0; iteration < 14; ++iteration) {
        const TypeCase &t = iteration % 4 == 3 ? vector_type : int_type;
        const int count = iteration % 5 == 0 ? 1 : iteration % 5 == 1 ? 70000 : 3000 + iteration;
        const int root = (iteration * 3) % size;
        std::vector<int> expected = fresh(t, count, rank, root), got = fresh(t, count, rank, root);
        int rc = call("native", expected.data(), count, t.type, root, comm);
        double delay;
        if (iteration % 7 == 6) {  // one late rank, not the root
          delay = rank == (root + 1 + iteration) % size && size > 1 ? 0.003 : 0.0;
        } else {  // a permutation that changes every iteration
          const int place = (rank * 7 + iteration * 3) % size;
          delay = 0.002 * static_cast<double>((place * 5 + iteration) % size) / size;
        }
        const double until = MPI_Wtime() + delay;
        while (MPI_Wtime() < until) {
        }
        if (rc == MPI_SUCCESS) rc = call(algorithm, got.data(), count, t.type, root, comm);
        const std::string what = label() + " " + algorithm + " arrival order #" + std::to_string(iteration) + " " +
                                 t.name + " count=" + std::to_string(count) + " root=" + std::to_string(root) +
                                 " P=" + std::to_string(size);
        if (check_return(suite, algorithm, rc, what)) suite.check(got == expected, what + ": buffer differs from native");
      }
    }
  }

  void check_case(Suite &suite, const std::string &algorithm, const TypeCase &t, int count, int root,
                  MPI_Comm comm, const std::string &extra = "") {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    std::vector<int> expected = fresh(t, count, rank, root), got = fresh(t, count, rank, root);
    int rc = call("native", expected.data(), count, t.type, root, comm);
    if (rc != MPI_SUCCESS) {
      suite.check(false, label() + ": native failed");
      return;
    }
    rc = call(algorithm, got.data(), count, t.type, root, comm);
    const std::string what = label() + " " + algorithm + " " + t.name + " count=" + std::to_string(count) +
                             " root=" + std::to_string(root) + " P=" + std::to_string(size) + extra;
    if (check_return(suite, algorithm, rc, what)) suite.check(got == expected, what + ": buffer differs from native");
  }

  void matrix(Suite &suite, MPI_Comm comm, bool only_large) {
    int size;
    MPI_Comm_size(comm, &size);
    const std::vector<int> counts = only_large ? std::vector<int>{1000} : std::vector<int>{0, 1, 5, 1000};
    std::vector<int> roots{0};
    if (size > 1 && !only_large) roots.push_back(size - 1);
    if (size > 2 && !only_large) roots.push_back(size / 2);
    const TypeCase cases[] = {{"MPI_INT", MPI_INT, 1}, {"vector(2,1,2,MPI_INT)", vector_, 3}, {"MPI_DOUBLE as 2 ints", MPI_DOUBLE, 2}};
    for (const TypeCase &t : cases)
      for (int count : counts)
        for (int root : roots)
          for (const std::string &algorithm : algorithms_)
            if (algorithm != "native") check_case(suite, algorithm, t, count, root, comm);
  }

  // PAT vectors: rank `late` predicted late by 2 ms; it really is late
  // (right PATs), or another rank is (wrong PATs); then a random vector
  // with random real delays.
  void with_pats(Suite &suite, MPI_Comm comm) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const TypeCase t{"MPI_INT", MPI_INT, 1};
    std::mt19937_64 shared(4242), own(99 + 1000003ull * rank);
    struct Pattern {
      const char *name;
      int predicted_late, really_late;  // -1: random
    };
    const Pattern patterns[] = {{" right PATs", size - 1, size - 1},
                                {" wrong PATs", size - 1, 0},
                                {" random PATs", -1, -1}};
    for (const Pattern &pattern : patterns) {
      for (int root : {0, size - 1}) {
        std::vector<double> predicted(static_cast<std::size_t>(size), 0.0);
        if (pattern.predicted_late >= 0) {
          predicted[static_cast<std::size_t>(pattern.predicted_late)] = 2e-3;
        } else {
          std::uniform_real_distribution<double> pat(0.0, 2e-3);
          for (double &p : predicted) p = pat(shared);
        }
        PAT_Set_arrivals(comm, predicted.data());
        for (const std::string &algorithm : algorithms_) {
          if (algorithm == "native") continue;
          for (int count : {1, 1000, 100000}) {
            std::vector<int> expected = fresh(t, count, rank, root), got = fresh(t, count, rank, root);
            int rc = call("native", expected.data(), count, t.type, root, comm);
            suite.check(rc == MPI_SUCCESS, label() + ": native failed");
            MPI_Barrier(comm);
            const bool late = pattern.really_late >= 0 ? rank == pattern.really_late : true;
            if (late) std::this_thread::sleep_for(std::chrono::microseconds(pattern.really_late >= 0 ? 2000 : own() % 2000));
            rc = call(algorithm, got.data(), count, t.type, root, comm);
            const std::string what = label() + " " + algorithm + pattern.name + " count=" + std::to_string(count) +
                                     " root=" + std::to_string(root) + " P=" + std::to_string(size);
            if (check_return(suite, algorithm, rc, what)) suite.check(got == expected, what + ": buffer differs from native");
          }
        }
        PAT_Set_arrivals(comm, nullptr);
      }
    }
  }

  void bad_input(Suite &suite, MPI_Comm comm) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    auto expect = [&](int expected_class, const std::string &what, auto bad) {
      std::vector<int> buffer(64, -5);
      const int rc = bad(buffer.data());
      int cls = rc;
      MPI_Error_class(rc, &cls);
      suite.check(rc != MPI_SUCCESS && cls == expected_class,
                  label() + " " + what + ": expected " + error_class_name(expected_class) + ", got " +
                      error_class_name(rc));
      suite.check(std::vector<int>(64, -5) == buffer, label() + " " + what + ": buffer touched");
      // The next collective on the same communicator still works.
      int value = rank == 0 ? 17 : 0;
      const int rc2 = PAT_Bcast(&value, 1, MPI_INT, 0, comm);
      suite.check(rc2 == MPI_SUCCESS && value == 17, label() + " " + what + ": next collective failed");
    };
    for (const std::string &algorithm : algorithms_) {
      const std::string a = algorithm + ": ";
      expect(MPI_ERR_ROOT, a + "root = size", [&](void *b) { return call(algorithm, b, 8, MPI_INT, size, comm); });
      expect(MPI_ERR_ROOT, a + "root = -1", [&](void *b) { return call(algorithm, b, 8, MPI_INT, -1, comm); });
      if (algorithm == "native") continue;
      expect(MPI_ERR_COUNT, a + "negative count", [&](void *b) { return call(algorithm, b, -1, MPI_INT, 0, comm); });
      expect(MPI_ERR_BUFFER, a + "null buffer", [&](void *) { return call(algorithm, nullptr, 8, MPI_INT, 0, comm); });
      expect(MPI_ERR_BUFFER, a + "MPI_IN_PLACE", [&](void *) { return call(algorithm, MPI_IN_PLACE, 8, MPI_INT, 0, comm); });
      expect(MPI_ERR_TYPE, a + "MPI_DATATYPE_NULL",
             [&](void *b) { return call(algorithm, b, 8, MPI_DATATYPE_NULL, 0, comm); });
    }
    expect(MPI_ERR_ARG, "unknown algorithm", [&](void *b) { return call("no_such_algorithm", b, 8, MPI_INT, 0, comm); });
  }

  Path path_ = Path::blocking;
  std::vector<std::string> algorithms_;
  MPI_Datatype vector_;
};

}  // namespace
}  // namespace patcoll::test

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rc;
  {
    patcoll::test::BcastSuite suite;
    rc = suite.run(patcoll::test::paths_from_arguments(argc, argv));
  }
  MPI_Finalize();
  return rc;
}
