#!/usr/bin/env bash
# NVRTC and ptxas for checking the generated CUDA kernels on machines without a GPU
# (docs/gpu.md). Idempotent and non-interactive; called by scripts/setup.sh.
#
# NVRTC comes from the nvidia-cuda-nvrtc-cu12 wheel and ptxas from nvidia-cuda-nvcc-cu12.
# Nobody needs to put their directories on LD_LIBRARY_PATH or PATH: the runtime asks
# python3 where the wheels are (sapfor_rt::device::nvrtc). SAPFOR_NVRTC / SAPFOR_PTXAS
# override the search.
#   SAPFOR_SKIP_CUDA_TOOLS=1   skip this step (the NVRTC tests then print SKIPPED)
set -euo pipefail
log() { printf 'setup: %s\n' "$*"; }

if [ -n "${SAPFOR_SKIP_CUDA_TOOLS:-}" ]; then
    log "SAPFOR_SKIP_CUDA_TOOLS is set: not installing NVRTC/ptxas"
    exit 0
fi
PY="${SAPFOR_PYTHON:-python3}"
if ! command -v "$PY" >/dev/null 2>&1; then
    log "no $PY: cannot install NVRTC (kernel compilation tests will be skipped)" >&2
    exit 0
fi
have() { "$PY" -c "import nvidia.$1" >/dev/null 2>&1; }
need=()
have cuda_nvrtc || need+=(nvidia-cuda-nvrtc-cu12)
have cuda_nvcc || need+=(nvidia-cuda-nvcc-cu12)
if [ "${#need[@]}" -gt 0 ]; then
    if ! "$PY" -m pip --version >/dev/null 2>&1; then
        log "pip missing for $PY: trying ensurepip"
        "$PY" -m ensurepip --upgrade >/dev/null 2>&1 || true
    fi
    log "running: $PY -m pip install ${need[*]}"
    # Debian's system python refuses plain pip installs (PEP 668); allow it for these wheels.
    "$PY" -m pip install --no-input --disable-pip-version-check "${need[@]}" \
        || "$PY" -m pip install --no-input --disable-pip-version-check --break-system-packages "${need[@]}"
else
    log "NVRTC and ptxas wheels: installed"
fi
nvrtc_dir=$("$PY" -c "import nvidia.cuda_nvrtc as m; print(list(m.__path__)[0])")/lib
nvcc_dir=$("$PY" -c "import nvidia.cuda_nvcc as m; print(list(m.__path__)[0])")
log "NVRTC: $(ls "$nvrtc_dir"/libnvrtc.so* | head -n1)"
log "ptxas: $nvcc_dir/bin/ptxas ($("$nvcc_dir/bin/ptxas" --version | tail -n1))"
