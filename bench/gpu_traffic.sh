#!/usr/bin/env bash
# Accelerator traffic benchmark (issue 7): the samples' Fortran-DVMH programs, as
# `sapfor --auto` writes them, run on the emulated accelerator (`sapfor run --devices emu
# --profile`); prints the bytes moved host->device and device->host (from the runtime's
# report) next to the minimum the actuality rules allow: inputs once, outputs only where the
# host reads them. On an emulated accelerator time means nothing; traffic is what counts.
# Every run's output is checked against the sample's expected.out.
#
#   bash bench/gpu_traffic.sh          (or: make bench-gpu)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
W=$(mktemp -d "${TMPDIR:-/tmp}/sapfor-gpubench.XXXXXX")
trap 'rm -rf "$W"' EXIT

echo "bench: building sapfor and the runtime library (release)"
cargo build -q --release -p shell-gui -p sapfor-rt </dev/null
SAPFOR=$TARGET/release/sapfor
export SAPFOR_CACHE=$W/cache

# run NAME SOURCE MINIMUM_H2D MINIMUM_D2H WHAT [sapfor run options...]
run() {
    local name=$1 src=$2 min_h2d=$3 min_d2h=$4 what=$5
    shift 5
    local d=$W/$name
    mkdir -p "$d"
    cp "$src" "$d/"
    (cd "$d" && "$SAPFOR" --auto "$(basename "$src")" --no-db >/dev/null)
    local fdv
    fdv=$(cd "$d" && ls ./*.fdv)
    (cd "$d" && "$SAPFOR" run "$fdv" --profile prof.txt "$@" >out.txt 2>err.txt) || {
        cat "$d/err.txt"
        exit 1
    }
    if ! cmp -s "$d/out.txt" "$(dirname "$src")/expected.out"; then
        echo "bench: $name printed something else than expected.out" >&2
        exit 1
    fi
    local line h2d d2h
    line=$(grep -m1 'accelerator total:' "$d/prof.txt")
    h2d=$(sed -E 's/.*host->device ([0-9]+) B.*/\1/' <<<"$line")
    d2h=$(sed -E 's/.*device->host ([0-9]+) B.*/\1/' <<<"$line")
    printf '| %s | %s | %s | %s | %s | %s |\n' "$name $*" "$h2d" "$min_h2d" "$d2h" "$min_d2h" "$what"
}

echo
echo "| program, options | host->device (B) | minimum | device->host (B) | minimum | what the host reads |"
echo "| --- | ---: | ---: | ---: | ---: | --- |"
# Jacobi 2000x2000, 20 iterations: EPS (4 B) every iteration, B (4 bytes x 2000 x 2000) once
run jacobi samples/jacobi/jac.f 0 $((20 * 4 + 2000 * 2000 * 4)) "EPS each iteration, B once" --devices emu
# 3-D heat 120^3: 4 checksums (8 B), MAXDIFF (8 B) every 5th of 20 steps, three elements of U
run heat3d samples/heat3d/heat3d.f90 0 $((4 * 8 + 4 * 8 + 3 * 8)) "4 checksums, 4 MAXDIFF, 3 elements of U" --devices emu
