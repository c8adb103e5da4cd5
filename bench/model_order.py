#!/usr/bin/env python3
"""Does the cost model order the variants as the machine does? (issue 18 item 2)

    bench/model_order.py [--np N] [--repeats R] [--machine FILE] [--out DIR] PROGRAM...

PROGRAM is one source file (`samples/jacobi/jac.f`; a Fortran-DVMH file such as
`bench/jac2d.fdv` without its directives) or `DIR:FILE FILE...` for a program of
several files run in DIR (an NPB benchmark: `/tmp/npb/NPB3.3-SER/CG:cg.f ../common/...`).
For each program: `sapfor --auto` with the machine description (MACHINE, or one measured
here by `sapfor calibrate --processes N` into OUT) estimates every variant for N
processes; `sapfor generate --scheme K` writes each; each runs `sapfor run --np N`
(the replicated one `--np 1`: the model counts no process start-up for it, it is what a
user runs on one process) R times (default 3) after one untimed run that builds it, and its median wall time (process
start-up included, as the model counts it) is set against the estimate. Every run's output must equal the first
variant's (numbers within 1e-9 relative): a variant that prints something else is
reported and left out.

Printed per program: each variant's estimate and measured median (min-max), the rank
correlation (Spearman's rho) of estimates and measurements, the share of variant pairs
the model orders as measured, and the chosen variant's time against the fastest measured.
All figures come from this run. SAPFOR (default `sapfor` on PATH) and SAPFOR_RT are passed
through the environment.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def ranks(xs):
    """Average ranks (1-based) with ties sharing the mean of their positions."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(a, b):
    """Spearman's rho: the Pearson correlation of the ranks (None below 3 values or when
    one side has a single distinct value)."""
    if len(a) < 3:
        return None
    ra, rb = ranks(a), ranks(b)
    ma, mb = statistics.mean(ra), statistics.mean(rb)
    num = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    den = (sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb)) ** 0.5
    return None if den == 0 else num / den


def concordant(a, b):
    """Share of pairs (i, j) whose order by `a` is their order by `b` (ties in `a` skipped)."""
    pairs = agree = 0
    for i in range(len(a)):
        for j in range(i + 1, len(a)):
            if a[i] == a[j]:
                continue
            pairs += 1
            agree += (a[i] < a[j]) == (b[i] < b[j])
    return None if pairs == 0 else agree / pairs


