#!/usr/bin/env bash
# Sequential reads of distributed arrays (issue 18, item 1): bench/jac_print.f, a 2-D
# Jacobi (500x500, 100 iterations) that writes its whole array to a file element by element
# and sums the diagonal. `sapfor --auto` distributes it; the print loop then reads every
# element from its owner. Runs, each REPEATS times (default 5), medians printed:
#   - the sequential program (gfortran -O2);
#   - `sapfor run --np NP` with the runtime's read caches (the default; NP defaults to 2);
#   - `sapfor run --np NP` with SAPFOR_READ_CACHE=0 (one message per element read).
# Every run's output file and stdout are compared with the sequential ones.
#
#   bash bench/seqread_bench.sh        REPEATS=3 bash bench/seqread_bench.sh
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REPEATS=${REPEATS:-5}
NP=${NP:-2}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
W=$(mktemp -d "${TMPDIR:-/tmp}/sapfor-seqread.XXXXXX")
trap 'rm -rf "$W"' EXIT
(cd "$ROOT" && cargo build -q -p shell-gui -p sapfor-rt </dev/null)
SAPFOR=$TARGET/debug/sapfor
cp "$ROOT/bench/jac_print.f" "$W/"
cd "$W"
gfortran -O2 -w jac_print.f -o seq
./seq > seq.stdout && mv j2d.out seq.j2d.out
"$SAPFOR" --auto jac_print.f --no-db > auto.log 2>&1 || { cat auto.log; exit 1; }
grep "^chosen" auto.log
"$SAPFOR" run jac_print.fdv --np "$NP" > /dev/null 2>&1   # build once (cached)

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
run() { # label, command...: prints the median wall time
  local label=$1; shift
  : > "t.$label"
  for _ in $(seq "$REPEATS"); do
    rm -f j2d.out
    local t0 t1
    t0=$(date +%s.%N)
    "$@" > out.stdout 2> out.stderr
    t1=$(date +%s.%N)
    cmp -s out.stdout seq.stdout || { echo "$label: stdout differs from the sequential run"; exit 1; }
    cmp -s j2d.out seq.j2d.out || { echo "$label: j2d.out differs from the sequential run"; exit 1; }
    echo "$t1 - $t0" | bc -l >> "t.$label"
  done
  median < "t.$label"
}
seq_t=$(run seq ./seq)
cache_t=$(run np2 "$SAPFOR" run jac_print.fdv --np "$NP")
nocache_t=$(SAPFOR_READ_CACHE=0 run np2-nocache "$SAPFOR" run jac_print.fdv --np "$NP")
"$SAPFOR" run jac_print.fdv --np "$NP" --profile prof.txt > /dev/null 2>&1
remote=$(grep -m1 'remote accesses' prof.txt | awk '{print $4}')
cached=$(grep -m1 'remote reads from the cache' prof.txt | awk '{print $7}')
printf 'medians of %d runs (wall clock of `sapfor run`, MPI start-up included)\n' "$REPEATS"
printf '  sequential                 %8.3f s\n' "$seq_t"
printf '  np %s, read caches          %8.3f s   (%s fetches, %s reads from the caches)\n' "$NP" "$cache_t" "$remote" "$cached"
printf '  np %s, SAPFOR_READ_CACHE=0  %8.3f s\n' "$NP" "$nocache_t"
printf 'ratios: caches off / on %.2f; np %s (caches) / sequential %.2f\n' \
  "$(echo "$nocache_t / $cache_t" | bc -l)" "$NP" "$(echo "$cache_t / $seq_t" | bc -l)"
