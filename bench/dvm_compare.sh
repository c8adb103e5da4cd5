#!/usr/bin/env bash
# sapfor against the DVM system 5.0 on the same Fortran-DVMH programs (issue 18 item 5).
#
# The DVM system is third-party code: it is never committed. Build it once in a scratch
# directory from the public repository saveasguy/dvm-sys (about 7 minutes on 2 cores):
#   cd DIR && sed -i 's/^ PFORT="mpif77 -g -O2 -fopenmp"/ PFORT="mpif77 -g -O2 -fopenmp -fallow-argument-mismatch"/' platforms/gnu
#   PLATFORM=gnu ./dvminstall          (gfortran 12 needs -fallow-argument-mismatch)
# then: DVM_DIR=DIR bash bench/dvm_compare.sh      (ONLY="jac3dp jac2dp": some programs)
#
# Programs (written for this comparison, bench/dvm/, and the runtime benchmark's Jacobi):
#   jac2d   2-D Jacobi 2000x2000 (bench/jac2d.fdv), JAC_ITERS iterations (default 400)
#   heat3d  3-D 7-point Jacobi 160^3, (BLOCK,BLOCK,BLOCK), HEAT_STEPS steps (default 200)
#   gs2d    2-D Gauss-Seidel in place (ACROSS) 2000x2000, GS_ITERS sweeps (default 100)
# and, unless EXAMPLES=0, the DVM system's own performance examples, taken from
# DVM_DIR/examples at run time (third-party code: never committed), at sizes for this machine:
#   jac3dp  examples/jac3d_perf.fdv, 3-D Jacobi with EXIT on convergence, JAC3D_L^3 (default
#           256), JAC3D_ITERS iterations (default 100), REAL
#   jac2dp  examples/jac2d_perf.fdv, its 2-D version, JAC2D_L^2 (default 4000), JAC2D_ITERS
#           (default 100)
#   adi     examples/adi.fdv, alternating-direction sweeps (three ACROSS nests, the last one
#           with a reduction), ADI_N^3 (default 200), ADI_ITERS (default 20), DOUBLE PRECISION
#   gauss   examples/gausf.fdv, Gaussian elimination by rows (REMOTE_ACCESS of row I in each
#           step), GAUSS_N (default 1500); its lines with numbers are compared (it prints X)
#   The sequential builds of these get a DVTIME function of our own (SYSTEM_CLOCK); their
#   "Time in seconds" and "Verification" lines (the latter for the full size only) are not
#   compared, their " IT" lines are.
# Configurations: 1 process, 2 processes, 1 process x 2 threads; each as a user starts it:
#   sapfor run P.fdv --np N [--threads T] --fflags "$FFLAGS"
#   dvm f $DVM_FOPTS P; dvm run G1 [G2 [G3]] P   (DVMH_NUM_THREADS=T; statistics off:
#                                   Is_DVM_STAT=0; DVM_FOPTS default -Opl, DVM's OpenMP
#                                   code for parallel loops outside regions: without it
#                                   DVMH_NUM_THREADS=2 does not use a second thread)
# All three (the sequential build too) compile with the same gfortran flags (FFLAGS,
# default "-O2 -fvect-cost-model=cheap -g": DVM's PFORT flags plus the vectorizer model
# sapfor adds at -O2, docs/runtime.md; sapfor and DVM add -fopenmp) and run on the same
# process grid (2 processes: the last dimension split, 1x2 and 1x1x2, which is sapfor's
# default and given to DVM as its grid). Every
# run's output must equal the sequential program's (gfortran FFLAGS, directives are
# comments). Each configuration runs REPEATS times (default 5), in rounds, each run after
# waiting for idle cores; prints the median wall-clock time (process start-up included),
# min-max, and the ratio sapfor / DVM of the medians (the goal: at most 0.5).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DVM_DIR=${DVM_DIR:-}
if [ -z "$DVM_DIR" ] || [ ! -x "$DVM_DIR/user/dvm" ]; then
    echo "bench/dvm_compare.sh: set DVM_DIR to a built DVM system (DIR/user/dvm); see the comment at the top" >&2
    exit 2
fi
REPEATS=${REPEATS:-5}
JAC_ITERS=${JAC_ITERS:-400}
HEAT_STEPS=${HEAT_STEPS:-200}
GS_ITERS=${GS_ITERS:-100}
FFLAGS=${FFLAGS:--O2 -fvect-cost-model=cheap -g}
DVM_FOPTS=${DVM_FOPTS:--Opl}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
W=$(mktemp -d "${TMPDIR:-/tmp}/sapfor-dvmcmp.XXXXXX")
trap 'rm -rf "$W"' EXIT

SAPFOR=${SAPFOR:-}
if [ -z "$SAPFOR" ]; then
    echo "bench: building sapfor and the runtime library (release)"
    (cd "$ROOT" && cargo build -q --release -p shell-gui -p sapfor-rt </dev/null)
    SAPFOR=$TARGET/release/sapfor
fi
export SAPFOR_CACHE=$W/cache