def same(a, b):
    """The same lines, numbers within 1e-9 relative (sums combine in another order on
    several processes)."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        wx, wy = x.split(), y.split()
        if len(wx) != len(wy):
            return False
        for u, v in zip(wx, wy):
            if u == v:
                continue
            try:
                fu, fv = float(u.replace("D", "E")), float(v.replace("D", "E"))
            except ValueError:
                return False
            if abs(fu - fv) > 1e-9 * max(abs(fu), abs(fv)):
                return False
    return True


def run(cmd, cwd, timeout=900):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("programs", nargs="+")
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--machine", default=os.environ.get("MACHINE"))
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    sapfor = os.environ.get("SAPFOR", "sapfor")
    out = Path(a.out or tempfile.mkdtemp(prefix="sapfor-model-order-")).resolve()
    out.mkdir(parents=True, exist_ok=True)
    if a.machine:
        machine = Path(a.machine).resolve()
    else:
        machine = out / "machine.toml"
        r = run([sapfor, "calibrate", "-o", str(machine), "--force", "--processes", str(a.np)], out)
        if r.returncode != 0:
            sys.exit(f"sapfor calibrate failed:\n{r.stderr}")
    print(f"machine: {machine} ({a.np} processes, medians of {a.repeats} runs)")
    summary = []
    for spec in a.programs:
        if ":" in spec:
            d, files = spec.split(":", 1)
            src_dir, files = Path(d).resolve(), files.split()
            name = Path(files[0]).stem
            work = out / name
            shutil.rmtree(work, ignore_errors=True)
            work.mkdir(parents=True)
        else:
            # a copy: the program may write files where it runs
            name = Path(spec).stem
            work = out / name
            shutil.rmtree(work, ignore_errors=True)
            (work / "src").mkdir(parents=True)
            src = Path(spec)
            if src.suffix == ".fdv":
                # a Fortran-DVMH program (bench/jac2d.fdv): its sequential program, the
                # directive lines left out, in the form its first line shows
                text = [l for l in src.read_text().splitlines(keepends=True)
                        if not l.lstrip().upper().startswith(("!DVM$", "CDVM$", "*DVM$"))]
                fixed = text and text[0][:1] in " cC*" and text[0].startswith("      ")
                dst = work / "src" / (src.stem + (".f" if fixed else ".f90"))
                dst.write_text("".join(text))
            else:
                dst = work / "src" / src.name
                shutil.copy(src, dst)
            src_dir, files = work / "src", [dst.name]
        db = work / "v.db"
        r = run([sapfor, "--auto", *files, "--db", str(db), "--out-dir", str(work / "auto"),
                 "--machine", str(machine), "--procs", str(a.np)], src_dir)
        if r.returncode != 0:
            print(f"{name}: --auto failed:\n{r.stderr}")
            continue
        schemes = json.loads(run([sapfor, "schemes", "--json", "--db", str(db)], src_dir).stdout)
        rows = []
        want = None
        for s in schemes:
            if "scheme" not in s:
                continue  # a rejected variant
            sc = s["scheme"]
            est = sc["cost_computation"] + sc["cost_communication"] + sc["cost_transfers"]
            vdir = work / f"v{s['id']}"
            g = run([sapfor, "generate", "--db", str(db), "--scheme", str(s["id"]), "--out-dir", str(vdir)], src_dir)
            if g.returncode != 0:
                print(f"{name}: generate #{s['id']} failed: {g.stderr.strip()}")
                continue
            fdvs = [str(vdir / (Path(f).stem + ".fdv")) if not f.endswith(".c") else str(src_dir / f) for f in files]
            times, bad = [], None
            # the first run builds the program (cached by `sapfor run`): not timed
            # the replicated variant is what a user runs on one process: the model counts no
            # process start-up for it
            np_ = 1 if sc["name"] == "replicated" else a.np
            for k in range(a.repeats + 1):
                t0 = time.perf_counter()
                x = run([sapfor, "run", *fdvs, "--np", str(np_)], src_dir)
                dt = time.perf_counter() - t0
                if x.returncode != 0:
                    bad = f"exit {x.returncode}: {x.stderr.strip()[-300:]}"
                    break
                # (lines with timings differ between runs: compare the rest)
                got = [l for l in x.stdout.splitlines() if "time" not in l.lower() and "mop/s" not in l.lower()]
                if want is None:
                    want = got
                elif not same(got, want):
                    bad = "prints other results than the first variant"
                    break
                if k > 0:
                    times.append(dt)
            if bad:
                print(f"{name}: variant #{s['id']} {sc['name']}: {bad}")
                continue
            rows.append((s["id"], sc["name"], sc["chosen"], est, statistics.median(times), min(times), max(times)))
        if not rows:
            continue
        print(f"\n{name} ({len(rows)} variants)")
        print(f"  {'id':>3} {'variant':<24} {'estimate s':>11} {'measured s':>11} {'(min-max)':>17}")
        for i, v, ch, est, med, lo, hi in sorted(rows, key=lambda r: r[3]):
            print(f"  {i:>3}{'*' if ch else ' '}{v:<24} {est:>11.4f} {med:>11.3f}   ({lo:.3f}-{hi:.3f})")
        ests = [r[3] for r in rows]
        meas = [r[4] for r in rows]
        rho = spearman(ests, meas)
        conc = concordant(ests, meas)
        chosen = next((r for r in rows if r[2]), None)
        best = min(meas)
        line = f"  rank correlation {'-' if rho is None else f'{rho:.2f}'}, pairs ordered alike {'-' if conc is None else f'{conc:.0%}'}"
        if chosen:
            line += f", chosen {chosen[1]} takes {chosen[4] / best:.2f} x the fastest measured"
        print(line)
        summary.append((name, len(rows), rho, conc, chosen[4] / best if chosen else None))
    if summary:
        print("\nprogram        variants  rho    pairs alike  chosen / fastest")
        for n, k, rho, conc, reg in summary:
            print(f"{n:<14} {k:>8}  {'-' if rho is None else f'{rho:5.2f}'}  {'-' if conc is None else f'{conc:>10.0%}'}  {'-' if reg is None else f'{reg:.2f}'}")


if __name__ == "__main__":
    main()
