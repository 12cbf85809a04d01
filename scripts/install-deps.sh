#!/usr/bin/env bash
# Installs what PTO needs from Debian's archive (bookworm). Idempotent:
# packages already present are left alone. As root it runs apt-get;
# otherwise it prints the exact command to run.
set -euo pipefail

PACKAGES=(
  cmake ninja-build gcc clang
  pkgconf                     # pkg-config, for the installation test
  llvm-14-dev llvm-14-tools   # LLVM-C API for the JIT; lit, FileCheck, not
  libclang-rt-14-dev          # libFuzzer and sanitizer runtimes for clang
  libxml2-dev                 # platform descriptions
  libxml2-utils               # xmllint, to check them against the schema in tests
  python3 python3-numpy python3-pytest  # numerical oracle, Python front end
  python3-pip                 # the install test's offline `pip install ./python`
  python3-jsonschema          # checks runtime traces against their JSON schema
  python3-torch               # the Python front end's torch tensor paths
  mlir-14-tools               # mlir-opt, for compatibility and speed comparisons
  llvm-22                     # opt-22, llc-22: the newest LLVM reads pto-translate's output too
  graphviz                    # dot, to check print-op-graph output
  librsvg2-bin                # rsvg-convert, to render the runtime's SVG swimlanes in tests
  libomp-14-dev libtbb-dev g++  # bench/runtime-dispatch: OpenMP (libgomp, libomp) and oneTBB peers
  libopenblas0-pthread        # bench/jit-kernels: numpy's matmul on OpenBLAS, the peer
)

missing=()
for p in "${PACKAGES[@]}"; do
  [[ "$p" == \#* ]] && continue
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi

echo "install-deps: missing: ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO=sudo
  else
    echo "install-deps: not root; run:"
    echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}"
    exit 1
  fi
else
  SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
