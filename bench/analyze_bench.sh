#!/usr/bin/env bash
# Times `sapfor analyze` (release build) against `gfortran -fsyntax-only` on
# generated FORTRAN 77 programs of growing size (bench/gen_big.py) and prints
# Markdown tables: seconds (best of N), the ratio sapfor/gfortran, and
# microseconds per line (flat = linear growth).
#
#   bench/analyze_bench.sh            (or: make bench)
#
# Environment:
#   BENCH_SIZES="12500 25000 50000 100000"  program sizes in lines
#   BENCH_REPEAT=3                          runs per measurement, best kept
#   BENCH_GRID=256,256,32                   array extents of the main table
#   BENCH_SMALL_GRID=48,40,12               extents of the second table,
#   BENCH_SMALL_SIZES="$BENCH_SIZES"        where nests are small enough for
#   BENCH_SMALL_REPEAT=1                    the exact (enumerating) dependence
#                                           solver; BENCH_SMALL_SIZES="" skips
#                                           that table
#   SAPFOR=/path/to/sapfor                  use this binary, do not build
#   BENCH_KEEP=1                            keep the generated programs
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
SIZES=${BENCH_SIZES:-12500 25000 50000 100000}
REPEAT=${BENCH_REPEAT:-3}
GRID=${BENCH_GRID:-256,256,32}
SMALL_GRID=${BENCH_SMALL_GRID:-48,40,12}
SMALL_SIZES=${BENCH_SMALL_SIZES-$SIZES}
SMALL_REPEAT=${BENCH_SMALL_REPEAT:-1}

if [ -n "${SAPFOR:-}" ]; then
    BIN=$SAPFOR
    ORIGIN="given by SAPFOR, not rebuilt"
else
    locked=()
    if git ls-files --error-unmatch Cargo.lock >/dev/null 2>&1; then
        locked=(--locked)
    fi
    echo "bench: cargo build --release -p shell-gui ${locked[*]}" >&2
    cargo build --release -q -p shell-gui "${locked[@]}" </dev/null >&2
    BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release/sapfor
    ORIGIN="built from git $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet HEAD -- '*.rs' '*Cargo.toml' Cargo.lock 2>/dev/null || echo ' + uncommitted Rust changes')"
