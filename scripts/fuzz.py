#!/usr/bin/env python3
"""Differential fuzzer: random sequential Fortran programs against their parallel versions.

    scripts/fuzz.py [--count N] [--seed S] [--jobs J] [--out DIR] [--quick] [--no-reduce]
    scripts/fuzz.py --reduce prog.f --config "dvmh --np 2"     # reduce one failing program

Each program (scripts/fuzz_gen.py, seed S, S+1, ...) is built by gfortran with bounds
checking: that is the oracle. It then goes through `sapfor --auto` for both targets (dvmh, dvm;
dvmh with a machine file where starting a loop's threads costs nothing, so that every
parallel loop on replicated data runs on threads, however short) then `sapfor verify` (sapfor's own check must accept what it wrote), and `sapfor run` in
several configurations (processes and grids, threads, iteration orders,
the emulated accelerator with shuffled threads). One distributed variant `--auto` did not
choose is also generated (`sapfor generate --scheme`) and run on 2 processes and on one:
every stored scheme must be a correct program. Every output must equal the oracle's.

Outcomes per program: ok, wrong (some configuration printed something else), failed (sapfor
crashed, timed out, or a run failed without a message saying what is not supported), refused
(sapfor declined with a message: counted and listed by reason, never silently skipped), and
invalid (the generated program itself does not run: a generator defect, listed too). A run
that fails and then passes when repeated is counted as a flaky run and listed; its messages
and the program are kept in --out/flaky/.

A wrong or failed program is reduced by deleting statements (whole loops, then single lines)
while it still fails the same way; the original and the reduced program are written to
--out (default fuzz-out/), ready to become a regression fixture.

Environment: SAPFOR (the binary; default target/debug/sapfor under CARGO_TARGET_DIR), and
SAPFOR_CACHE is set to a directory under --out so runs share one build cache, and
SAPFOR_TEAM_MIN to 0 (unless set), so that threaded configurations run every loop on threads.
"""

import argparse
import concurrent.futures as cf
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import fuzz_gen  # noqa: E402

TIMEOUT = 60

# (target, sapfor run arguments). The first configuration of each target is the cheapest.
FULL = [
    ("dvmh", ["--np", "1"]),
    ("dvmh", ["--np", "2"]),
    ("dvmh", ["--np", "4"]),
    ("dvmh", ["--np", "4", "--grid", "1x4"]),
    ("dvmh", ["--np", "1", "--threads", "2"]),
    ("dvmh", ["--np", "1", "--order", "reverse"]),
    ("dvmh", ["--np", "2", "--order", "shuffle=7"]),
    ("dvmh", ["--devices", "emu", "--order", "shuffle=3"]),
    ("dvmh", ["--devices", "emu", "--np", "2"]),
    # regions split between the host and the accelerator
    ("dvmh", ["--devices", "host,emu", "--weights", "1,3"]),
    ("dvm", ["--np", "2"]),
    ("dvm", ["--np", "4", "--threads", "2"]),
    ("dvm", ["--np", "1", "--order", "shuffle=11"]),
]
QUICK = [
    ("dvmh", ["--np", "2", "--order", "reverse"]),
    ("dvmh", ["--np", "1", "--threads", "2", "--order", "shuffle=5"]),
    ("dvmh", ["--devices", "emu", "--order", "shuffle=3"]),
    ("dvm", ["--np", "4"]),
]


def sapfor_bin():
    if os.environ.get("SAPFOR"):
        return os.environ["SAPFOR"]
    target = os.environ.get("CARGO_TARGET_DIR") or str(ROOT / "target")
    return str(Path(target) / "debug" / "sapfor")


def run(cmd, cwd, env=None, timeout=TIMEOUT):
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=timeout)
        return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return 124, "", f"timed out after {timeout} s"


def oracle(src: Path, work: Path, init=None):
    """(ok, stdout or the reason it is invalid). With `init`, local variables start with
    that integer value (gfortran -finit-integer) instead of whatever the stack holds."""
    exe = work / "oracle"
    form = "f77" if src.suffix == ".f" else "f95"
    flags = [f"-finit-integer={init}", "-finit-local-zero"] if init is not None else []
    rc, _, err = run(["gfortran", "-O0", "-w", "-fcheck=bounds", *flags, "-x", form, str(src), "-o", str(exe)],
                     work)
    if rc != 0:
        return False, "does not compile: " + first_error(err)
    rc, out, err = run([str(exe)], work)
    if rc != 0:
        return False, "does not run: " + first_error(err)
    return True, out


