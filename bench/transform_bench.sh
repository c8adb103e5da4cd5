#!/usr/bin/env bash
# The converter's loop transformations against the same programs without them, on the
# programs of the DVM comparison:
#   fused loops (runtime/src/convert_fuse.rs; off: SAPFOR_FUSE=0)
#     heat3d  bench/dvm/heat3d.fdv: a 7-point stencil, then the copy back with the change's
#             maximum, N^3, STEPS steps (the loops fused as they are; no blocks of steps
#             either way: SAPFOR_SKEW=0)
#     jac2d   bench/jac2d.fdv: the copy with the change's maximum, then the 5-point stencil on
#             what it wrote after SHADOW_RENEW, L^2, ITERS iterations (the renewal between
#             the passes)
#   wavefront strips (runtime/src/convert_wave.rs; off: SAPFOR_WAVE=0)
#     gs2d    bench/dvm/gs2d.fdv: Gauss-Seidel in place (ACROSS), L^2, SWEEPS sweeps
#   blocks of time steps (runtime/src/convert_skew.rs; off: SAPFOR_SKEW=0)
#     heat3d-blocks  heat3d's time loop in blocks of steps against its loops fused only
#             (one process only: elsewhere both run the same code)
#     jac2d-blocks   jac2d's, whose steps may leave the loop (its convergence test)
#
#   bash bench/transform_bench.sh   (REPEATS=5 N=160 STEPS=200 L=2000 ITERS=400 SWEEPS=100
#                               PROGRAMS="heat3d jac2d gs2d heat3d-blocks jac2d-blocks"
#                               CONFIGS="--np 1;--np 2;--threads 2")
#
# Each round runs the sequential build (gfortran, the same FFLAGS), then every configuration
# with the transformation and without, in alternating order; every output must equal the
# sequential program's. Prints the median wall-clock seconds (min-max; process start-up
# included) and the ratio with / without of the medians.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REPEATS=${REPEATS:-5}
N=${N:-160}
STEPS=${STEPS:-200}
L=${L:-2000}
ITERS=${ITERS:-400}
SWEEPS=${SWEEPS:-100}
PROGRAMS=${PROGRAMS:-heat3d jac2d gs2d heat3d-blocks jac2d-blocks}
declare -A SWITCH=([heat3d]=SAPFOR_FUSE [jac2d]=SAPFOR_FUSE [gs2d]=SAPFOR_WAVE [heat3d-blocks]=SAPFOR_SKEW [jac2d-blocks]=SAPFOR_SKEW)
declare -A ON=([SAPFOR_FUSE]=1 [SAPFOR_WAVE]=8 [SAPFOR_SKEW]=32)
# the file each program runs, and what else its runs set
declare -A FILE=([heat3d]=heat3d [jac2d]=jac2d [gs2d]=gs2d [heat3d-blocks]=heat3d [jac2d-blocks]=jac2d)
declare -A ALSO=([heat3d]=SAPFOR_SKEW=0 [jac2d]=SAPFOR_SKEW=0 [gs2d]=SAPFOR_SKEW=0 [heat3d-blocks]=SAPFOR_FUSE=1 [jac2d-blocks]=SAPFOR_FUSE=1)
CONFIGS=${CONFIGS:---np 1;--np 2;--threads 2}
FFLAGS=${FFLAGS:--O2 -fvect-cost-model=cheap -g}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
SAPFOR=${SAPFOR:-}
if [ -z "$SAPFOR" ]; then
    (cd "$ROOT" && cargo build -q --release -p shell-gui -p sapfor-rt </dev/null)
    SAPFOR=$TARGET/release/sapfor
fi
W=$(mktemp -d "${TMPDIR:-/tmp}/sapfor-transform.XXXXXX")
trap 'rm -rf "$W"' EXIT
export SAPFOR_CACHE=$W/cache
# shellcheck source=bench/stats.sh
. "$ROOT/bench/stats.sh"
cd "$W"
edit "$ROOT/bench/dvm/heat3d.fdv" "N=160, NSTEPS=50)" "N=$N, NSTEPS=$STEPS)" heat3d.fdv
edit "$ROOT/bench/jac2d.fdv" "L=2000, ITMAX=100)" "L=$L, ITMAX=$ITERS)" jac2d.fdv
edit "$ROOT/bench/dvm/gs2d.fdv" "L=2000, ITMAX=20)" "L=$L, ITMAX=$SWEEPS)" gs2d.fdv
for p in $PROGRAMS; do
    [ -n "${FILE[$p]:-}" ] || { echo "transform_bench: no program $p (heat3d, jac2d, gs2d, heat3d-blocks, jac2d-blocks)" >&2; exit 2; }
    f=${FILE[$p]}
    # shellcheck disable=SC2086
    [ -f "$f.seq" ] || gfortran $FFLAGS -w -x f77 "$f.fdv" -o "$f.seq"
    [ -f "$f.ref" ] || "./$f.seq" >"$f.ref"
done
IFS=';' read -r -a CFG <<<"$CONFIGS"
declare -A T
timed() { # NAME PROGRAM CMD...
    local name=$1 p=$2 t0 t1
    shift 2
    t0=$(date +%s.%N)
    "$@" >out 2>err || { echo "transform_bench: $name failed:" >&2; tail -5 err >&2; exit 1; }
    t1=$(date +%s.%N)
    cmp -s out "${FILE[$p]}.ref" || { echo "transform_bench: $name printed something else than the sequential program" >&2; exit 1; }
    T[$name]="${T[$name]:-} $(python3 -c "print(f'{$t1 - $t0:.3f}')")"
}
for r in $(seq "$REPEATS"); do
    for p in $PROGRAMS; do
        timed "$p|seq" "$p" "./${FILE[$p]}.seq"
        for c in "${CFG[@]}"; do
            order="1 0"
            [ $((r % 2)) -eq 0 ] && order="0 1"
            for f in $order; do
                sw=${SWITCH[$p]}
                v=0
                [ "$f" = 1 ] && v=${ON[$sw]}
                # shellcheck disable=SC2086
                timed "$p|$c|$f" "$p" env "${ALSO[$p]}" "$sw=$v" "$SAPFOR" run "${FILE[$p]}.fdv" $c --fflags "$FFLAGS"
            done
        done
    done
done
echo "heat3d ${N}^3, $STEPS steps; jac2d ${L}^2, $ITERS iterations; gs2d ${L}^2, $SWEEPS sweeps; $REPEATS rounds, flags $FFLAGS; load average $(cut -d' ' -f1-3 /proc/loadavg)"
for p in $PROGRAMS; do
    echo "$p sequential: $(stat "${T[$p|seq]}")"
    printf '%-22s %-22s %-22s %s\n' configuration "with" "without (${SWITCH[$p]}=0)" "with/without"
    for c in "${CFG[@]}"; do
        printf '%-22s %-22s %-22s %s\n' "$c" "$(stat "${T[$p|$c|1]}")" "$(stat "${T[$p|$c|0]}")" \
            "$(python3 -c "print(f'{$(med "${T[$p|$c|1]}") / $(med "${T[$p|$c|0]}"):.2f}')")"
    done
done
