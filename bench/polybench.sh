#!/usr/bin/env bash
# PolyBench/Fortran 1.0 through sapfor, unchanged sources, default options (issue 17).
#
#   bench/polybench.sh DIR [BENCHMARKS]
#
# DIR is a PolyBench/Fortran 1.0 tree (the public repository NexMing/PolyBenchFortran-1.0
# holds one; third-party code: fetch it into a scratch directory, never commit it).
# BENCHMARKS defaults to every directory of DIR holding a kernel.F90. Without DIR the script
# says so and exits 0 (CI does not run it).
#
# For each benchmark it:
#   1. preprocesses the main program and the kernel with `gfortran -E -cpp` (the suite's
#      files are C-preprocessed: DATASET, default SMALL_DATASET, and POLYBENCH_DUMP_ARRAYS,
#      so that the program prints its result arrays on standard error);
#   2. builds and runs the sequential program with gfortran -O2 (the oracle);
#   3. runs `sapfor --auto` (default target) into a scratch directory;
#   4. builds the generated program once (`sapfor build`) and runs it with 1 process
#      (single-process mode) and 2 processes (mpirun), comparing standard output and
#      standard error with the sequential run's: byte for byte ("same"), else numbers with
#      a decimal point within a relative 1e-12 ("same within 1e-12": a sum that a parallel
#      reduction combines in another order),
# and prints one line per benchmark: arrays distributed (DISTRIBUTE/ALIGN lines), PARALLEL
# directive lines, the sequential time and each run's result and wall time.
#
# Environment: SAPFOR (default: the release binary under CARGO_TARGET_DIR or ./target),
# OUT (scratch directory, default /tmp/sapfor-polybench), DATASET, TIMEOUT (seconds per run,
# default 300).
set -u -o pipefail

DIR=${1:-}
if [ -z "$DIR" ]; then
  echo "bench/polybench.sh: no PolyBench/Fortran directory given; nothing to do (usage: bench/polybench.sh DIR [BENCHMARKS])"
  exit 0
fi
if [ ! -f "$DIR/utilities/fpolybench.h" ]; then
  echo "bench/polybench.sh: $DIR is not a PolyBench/Fortran tree (no utilities/fpolybench.h)" >&2
  exit 2
fi
DIR=$(cd "$DIR" && pwd)
shift
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SAPFOR=${SAPFOR:-${CARGO_TARGET_DIR:-$ROOT/target}/release/sapfor}
OUT=${OUT:-/tmp/sapfor-polybench}
DATASET=${DATASET:-SMALL_DATASET}
TIMEOUT=${TIMEOUT:-300}
[ -x "$SAPFOR" ] || { echo "bench/polybench.sh: no sapfor at $SAPFOR (cargo build --release -p shell-gui, or SAPFOR=...)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$OUT"

if [ $# -gt 0 ]; then
  benches=("$@")
else
  mapfile -t benches < <(find "$DIR" -name kernel.F90 -printf '%h\n' | xargs -n1 basename | sort)
fi

secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
# the same words, numbers with a dot within a relative 1e-12 (a sum combined in another order)
close() {
  python3 - "$1" "$2" <<'PY'
import sys
a, b = (open(f, errors="replace").read().split() for f in sys.argv[1:3])
def eq(x, y):
    if x == y:
        return True
    try:
        p, q = float(x), float(y)
    except ValueError:
        return False
    return "." in x and "." in y and abs(p - q) <= 1e-12 * max(abs(p), abs(q))
sys.exit(0 if len(a) == len(b) and all(eq(x, y) for x, y in zip(a, b)) else 1)
PY
}

echo "PolyBench/Fortran ($DATASET), sapfor: $SAPFOR"
for n in "${benches[@]}"; do
  src=$(find "$DIR" -type d -name "$n" -print -quit)
  if [ -z "$src" ] || [ ! -f "$src/kernel.F90" ]; then echo "$n: no such benchmark"; continue; fi
  w="$OUT/$n"
  rm -rf "$w"; mkdir -p "$w"
  for f in "$src"/*.F90; do
    b=$(basename "$f" .F90); [ "$b" = kernel ] || b=main
    gfortran -E -cpp -P -D"$DATASET" -DPOLYBENCH_DUMP_ARRAYS -I"$DIR/utilities" -I"$src" "$f" 2>/dev/null \
      | sed -e '/^[ ]*$/d' > "$w/$b.f90"
  done
  cd "$w" || continue
  if ! gfortran -O2 main.f90 kernel.f90 "$DIR/utilities/fpolybench.c" -I"$DIR/utilities" -o seq.exe > seq.build 2>&1; then
    echo "$n: the sequential build failed (see $w/seq.build)"; continue
  fi
  t0=$(date +%s.%N); ./seq.exe > seq.out 2> seq.err; t1=$(date +%s.%N)
  line="$n: sequential $(secs "$t0" "$t1") s"
  if ! timeout "$TIMEOUT" "$SAPFOR" --auto main.f90 kernel.f90 --no-db --out-dir out > auto.log 2>&1; then
    echo "$line | --auto failed: $(grep -m1 -E 'error|sapfor:' auto.log)"; continue
  fi
  dist=$(cat out/*.fdv | grep -ciE '^ *!DVM\$ *(DISTRIBUTE|ALIGN)')
  par=$(cat out/*.fdv | grep -ciE '^ *!DVM\$ *PARALLEL')
  line="$line | distributed $dist, parallel $par"
  if ! "$SAPFOR" build --host-only out/main.fdv out/kernel.fdv "$DIR/utilities/fpolybench.c" -o par.exe > build.log 2>&1; then
    echo "$line | sapfor build failed (see $w/build.log)"; continue
  fi
  for np in 1 2; do
    t0=$(date +%s.%N)
    if [ "$np" = 1 ]; then
      SAPFOR_NO_MPI=1 timeout "$TIMEOUT" ./par.exe > "par$np.out" 2> "par$np.err"; rc=$?
    else
      timeout "$TIMEOUT" mpirun --oversubscribe -np "$np" ./par.exe > "par$np.out" 2> "par$np.err"; rc=$?
    fi
    t1=$(date +%s.%N)
    if [ "$rc" -ne 0 ]; then
      line="$line | np $np: exit $rc"
    elif cmp -s seq.out "par$np.out" && cmp -s seq.err "par$np.err"; then
      line="$line | np $np: same, $(secs "$t0" "$t1") s"
    elif close seq.out "par$np.out" && close seq.err "par$np.err"; then
      line="$line | np $np: same within 1e-12, $(secs "$t0" "$t1") s"
    else
      line="$line | np $np: DIFFERENT output"
    fi
  done
  echo "$line"
done