def defined_oracle(src: Path, work: Path):
    """The oracle of a program that reads no variable before giving it a value: built with
    two different initial values for local variables, it must print the same both times
    (deleting statements while reducing easily makes a program read garbage, whose parallel
    version then differs for no fault of sapfor's)."""
    ok, want = oracle(src, work, init=-7)
    if not ok:
        return ok, want
    ok, again = oracle(src, work, init=12345)
    if not ok or again != want:
        return False, "reads a variable before it is defined"
    return True, want


def signature(problem) -> str:
    """What a reduced program must still show: a wrong output, or the same failure."""
    kind, _, detail = problem
    return kind if kind == "wrong" else f"{kind}: {reason_key(detail)}"


def first_error(err: str) -> str:
    lines = err.splitlines()
    for line in lines:
        # a Fortran program's crash: the signal, not gfortran's "Backtrace for this error:"
        if "Program received signal" in line:
            return line.strip()[:200]
    for i, line in enumerate(lines):
        if "panicked at" in line:
            # the panic's place and its message (the next line)
            msg = lines[i + 1].strip() if i + 1 < len(lines) else ""
            return (line.strip()[line.strip().find("panicked"):] + " " + msg)[:200]
    for line in lines:
        s = line.strip()
        if s and ("rror" in s or "sapfor" in s or "not supported" in s or "cannot" in s):
            return s[:200]
    lines = [x.strip() for x in err.splitlines() if x.strip()]
    return lines[0][:200] if lines else "(no message)"


def reason_key(msg: str) -> str:
    """A refusal message without file names, lines and numbers, for counting by reason."""
    m = re.sub(r"\S+\.(f|f90|fdv)(:\d+)*:?", "", msg)
    m = re.sub(r"\d+", "N", m)
    return m.strip()[:140]


def classify_failure(rc: int, err: str) -> str:
    if rc == 124 or "panicked" in err or "timed out" in err:
        return "failed"
    # (`--grid 1x4` for a program whose distributions use one axis: the runtime says the grid
    # does not fit, as it must)
    if re.search(r"not supported|cannot be|is not allowed|must be|refus|unsupported|use fewer processes|does not fit", err):
        return "refused"
    return "failed"


def cheap_threads(work: Path) -> Path:
    """A machine file where starting a loop's threads costs (almost) nothing."""
    p = work / "threads.toml"
    if not p.exists():
        p.write_text("loop_overhead_us = 0.001\n")
    return p


def check(src: Path, work: Path, want: str, configs, env, stop_first=False):
    """Run every configuration. Returns (runs, problems) where a problem is
    (kind, config text, detail)."""
    sap = sapfor_bin()
    problems = []
    runs = 0
    for target in sorted({t for t, _ in configs}):
        fdv = f"{src.stem}.{target}.fdv"
        # (dvmh: a machine whose loops start their threads at no cost, so that every parallel
        # loop on replicated data keeps PARALLEL without ON, the loops parallel under run-time
        # tests included, and runs on threads)
        machine = ["--machine", str(cheap_threads(work))] if target == "dvmh" else []
        rc, _, err = run([sap, "--auto", src.name, "--no-db", "--target", target, "-o", fdv] + machine, work, env)
        if rc != 0:
            problems.append((classify_failure(rc, err), f"{target} --auto", first_error(err)))
            continue
        # sapfor's own check of what it wrote: every PARALLEL tuple agrees with the analysis
        # and the data movement is complete
        rc, out, err = run([sap, "verify", fdv], work, env)
        if rc != 0:
            problems.append(("failed", f"{target} verify", first_error(out + err)))
        for t, args in configs:
            if t != target:
                continue
            runs += 1
            rc, out, err = run([sap, "run", fdv] + args, work, env)
            cfg = f"{target} " + " ".join(args)
            if rc != 0 and classify_failure(rc, err) == "failed":
                # once more: a failure that does not come back (an MPI start-up error seen
                # under load) is counted as flaky and listed, not hidden
                rc2, out2, err2 = run([sap, "run", fdv] + args, work, env)
                if rc2 == 0 and out2 == want:
                    problems.append(("flaky", cfg, first_error(err)))
                    # the whole message, kept beside the fuzzer's output (a crash that does
                    # not come back is still a defect to find)
                    keep = work.parent.parent / "flaky"
                    keep.mkdir(exist_ok=True)
                    (keep / f"{work.name}-{cfg.replace(' ', '_')}.err").write_text(err)
                    shutil.copy(src, keep / f"{work.name}{src.suffix}")
                    continue
            if rc != 0:
                problems.append((classify_failure(rc, err), cfg, first_error(err)))
            elif out != want:
                problems.append(("wrong", cfg, diff_line(want, out)))
            if stop_first and problems and problems[-1][0] in ("wrong", "failed"):
                return runs, problems
    if any(t == "dvmh" for t, _ in configs) and not (stop_first and problems):
        runs += other_variant(src, work, want, env, problems)
    return runs, problems


