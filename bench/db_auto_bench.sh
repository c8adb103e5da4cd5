#!/usr/bin/env bash
# Database and --auto benchmarks on a generated program (default 50,000 lines):
#  - analysis alone (--no-db), first analysis with the database (analysis + store),
#    re-run on unchanged files (the stored report is reused), reload of everything
#    (export --json reads every table back);
#  - sapfor --auto with the time of each phase (--timings).
# Prints the figures and the ratios measured in this one run.
#   LINES=50000 SAPFOR=/path/to/sapfor bash bench/db_auto_bench.sh
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LINES=${LINES:-50000}
if [ -z "${SAPFOR:-}" ]; then
    (cd "$ROOT" && cargo build --release -q -p shell-gui)
    SAPFOR="${CARGO_TARGET_DIR:-$ROOT/target}/release/sapfor"
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sapfor-dbbench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
python3 "$ROOT/bench/gen_big.py" "$LINES" big.f >/dev/null
calc() { python3 -c "print($1)"; }
secs() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null; t1=$(date +%s.%N); calc "$t1 - $t0"; }
best() { local b=""; for _ in 1 2 3; do local t; t=$(secs "$@"); if [ -z "$b" ] || [ "$(calc "int($t < $b)")" = 1 ]; then b=$t; fi; done; echo "$b"; }
echo "program: $(wc -l < big.f) lines; sapfor: $SAPFOR; $(nproc) cores; $(date -u '+%Y-%m-%d %H:%M UTC')"
A=$(best "$SAPFOR" analyze big.f --no-db)
FIRST=""
for _ in 1 2 3; do rm -f p.db p.db-wal p.db-shm; t=$(secs "$SAPFOR" analyze big.f --db p.db); if [ -z "$FIRST" ] || [ "$(calc "int($t < $FIRST)")" = 1 ]; then FIRST=$t; fi; done
RERUN=$(best "$SAPFOR" analyze big.f --db p.db)
RELOAD=$(best "$SAPFOR" export --json --db p.db)
STORE=$(calc "$FIRST - $A")
printf 'analysis alone (--no-db):            %8.3f s\n' "$A"
printf 'first run with the database:         %8.3f s  (store %.3f s)\n' "$FIRST" "$STORE"
printf 're-run on unchanged files:           %8.3f s\n' "$RERUN"
printf 'reload of everything (export --json): %7.3f s\n' "$RELOAD"
printf 'ratio store / analysis:              %8.2f  (target < 1)\n' "$(calc "$STORE / $A")"
printf 'ratio reload / analysis:             %8.2f  (target < 1)\n' "$(calc "$RELOAD / $A")"
printf 'ratio first run / re-run:            %8.1f  (target >= 10)\n' "$(calc "$FIRST / $RERUN")"
rm -f p.db p.db-wal p.db-shm
echo "sapfor --auto big.f --procs 16 --timings:"
"$SAPFOR" --auto big.f --procs 16 --timings --db auto.db 2>&1 >/dev/null | grep '^timings:'
