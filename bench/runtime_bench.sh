#!/usr/bin/env bash
# Runtime benchmark (issue 6). Two programs, each run long enough (several seconds) that
# MPI start-up does not dominate:
#   - 2-D Jacobi bench/jac2d.fdv, 2000x2000, ITERS iterations (default 2000; the file says
#     100, the copy benchmarked gets ITERS), and bench/jac_mpi.f90 (hand-written MPI) with
#     the same count
#   - the 3-D heat sample (shell-gui/tests/golden/heat3d.fdv, the sample as written by
#     `sapfor --auto`): its 120^3 grid, STEPS time steps (default 2000; the sample makes 20)
# For each: sequential gfortran -O2 of the same file (directives are comments); the
# `sapfor build --host-only` executable (what `sapfor run` builds without --devices: the
# heat sample's regions left out) with 1 process as `sapfor run --np 1` starts it (directly,
# SAPFOR_NO_MPI=1), with 1 process under mpirun, with 2 processes under mpirun, and with
# 1 process x 2 threads as `sapfor run --threads 2` starts it. Every run's output is
# checked against the sequential one. Every configuration runs once per round, REPEATS
# rounds (default 3), each run after waiting for idle cores (QUIET_WAIT, default 60 s at
# most). Prints the best wall-clock time of each, the machine's load, and every ratio with
# its target.
#
#   bash bench/runtime_bench.sh          (or: make bench-runtime)
#   REPEATS=5 ITERS=500 STEPS=500 bash bench/runtime_bench.sh
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
REPEATS=${REPEATS:-3}
ITERS=${ITERS:-2000}
STEPS=${STEPS:-2000}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# the Open MPI components `sapfor run` selects for runs on one machine (runtime/src/driver.rs)
export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1} OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
export HWLOC_COMPONENTS=${HWLOC_COMPONENTS:--pci,-linuxio}
W=$(mktemp -d "${TMPDIR:-/tmp}/sapfor-rtbench.XXXXXX")
trap 'rm -rf "$W"' EXIT

echo "bench: building sapfor (debug: it only converts) and the runtime library (release)"
cargo build -q -p shell-gui </dev/null
cargo build -q --release -p sapfor-rt </dev/null
export SAPFOR_RT=$TARGET/release/libsapfor_rt.a SAPFOR_CACHE=$W/cache
SAPFOR=$TARGET/debug/sapfor

# copies with the benchmark's sizes; stop if a PARAMETER line is not found
edit() { # FILE FROM TO OUT
    grep -q "$2" "$1" || { echo "bench: '$2' not found in $1" >&2; exit 1; }
    sed "s/$2/$3/" "$1" >"$4"
}
edit bench/jac2d.fdv "L=2000, ITMAX=100)" "L=2000, ITMAX=$ITERS)" "$W/jac2d.fdv"
edit bench/jac_mpi.f90 "l = 2000, itmax = 100$" "l = 2000, itmax = $ITERS" "$W/jac_mpi.f90"
edit shell-gui/tests/golden/heat3d.fdv "n = 120, nsteps = 20, nprint = 5$" \
    "n = 120, nsteps = $STEPS, nprint = $(((STEPS + 3) / 4))" "$W/heat3d.fdv"

gfortran -O2 -w -x f77 "$W/jac2d.fdv" -o "$W/jac_seq"
"$SAPFOR" build --host-only "$W/jac2d.fdv" -o "$W/jac_dvmh" 2>/dev/null
mpifort -O2 "$W/jac_mpi.f90" -o "$W/jac_mpi"
gfortran -O2 -w -x f95 "$W/heat3d.fdv" -o "$W/heat_seq"
"$SAPFOR" build --host-only "$W/heat3d.fdv" -o "$W/heat_dvmh" 2>/dev/null
# an empty MPI program: what mpirun, MPI_Init and MPI_Finalize cost by themselves
printf '#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); MPI_Finalize(); return 0; }\n' >"$W/empty.c"
mpicc -O2 "$W/empty.c" -o "$W/mpi_empty"

# run NAME REFOUT CMD...: one timed run; its output must equal REFOUT; keeps the best time
# in BEST[NAME]. Before it, waits (at most QUIET_WAIT seconds, default 60) until both cores
# are idle, since the machine may be shared; runs started on a busy machine are counted.
declare -A BEST
# shellcheck source=bench/quiet.sh
. "$ROOT/bench/quiet.sh"
run() {
    local name=$1 ref=$2 t0 t1 t
    shift 2
    waitquiet
    t0=$(date +%s.%N)
    "$@" >"$W/out.$name" 2>"$W/err.$name"
    t1=$(date +%s.%N)
    if [ -n "$ref" ] && ! cmp -s "$W/out.$name" "$ref"; then
        echo "bench: $name printed something else than the sequential program" >&2
        diff "$ref" "$W/out.$name" | head -5 >&2
        exit 1
    fi
    t=$(python3 -c "print(f'{$t1 - $t0:.3f}')")
    if [ -z "${BEST[$name]:-}" ] || python3 -c "import sys; sys.exit(0 if $t < ${BEST[$name]} else 1)"; then
        BEST[$name]=$t
    fi
}
mpi() { mpirun --bind-to none -np "$1" -x OMP_NUM_THREADS "${@:2}"; }
# what `sapfor run --np 1 [--threads T]` does: the executable itself, no mpirun, no MPI
direct() { env SAPFOR_NO_MPI=1 OMP_NUM_THREADS="$1" "${@:2}"; }

