#!/usr/bin/env bash
# Idempotent set-up of a fresh Debian 12 machine for building and testing
# sapfor. Runs as root (no sudo), needs no standard input, and prints what it
# does. Safe to run again: it only calls apt-get when a package is missing.
#
#   scripts/setup.sh            install what is missing, check the tools
#   SAPFOR_SKIP_APT=1 scripts/setup.sh   check only, never call apt-get
set -euo pipefail

# ---------------------------------------------------------------------------
# Debian packages the project needs. ADD NEW SYSTEM DEPENDENCIES HERE.
#   gfortran  - reference compiler for the samples and the e2e checks
#   make      - the top-level Makefile
#   g++       - the emulated accelerator compiles CUDA C kernels with it (docs/gpu.md)
#   libopenmpi-dev openmpi-bin   - MPI of the runtime (sapfor build / sapfor run)
#   libclang-dev                 - bindgen of the `mpi` crate (runtime/rtlib)
#   mesa-vulkan-drivers libegl-mesa0 libgl1-mesa-dri
#             - the CPU Vulkan/GL drivers the GUI's rendered snapshot tests draw with
#               (shell-gui/tests/snapshots.rs); building the GUI itself needs no system
#               package (X11 and GL are loaded at run time)
# ---------------------------------------------------------------------------
DEBIAN_PACKAGES=(
    gfortran
    g++
    make
    libopenmpi-dev
    openmpi-bin
    libclang-dev
    mesa-vulkan-drivers
    libegl-mesa0
    libgl1-mesa-dri
)

export DEBIAN_FRONTEND=noninteractive

log() { printf 'setup: %s\n' "$*"; }

missing=()
for pkg in "${DEBIAN_PACKAGES[@]}"; do
    # `dpkg -s` also succeeds for removed packages that left config files,
    # so look at the status line itself.
    if dpkg -s "$pkg" 2>/dev/null | grep -q '^Status: install ok installed'; then
        log "package $pkg: installed"
    else
        log "package $pkg: MISSING"
        missing+=("$pkg")
    fi
done

# python3 is used by the e2e checks and the benchmark. Any python3 on PATH
# will do (CI machines have a pyenv one), so only install Debian's when there
# is none at all.
if command -v python3 >/dev/null 2>&1; then
    log "python3: $(command -v python3)"
else
    log "python3: MISSING (will install Debian's python3)"
    missing+=(python3)
fi

if [ "${#missing[@]}" -gt 0 ]; then
    if [ -n "${SAPFOR_SKIP_APT:-}" ]; then
        log "SAPFOR_SKIP_APT is set: not installing ${missing[*]}" >&2
        exit 1
    fi
    if [ "$(id -u)" -ne 0 ]; then
        log "need root to install: ${missing[*]} (run: apt-get install ${missing[*]})" >&2
        exit 1
    fi
    log "running: apt-get update"
    apt-get update </dev/null
    log "running: apt-get install -y --no-install-recommends ${missing[*]}"
    apt-get install -y --no-install-recommends "${missing[@]}" </dev/null
else
    log "all Debian packages present, apt-get not needed"
fi

# Rust toolchain: installed with rustup outside this script (the version is
# pinned in rust-toolchain.toml). Only check that it is there.
if ! command -v cargo >/dev/null 2>&1; then
    for d in "${CARGO_HOME:-$HOME/.cargo}/bin" /root/.cargo/bin; do
        if [ -x "$d/cargo" ]; then
            log "cargo is not on PATH but exists in $d: add it with: export PATH=\"$d:\$PATH\"" >&2
            exit 1
        fi
    done
    log "ERROR: cargo not found. Install Rust with rustup; the" >&2
    log "       toolchain in rust-toolchain.toml is then selected automatically." >&2
    exit 1
fi
log "cargo: $(command -v cargo)"
log "gfortran: $(gfortran --version | head -n1)"
log "mpirun: $(mpirun --version 2>/dev/null | head -n1)"
# NVRTC + ptxas (pip wheels) for the GPU kernel tests: see scripts/setup_cuda_tools.sh
"$(dirname "$0")/setup_cuda_tools.sh"
log "done"
