#!/usr/bin/env bash
# One distributed variant of an NPB3.3-SER benchmark against its sequential build, measured in
# one run: `sapfor --auto` stores every variant, `sapfor generate --scheme N` writes the one
# whose distribution is asked for (even when --auto chose another), and it runs in each
# configuration. Prints the verification and time of each, and the ratio to the sequential
# time (the time the benchmark itself reports).
#
#   bench/npb_variant.sh NPB3.3-SER-DIR BENCH CLASS 'DISTRIBUTION' [CONFIG;CONFIG...]
#   bench/npb_variant.sh /tmp/npb/NPB3.3-SER BT W '(*,*,*,BLOCK)' '--np 1;--np 2;--threads 2'
#
# SAPFOR (default: sapfor on PATH) and OUT (default: a new temporary directory) may be set;
# REFINE='parallel ep.f:160;...' records these refinements (`sapfor refine`) before `--auto`:
#   REFINE='parallel ep.f:160' bench/npb_variant.sh /tmp/npb/NPB3.3-SER EP A templates
# MACHINE=file.toml describes the machine to `--auto` (`--machine`; `gpus_per_node = 0` for
# this one, which has no accelerator: then no loop is kept for a region on one).
set -u
DIR=$(cd "${1:?NPB3.3-SER directory}" && pwd)
B=${2:?benchmark, e.g. BT}
C=${3:?class, e.g. W}
WANT=${4:?distribution, e.g. (*,*,*,BLOCK)}
CONFIGS=${5:---np 1;--np 2;--threads 2}
SAPFOR=${SAPFOR:-sapfor}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$(mktemp -d)}
lb=$(echo "$B" | tr 'A-Z' 'a-z')
mkdir -p "$OUT"
if [ ! -f "$DIR/config/make.def" ]; then
  sed -e 's/^F77 *=.*/F77 = gfortran/' -e 's/^FLINK *=.*/FLINK = $(F77)/' -e 's/^CC *=.*/CC = gcc/' \
    "$DIR/config/make.def.template" > "$DIR/config/make.def"
fi
make -C "$DIR" "$B" CLASS="$C" > "$OUT/make.log" 2>&1 || { echo "the sequential build failed: $OUT/make.log"; exit 1; }
secs() { grep -m1 -i "time in seconds" "$1" | awk '{print $NF}'; }
verif() { grep -m1 -i "verification *=" "$1" | awk '{print $NF}'; }
(cd "$DIR/bin" && "./$lb.$C.x" > "$OUT/seq.out" 2>&1)
seq=$(secs "$OUT/seq.out")
files=$(python3 "$ROOT/bench/npb_objs.py" "$DIR/$B/Makefile")
rm -f "$OUT/v.db"
if [ -n "${REFINE:-}" ]; then
  (cd "$DIR/$B" && "$SAPFOR" analyze $files --db "$OUT/v.db" > "$OUT/analyze.out" 2>&1) || { echo "analyze failed: $OUT/analyze.out"; exit 1; }
  IFS=';' read -ra refs <<< "$REFINE"
  for r in "${refs[@]}"; do
    # shellcheck disable=SC2086
    (cd "$DIR/$B" && "$SAPFOR" refine --db "$OUT/v.db" $r >> "$OUT/refine.out" 2>&1) || { echo "refine $r failed: $OUT/refine.out"; exit 1; }
  done
fi
MACHINE_ARGS=()
if [ -n "${MACHINE:-}" ]; then MACHINE_ARGS=(--machine "$(cd "$(dirname "$MACHINE")" && pwd)/$(basename "$MACHINE")"); fi
(cd "$DIR/$B" && "$SAPFOR" --auto $files --db "$OUT/v.db" --out-dir "$OUT/auto" "${MACHINE_ARGS[@]}" > "$OUT/auto.out" 2>&1) || { echo "--auto failed: $OUT/auto.out"; exit 1; }
id=$("$SAPFOR" schemes --db "$OUT/v.db" | awk -v w="$WANT" '$3 == w && $1 ~ /^[0-9]+\*?$/ {print $1; exit}' | tr -d '*')
[ -n "$id" ] || { echo "no variant $WANT; the schemes are:"; "$SAPFOR" schemes --db "$OUT/v.db" | grep -v '^ *region'; exit 1; }
(cd "$DIR/$B" && "$SAPFOR" generate --db "$OUT/v.db" --scheme "$id" --out-dir "$OUT/v" > "$OUT/generate.out" 2>&1) || { echo "generate failed: $OUT/generate.out"; exit 1; }
fdvs=""
for f in $files; do
  case $f in
    *.c) fdvs="$fdvs $DIR/$B/$f" ;;
    *) n=$(basename "$f"); fdvs="$fdvs $OUT/v/${n%.*}.fdv" ;;
  esac
done
echo "$B class $C, variant #$id $WANT; sequential $seq s ($(verif "$OUT/seq.out"))"
printf '| %-22s | %-12s | %-9s | %-14s |\n' configuration verification time "time / sequential"
printf '|%s|\n' "------------------------|--------------|-----------|----------------"
IFS=';' read -ra cfgs <<< "$CONFIGS"
for cfg in "${cfgs[@]}"; do
  tag=$(echo "$cfg" | tr -d ' -')
  (cd "$DIR/$B" && "$SAPFOR" run -I . $fdvs -o "$OUT/prog" $cfg > "$OUT/run_$tag.out" 2>&1)
  t=$(secs "$OUT/run_$tag.out")
  r=$(python3 -c "print(f'{float(\"${t:-nan}\") / float(\"$seq\"):.2f}')" 2>/dev/null)
  printf '| %-22s | %-12s | %-9s | %-14s |\n' "$cfg" "$(verif "$OUT/run_$tag.out")" "${t:-failed}" "${r:--}"
done
echo "outputs in $OUT"
