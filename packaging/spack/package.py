# Spack recipe for patcoll. Use it from a local repository:
#   spack repo create myrepo && mkdir -p myrepo/packages/patcoll
#   cp packaging/spack/package.py myrepo/packages/patcoll/ && spack repo add myrepo
#   spack install patcoll ^openmpi          (or ^mpich)
# `spack install --test=root patcoll` also builds and runs the unit tests.
from spack.package import *


class Patcoll(CMakePackage):
    """MPI collectives (reduce, allreduce, scatter, gather) that stay fast
    when processes arrive at the collective at different times: a C API
    (PAT_*), a PMPI shim for unmodified programs, and benchmark and
    model-simulator tools."""

    # Where the repository is published; from a checkout instead:
    #   spack develop --path /path/to/patcoll patcoll@main && spack install patcoll
    homepage = "https://github.com/patcoll/patcoll"
    git = "https://github.com/patcoll/patcoll.git"

    version("main", branch="main")

    variant("mpi", default=True, description="Build the MPI library, the shim and the MPI tools; "
            "off: only the MPI-free core tools (patcoll-sim, patcoll-sched)")

    depends_on("cmake@3.20:", type="build")
    depends_on("ninja", type="build")
    depends_on("c", type="build")
    depends_on("cxx", type="build")
    depends_on("mpi@3.1:", when="+mpi")
    depends_on("boost@1.70:", type="build")  # header-only (Boost.Heap)
    depends_on("googletest", type="build")              # the unit tests are always configured
    depends_on("benchmark", type="build")
    depends_on("python@3:", type="run")
    depends_on("py-numpy", type="run")
    depends_on("py-matplotlib", type="run")

    generator("ninja")

    def cmake_args(self):
        args = [self.define_from_variant("PATCOLL_WITH_MPI", "mpi")]
        if self.spec.satisfies("+mpi"):
            args += [
                self.define("MPI_C_COMPILER", self.spec["mpi"].mpicc),
                self.define("MPI_CXX_COMPILER", self.spec["mpi"].mpicxx),
            ]
        return args

    def check(self):
        with working_dir(self.build_directory):
            ctest("-R", "^unit$", "--output-on-failure")
