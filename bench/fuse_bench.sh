#!/usr/bin/env bash
# Two PARALLEL loops run as one (runtime/src/convert_fuse.rs) against the same loops apart
# (SAPFOR_FUSE=0), on the programs of the DVM comparison:
#   heat3d  bench/dvm/heat3d.fdv: a 7-point stencil, then the copy back with the change's
#           maximum, N^3, STEPS steps (the loops fused as they are)
#   jac2d   bench/jac2d.fdv: the copy with the change's maximum, then the 5-point stencil on
#           what it wrote after SHADOW_RENEW, L^2, ITERS iterations (the renewal between the
#           passes)
#
#   bash bench/fuse_bench.sh   (REPEATS=5 N=160 STEPS=200 L=2000 ITERS=400
#                               PROGRAMS="heat3d jac2d" CONFIGS="--np 1;--np 2;--threads 2")
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
L=${L:-2000}
ITERS=${ITERS:-400}
PROGRAMS=${PROGRAMS:-heat3d jac2d}
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
sed "s/N=160, NSTEPS=50)/N=$N, NSTEPS=$STEPS)/" "$ROOT/bench/dvm/heat3d.fdv" >heat3d.fdv
grep -q "L=2000, ITMAX=100)" "$ROOT/bench/jac2d.fdv"
sed "s/L=2000, ITMAX=100)/L=$L, ITMAX=$ITERS)/" "$ROOT/bench/jac2d.fdv" >jac2d.fdv
for p in $PROGRAMS; do
    [ -f "$p.fdv" ] || { echo "fuse_bench: no program $p (heat3d, jac2d)" >&2; exit 2; }
    # shellcheck disable=SC2086
    gfortran $FFLAGS -w -x f77 "$p.fdv" -o "$p.seq"
    "./$p.seq" >"$p.ref"
done
IFS=';' read -r -a CFG <<<"$CONFIGS"
declare -A T
timed() { # NAME PROGRAM CMD...
    local name=$1 p=$2 t0 t1
    shift 2
    t0=$(date +%s.%N)
    "$@" >out 2>err || { echo "fuse_bench: $name failed:" >&2; tail -5 err >&2; exit 1; }
    t1=$(date +%s.%N)
    cmp -s out "$p.ref" || { echo "fuse_bench: $name printed something else than the sequential program" >&2; exit 1; }
    T[$name]="${T[$name]:-} $(python3 -c "print(f'{$t1 - $t0:.3f}')")"
}
for r in $(seq "$REPEATS"); do
    for p in $PROGRAMS; do
        timed "$p|seq" "$p" "./$p.seq"
        for c in "${CFG[@]}"; do
            order="1 0"
            [ $((r % 2)) -eq 0 ] && order="0 1"
            for f in $order; do
                # shellcheck disable=SC2086
                timed "$p|$c|$f" "$p" env SAPFOR_FUSE=$f "$SAPFOR" run "$p.fdv" $c --fflags "$FFLAGS"
            done
        done
    done
done
# shellcheck source=bench/stats.sh
. "$ROOT/bench/stats.sh"
echo "heat3d ${N}^3, $STEPS steps; jac2d ${L}^2, $ITERS iterations; $REPEATS rounds, flags $FFLAGS; load average $(cut -d' ' -f1-3 /proc/loadavg)"
for p in $PROGRAMS; do
    echo "$p sequential: $(stat "${T[$p|seq]}")"
    printf '%-22s %-22s %-22s %s\n' configuration fused apart "fused/apart"
    for c in "${CFG[@]}"; do
        printf '%-22s %-22s %-22s %s\n' "$c" "$(stat "${T[$p|$c|1]}")" "$(stat "${T[$p|$c|0]}")" \
            "$(python3 -c "print(f'{$(med "${T[$p|$c|1]}") / $(med "${T[$p|$c|0]}"):.2f}')")"
    done
done