# shellcheck source=bench/stats.sh
. "$ROOT/bench/stats.sh"
cd "$W"
edit "$ROOT/bench/jac2d.fdv" "L=2000, ITMAX=100)" "L=2000, ITMAX=$JAC_ITERS)" jac2d.fdv
edit "$ROOT/bench/dvm/heat3d.fdv" "N=160, NSTEPS=50)" "N=160, NSTEPS=$HEAT_STEPS)" heat3d.fdv
edit "$ROOT/bench/dvm/gs2d.fdv" "L=2000, ITMAX=20)" "L=2000, ITMAX=$GS_ITERS)" gs2d.fdv
PROGS="jac2d heat3d gs2d"
declare -A GRID1=([jac2d]="1 1" [heat3d]="1 1 1" [gs2d]="1 1")
declare -A GRID2=([jac2d]="1 2" [heat3d]="1 1 2" [gs2d]="1 2")
declare -A SEQEXTRA=()
# (the output lines compared with the sequential program's: a grep pattern)
declare -A CMP=()
if [ "${EXAMPLES:-1}" != 0 ]; then
    EX=$DVM_DIR/examples
    edit "$EX/jac3d_perf.fdv" "L=384, ITMAX=100)" "L=${JAC3D_L:-256}, ITMAX=${JAC3D_ITERS:-100})" jac3dp.fdv
    edit "$EX/jac2d_perf.fdv" "L=8000, ITMAX=100)" "L=${JAC2D_L:-4000}, ITMAX=${JAC2D_ITERS:-100})" jac2dp.fdv
    n=${ADI_N:-200}
    edit "$EX/adi.fdv" "nx=384, ny=384, nz=384, maxeps=0.01, itmax=100)" \
        "nx=$n, ny=$n, nz=$n, maxeps=0.01, itmax=${ADI_ITERS:-20})" adi.fdv
    edit "$EX/gausf.fdv" "PARAMETER   ( N = 10 )" "PARAMETER   ( N = ${GAUSS_N:-1500} )" gauss.fdv
    CMP[gauss]='[0-9]'
    cat >dvtime.f <<'EOF'
      DOUBLE PRECISION FUNCTION DVTIME()
      INTEGER*8 C, R
      CALL SYSTEM_CLOCK(C, R)
      DVTIME = DBLE(C) / DBLE(R)
      END
EOF
    PROGS="$PROGS jac3dp jac2dp adi gauss"
    GRID1+=([jac3dp]="1 1 1" [jac2dp]="1 1" [adi]="1 1 1" [gauss]="1")
    GRID2+=([jac3dp]="1 1 2" [jac2dp]="1 2" [adi]="1 1 2" [gauss]="2")
    SEQEXTRA+=([jac3dp]=dvtime.f [jac2dp]=dvtime.f [adi]=dvtime.f)
fi
# (ONLY="jac3dp jac2dp": those programs alone)
if [ -n "${ONLY:-}" ]; then
    for p in $ONLY; do
        [[ " $PROGS " == *" $p "* ]] || { echo "bench: ONLY names $p, not one of: $PROGS" >&2; exit 2; }
    done
    PROGS=$ONLY
fi
cp "$DVM_DIR/par/usr.par" usr.par
sed -i 's/^Is_DVM_STAT=1;/Is_DVM_STAT=0;/' usr.par
declare -A NOTE
for p in $PROGS; do
    # shellcheck disable=SC2086
    gfortran $FFLAGS -w -x f77 "$p.fdv" ${SEQEXTRA[$p]:-} -o "$p.seq"
    "./$p.seq" >"$p.ref"
    # DVM's converter with DVM_FOPTS; if its output does not compile (-Opl on an ACROSS
    # loop: "Unexpected !$OMP END DO"), without them, and the table says so
    dvmf() { PFORT="mpif77 $FFLAGS -fopenmp -fallow-argument-mismatch" "$DVM_DIR/user/dvm" f "$@" >>"$p.dvmc.log" 2>&1 && [ -x "$p" ]; }
    NOTE[$p]=""
    # shellcheck disable=SC2086
    if ! dvmf $DVM_FOPTS "$p"; then
        if [ -n "$DVM_FOPTS" ] && dvmf "$p"; then
            NOTE[$p]="DVM without $DVM_FOPTS (its output did not compile with it)"
        else
            echo "bench: DVM could not compile $p.fdv:" >&2
            tail -5 "$p.dvmc.log" >&2
            exit 1
        fi
    fi
    "$SAPFOR" build --host-only "$p.fdv" --fflags "$FFLAGS" -o "$p.sapfor" >"$p.sapc.log" 2>&1 || {
        echo "bench: sapfor could not build $p.fdv" >&2
        tail -5 "$p.sapc.log" >&2
        exit 1
    }
done

