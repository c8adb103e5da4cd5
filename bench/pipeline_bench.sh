#!/usr/bin/env bash
# Pipelined ACROSS sweeps (issue 18): bench/pipeline.fdv, a 400x400x200 array distributed
# by J, swept plane by plane (K in order, each plane an ACROSS loop over J and I), 10 times.
# Runs, each REPEATS times (default 5), medians printed (wall clock of `sapfor run`, MPI
# start-up included):
#   - `sapfor run --np 1`;
#   - `sapfor run --np 2` with the runtime's tiles: a stream after the first planes of each
#     sweep (the planes follow each other with no other communication: process 0 sends
#     each plane as one tile and goes on to the next);
#   - `sapfor run --np 2` with 16 tiles a plane forced (SAPFOR_ACROSS_TILE=25, what the
#     runtime cuts outside a stream);
#   - `sapfor run --np 2` with the whole plane as one tile forced (SAPFOR_ACROSS_TILE=400):
#     no pipeline inside a plane, so the speed-up comes only from process 0 starting plane
#     K+1 while process 1 works on plane K.
# Every run's output is compared with the sequential build's (gfortran -O2).
#
#   bash bench/pipeline_bench.sh        REPEATS=3 bash bench/pipeline_bench.sh
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REPEATS=${REPEATS:-5}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
W=$(mktemp -d "${TMPDIR:-/tmp}/sapfor-pipeline.XXXXXX")
trap 'rm -rf "$W"' EXIT
(cd "$ROOT" && cargo build -q --release -p shell-gui -p sapfor-rt </dev/null)
SAPFOR=$TARGET/release/sapfor
cp "$ROOT/bench/pipeline.fdv" "$W/"
cd "$W"
gfortran -O2 -w -x f95 pipeline.fdv -o seq
./seq > seq.stdout
"$SAPFOR" run pipeline.fdv --np 2 > /dev/null 2>&1   # build once (cached)

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
run() { # label, command...: prints the median wall time
  local label=$1; shift
  : > "t.$label"
  for _ in $(seq "$REPEATS"); do
    local t0 t1
    t0=$(date +%s.%N)
    "$@" > out.stdout 2> out.stderr
    t1=$(date +%s.%N)
    cmp -s out.stdout seq.stdout || { echo "$label: output differs from the sequential run"; cat out.stdout seq.stdout; exit 1; }
    echo "$t1 - $t0" | bc -l >> "t.$label"
  done
  median < "t.$label"
}
np1=$(run np1 "$SAPFOR" run pipeline.fdv --np 1)
np2=$(run np2 "$SAPFOR" run pipeline.fdv --np 2)
tiles=$(SAPFOR_ACROSS_TILE=25 run np2-tiles "$SAPFOR" run pipeline.fdv --np 2)
whole=$(SAPFOR_ACROSS_TILE=400 run np2-whole "$SAPFOR" run pipeline.fdv --np 2)
printf 'medians of %d runs\n' "$REPEATS"
printf '  np 1                          %8.3f s\n' "$np1"
printf '  np 2, the runtime (a stream)  %8.3f s\n' "$np2"
printf '  np 2, 16 tiles a plane        %8.3f s\n' "$tiles"
printf '  np 2, the plane as one tile   %8.3f s\n' "$whole"
printf 'ratios: np 1 / np 2 %.2f; with 16 tiles a plane %.2f; with one tile a plane %.2f\n' \
  "$(echo "$np1 / $np2" | bc -l)" "$(echo "$np1 / $tiles" | bc -l)" "$(echo "$np1 / $whole" | bc -l)"
