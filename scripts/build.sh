#!/usr/bin/env bash
# Bootstraps and builds patcoll into build/ (tools in build/bin/).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
# Open MPI is the default MPI; MPICH is installed beside it for the
# second-MPI check (scripts/test.sh), so name Open MPI's wrappers explicitly.
cmake -S . -B build -G Ninja \
  -DMPI_C_COMPILER=mpicc.openmpi -DMPI_CXX_COMPILER=mpicxx.openmpi \
  -DMPIEXEC_EXECUTABLE=/usr/bin/mpirun.openmpi >/dev/null
cmake --build build -j "$(nproc)"
