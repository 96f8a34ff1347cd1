#!/usr/bin/env bash
# Installs what building and testing mlsopt needs, and only what is missing, so it is cheap
# to run before every `make build`/`make check`. Debian packages come from apt, Python test
# packages from PyPI. Safe to run repeatedly.
set -euo pipefail

# `lld` (not lld-22): gcc's -fuse-ld=lld runs the unversioned ld.lld.
DEB_PACKAGES=(
  cmake ninja-build ccache lld
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  libz3-dev libgtest-dev zlib1g-dev libzstd-dev libedit-dev libxml2-dev libcurl4-openssl-dev
)

# `make fuzz` builds with clang and links libFuzzer, which Debian ships in
# clang's runtime package.
if [ "${MLSOPT_FUZZ_DEPS:-0}" = 1 ]; then
  DEB_PACKAGES+=(clang-22 libclang-rt-22-dev)
fi

# The Python extension needs the headers of the interpreter it is built for.
# Debian's own python3 has them only with python3-dev, and gets its test
# packages from apt (its pip refuses system-wide installs, PEP 668).
PYTHON="${PYTHON:-python3}"
DEBIAN_PYTHON=0
if [ "$("$PYTHON" -c 'import sys; print(sys.executable)')" = /usr/bin/python3 ]; then
  DEBIAN_PYTHON=1
  DEB_PACKAGES+=(python3-dev python3-pip python3-pytest python3-numpy)
fi

missing=()
for pkg in "${DEB_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing Debian packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Python packages for the interpreter that runs the Python tests: the test
# tools, and nanobind, which builds the `mlsopt` extension for it.
py_missing=()
for mod in pytest numpy nanobind; do
  "$PYTHON" -c "import $mod" 2>/dev/null || py_missing+=("$mod")
done
if [ ${#py_missing[@]} -gt 0 ]; then
  echo "install-deps: installing Python packages for $PYTHON: ${py_missing[*]}"
  if [ "$DEBIAN_PYTHON" = 1 ]; then
    # Only nanobind is left (Debian 12 does not package it): a build-time
    # package of headers and CMake files, installed for this user.
    "$PYTHON" -m pip install --quiet --user --break-system-packages "${py_missing[@]}"
  else
    "$PYTHON" -m pip install --quiet "${py_missing[@]}"
  fi
fi
