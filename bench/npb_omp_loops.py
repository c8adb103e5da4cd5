#!/usr/bin/env python3
"""How many of the loops NPB3.3-OMP parallelizes by hand sapfor finds parallel (issue 17).

    bench/npb_omp_loops.py OMP_BENCH_DIR SER_BENCH_DIR ANALYZE_JSON [--list]

OMP_BENCH_DIR and SER_BENCH_DIR are one benchmark's directories of NPB3.3-OMP and NPB3.3-SER
(third-party code: fetch it into a scratch directory, never commit it); ANALYZE_JSON is
`sapfor analyze --json` of the SER version, run in SER_BENCH_DIR. Prints one line:

    found F/T (exact E, of those under run-time tests V, reductions R/Q)

T: the loops that follow an `!$omp do` or `!$omp parallel do` in the OMP sources (of the files
the SER program is built from, as analyzed) and could be matched to a loop of the SER sources (same DO statement and first body statement, the k-th
such pair in the OMP file taken as the k-th in the SER file; FT's restructured SER sources by the
table RENAMED below); F: those sapfor calls parallel or
across, or parallel under run-time tests (`versioned`: the generated program tests them where
the loop starts and runs it in parallel only then; V of the exact ones), or one of their
enclosing loops; E: the matched loop itself; Q: exact ones whose
directive has a REDUCTION clause, R: of those, the ones where sapfor's reductions include
every variable of the clause. `--list` also prints every loop not found, with sapfor's first
reason, and the directives that matched no SER loop.
"""

import json


def par(lp):
    """Whether sapfor runs a loop in parallel: parallel or across, or parallel under run-time
    tests the generated program makes."""
    return lp["verdict"] in ("parallel", "across") or bool(lp.get("versioned"))
import re
import sys
from pathlib import Path

DO_RE = re.compile(r"^\s*(?:[a-z_][a-z0-9_]*\s*:\s*)?do\b(?!\s*while)", re.I)


def statements(path: Path):
    """(line number, text) of every statement line of a fixed-form file (continuations joined,
    comments and OpenMP sentinel lines left out), and the OpenMP directive lines with theirs."""
    stmts = []
    omp = []
    cur = None
    for n, raw in enumerate(path.read_text(errors="replace").splitlines(), 1):
        line = raw.rstrip("\n")
        low = line.lower()
        if low.startswith("!$omp"):
            if low.startswith("!$omp&") and omp:
                omp[-1] = (omp[-1][0], omp[-1][1] + " " + low[6:])
            else:
                omp.append((n, low[5:]))
            continue
        if not line.strip() or line[:1] in "cC*!" or line.lstrip().startswith("!"):
            continue
        if len(line) > 5 and line[5] not in " 0" and cur is not None:
            cur[1] += line[6:72]
            continue
        cur = [n, line[6:72]]
        stmts.append(cur)
    return [(n, t) for n, t in stmts], omp


def norm(t: str) -> str:
    return re.sub(r"\s+", "", t.split("!")[0].lower())


def loops_with_context(stmts):
    """Every DO statement: (line, key) where key is the DO text and the next statement's."""
    out = []
    for i, (n, t) in enumerate(stmts):
        if DO_RE.match(t):
            nxt = norm(stmts[i + 1][1]) if i + 1 < len(stmts) else ""
            out.append((n, (norm(t), nxt)))
    return out


# NPB3.3-SER's FT was restructured (appft.f, fft3d.f, auxfnct.f; its loops have other
# variables and bodies), so no OMP loop of ft.f matches by text. Its loops that do the work
# of an OMP loop, by the OMP procedure: (SER file, DO statement without blanks, which of those
# in the file). ft.f's init_ui (zeroing every array) has no SER counterpart: not counted.
RENAMED = {
    ("ft.f", "evolve"): ("auxfnct.f", "doi=1,nz", 1),
    ("ft.f", "compute_initial_conditions"): ("auxfnct.f", "dok=1,d3", 1),
    ("ft.f", "compute_indexmap"): ("appft.f", "doi=1,nz", 1),
    ("ft.f", "cffts1"): ("fft3d.f", "dok=1,n3", 1),
    ("ft.f", "cffts2"): ("fft3d.f", "dok=1,n3", 2),
    ("ft.f", "cffts3"): ("fft3d.f", "dok=1,n2", 1),
    ("ft.f", "checksum"): ("auxfnct.f", "doi=1,1024", 1),
}

UNIT_RE = re.compile(r"^\s*(?:[a-z*0-9 ]*\s)?(subroutine|function|program)\s+([a-z_][a-z0-9_]*)", re.I)


def unit_at(stmts, line: int):
    """The name of the procedure (lower case) a source line is in."""
    name = None
    for n, t in stmts:
        if n > line:
            break
        m = UNIT_RE.match(t)
        if m:
            name = m.group(2).lower()
    return name