def other_variant(src: Path, work: Path, want: str, env, problems) -> int:
    """`--auto` runs only the scheme it chooses: also generate one other distributed variant
    (picked by the program's name) and run it on 2 processes and on one (where one process
    holds every array whole, loops over full copies run on the arrays themselves). Every
    scheme sapfor stores must be a correct program."""
    import json
    sap = sapfor_bin()
    db = f"{src.stem}.variants.db"
    rc, _, err = run([sap, "--auto", src.name, "--db", db, "--target", "dvmh", "-o", f"{src.stem}.chosen.fdv"], work, env)
    if rc != 0:
        return 0  # said by the --auto of check()
    rc, out, _ = run([sap, "schemes", "--db", db, "--json"], work, env)
    try:
        entries = json.loads(out) if rc == 0 else []
    except ValueError:
        entries = []
    ids = [e["id"] for e in entries if "id" in e and not e["scheme"].get("chosen") and e["scheme"].get("name") != "replicated"]
    if not ids:
        return 0
    pick = ids[sum(map(ord, src.stem)) % len(ids)]
    fdv = f"{src.stem}.variant{pick}.fdv"
    rc, _, err = run([sap, "generate", "--scheme", str(pick), "--db", db, "-o", fdv], work, env)
    if rc != 0:
        problems.append((classify_failure(rc, err), f"dvmh variant {pick}", first_error(err)))
        return 0
    for np in ["2", "1"]:
        cfg = f"dvmh variant {pick} --np {np}"
        rc, out, err = run([sap, "run", fdv, "--np", np], work, env)
        if rc != 0:
            problems.append((classify_failure(rc, err), cfg, first_error(err)))
        elif out != want:
            problems.append(("wrong", cfg, diff_line(want, out)))
    return 2


def diff_line(want: str, got: str) -> str:
    a, b = want.splitlines(), got.splitlines()
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else "<none>"
        y = b[i] if i < len(b) else "<none>"
        if x != y:
            return f"line {i + 1}: want `{x.strip()}` got `{y.strip()}`"
    return "differs"


def one(seed: int, configs, out_dir: Path, env, reduce: bool):
    text, form = fuzz_gen.generate(seed)
    work = Path(tempfile.mkdtemp(prefix=f"fz{seed}-", dir=out_dir / "work"))
    src = work / (f"fz{seed}.f" if form == "fixed" else f"fz{seed}.f90")
    src.write_text(text)
    ok, want = oracle(src, work)
    if not ok:
        shutil.copy(src, out_dir / "invalid" / src.name)
        shutil.rmtree(work, ignore_errors=True)
        return seed, 0, [("invalid", "gfortran", want)], None
    runs, problems = check(src, work, want, configs, env)
    reduced = None
    bad = [p for p in problems if p[0] in ("wrong", "failed")]
    if bad:
        shutil.copy(src, out_dir / src.name)
        if reduce:
            _, cfg, _ = bad[0]
            target, *args = cfg.split()
            if args and args[0] == "--auto":
                args = []
            if args and args[0] == "variant":
                # the reduced program's variants differ: reduce against the chosen scheme's
                # runs and the variant check (check() runs both)
                args = args[2:] or ["--np", "2"]
            cfgs = [(target, args)] if args else [(target, ["--np", "1"])]
            red = reduce_program(src, work, cfgs, signature(bad[0]), env)
            reduced = out_dir / f"{src.stem}.reduced{src.suffix}"
            reduced.write_text(red)
    shutil.rmtree(work, ignore_errors=True)
    return seed, runs, problems, reduced


