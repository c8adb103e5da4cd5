#!/usr/bin/env bash
# `sapfor --auto` time per 1,000 lines on generated programs of 50k, 100k and 200k lines
# (bench/gen_big.py): flat figures mean the tool scales linearly (issue 18.6). Prints one
# Markdown table of the phases (`--timings`), the total, seconds per 1,000 lines and that
# figure against the smallest program's, all measured in this run; also the peak memory.
#
#   bench/auto_scaling.sh                       (release build; SAPFOR=path to use another)
#   SIZES="50000 100000 200000" TARGET=dvmh REPEAT=1
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SIZES=${SIZES:-50000 100000 200000}
TARGET=${TARGET:-dvmh}
REPEAT=${REPEAT:-1}
if [ -z "${SAPFOR:-}" ]; then
  locked=()
  if git -C "$ROOT" ls-files --error-unmatch Cargo.lock >/dev/null 2>&1; then locked=(--locked); fi
  (cd "$ROOT" && cargo build --release -q -p shell-gui "${locked[@]}" </dev/null >&2)
  SAPFOR=${CARGO_TARGET_DIR:-$ROOT/target}/release/sapfor
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "sapfor --auto --target $TARGET --no-db --procs 16, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), best of $REPEAT"
echo
echo "| lines | analysis, s | experts, s | generation, s | total, s | s per 1,000 lines | vs. first | peak memory |"
echo "|---|---|---|---|---|---|---|---|"
first=""
for n in $SIZES; do
  f="$work/big$n.f"
  python3 "$ROOT/bench/gen_big.py" "$n" "$f" >/dev/null 2>&1
  lines=$(wc -l < "$f")
  best=""
  for _ in $(seq "$REPEAT"); do
    rm -rf "$work/out"
    /usr/bin/time -f "%M" -o "$work/mem" "$SAPFOR" --auto "$f" --target "$TARGET" --no-db --procs 16 --timings \
      --out-dir "$work/out" >/dev/null 2>"$work/err" || { echo "sapfor failed on $n lines:" >&2; tail -5 "$work/err" >&2; exit 1; }
    t=$(grep -o 'timings: .*' "$work/err" | tail -1)
    total=$(echo "$t" | sed -E 's/.*total ([0-9.]+) s.*/\1/')
    if [ -z "$best" ] || awk -v a="$total" -v b="$best" 'BEGIN{exit !(a<b)}'; then
      best=$total; bt=$t; mem=$(cat "$work/mem")
    fi
  done
  an=$(echo "$bt" | sed -E 's/.*analysis ([0-9.]+) s.*/\1/')
  ex=$(echo "$bt" | sed -E 's/.*experts ([0-9.]+) s.*/\1/')
  ge=$(echo "$bt" | sed -E 's/.*generation ([0-9.]+) s.*/\1/')
  per=$(awk -v t="$best" -v l="$lines" 'BEGIN{printf "%.3f", t * 1000 / l}')
  [ -z "$first" ] && first=$per
  rel=$(awk -v p="$per" -v f="$first" 'BEGIN{printf "%.2f", p / f}')
  echo "| $lines | $an | $ex | $ge | $best | $per | $rel | $((mem / 1024)) MB |"
done
