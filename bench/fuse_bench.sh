#!/usr/bin/env bash
# Two PARALLEL loops run as one (runtime/src/convert_fuse.rs) against the same loops apart
# (SAPFOR_FUSE=0), on the 3-D heat program of the DVM comparison (bench/dvm/heat3d.fdv:
# a 7-point stencil, then the copy back with the change's maximum), N^3, STEPS steps.
#
#   bash bench/fuse_bench.sh            (REPEATS=5 N=160 STEPS=200 CONFIGS="--np 1;--np 2;--threads 2")
#
# Each round runs the sequential build (gfortran, the same FFLAGS), then every configuration
# fused and apart, in alternating order; every output must equal the sequential program's.
# Prints the median wall-clock seconds (min-max; process start-up included) and the ratio
# fused / apart of the medians.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REPEATS=${REPEATS:-5}
N=${N:-160}
STEPS=${STEPS:-200}
CONFIGS=${CONFIGS:---np 1;--np 2;--threads 2}
FFLAGS=${FFLAGS:--O2 -fvect-cost-model=cheap -g}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
SAPFOR=${SAPFOR:-}
if [ -z "$SAPFOR" ]; then
    (cd "$ROOT" && cargo build -q --release -p shell-gui -p sapfor-rt </dev/null)
    SAPFOR=$TARGET/release/sapfor
fi
W=$(mktemp -d "${TMPDIR:-/tmp}/sapfor-fuse.XXXXXX")
trap 'rm -rf "$W"' EXIT
export SAPFOR_CACHE=$W/cache
cd "$W"
grep -q "N=160, NSTEPS=50)" "$ROOT/bench/dvm/heat3d.fdv"
sed "s/N=160, NSTEPS=50)/N=$N, NSTEPS=$STEPS)/" "$ROOT/bench/dvm/heat3d.fdv" >heat.fdv
# shellcheck disable=SC2086
gfortran $FFLAGS -w -x f77 heat.fdv -o heat.seq
./heat.seq >ref
IFS=';' read -r -a CFG <<<"$CONFIGS"
declare -A T
timed() { # NAME CMD...
    local name=$1 t0 t1
    shift
    t0=$(date +%s.%N)
    "$@" >out 2>err || { echo "fuse_bench: $name failed:" >&2; tail -5 err >&2; exit 1; }
    t1=$(date +%s.%N)
    cmp -s out ref || { echo "fuse_bench: $name printed something else than the sequential program" >&2; exit 1; }
    T[$name]="${T[$name]:-} $(python3 -c "print(f'{$t1 - $t0:.3f}')")"
}
for r in $(seq "$REPEATS"); do
    timed seq ./heat.seq
    for c in "${CFG[@]}"; do
        order="1 0"
        [ $((r % 2)) -eq 0 ] && order="0 1"
        for f in $order; do
            # shellcheck disable=SC2086
            timed "$c|$f" env SAPFOR_FUSE=$f "$SAPFOR" run heat.fdv $c --fflags "$FFLAGS"
        done
    done
done
# shellcheck source=bench/stats.sh
. "$ROOT/bench/stats.sh"
echo "heat ${N}^3, $STEPS steps, $REPEATS rounds, flags $FFLAGS; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "sequential: $(stat "${T[seq]}")"
printf '%-22s %-22s %-22s %s\n' configuration fused apart "fused/apart"
for c in "${CFG[@]}"; do
    printf '%-22s %-22s %-22s %s\n' "$c" "$(stat "${T[$c|1]}")" "$(stat "${T[$c|0]}")" \
        "$(python3 -c "print(f'{$(med "${T[$c|1]}") / $(med "${T[$c|0]}"):.2f}')")"
done