QUIET_WAIT=${QUIET_WAIT:-30}
# shellcheck source=bench/quiet.sh
. "$ROOT/bench/quiet.sh"
declare -A TIMES
# (DVM's runs whose output differed from the sequential program's: not timed, counted)
declare -A WRONG
# run NAME REF CMD...: one timed run, its output (lines from " IT" or " CHECKSUM", or those
# CMP gives for the program) must equal the sequential program's; the script stops where
# sapfor's or the sequential program's does not, and counts DVM's that do not (its ADI printed
# other values in some runs here, on threads and once on one process: a race in its OpenMP
# code for ACROSS loops; `diff` there must not stop the script, which runs under `set -e`)
run() {
    local name=$1 ref=$2 t0 t1 pat
    pat=${CMP[${name%.*}]:-'^ (IT|CHECKSUM)'}
    shift 2
    waitquiet
    t0=$(date +%s.%N)
    "$@" >"out.$name" 2>"err.$name" || { echo "bench: $name failed:" >&2; tail -5 "err.$name" >&2; exit 1; }
    t1=$(date +%s.%N)
    if ! cmp -s <(grep -E "$pat" "out.$name") <(grep -E "$pat" "$ref"); then
        echo "bench: $name printed something else than the sequential program" >&2
        diff <(grep -E "$pat" "$ref") <(grep -E "$pat" "out.$name") | head -5 >&2 || true
        case ${name##*.} in
            d1 | d2 | dt)
                WRONG[$name]=$((${WRONG[$name]:-0} + 1))
                return 0
                ;;
        esac
        exit 1
    fi
    TIMES[$name]="${TIMES[$name]:-} $(python3 -c "print(f'{$t1 - $t0:.3f}')")"
}
dvm() { "$DVM_DIR/user/dvm" run "$@"; }
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
for _ in $(seq "$REPEATS"); do
    for p in $PROGS; do
        run "$p.seq" "$p.ref" "./$p.seq"
        run "$p.s1" "$p.ref" "$SAPFOR" run "$p.fdv" --np 1 --fflags "$FFLAGS"
        # shellcheck disable=SC2086
        run "$p.d1" "$p.ref" dvm ${GRID1[$p]} "$p"
        run "$p.s2" "$p.ref" "$SAPFOR" run "$p.fdv" --np 2 --fflags "$FFLAGS"
        # shellcheck disable=SC2086
        run "$p.d2" "$p.ref" dvm ${GRID2[$p]} "$p"
        run "$p.st" "$p.ref" "$SAPFOR" run "$p.fdv" --np 1 --threads 2 --fflags "$FFLAGS"
        # shellcheck disable=SC2086
        run "$p.dt" "$p.ref" env DVMH_NUM_THREADS=2 "$DVM_DIR/user/dvm" run ${GRID1[$p]} "$p"
    done
done
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)

ratio() { if [ -n "$2" ]; then python3 -c "print(f'{$(med "$1") / $(med "$2"):.2f}')"; else echo "n/a"; fi; }
echo
echo "machine: $(getconf _NPROCESSORS_ONLN) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "load average before: $LOAD0; after: $LOAD1; runs started on a busy machine: $BUSY"
echo "flags: $FFLAGS (all; DVM converter options: $DVM_FOPTS); jac2d $JAC_ITERS iterations, heat3d $HEAT_STEPS steps, gs2d $GS_ITERS sweeps"
[ "${EXAMPLES:-1}" = 0 ] || echo "DVM's examples: jac3dp ${JAC3D_L:-256}^3 x ${JAC3D_ITERS:-100}, jac2dp ${JAC2D_L:-4000}^2 x ${JAC2D_ITERS:-100}, adi ${ADI_N:-200}^3 x ${ADI_ITERS:-20}, gauss ${GAUSS_N:-1500}"
echo "median wall-clock seconds of $REPEATS runs (min-max), process start-up included"
printf '%-8s %-22s %-22s %-22s %-22s %-22s %-22s %-22s\n' program sequential "sapfor np 1" "DVM np 1" "sapfor np 2" "DVM np 2" "sapfor 2 threads" "DVM 2 threads"
for p in $PROGS; do
    printf '%-8s' "$p"
    for c in seq s1 d1 s2 d2 st dt; do
        if [ -n "${TIMES[$p.$c]:-}" ]; then printf ' %-22s' "$(stat "${TIMES[$p.$c]}")"; else printf ' %-22s' "n/a"; fi
    done
    echo
done
echo
echo "ratio sapfor / DVM (medians; goal <= 0.5)"
printf '%-8s %8s %8s %10s\n' program "np 1" "np 2" "2 threads"
for p in $PROGS; do
    printf '%-8s %8s %8s %10s\n' "$p" "$(ratio "${TIMES[$p.s1]:-}" "${TIMES[$p.d1]:-}")" \
        "$(ratio "${TIMES[$p.s2]:-}" "${TIMES[$p.d2]:-}")" "$(ratio "${TIMES[$p.st]:-}" "${TIMES[$p.dt]:-}")"
done
for p in $PROGS; do
    [ -z "${NOTE[$p]}" ] || echo "$p: ${NOTE[$p]}"
    for c in d1 d2 dt; do
        [ -z "${WRONG[$p.$c]:-}" ] || echo "$p: DVM's run ($c) printed other values than the sequential program in ${WRONG[$p.$c]} of $REPEATS runs (not timed)"
    done
done
