#!/usr/bin/env bash
# Installs what patcoll needs on a Debian 12 machine. Does nothing when all
# is present; as non-root with something missing, says what to install.
set -euo pipefail

packages=(cmake ninja-build g++ gfortran libopenmpi-dev openmpi-bin libmpich-dev mpich
          libgtest-dev libbenchmark-dev libboost-dev python3-mpi4py
          pkg-config libfftw3-dev zlib1g-dev python3-sklearn
          libsimgrid-dev
          python3-numpy python3-scipy python3-matplotlib
          man-db groff-base)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "patcoll: missing packages: ${missing[*]}" >&2
  echo "patcoll: install them with: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi

echo "patcoll: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
