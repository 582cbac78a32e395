# Spack recipe for patcoll. Use it from a local repository:
#   spack repo create myrepo && mkdir -p myrepo/packages/patcoll
#   cp packaging/spack/package.py myrepo/packages/patcoll/ && spack repo add myrepo
# patcoll is distributed as its source tree only: it has no homepage, release
# archive or public repository that Spack could fetch from. Build a checkout:
#   spack develop --path /path/to/patcoll patcoll@0.1.0
#   spack install patcoll ^openmpi          (or ^mpich)
# `spack install --test=root patcoll` also builds and runs the unit tests
# (GoogleTest and Google Benchmark are needed only then).
from spack.package import *


class Patcoll(CMakePackage):
    """MPI collectives (reduce, allreduce, scatter, gather) that stay fast
    when processes arrive at the collective at different times: a C API
    (PAT_*), a PMPI shim for unmodified programs, and benchmark and
    model-simulator tools."""

    # No homepage and no fetch URL: see the comment at the top (spack develop).

    version("0.1.0")  # the version in CMakeLists.txt's project() and include/patcoll.h
    version("main")   # a checkout's current state

    variant("mpi", default=True, description="Build the MPI library, the shim and the MPI tools; "
            "off: only the MPI-free core tools (patcoll-sim, patcoll-sched)")
    variant("boost", default=True, description="Boost.Heap for the pairing-heap Clairvoyant generator "
            "(patcoll-sched --generator pairing); off: that generator is served by the linear one")
    variant("plots", default=False, description="Python, numpy and matplotlib for tools/plot.py and "
            "the model simulator's PNG timelines")

    depends_on("cmake@3.20:", type="build")
    depends_on("ninja", type="build")
    depends_on("c", type="build")
    depends_on("cxx", type="build")
    depends_on("mpi@3.1:", when="+mpi")
    depends_on("boost@1.70:", type="build", when="+boost")  # header-only (Boost.Heap)
    depends_on("googletest", type="test")
    depends_on("benchmark", type="test")
    depends_on("python@3:", type="run", when="+plots")
    depends_on("py-numpy", type="run", when="+plots")
    depends_on("py-matplotlib", type="run", when="+plots")

    generator("ninja")

    def cmake_args(self):
        args = [
            self.define_from_variant("PATCOLL_WITH_MPI", "mpi"),
            self.define("PATCOLL_BUILD_TESTS", self.run_tests),
        ]
        if self.spec.satisfies("~boost"):
            args.append(self.define("CMAKE_DISABLE_FIND_PACKAGE_Boost", True))
        if self.spec.satisfies("+mpi"):
            args += [
                self.define("MPI_C_COMPILER", self.spec["mpi"].mpicc),
                self.define("MPI_CXX_COMPILER", self.spec["mpi"].mpicxx),
            ]
        return args

    def check(self):
        with working_dir(self.build_directory):
            ctest("-R", "^unit$", "--output-on-failure")
