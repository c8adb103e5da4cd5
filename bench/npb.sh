#!/usr/bin/env bash
# NPB3.3-SER through sapfor, unchanged sources, default options (issue 16).
#
#   bench/npb.sh DIR [CLASSES] [BENCHMARKS]
#
# DIR is an NPB3.3-SER tree (the public repository mbdevpl/nas-parallel-benchmarks holds
# one; third-party code: fetch it into a scratch directory, never commit it). CLASSES defaults
# to "S W", BENCHMARKS to "BT CG EP FT LU MG SP UA". Without DIR the script says so and
# exits 0 (CI does not run it).
#
# For each benchmark and class it:
#   1. builds the sequential program with gfortran (the benchmark's own Makefile: the oracle);
#   2. runs `sapfor analyze` on the benchmark's files (its Makefile's OBJS, C files included);
#   3. runs `sapfor --auto` (default target) into a scratch directory;
#   4. runs `sapfor run` on the generated program with 1, 2 and 4 processes and with
#      `--devices emu`,
# and prints one table: analysis errors, directive lines written, distributed arrays, the
# "Verification" line of each run, and the time each run reports against the sequential one.
#
# With the NPB3.3-OMP tree beside DIR (or OMP=path), the column "OMP loops" counts the loops
# NPB3.3-OMP parallelizes by hand that sapfor finds parallel or across, itself or an enclosing
# loop (bench/npb_omp_loops.py; the list of those it does not find is in
# OUT/<BENCH>.<CLASS>/omp_loops.txt).
#
# Environment: SAPFOR (default: the debug binary under CARGO_TARGET_DIR or ./target),
# OUT (scratch directory, default /tmp/sapfor-npb), TIMEOUT (seconds per run, default 600),
# CONFIGS (the runs, separated by `;`, default "--np 1;--np 2;--np 4;--devices emu"; a run
# left out prints `-`).
set -u -o pipefail

DIR=${1:-}
if [ -z "$DIR" ]; then
  echo "bench/npb.sh: no NPB3.3-SER directory given; nothing to do (usage: bench/npb.sh DIR [CLASSES] [BENCHMARKS])"
  exit 0
fi
if [ ! -f "$DIR/config/make.def.template" ] && [ ! -f "$DIR/config/make.def" ]; then
  echo "bench/npb.sh: $DIR is not an NPB3.3-SER tree (no config/make.def.template)" >&2
  exit 2
fi
DIR=$(cd "$DIR" && pwd)
CLASSES=${2:-"S W"}
BENCHES=${3:-"BT CG EP FT LU MG SP UA"}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
SAPFOR=${SAPFOR:-$TARGET/debug/sapfor}
OUT=${OUT:-/tmp/sapfor-npb}
TIMEOUT=${TIMEOUT:-600}
CONFIGS=${CONFIGS:-"--np 1;--np 2;--np 4;--devices emu"}
OMP=${OMP:-$(dirname "$DIR")/NPB3.3-OMP}
if [ ! -x "$SAPFOR" ]; then
  echo "bench/npb.sh: no sapfor binary at $SAPFOR (cargo build -p shell-gui -p sapfor-rt, or set SAPFOR)" >&2
  exit 2
fi
mkdir -p "$OUT" "$DIR/bin"

# gfortran for the oracle (the template names f77); double-precision randoms (randdp)
if [ ! -f "$DIR/config/make.def" ]; then
  sed -e 's/^F77 = f77/F77 = gfortran/' -e 's/^FFLAGS\t= -O/FFLAGS = -O2/' \
      -e 's/^FLINKFLAGS = -O/FLINKFLAGS = -O2/' -e 's/^RAND   = randi8/RAND = randdp/' \
      "$DIR/config/make.def.template" > "$DIR/config/make.def"
fi

# The source files of a benchmark: its Makefile's OBJS with the make variables filled in.
objs() { python3 "$ROOT/bench/npb_objs.py" "$DIR/$1/Makefile"; }

verif() { grep -m1 -i "verification *=" "$1" | awk '{print $NF}'; }
secs() { grep -m1 -i "time in seconds" "$1" | awk '{print $NF}'; }

