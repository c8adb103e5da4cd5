#!/usr/bin/env bash
# The four programs of issue 18 ("Fast generated programs"), our own equivalents, each as a
# new user would run it: `sapfor --auto prog.f`, then `sapfor run prog.fdv --np 2`, against
# the sequential build (gfortran -O2):
#   jac_print   2-D Jacobi 500x500, 100 iterations, writes its array element by element
#               (bench/jac_print.f)
#   gs_print    2-D Gauss-Seidel 500x500 in place (an ACROSS nest), writes its array
#   gemm        C = A B, 512x512, checksum
#   write_loop  400x400 array written with list-directed WRITE(1,*) A(I,J) in a loop
# Goal (issue 18): each runs faster at --np 2 than sequentially, or --auto keeps it
# replicated because its model predicts no gain. --auto is told about this machine: a
# machine file from `sapfor calibrate --processes NP` (message costs, operations, process
# start-up). Every run's standard output and output file must equal the sequential
# program's. REPEATS runs each (default 5), medians printed, with the variant --auto chose
# and the estimates of the best distributed variant and of the replicated program.
#
#   bash bench/issue18.sh          REPEATS=3 NP=2 bash bench/issue18.sh
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REPEATS=${REPEATS:-5}
NP=${NP:-2}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
W=$(mktemp -d "${TMPDIR:-/tmp}/sapfor-issue18.XXXXXX")
trap 'rm -rf "$W"' EXIT
SAPFOR=${SAPFOR:-}
if [ -z "$SAPFOR" ]; then
    (cd "$ROOT" && cargo build -q --release -p shell-gui -p sapfor-rt </dev/null)
    SAPFOR=$TARGET/release/sapfor
fi
export SAPFOR_CACHE=$W/cache
cp "$ROOT/bench/jac_print.f" "$ROOT"/bench/issue18/*.f "$W/"
cd "$W"
declare -A OUTFILE=([jac_print]=j2d.out [gs_print]=gs.out [gemm]="" [write_loop]=wloop.out)
PROGS="jac_print gs_print gemm write_loop"

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# run PROG LABEL CMD...: REPEATS timed runs, outputs checked; prints the median
run() {
    local p=$1 label=$2 f=${OUTFILE[$1]}
    shift 2
    : >"t.$p.$label"
    for _ in $(seq "$REPEATS"); do
        [ -z "$f" ] || rm -f "$f"
        local t0 t1
        t0=$(date +%s.%N)
        "$@" >"out.$p" 2>"err.$p" || { echo "bench: $p $label failed:" >&2; tail -5 "err.$p" >&2; exit 1; }
        t1=$(date +%s.%N)
        cmp -s "out.$p" "ref.$p" || { echo "bench: $p $label: standard output differs from the sequential run" >&2; diff "ref.$p" "out.$p" | head -5 >&2; exit 1; }
        [ -z "$f" ] || cmp -s "$f" "ref.$p.file" || { echo "bench: $p $label: $f differs from the sequential run" >&2; exit 1; }
        echo "$t1 - $t0" | bc -l >>"t.$p.$label"
    done
    median <"t.$p.$label"
}
"$SAPFOR" calibrate -o machine.toml --processes "$NP" --quick >calibrate.log 2>&1 || { cat calibrate.log >&2; exit 1; }
echo "machine: $(tail -2 calibrate.log | head -1)"
printf '%-11s %-16s %-22s %-12s %-11s %-11s %-8s\n' program "--auto chose" "best distributed est." "replicated" sequential "np $NP" "speed-up"
for p in $PROGS; do
    gfortran -O2 -w "$p.f" -o "$p.seq"
    f=${OUTFILE[$p]}
    [ -z "$f" ] || rm -f "$f"
    "./$p.seq" >"ref.$p"
    [ -z "$f" ] || mv "$f" "ref.$p.file"
    "$SAPFOR" --auto "$p.f" --no-db --machine machine.toml >"auto.$p" 2>&1 || { echo "bench: --auto failed on $p.f" >&2; tail -5 "auto.$p" >&2; exit 1; }
    chosen=$(grep -m1 '^chosen' "auto.$p" | sed 's/^chosen: *//' | awk '{print $1}')
    dist=$(grep -E '^ +[ *] \(' "auto.$p" | grep -o 'total [0-9.e-]* s' | awk '{print $2}' | sort -g | head -1)
    rep=$(grep -E '^ +[ *] replicated' "auto.$p" | grep -o 'total [0-9.e-]* s' | awk '{print $2}')
    "$SAPFOR" run "$p.fdv" --np "$NP" >/dev/null 2>&1 || true # build once (cached)
    ts=$(run "$p" seq "./$p.seq")
    tp=$(run "$p" np "$SAPFOR" run "$p.fdv" --np "$NP")
    printf '%-11s %-16s %-22s %-12s %-11.3f %-11.3f %-8.2f\n' "$p" "$chosen" "${dist:-?} s" "${rep:-?} s" "$ts" "$tp" "$(echo "$ts / $tp" | bc -l)"
done
echo "medians of $REPEATS runs, wall clock (MPI start-up included); speed-up = sequential / np $NP"