def still_fails(text: str, suffix: str, configs, sig: str, env, base: Path) -> bool:
    work = Path(tempfile.mkdtemp(prefix="red-", dir=base))
    try:
        src = work / f"r{suffix}"
        src.write_text(text)
        ok, want = defined_oracle(src, work)
        if not ok:
            return False
        _, problems = check(src, work, want, configs, env, stop_first=True)
        return any(signature(p) == sig for p in problems)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def blocks(lines):
    """Candidate deletions: whole DO ... END DO / labelled-DO ... label, IF ... END IF
    blocks (largest first), then single statement lines."""
    out = []
    stack = []
    for i, l in enumerate(lines):
        s = l[6:].strip().lower() if not l.startswith(("\t", " " * 2)) or len(l) > 6 else l.strip().lower()
        s = l.strip().lower()
        s = re.sub(r"^\d+\s+", "", s)
        if re.match(r"do\b", s) or re.match(r"if\s*\(.*\)\s*then$", s):
            lab = re.match(r"do\s+(\d+)", s)
            stack.append((i, lab.group(1) if lab else None))
        elif (re.match(r"end\s*do\b", s) or re.match(r"end\s*if\b", s)) and stack:
            j, _ = stack.pop()
            out.append((j, i))
        else:
            m = re.match(r"^(\d+)\s+continue", l.strip().lower())
            if m and stack and stack[-1][1] == m.group(1):
                j, _ = stack.pop()
                out.append((j, i))
    # whole procedures and BLOCK DATA units (never the main program)
    unit = None
    for i, l in enumerate(lines):
        s = l.strip().lower()
        if re.match(r"(integer\s+|double precision\s+|real\s+)?(subroutine|function)\b|block\s*data\b", s):
            unit = i
        elif unit is not None and re.match(r"end(\s*(subroutine|function|block\s*data)\b.*)?$", s):
            out.append((unit, i))
            unit = None
    out.sort(key=lambda ab: ab[0] - ab[1])
    return out


def removable(line: str) -> bool:
    s = line.strip().lower()
    if not s or s.startswith(("c ", "!")) or s == "c":
        return False
    s = re.sub(r"^[&\d\s]+", "", s)
    keep = ("program", "end", "integer", "parameter", "common", "subroutine", "block data", "data ",
            "equivalence", "function")
    return not s.startswith(keep) or s.startswith(("end do", "enddo", "end if", "endif"))


def reduce_program(src: Path, work: Path, configs, sig: str, env) -> str:
    """Delete blocks, then lines, while the program still fails with signature `sig`."""
    lines = src.read_text().splitlines()
    suffix = src.suffix
    base = work
    changed = True
    while changed:
        changed = False
        for a, b in blocks(lines):
            if b >= len(lines):
                continue
            cand = lines[:a] + lines[b + 1:]
            if still_fails("\n".join(cand) + "\n", suffix, configs, sig, env, base):
                lines = cand
                changed = True
                break
        if changed:
            continue
        for i in range(len(lines)):
            if not removable(lines[i]) or lines[i].strip().lower().startswith(("end do", "enddo", "end if", "endif")):
                continue
            # a continuation line goes with its statement
            j = i + 1
            while j < len(lines) and lines[j].startswith("     &"):
                j += 1
            cand = lines[:i] + lines[j:]
            if still_fails("\n".join(cand) + "\n", suffix, configs, sig, env, base):
                lines = cand
                changed = True
                break
    return "\n".join(lines) + "\n"


