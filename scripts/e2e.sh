#!/usr/bin/env bash
# End-to-end checks of the `sapfor` command line with a real gfortran.
#
#   scripts/e2e.sh
#
# Environment:
#   SAPFOR=/path/to/sapfor   binary to test (not rebuilt). Default:
#                            ${CARGO_TARGET_DIR:-target}/debug/sapfor, which
#                            is (re)built first with `cargo build -p shell-gui`
#                            (a no-op when up to date, so a stale binary is
#                            never tested).
#   E2E_KEEP=1               keep the scratch directory and print its path.
#   E2E_TIMEOUT=SECONDS      per-command limit (default 120).
#
# Each check prints PASS or FAIL with what went wrong; the last line is
# `e2e: N passed, M failed` and the exit status is non-zero if M > 0.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 2
TIMEOUT=${E2E_TIMEOUT:-120}

# --------------------------------------------------------------- utilities --
PASSED=0
FAILED=0
FAILED_NAMES=()

pass() { PASSED=$((PASSED + 1)); printf 'PASS  %s\n' "$1"; }
# fail NAME REASON [FILE...]: the files (command output) are shown indented.
fail() {
    local name=$1 reason=$2
    shift 2
    FAILED=$((FAILED + 1))
    FAILED_NAMES+=("$name")
    printf 'FAIL  %s\n      %s\n' "$name" "$reason"
    local f
    for f in "$@"; do
        if [ -s "$f" ]; then
            printf '      --- %s (first 12 lines):\n' "$(basename "$f")"
            head -n 12 "$f" | sed 's/^/      | /'
        fi
    done
}

SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/sapfor-e2e.XXXXXX")
cleanup() {
    if [ -n "${E2E_KEEP:-}" ]; then
        echo "e2e: scratch directory kept: $SCRATCH"
    else
        rm -rf "$SCRATCH"
    fi
}
trap cleanup EXIT

# run_cap OUT ERR CMD...: run CMD with no stdin and a time limit; sets RC.
run_cap() {
    local out=$1 err=$2
    shift 2
    timeout "$TIMEOUT" "$@" >"$out" 2>"$err" </dev/null
    RC=$?
}

# True if an output file shows a Rust panic.
has_panic() { grep -q -e 'panicked' -e 'RUST_BACKTRACE' "$@" 2>/dev/null; }

# ------------------------------------------------------------ the binary --
locked=()
if git -C "$ROOT" ls-files --error-unmatch Cargo.lock >/dev/null 2>&1; then
    locked=(--locked)
fi
if [ -n "${SAPFOR:-}" ]; then
    BIN=$SAPFOR
else
    BIN=${CARGO_TARGET_DIR:-$ROOT/target}/debug/sapfor
    echo "e2e: building sapfor (cargo build -p shell-gui ${locked[*]})"
    if ! cargo build -q -p shell-gui -p sapfor-rt "${locked[@]}" </dev/null; then
        echo "e2e: FAIL: cargo build -p shell-gui failed" >&2
        echo "e2e: 0 passed, 1 failed"
        exit 1
    fi
fi
case $BIN in /*) ;; *) BIN=$ROOT/$BIN ;; esac
if [ ! -x "$BIN" ]; then
    echo "e2e: no sapfor binary at $BIN" >&2
    echo "e2e: 0 passed, 1 failed"
    exit 1
fi
if ! command -v gfortran >/dev/null 2>&1; then
    echo "e2e: gfortran not found (run scripts/setup.sh)" >&2
    echo "e2e: 0 passed, 1 failed"
    exit 1
fi
echo "e2e: sapfor = $BIN"
# Since the project database exists, `analyze` caches its results in
# ./sapfor.db. The checks below analyze afresh (--no-db) so that nothing is
# written into the checkout and no cached result hides a regression; the
# database path has its own check (cached report == fresh report).
NODB=()
if "$BIN" analyze --help 2>/dev/null | grep -q -- '--no-db'; then
    NODB=(--no-db)
fi
echo "e2e: $(gfortran --version | head -n1)"

# Fortran sources of a sample directory, in a stable order.
sample_sources() {
    local d=$1 f
    for f in "$d"/*.f "$d"/*.F "$d"/*.for "$d"/*.f90 "$d"/*.F90; do
        [ -e "$f" ] && printf '%s\n' "$f"
    done
}

# ------------------------------------ (a) samples compile and run as expected
echo "== (a) samples built with gfortran -O2 reproduce expected.out"
SAMPLES=()
for d in "$ROOT"/samples/*/; do
    d=${d%/}
    [ -d "$d" ] || continue
    SAMPLES+=("$d")