fi
case $BIN in /*) ;; *) BIN=$ROOT/$BIN ;; esac
[ -x "$BIN" ] || { echo "bench: no binary at $BIN" >&2; exit 1; }
# `analyze` caches results in a project database (./sapfor.db) since the
# database exists: time fresh analyses (--no-db), and the cached re-analysis
# of an unchanged file separately.
NODB=()
if "$BIN" analyze --help 2>/dev/null | grep -q -- '--no-db'; then
    NODB=(--no-db)
fi
command -v gfortran >/dev/null || { echo "bench: gfortran missing (scripts/setup.sh)" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/sapfor-bench.XXXXXX")
if [ -n "${BENCH_KEEP:-}" ]; then
    echo "bench: programs kept in $WORK" >&2
else
    trap 'rm -rf "$WORK"' EXIT
fi

# best_of N CMD...: "WALL CPU", the smallest wall-clock time and the
# smallest CPU time (user + system) in seconds over N runs. Output goes to
# /dev/null; a non-zero exit status aborts the benchmark. CPU time is less
# disturbed than wall time by other work on a shared machine.
best_of() {
    local n=$1 i t bw="" bc="" w c
    shift
    local TIMEFORMAT='%3R %3U %3S'
    for ((i = 0; i < n; i++)); do
        if ! t=$( { time "$@" >/dev/null 2>&1 </dev/null; } 2>&1 ); then
            echo "bench: command failed: $*" >&2
            "$@" 2>&1 >/dev/null | head -n 20 >&2
            exit 1
        fi
        read -r w c <<<"$(awk '{printf "%.3f %.3f", $1, $2 + $3}' <<<"$t")"
        if [ -z "$bw" ] || awk -v a="$w" -v b="$bw" 'BEGIN{exit !(a<b)}'; then bw=$w; fi
        if [ -z "$bc" ] || awk -v a="$c" -v b="$bc" 'BEGIN{exit !(a<b)}'; then bc=$c; fi
    done
    echo "$bw $bc"
}

cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || true)
echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores, ${cpu:-unknown CPU}, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo) RAM."
echo "sapfor: $BIN ($("$BIN" --version 2>/dev/null || echo "?"), release build of $(date -u -r "$BIN" "+%Y-%m-%d %H:%M UTC" 2>/dev/null || echo "?"), $ORIGIN)."
echo "gfortran: $(gfortran --version | head -n1). Each figure is the best of N runs: wall-clock seconds, and CPU seconds (user + system)."
echo "sapfor times are fresh analyses (${NODB[*]:-no database in this version}); the last column is a re-analysis of the unchanged file answered from a warm project database (--db)."
echo "Load average before the runs: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?') (other work on the machine inflates the figures)."
echo

# table GRID REPEAT SIZES...: generate, time, print one Markdown table.
table() {
    local grid=$1 rep=$2
    shift 2
    local first_n="" first_t="" n f lines units loops tj th tg tc ch cg
    echo "Array extents (PARAMETERs NX,NY,NZ) = $grid, best of $rep run(s):"
    echo
    echo "| lines | units | loops | sapfor --json wall (s) | sapfor wall (s) | gfortran wall (s) | ratio wall | sapfor CPU (s) | gfortran CPU (s) | ratio CPU | sapfor CPU µs/line | gfortran CPU µs/line | sapfor cached wall (s) |"
    echo "|------:|------:|------:|------:|------:|------:|------:|------:|------:|------:|------:|------:|------:|"
    for n in "$@"; do
        f="$WORK/big_${n}_${grid//,/x}.f"
        python3 bench/gen_big.py "$n" "$f" --grid "$grid" 2>/dev/null
        gfortran -fsyntax-only "$f" 2>/dev/null || {
            echo "bench: gfortran rejects $f" >&2; exit 1; }
        lines=$(wc -l <"$f")
        units=$(grep -cE '^      (PROGRAM|SUBROUTINE|REAL FUNCTION) ' "$f")
        loops=$("$BIN" analyze "${NODB[@]}" "$f" 2>/dev/null | grep -c ': loop ' || true)
        read -r tj _ <<<"$(best_of "$rep" "$BIN" analyze "${NODB[@]}" --json "$f")"
        read -r th ch <<<"$(best_of "$rep" "$BIN" analyze "${NODB[@]}" "$f")"
        tc=n/a
        if [ "${#NODB[@]}" -gt 0 ]; then
            "$BIN" analyze --db "$f.db" "$f" >/dev/null 2>&1 </dev/null || true
            read -r tc _ <<<"$(best_of "$rep" "$BIN" analyze --db "$f.db" "$f")"
        fi
        read -r tg cg <<<"$(best_of "$rep" gfortran -fsyntax-only "$f")"
        awk -v l="$lines" -v u="$units" -v lp="$loops" -v tj="$tj" -v th="$th" \
            -v tg="$tg" -v ch="$ch" -v cg="$cg" -v tc="$tc" 'BEGIN {
            rw = (tg > 0) ? sprintf("%.2f", th / tg) : "n/a"
            rc = (cg > 0) ? sprintf("%.2f", ch / cg) : "n/a"
            printf "| %d | %d | %d | %.3f | %.3f | %.3f | %s | %.3f | %.3f | %s | %.1f | %.1f | %s |\n",
                l, u, lp, tj, th, tg, rw, ch, cg, rc, ch * 1e6 / l, cg * 1e6 / l, tc }'
        if [ -z "$first_n" ]; then first_n=$lines; first_t=$ch; fi
        last_n=$lines
        last_t=$ch
    done
    echo
    echo "Load average after this table: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')."
    echo
    if [ "$first_n" != "$last_n" ]; then
        awk -v n1="$first_n" -v t1="$first_t" -v n2="$last_n" -v t2="$last_t" 'BEGIN {
            if (t1 > 0 && t2 > 0)
                printf "Growth of sapfor CPU time from %d to %d lines: x%.2f for x%.2f lines (exponent %.2f; 1.00 = linear).\n\n",
                    n1, n2, t2 / t1, n2 / n1, log(t2 / t1) / log(n2 / n1) }'
    fi
}

# shellcheck disable=SC2086  # word splitting of the size lists is intended
table "$GRID" "$REPEAT" $SIZES
if [ -n "$SMALL_SIZES" ]; then
    # shellcheck disable=SC2086
    table "$SMALL_GRID" "$SMALL_REPEAT" $SMALL_SIZES
fi