"$W/jac_seq" >"$W/jac.ref"
"$W/heat_seq" >"$W/heat.ref"
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
export OMP_NUM_THREADS=1
# rounds: every configuration once per round, so that a disturbance hits all alike
for _ in $(seq "$REPEATS"); do
    run jseq "$W/jac.ref" "$W/jac_seq"
    run jnp1 "$W/jac.ref" direct 1 "$W/jac_dvmh"
    run jnp1m "$W/jac.ref" mpi 1 "$W/jac_dvmh"
    run jnp2 "$W/jac.ref" mpi 2 "$W/jac_dvmh"
    run jt2 "$W/jac.ref" direct 2 "$W/jac_dvmh"
    run jmpi "$W/jac.ref" mpi 2 "$W/jac_mpi"
    run hseq "$W/heat.ref" "$W/heat_seq"
    run hnp1 "$W/heat.ref" direct 1 "$W/heat_dvmh"
    run hnp1m "$W/heat.ref" mpi 1 "$W/heat_dvmh"
    run hnp2 "$W/heat.ref" mpi 2 "$W/heat_dvmh"
    run ht2 "$W/heat.ref" direct 2 "$W/heat_dvmh"
    run start "" mpi 2 "$W/mpi_empty"
done
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)
J_SEQ=${BEST[jseq]} J_NP1=${BEST[jnp1]} J_NP1M=${BEST[jnp1m]} J_NP2=${BEST[jnp2]} J_T2=${BEST[jt2]}
J_MPI=${BEST[jmpi]} H_SEQ=${BEST[hseq]} H_NP1=${BEST[hnp1]} H_NP1M=${BEST[hnp1m]}
H_NP2=${BEST[hnp2]} H_T2=${BEST[ht2]} MPI_START=${BEST[start]}

r() { python3 -c "print(f'{$1 / $2:.2f}')"; }
echo
echo "machine: $(getconf _NPROCESSORS_ONLN) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "load average before: $LOAD0; after: $LOAD1; runs started on a busy machine: $BUSY"
echo "2-D Jacobi 2000x2000, $ITERS iterations; 3-D heat 120^3, $STEPS steps"
echo "best wall-clock seconds of $REPEATS runs (process start-up included)"
printf '%-44s %10s %10s\n' "" "2-D Jacobi" "3-D heat"
printf '%-44s %10s %10s\n' "sequential gfortran -O2" "$J_SEQ" "$H_SEQ"
printf '%-44s %10s %10s\n' "sapfor --np 1 (no mpirun, no MPI)" "$J_NP1" "$H_NP1"
printf '%-44s %10s %10s\n' "sapfor build, mpirun -np 1" "$J_NP1M" "$H_NP1M"
printf '%-44s %10s %10s\n' "sapfor --np 2 (mpirun -np 2)" "$J_NP2" "$H_NP2"
printf '%-44s %10s %10s\n' "sapfor --threads 2 (1 process x 2 threads)" "$J_T2" "$H_T2"
printf '%-44s %10s %10s\n' "hand-written MPI, 2 processes" "$J_MPI" "-"
printf '%-44s %10s %10s\n' "empty MPI program, mpirun -np 2" "$MPI_START" "-"
echo
echo "ratios (targets in parentheses)"
echo "  2-D: np1 / sequential                $(r "$J_NP1" "$J_SEQ")   (<= 1.05)"
echo "  2-D: mpirun -np 1 / sequential       $(r "$J_NP1M" "$J_SEQ")"
echo "  2-D: speed-up np2 over sequential    $(r "$J_SEQ" "$J_NP2")   (>= 1.8, issue 18)"
echo "  2-D: speed-up np2 over np1           $(r "$J_NP1" "$J_NP2")   (>= 1.8)"
echo "  2-D: speed-up threads2 over np1      $(r "$J_NP1" "$J_T2")   (>= 1.7)"
echo "  2-D: np2 / hand-written MPI np2      $(r "$J_NP2" "$J_MPI")   (<= 1.10)"
echo "  3-D: np1 / sequential                $(r "$H_NP1" "$H_SEQ")"
echo "  3-D: speed-up np2 over sequential    $(r "$H_SEQ" "$H_NP2")   (>= 1.8, issue 18)"
echo "  3-D: speed-up np2 over np1           $(r "$H_NP1" "$H_NP2")   (>= 1.8)"
echo "  3-D: speed-up threads2 over np1      $(r "$H_NP1" "$H_T2")   (>= 1.7)"
echo "for information, np2 with the empty MPI program's time taken off (not a target figure):"
echo "  2-D: speed-up np2 over np1           $(python3 -c "print(f'{$J_NP1 / ($J_NP2 - $MPI_START):.2f}')")"
echo "  3-D: speed-up np2 over np1           $(python3 -c "print(f'{$H_NP1 / ($H_NP2 - $MPI_START):.2f}')")"