done
if [ "${#SAMPLES[@]}" -eq 0 ]; then
    fail "samples/" "no sample directories found"
fi

for d in "${SAMPLES[@]}"; do
    name=$(basename "$d")
    check="run sample $name"
    mapfile -t srcs < <(sample_sources "$d")
    if [ "${#srcs[@]}" -eq 0 ]; then
        fail "$check" "no Fortran source (.f/.f90) in samples/$name"
        continue
    fi
    if [ ! -f "$d/expected.out" ]; then
        fail "$check" "samples/$name/expected.out is missing"
        continue
    fi
    work="$SCRATCH/run-$name"
    mkdir -p "$work"
    # Copy the whole sample (INCLUDE files, input data) and work in the copy:
    # programs such as jacobi write files into the current directory.
    cp -R "$d"/. "$work"/
    args=()
    for s in "${srcs[@]}"; do
        case $s in
            *.f90 | *.F90) args+=(-ffree-form "$(basename "$s")") ;;
            *) args+=(-ffixed-form "$(basename "$s")") ;;
        esac
    done
    if ! (cd "$work" && gfortran -O2 -o prog "${args[@]}") \
        >"$work/compile.log" 2>&1 </dev/null; then
        fail "$check" "gfortran -O2 ${args[*]} failed" "$work/compile.log"
        continue
    fi
    (cd "$work" && timeout "$TIMEOUT" ./prog) \
        >"$work/stdout" 2>"$work/stderr" </dev/null
    rc=$?
    if [ "$rc" -ne 0 ]; then
        fail "$check" "program exited with status $rc" "$work/stderr"
    elif ! cmp -s "$work/stdout" "$d/expected.out"; then
        diff -u "$d/expected.out" "$work/stdout" >"$work/diff" 2>&1
        fail "$check" "stdout differs from samples/$name/expected.out" "$work/diff"
    else
        pass "$check ($(wc -l <"$d/expected.out") lines of output identical)"
    fi
    rm -rf "$work"   # jacobi leaves a 68 MB JAC.DAT
done

# ------------------------------------------ (b) sapfor analyze on the samples
echo "== (b) sapfor analyze succeeds on every sample, --json is valid"
for d in "${SAMPLES[@]}"; do
    name=$(basename "$d")
    mapfile -t srcs < <(sample_sources "$d")
    [ "${#srcs[@]}" -gt 0 ] || continue
    rel=()
    for s in "${srcs[@]}"; do rel+=("${s#"$ROOT"/}"); done
    o="$SCRATCH/analyze-$name"

    check="sapfor analyze samples/$name"
    run_cap "$o.out" "$o.err" "$BIN" analyze "${NODB[@]}" "${rel[@]}"
    if has_panic "$o.out" "$o.err"; then
        fail "$check" "panicked (exit $RC)" "$o.err"
    elif [ "$RC" -ne 0 ]; then
        fail "$check" "exit status $RC, expected 0" "$o.err" "$o.out"
    elif ! grep -q ': loop ' "$o.out"; then
        fail "$check" "no loop lines in the output" "$o.out"
    else
        pass "$check ($(grep -c ': loop ' "$o.out") loops)"
    fi

    check="sapfor analyze --json samples/$name"
    run_cap "$o.json" "$o.jerr" "$BIN" analyze "${NODB[@]}" --json "${rel[@]}"
    if has_panic "$o.json" "$o.jerr"; then
        fail "$check" "panicked (exit $RC)" "$o.jerr"
        continue
    elif [ "$RC" -ne 0 ]; then
        fail "$check" "exit status $RC, expected 0" "$o.jerr"
        continue
    fi
    if ! python3 -c 'import json,sys; json.load(sys.stdin)' <"$o.json" \
        >"$o.pyerr" 2>&1; then
        fail "$check" "output is not valid JSON" "$o.pyerr" "$o.json"
        continue
    fi
    # "version": 1, and a unit for every PROGRAM/SUBROUTINE/FUNCTION in the
    # sources (names compared case-insensitively).
    if python3 - "$o.json" "${srcs[@]}" >"$o.pyerr" 2>&1 <<'PY'; then