def clause_vars(text: str, name: str):
    vs = set()
    for m in re.finditer(name + r"\s*\(([^)]*)\)", text):
        body = m.group(1)
        if ":" in body:
            body = body.split(":", 1)[1]
        vs.update(v.strip() for v in body.split(",") if v.strip())
    return vs


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    listing = "--list" in sys.argv
    if len(args) != 3:
        print(__doc__)
        sys.exit(2)
    omp_dir, ser_dir, report = Path(args[0]), Path(args[1]).resolve(), Path(args[2])
    data = json.loads(report.read_text())
    loops = {}  # (file name, line) -> loop
    by_file = {}
    for u in data.get("units", []):
        name = Path(u["file"]).name
        for lp in u.get("loops", []):
            loops[(name, lp["line"])] = lp
            by_file.setdefault(name, []).append(lp)
    total = found = exact = red_ok = red_all = versioned = 0
    missing = []
    unmatched = []
    red_diff = []
    used = set()  # SER loops already matched
    # the SER loops of every file, for OMP files the SER version splits or renames (FT)
    # (only the files of the built program: the analysis has them; LU's and BT's *_vec.f
    # variants are not in the Makefile)
    all_ser = []
    for sf in sorted(ser_dir.glob("*.f")):
        if sf.name in by_file:
            all_ser.extend((sf.name, n, k) for n, k in loops_with_context(statements(sf)[0]))
    lines_of = {sf.name: sf.read_text(errors="replace").splitlines() for sf in ser_dir.glob("*.f")}
    lines_of.update({("omp", f.name): f.read_text(errors="replace").splitlines() for f in omp_dir.glob("*.f")})
    all_omp = []
    for f in sorted(omp_dir.glob("*.f")):
        o_stmts, o_dirs = statements(f)
        all_omp.append((f, o_dirs, loops_with_context(o_stmts), o_stmts))
    for f, o_dirs, o_loops, o_stmts in all_omp:
        same = (ser_dir / f.name).is_file()
        if same and f.name not in by_file:
            continue
        # (file, line, key) of the OMP loops counted before, and the SER candidates
        o_scope = [(f.name, n, k) for n, k in o_loops] if same else [
            (g.name, n, k) for g, _, ls, _ in all_omp for n, k in ls]
        s_scope = [x for x in all_ser if x[0] == f.name] if same else all_ser
        for dline, dtext in o_dirs:
            if not re.match(r"\s*(parallel\s+)?do\b", dtext):
                continue
            nxt = next(((n, k) for n, k in o_loops if n > dline), None)
            if nxt is None:
                continue
            key = nxt[1]
            upto = o_scope[: o_scope.index((f.name, nxt[0], key)) + 1]
            rank = [k for _, _, k in upto].count(key)
            cands = [(sf, n) for sf, n, k in s_scope if k == key and (sf, n) not in used]
            renamed = None if same else RENAMED.get((f.name, unit_at(o_stmts, dline)))
            if renamed and renamed[0] in by_file:
                rfile, rdo, rk = renamed
                alike = [n for sf, n, k in all_ser if sf == rfile and k[0] == rdo]
                cands = [(rfile, alike[rk - 1])] if len(alike) >= rk else []
                key, rank = None, 1
            if not cands and same:
                # the first body statement differs: the DO statement alone (in the same file)
                rank = [k[0] for _, _, k in upto].count(key[0])
                cands = [(sf, n) for sf, n, k in s_scope if k[0] == key[0] and (sf, n) not in used]
            if not cands:
                unmatched.append(f"{f.name}:{dline}")
                continue
            if key is None or (len(cands) == len([1 for _, _, k in o_scope if k == key]) and rank <= len(cands)):
                # as many in both: the k-th is the k-th
                sfile, sline = cands[rank - 1]
                used.add((sfile, sline))
            else:
                # the OMP version added or removed some: the one at the nearest relative place
                def rel(fname, n):
                    return n / max(1, len(lines_of[fname]))
                here = rel(("omp", f.name), nxt[0])
                sfile, sline = min(cands, key=lambda c: abs(rel(c[0], c[1]) - here))
            used.add((sfile, sline))
            total += 1
            lp = loops.get((sfile, sline))
            ok = lp is not None and par(lp)
            if ok:
                if lp["verdict"] == "sequential":
                    versioned += 1
                exact += 1
                reds = clause_vars(dtext, "reduction")
                if reds:
                    red_all += 1
                    ours = {r.split(":")[-1].lower() if isinstance(r, str) else r.get("var", "").lower()
                            for r in lp.get("reductions", [])}
                    # (a renamed loop's variables have other names: as many as OMP's)
                    if reds <= ours or (renamed and len(ours) >= len(reds)):
                        red_ok += 1
                    else:
                        red_diff.append(f"{ser_dir.name}/{sfile}:{sline}: OMP {sorted(reds)}, sapfor {sorted(ours)}")
            elif lp is not None:
                ok = any(o["line"] < sline <= o["end_line"] and par(o) for o in by_file.get(sfile, []))
            if ok:
                found += 1
            else:
                why = ""
                if lp is not None and lp.get("blockers"):
                    b = lp["blockers"][0]
                    why = f"{b['code']}: {b['message']}"
                elif lp is None:
                    why = "no such loop in the analysis"
                missing.append(f"{ser_dir.name}/{sfile}:{sline}: {why}")
    print(f"found {found}/{total} (exact {exact}, of those under run-time tests {versioned}, reductions {red_ok}/{red_all})")
    if listing:
        for m in missing:
            print("  not found: " + m)
        for u in unmatched:
            print("  no SER loop for the directive at " + u)
        for r in red_diff:
            print("  other reductions: " + r)


if __name__ == "__main__":
    main()