def bar(done, total, width=30):
    k = int(width * done / max(total, 1))
    return "[" + "=" * k + " " * (width - k) + "]"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--out", default="fuzz-out")
    ap.add_argument("--quick", action="store_true", help="fewer configurations per program (CI)")
    ap.add_argument("--no-reduce", action="store_true")
    ap.add_argument("--reduce", metavar="PROG", help="reduce one program failing in --config")
    ap.add_argument("--config", help='with --reduce: e.g. "dvmh --np 2 --order reverse"')
    a = ap.parse_args()

    out_dir = Path(a.out).resolve()
    for d in ("work", "invalid"):
        (out_dir / d).mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.setdefault("SAPFOR_CACHE", str(out_dir / "cache"))
    # every loop of a threaded configuration starts its threads, however little work it
    # has (the fuzzer's programs are small: the runtime would run most of them on one
    # thread, the pipelines of ACROSS loops between threads included)
    env.setdefault("SAPFOR_TEAM_MIN", "0")
    # and time loops run in blocks of steps wherever they may (on one process the runtime
    # keeps arrays that fit in the cache, all of the fuzzer's, in the steps' order)
    env.setdefault("SAPFOR_SKEW_CACHE", "0")
    if not Path(sapfor_bin()).is_file():
        sys.exit(f"fuzz: no sapfor binary at {sapfor_bin()} (cargo build -p shell-gui -p sapfor-rt, or set SAPFOR)")

    if a.reduce:
        target, *args = (a.config or "dvmh --np 1").split()
        src = Path(a.reduce).resolve()
        work = Path(tempfile.mkdtemp(dir=out_dir / "work"))
        shutil.copy(src, work / src.name)
        ok, want = oracle(work / src.name, work)
        if not ok:
            sys.exit(f"fuzz: {src} is not a valid program: {want}")
        _, problems = check(work / src.name, work, want, [(target, args)], env)
        bad = [p for p in problems if p[0] in ("wrong", "failed")]
        if not bad:
            sys.exit(f"fuzz: {src} does not fail in `{a.config}`")
        text = reduce_program(work / src.name, work, [(target, args)], signature(bad[0]), env)
        sys.stdout.write(text)
        return

    configs = QUICK if a.quick else FULL
    seeds = list(range(a.seed, a.seed + a.count))
    t0 = time.time()
    totals = {"tried": 0, "runs": 0, "ok": 0, "wrong": 0, "failed": 0, "refused": 0, "invalid": 0,
              "flaky": 0}
    flaky = []
    refused = {}
    bad_list = []
    tty = sys.stderr.isatty()
    with cf.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        futs = [ex.submit(one, s, configs, out_dir, env, not a.no_reduce) for s in seeds]
        for f in cf.as_completed(futs):
            seed, runs, problems, reduced = f.result()
            totals["tried"] += 1
            totals["runs"] += runs
            kinds = {p[0] for p in problems}
            if "invalid" in kinds:
                totals["invalid"] += 1
                bad_list.append(f"seed {seed}: invalid program: {problems[0][2]}")
            elif "wrong" in kinds or "failed" in kinds:
                k = "wrong" if "wrong" in kinds else "failed"
                totals[k] += 1
                for p in problems:
                    if p[0] in ("wrong", "failed"):
                        bad_list.append(f"seed {seed}: {p[0]} in `{p[1]}`: {p[2]}"
                                        + (f" (reduced: {reduced})" if reduced else ""))
                        break
            elif "refused" in kinds:
                totals["refused"] += 1
            else:
                totals["ok"] += 1
            for p in problems:
                if p[0] == "flaky":
                    totals["flaky"] += 1
                    flaky.append(f"seed {seed}: `{p[1]}` failed once, then passed: {p[2]}")
                if p[0] == "refused":
                    refused.setdefault(reason_key(p[2]), set()).add(seed)
            line = (f"{bar(totals['tried'], len(seeds))} {totals['tried']}/{len(seeds)} "
                    f"runs {totals['runs']} wrong {totals['wrong']} failed {totals['failed']} "
                    f"refused {totals['refused']} invalid {totals['invalid']}")
            if tty:
                sys.stderr.write("\r" + line)
            elif totals["tried"] % 10 == 0 or totals["tried"] == len(seeds):
                sys.stderr.write(line + "\n")
            sys.stderr.flush()
    if tty:
        sys.stderr.write("\n")
    dt = time.time() - t0
    print(f"fuzz: seeds {a.seed}..{a.seed + a.count - 1}, {'quick' if a.quick else 'full'} "
          f"configurations, {dt:.0f} s")
    print(f"fuzz: tried {totals['tried']}, runs {totals['runs']}, ok {totals['ok']}, "
          f"wrong {totals['wrong']}, failed {totals['failed']}, refused {totals['refused']}, "
          f"invalid {totals['invalid']}, flaky runs {totals['flaky']}")
    for f in flaky:
        print("fuzz: flaky: " + f)
    for reason, ss in sorted(refused.items(), key=lambda kv: -len(kv[1])):
        some = ", ".join(str(s) for s in sorted(ss)[:5])
        print(f"fuzz: refused {len(ss)}: {reason} (seeds {some}{', ...' if len(ss) > 5 else ''})")
    for b in sorted(bad_list):
        print("fuzz: " + b)
    shutil.rmtree(out_dir / "work", ignore_errors=True)
    sys.exit(1 if totals["wrong"] or totals["failed"] or totals["invalid"] else 0)


if __name__ == "__main__":
    main()