import json, re, sys
doc = json.load(open(sys.argv[1]))
problems = []
if doc.get("version") != 1:
    problems.append('"version" is %r, expected 1' % (doc.get("version"),))
units = doc.get("units")
got = set()
if not isinstance(units, list):
    problems.append('"units" is missing or not a list')
else:
    got = {str(u.get("name", "")).lower() for u in units if isinstance(u, dict)}
head = re.compile(
    r"^\s*(?:(?:recursive|pure|elemental|integer|real|logical|complex|"
    r"character|double\s*precision)[\w*()]*\s+)*"
    r"(program|subroutine|function)\s+([a-z_]\w*)", re.I)
want = []
for path in sys.argv[2:]:
    fixed = not path.lower().endswith((".f90",))
    for line in open(path, errors="replace"):
        if fixed and line[:1] in "cC*!":
            continue
        if fixed:
            line = line[6:72] if len(line) > 6 else ""
        m = head.match(line.split("!")[0])
        if m:
            want.append(m.group(2).lower())
if not want:
    problems.append("no program units found in the sources (test bug?)")
missing = [n for n in want if n not in got]
if missing:
    problems.append("units missing from the JSON: %s (JSON has: %s)"
                    % (", ".join(missing), ", ".join(sorted(got))))
if problems:
    print("\n".join(problems))
    sys.exit(1)
print(", ".join(want))
PY
        pass "$check (version 1, units: $(cat "$o.pyerr"))"
    else
        fail "$check" "JSON content is wrong" "$o.pyerr"
    fi
done

for what in cfg loops deps; do
    check="sapfor analyze --dump $what samples/jacobi/jac.f"
    o="$SCRATCH/dump-$what"
    run_cap "$o.out" "$o.err" "$BIN" analyze "${NODB[@]}" --dump "$what" \
        samples/jacobi/jac.f
    if has_panic "$o.out" "$o.err"; then
        fail "$check" "panicked (exit $RC)" "$o.err"
    elif [ "$RC" -ne 0 ]; then
        fail "$check" "exit status $RC, expected 0" "$o.err"
    elif [ ! -s "$o.out" ]; then
        fail "$check" "printed nothing"
    else
        pass "$check ($(wc -l <"$o.out") lines)"
    fi
done

# ---------------------------------------------- (c) the Jacobi verdicts
echo "== (c) verdicts on the Jacobi sample"
o="$SCRATCH/jac"
run_cap "$o.out" "$o.err" "$BIN" analyze "${NODB[@]}" samples/jacobi/jac.f
for want in \
    'jac.f:18: loop J (depth 2): parallel, reduction(max:EPS)' \
    'jac.f:16: loop IT (depth 1): sequential'; do
    check="jacobi output has '$want'"
    if grep -qF -- "$want" "$o.out"; then
        pass "$check"
    else
        fail "$check" "line not found (exit $RC); output was:" "$o.out" "$o.err"
    fi
done

