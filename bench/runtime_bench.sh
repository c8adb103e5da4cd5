#!/usr/bin/env bash
# Runtime benchmark (issue 6): 2-D Jacobi 2000x2000, 100 iterations
# (bench/jac2d.fdv) and the 3-D heat sample (shell-gui/tests/golden/heat3d.fdv):
#   - sequential gfortran -O2 of the same file (directives are comments)
#   - sapfor build + mpirun with 1 and 2 processes, and 1 process x 2 threads
#   - bench/jac_mpi.f90, a hand-written MPI Jacobi, on 2 processes
# Every run's output is checked against the sequential one. Prints the best
# wall-clock time of REPEATS runs (default 3) and the ratios.
#
#   bash bench/runtime_bench.sh          (or: make bench-runtime)
#   REPEATS=5 bash bench/runtime_bench.sh
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
REPEATS=${REPEATS:-3}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# the Open MPI components `sapfor run` selects for runs on one machine (runtime/src/driver.rs)
export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1} OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
W=$(mktemp -d "${TMPDIR:-/tmp}/sapfor-rtbench.XXXXXX")
trap 'rm -rf "$W"' EXIT

echo "bench: building sapfor (debug: it only converts) and the runtime library (release)"
cargo build -q -p shell-gui </dev/null
cargo build -q --release -p sapfor-rt </dev/null
export SAPFOR_RT=$TARGET/release/libsapfor_rt.a SAPFOR_CACHE=$W/cache
SAPFOR=$TARGET/debug/sapfor

gfortran -O2 -w -x f77 bench/jac2d.fdv -o "$W/jac_seq"
"$SAPFOR" build bench/jac2d.fdv -o "$W/jac_dvmh" 2>/dev/null
mpifort -O2 bench/jac_mpi.f90 -o "$W/jac_mpi"
gfortran -O2 -w -x f95 shell-gui/tests/golden/heat3d.fdv -o "$W/heat_seq"
"$SAPFOR" build shell-gui/tests/golden/heat3d.fdv -o "$W/heat_dvmh" 2>/dev/null

# best NAME REFOUT CMD...: best wall time of REPEATS runs; output must equal REFOUT
best() {
    local name=$1 ref=$2
    shift 2
    local b="" t0 t1 t
    for _ in $(seq "$REPEATS"); do
        t0=$(date +%s.%N)
        "$@" >"$W/out.$name" 2>"$W/err.$name"
        t1=$(date +%s.%N)
        if [ -n "$ref" ] && ! cmp -s "$W/out.$name" "$ref"; then
            echo "bench: $name printed something else than the sequential program" >&2
            diff "$ref" "$W/out.$name" | head -5 >&2
            exit 1
        fi
        t=$(python3 -c "print(f'{$t1 - $t0:.3f}')")
        if [ -z "$b" ] || python3 -c "import sys; sys.exit(0 if $t < $b else 1)"; then b=$t; fi
    done
    echo "$b"
}
mpi() { mpirun --bind-to none -np "$1" -x OMP_NUM_THREADS "${@:2}"; }

"$W/jac_seq" >"$W/jac.ref"
"$W/heat_seq" >"$W/heat.ref"
export OMP_NUM_THREADS=1
J_SEQ=$(best jseq "$W/jac.ref" "$W/jac_seq")
J_NP1=$(best jnp1 "$W/jac.ref" mpi 1 "$W/jac_dvmh")
J_NP2=$(best jnp2 "$W/jac.ref" mpi 2 "$W/jac_dvmh")
J_MPI=$(best jmpi "$W/jac.ref" mpi 2 "$W/jac_mpi")
J_NP1D=$(best jnp1d "$W/jac.ref" "$W/jac_dvmh")
MPI_START=$(best start "" mpi 1 /bin/true)
H_SEQ=$(best hseq "$W/heat.ref" "$W/heat_seq")
H_NP1=$(best hnp1 "$W/heat.ref" mpi 1 "$W/heat_dvmh")
H_NP2=$(best hnp2 "$W/heat.ref" mpi 2 "$W/heat_dvmh")
export OMP_NUM_THREADS=2
J_T2=$(best jt2 "$W/jac.ref" mpi 1 "$W/jac_dvmh")
H_T2=$(best ht2 "$W/heat.ref" mpi 1 "$W/heat_dvmh")

r() { python3 -c "print(f'{$1 / $2:.2f}')"; }
echo
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "best wall-clock seconds of $REPEATS runs (mpirun start-up included for the MPI runs)"
printf '%-34s %10s %10s\n' "" "2-D Jacobi" "3-D heat"
printf '%-34s %10s %10s\n' "sequential gfortran -O2" "$J_SEQ" "$H_SEQ"
printf '%-34s %10s %10s\n' "sapfor --np 1" "$J_NP1" "$H_NP1"
printf '%-34s %10s %10s\n' "sapfor --np 2" "$J_NP2" "$H_NP2"
printf '%-34s %10s %10s\n' "sapfor --np 1 --threads 2" "$J_T2" "$H_T2"
printf '%-34s %10s %10s\n' "hand-written MPI, 2 processes" "$J_MPI" "-"
printf '%-34s %10s %10s\n' "sapfor np 1 without mpirun" "$J_NP1D" "-"
printf '%-34s %10s %10s\n' "mpirun -np 1 /bin/true (start-up)" "$MPI_START" "-"
echo
echo "ratios (targets in parentheses)"
echo "  2-D: np1 / sequential          $(r "$J_NP1" "$J_SEQ")   (<= 1.05)"
echo "  2-D: np1 without mpirun / seq  $(r "$J_NP1D" "$J_SEQ")"
echo "  2-D: speed-up np2 over np1     $(r "$J_NP1" "$J_NP2")   (>= 1.8)"
echo "  2-D: speed-up threads2 over np1 $(r "$J_NP1" "$J_T2")  (>= 1.7)"
echo "  2-D: np2 / hand-written MPI np2 $(r "$J_NP2" "$J_MPI")  (<= 1.10)"
echo "  3-D: np1 / sequential          $(r "$H_NP1" "$H_SEQ")"
echo "  3-D: speed-up np2 over np1     $(r "$H_NP1" "$H_NP2")   (>= 1.8)"
echo "  3-D: speed-up threads2 over np1 $(r "$H_NP1" "$H_T2")  (>= 1.7)"