printf '| %-5s | %-5s | %-6s | %-10s | %-11s | %-9s | %-13s | %-13s | %-13s | %-13s | %-13s |\n' \
  bench class errors directives distributed "OMP loops" sequential "np 1" "np 2" "np 4" "emu"
printf '|%s|\n' "-------|-------|--------|------------|-------------|-----------|---------------|---------------|---------------|---------------|---------------"
for c in $CLASSES; do
  for b in $BENCHES; do
    lb=$(echo "$b" | tr 'A-Z' 'a-z')
    w="$OUT/$b.$c"
    rm -rf "$w" && mkdir -p "$w"
    # 1. the oracle (make also writes npbparams.h for this class)
    if ! make -C "$DIR" "$b" CLASS="$c" > "$w/make.log" 2>&1; then
      printf '| %-5s | %-5s | %s\n' "$b" "$c" "the sequential build failed (see $w/make.log)"
      continue
    fi
    (cd "$DIR/bin" && timeout "$TIMEOUT" "./$lb.$c.x" > "$w/seq.out" 2>&1)
    seq="$(verif "$w/seq.out") $(secs "$w/seq.out")s"
    files=$(objs "$b")
    # 2. analysis
    (cd "$DIR/$b" && "$SAPFOR" analyze $files --no-db > "$w/analyze.out" 2>&1)
    errors=$(grep -c '^error\[' "$w/analyze.out")
    omp="-"
    if [ -d "$OMP/$b" ]; then
      (cd "$DIR/$b" && "$SAPFOR" analyze $files --no-db --json > "$w/analyze.json" 2>/dev/null)
      python3 "$ROOT/bench/npb_omp_loops.py" "$OMP/$b" "$DIR/$b" "$w/analyze.json" --list > "$w/omp_loops.txt" 2>&1
      omp=$(head -1 "$w/omp_loops.txt" | awk '{print $2}')
    fi
    # 3. --auto
    if (cd "$DIR/$b" && timeout "$TIMEOUT" "$SAPFOR" --auto $files --no-db --out-dir "$w/fdv" > "$w/auto.out" 2>&1); then
      directives=$(cat "$w"/fdv/*.fdv | grep -c -i '^[c!*]dvm\$')
      distributed=$(cat "$w"/fdv/*.fdv | grep -i '^[c!*]dvm\$ *distribute' | grep -i -o 'distribute *[a-z0-9_]*' | sort -u | wc -l)
    else
      directives="failed"
      distributed="-"
    fi
    # 4. runs: the generated Fortran-DVMH, and the C files as they are
    runs=()
    fdvs=""
    for f in $files; do
      case $f in
        *.c) fdvs="$fdvs $DIR/$b/$f" ;;
        *) n=$(basename "$f"); fdvs="$fdvs $w/fdv/${n%.*}.fdv" ;;
      esac
    done
    for cfg in "--np 1" "--np 2" "--np 4" "--devices emu"; do
      tag=$(echo "$cfg" | tr -d ' -')
      if [ "$directives" = "failed" ] || ! printf ';%s;' "$CONFIGS" | grep -q -- ";$cfg;"; then
        runs+=("-")
        continue
      fi
      (cd "$DIR/$b" && timeout "$TIMEOUT" "$SAPFOR" run -I . $fdvs -o "$w/prog" $cfg > "$w/run_$tag.out" 2>&1)
      rc=$?
      v=$(verif "$w/run_$tag.out")
      if [ -n "$v" ]; then
        runs+=("$v $(secs "$w/run_$tag.out")s")
      elif [ $rc = 124 ]; then
        runs+=("> ${TIMEOUT}s")
      else
        runs+=("exit $rc")
      fi
    done
    printf '| %-5s | %-5s | %-6s | %-10s | %-11s | %-9s | %-13s | %-13s | %-13s | %-13s | %-13s |\n' \
      "$b" "$c" "$errors" "$directives" "$distributed" "$omp" "$seq" "${runs[0]}" "${runs[1]}" "${runs[2]}" "${runs[3]}"
  done
done
echo "outputs in $OUT/<BENCH>.<CLASS>/ (analyze.out, auto.out, fdv/, run_*.out, omp_loops.txt)"