# A report served from the project database must equal a fresh one.
if [ "${#NODB[@]}" -gt 0 ]; then
    db="$SCRATCH/cache.db"
    for fmt in human json; do
        flag=()
        [ "$fmt" = json ] && flag=(--json)
        check="project database: cached $fmt report of samples/legacy equals a fresh one"
        o="$SCRATCH/db-$fmt"
        run_cap "$o.0" "$o.0e" "$BIN" analyze --no-db "${flag[@]}" samples/legacy/legacy.f
        run_cap "$o.1" "$o.1e" "$BIN" analyze --db "$db" "${flag[@]}" samples/legacy/legacy.f
        rc1=$RC
        run_cap "$o.2" "$o.2e" "$BIN" analyze --db "$db" "${flag[@]}" samples/legacy/legacy.f
        rc2=$RC
        if has_panic "$o.1e" "$o.2e"; then
            fail "$check" "panicked" "$o.1e" "$o.2e"
        elif [ "$rc1" -ne 0 ] || [ "$rc2" -ne 0 ]; then
            fail "$check" "exit status $rc1 (first run), $rc2 (second run)" "$o.1e" "$o.2e"
        elif ! cmp -s "$o.0" "$o.1"; then
            diff -u "$o.0" "$o.1" >"$o.diff"
            fail "$check" "first run with --db differs from --no-db" "$o.diff"
        elif ! cmp -s "$o.1" "$o.2"; then
            diff -u "$o.1" "$o.2" >"$o.diff"
            fail "$check" "second (cached) run differs from the first" "$o.diff"
        else
            pass "$check"
        fi
    done
fi

# ------------------------------------------------------ (d) bad input
echo "== (d) bad input: clear message, non-zero exit, no panic"
bad="$SCRATCH/bad"
mkdir -p "$bad"

# expect_error NAME EXPECTED_RC("nonzero" or a number) CMD... ; then the
# patterns the combined output must contain are in the array WANT.
expect_error() {
    local name=$1 want_rc=$2
    shift 2
    local o="$SCRATCH/err-$(printf '%s' "$name" | tr -c 'a-zA-Z0-9' '_')"
    (cd "$bad" && timeout "$TIMEOUT" "$@") >"$o.out" 2>"$o.err" </dev/null
    local rc=$? p
    cat "$o.out" "$o.err" >"$o.all"
    if has_panic "$o.all"; then
        fail "$name" "panicked (exit $rc)" "$o.all"
        return
    fi
    if [ "$rc" -eq 124 ]; then
        fail "$name" "timed out after ${TIMEOUT}s"
        return
    fi
    if [ "$want_rc" = nonzero ]; then
        if [ "$rc" -eq 0 ]; then
            fail "$name" "exit status 0, expected non-zero" "$o.all"
            return
        fi
    elif [ "$rc" -ne "$want_rc" ]; then
        fail "$name" "exit status $rc, expected $want_rc" "$o.all"
        return
    fi
    for p in "${WANT[@]}"; do
        if ! grep -qF -- "$p" "$o.all"; then
            fail "$name" "message does not contain '$p' (exit $rc); output was:" "$o.all"
            return
        fi
    done
    pass "$name (exit $rc: $(head -n1 "$o.all"))"
}

WANT=(nosuchfile.f)
expect_error "missing file" nonzero "$BIN" analyze nosuchfile.f

cat >"$bad/syntax.f" <<'EOF'
      PROGRAM SYNERR
      REAL X
      X = (1 +
      PRINT *, X
      END
EOF
WANT=(error syntax.f:3)
expect_error "syntax error in fixed form (syntax.f line 3)" nonzero \
    "$BIN" analyze syntax.f

cat >"$bad/syntax.f90" <<'EOF'
program synerr
  real :: x
  x = 2.0
  x = (1 + * x
  print *, x
end program synerr
EOF
WANT=(error syntax.f90:4)
expect_error "syntax error in free form (syntax.f90 line 4)" nonzero \
    "$BIN" analyze syntax.f90

cat >"$bad/incl.f" <<'EOF'
      PROGRAM INCL
      INTEGER N
      INCLUDE 'nothere.inc'
      N = 1
      PRINT *, N
      END
EOF
WANT=(nothere.inc incl.f:3)
expect_error "missing INCLUDE file (incl.f line 3)" nonzero \
    "$BIN" analyze incl.f

# A found INCLUDE through -I must work (the contrast to the check above).
mkdir -p "$bad/incdir"
printf '      INTEGER NN\n      PARAMETER (NN = 10)\n' >"$bad/incdir/sizes.inc"
cat >"$bad/withinc.f" <<'EOF'
      PROGRAM WINC
      INCLUDE 'sizes.inc'
      REAL A(NN)
      DO 10 I = 1, NN
         A(I) = I
   10 CONTINUE
      PRINT *, A(NN)
      END
EOF
check="INCLUDE found through -I"  # runs in the scratch dir: any db lands there
o="$SCRATCH/withinc"
(cd "$bad" && timeout "$TIMEOUT" "$BIN" analyze -I incdir withinc.f) \
    >"$o.out" 2>"$o.err" </dev/null
rc=$?
if has_panic "$o.out" "$o.err"; then
    fail "$check" "panicked (exit $rc)" "$o.err"
elif [ "$rc" -ne 0 ]; then
    fail "$check" "exit status $rc, expected 0" "$o.err" "$o.out"
elif ! grep -qF 'withinc.f:4: loop I (depth 1): parallel' "$o.out"; then
    fail "$check" "expected 'withinc.f:4: loop I (depth 1): parallel'" "$o.out"
else
    pass "$check"
fi

WANT=(--no-such-option)
expect_error "unknown option (clap error, exit 2)" 2 \
    "$BIN" analyze --no-such-option x.f

WANT=()
expect_error "no input files (usage error)" 2 "$BIN" analyze

# Garbage: any exit status is acceptable, a panic, a hang or a crash is not.
# Deterministic (seeded) inputs so that a failure can be reproduced, plus one
# from /dev/urandom that is kept next to the report when it fails.
garbage_check() {
    local name=$1 file=$2 o="$SCRATCH/garbage"
    (cd "$bad" && timeout "$TIMEOUT" "$BIN" analyze "$file") \
        >"$o.out" 2>"$o.err" </dev/null
    local rc=$?
    cat "$o.out" "$o.err" >"$o.all"
    if has_panic "$o.all"; then
        fail "$name" "panicked (exit $rc)" "$o.all"
        return 1
    elif [ "$rc" -eq 124 ]; then
        fail "$name" "timed out after ${TIMEOUT}s"
        return 1
    elif [ "$rc" -gt 2 ]; then
        fail "$name" "exit status $rc (crash or signal?)" "$o.all"
        return 1
    fi
    pass "$name (exit $rc)"
}

python3 - "$bad" <<'PY'
import random, sys
d = sys.argv[1]
for seed in (1, 2, 3):
    r = random.Random(seed)
    open("%s/garbage%d.f" % (d, seed), "wb").write(
        bytes(r.randrange(256) for _ in range(2000)))
# Valid UTF-8 text made of Fortran tokens in random order.
toks = ["PROGRAM", "END", "DO", "10", "I", "=", "1", ",", "N", "(", ")", "IF",
        "THEN", "ELSE", "ENDIF", "ENDDO", "CALL", "A(I,J)", "+", "*", "'",
        "\"", "&", "!", "C", "INCLUDE", "'x.inc'", "GOTO", "CONTINUE", ".EQ.",
        "FUNCTION", "SUBROUTINE", "COMMON", "/B/", "\n", "\n      ", "\t", "é"]
for seed in (1, 2):
    r = random.Random(seed)
    for ext in ("f", "f90"):
        open("%s/tokens%d.%s" % (d, seed, ext), "w", encoding="utf-8").write(
            " ".join(r.choice(toks) for _ in range(600)))
PY
for f in garbage1.f garbage2.f garbage3.f tokens1.f tokens1.f90 tokens2.f tokens2.f90; do
    garbage_check "garbage input $f (seeded)" "$f"
done
head -c 2000 /dev/urandom >"$bad/urandom.f"
if ! garbage_check "garbage input from /dev/urandom" urandom.f; then
    keep="${TMPDIR:-/tmp}/sapfor-e2e-urandom-$$.f"
    cp "$bad/urandom.f" "$keep" && echo "      input kept for reproduction: $keep"
fi
: >"$bad/empty.f"
garbage_check "empty file" empty.f

# ------------------------------- (z) DVMH output of a large generated program
echo "== (z) --auto (DVMH) on a generated 3000-line F77 program: checked, compiles, same output"
big="${TMPDIR:-/tmp}/sapfor-e2e-big-$$"
mkdir -p "$big"
check="DVMH program of a generated 3000-line program"
if ! python3 bench/gen_big.py --seed 7 3000 "$big/big.f" >/dev/null 2>"$big/gen.log"; then
    fail "$check" "bench/gen_big.py failed" "$big/gen.log"
elif ! (cd "$big" && timeout "$TIMEOUT" "$BIN" --auto big.f --no-db --procs 16) >"$big/auto.log" 2>&1 </dev/null; then
    fail "$check" "sapfor --auto failed (the actuality checker runs inside)" "$big/auto.log"
elif ! grep -q 'REGION' "$big/big.fdv"; then
    fail "$check" "no REGION in the output" "$big/big.fdv"
elif ! "$BIN" verify "$big/big.fdv" >"$big/verify.log" 2>&1; then
    fail "$check" "sapfor verify rejects the output" "$big/verify.log"
elif ! (cd "$big" && gfortran -O0 -w -x f77 big.f -o seq && gfortran -O0 -w -x f77 big.fdv -o par) >"$big/cc.log" 2>&1; then
    fail "$check" "gfortran failed" "$big/cc.log"
elif ! (cd "$big" && timeout "$TIMEOUT" ./seq >seq.out 2>&1 && timeout "$TIMEOUT" ./par >par.out 2>&1 && cmp -s seq.out par.out); then
    fail "$check" "the DVMH program prints something else (or failed)" "$big/par.out"
else
    pass "$check ($(grep -c 'DVM\$ REGION' "$big/big.fdv") regions, $(grep -c 'ACTUAL' "$big/big.fdv") actualizations, same output)"
fi
rm -rf "$big"

# ------------------------- (r) sapfor run: the golden .fdv files on 2 processes
# (cargo test -p shell-gui --test run covers 1/2/4 processes and threads; this is
# the command line as a user types it, in a directory of their own)
for fdv in gauss_seidel reductions heat3d; do
    check="sapfor run --np 2 shell-gui/tests/golden/$fdv.fdv"
    w="$SCRATCH/run-$fdv"
    mkdir -p "$w"
    (cd "$w" && timeout "$TIMEOUT" "$BIN" run "$ROOT/shell-gui/tests/golden/$fdv.fdv" --np 2) \
        >"$w/out" 2>"$w/err" </dev/null
    rc=$?
    if [ "$rc" -ne 0 ]; then
        fail "$check" "exit status $rc" "$w/err"
    elif ! cmp -s "$w/out" "samples/$fdv/expected.out"; then
        diff "samples/$fdv/expected.out" "$w/out" >"$w/diff"
        fail "$check" "stdout differs from samples/$fdv/expected.out" "$w/diff"
    else
        pass "$check (output identical to the sequential program)"
    fi
done
for f in garbage1.f tokens1.f90 empty.f; do
    check="sapfor build on garbage input $f"
    (cd "$bad" && timeout "$TIMEOUT" "$BIN" build "$f" -o "$SCRATCH/garbage.exe") \
        >"$SCRATCH/gb.out" 2>"$SCRATCH/gb.err" </dev/null
    rc=$?
    if has_panic "$SCRATCH/gb.err"; then
        fail "$check" "panicked (exit $rc)" "$SCRATCH/gb.err"
    elif [ "$rc" -gt 2 ]; then
        fail "$check" "exit status $rc" "$SCRATCH/gb.err"
    else
        pass "$check (exit $rc)"
    fi
done

# ------------------------------------------------------------------ result
echo
if [ "$FAILED" -gt 0 ]; then
    echo "failed checks:"
    for n in "${FAILED_NAMES[@]}"; do echo "  - $n"; done
fi
echo "e2e: $PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
