#!/usr/bin/env python3
"""Generate a large, valid FORTRAN 77 fixed-form program for benchmarks.

    bench/gen_big.py N_LINES OUT.f [--seed SEED] [--grid NX,NY,NZ]

The program has about N_LINES lines in many program units: a main program,
an initialisation routine, driver subroutines that call groups of kernel
subroutines (about 100 lines each), and small helper subroutines and
functions that the kernels call. The kernels mix the loop nests that real
numerical codes have: 2-D and 3-D stencils (Jacobi and in-place
Gauss-Seidel), copy nests with MAX reductions, SUM reductions with private
temporaries, first-order recurrences, IF/ELSE IF blocks inside nests,
MAXLOC-style searches, calls inside loops, iteration loops leaving by GOTO,
labelled DO loops (some sharing a terminal label), ENDDO loops,
continuation lines, comments, PARAMETERs and COMMON blocks.

The output is deterministic for a given N_LINES and SEED, accepted by
`gfortran -fsyntax-only`, compiles, and runs, printing a checksum.

The array extents are PARAMETERs (--grid NX,NY,NZ, default 256,256,32, as
in real codes). They can matter to the analyzer: the dependence tests may
solve nests with small constant iteration spaces exactly by enumerating
them, which costs time proportional to the space, while large ones get the
symbolic tests only. bench/analyze_bench.sh therefore also measures
--grid 48,40,12, where most nests are small.
"""

import argparse
import random
import sys

DEFAULT_GRID = (256, 256, 32)
KERNELS_PER_GROUP = 10

HEADER_DECLS = []


def set_grid(nx, ny, nz):
    """The PARAMETERs and COMMON blocks repeated in every unit."""
    HEADER_DECLS[:] = [
        "      INTEGER NX, NY, NZ",
        "      PARAMETER (NX = %d, NY = %d, NZ = %d)" % (nx, ny, nz),
        "      REAL A(NX,NY), B(NX,NY), C(NX,NY)",
        "      REAL U(NX,NY,NZ), W(NX,NY,NZ)",
        "      REAL X(NX), Y(NX), Z(NY)",
        "      REAL EPS, TOTAL, DT",
        "      COMMON /FLD2/ A, B, C",
        "      COMMON /FLD3/ U, W",
        "      COMMON /VEC/ X, Y, Z",
        "      COMMON /SCL/ EPS, TOTAL, DT",
    ]


class Unit:
    """Lines of one program unit with a local label counter."""

    def __init__(self):
        self.lines = []
        self.label = 0

    def new_label(self):
        self.label += 10
        return self.label

    def add(self, *lines):
        for line in lines:
            self.lines.append(line)


def lab(n, text):
    """A labelled statement in fixed form: label in columns 1-5."""
    return "%5d %s" % (n, text)


def coef(r):
    return r.choice(["0.25", "0.2", "0.125", "0.3", "0.24"])


def pick2(r):
    """Two different 2-D arrays (source, destination)."""
    src, dst = r.sample(["A", "B", "C"], 2)
    return src, dst


# ---------------------------------------------------------------- blocks --
# Each block appends a realistic fragment to a kernel; ctx holds the names
# of the helper units of the kernel's group.

def nest(u, r, ctrls, body, style=None, pre=()):
    """A DO nest over the loop controls `ctrls` (outermost first) around
    `body`. Body lines are unindented; a line starting with '&' continues
    the previous one. `pre` lines go into the outermost loop before the
    inner ones. Style: 'enddo' (DO/ENDDO), 'shared' (one labelled CONTINUE
    ends every loop) or 'separate' (one labelled CONTINUE per loop); random
    when not given. Returns the label of the innermost loop (or None)."""
    style = style or r.choice(["enddo", "enddo", "shared", "separate"])
    depth = len(ctrls)
    if style == "shared":
        labels = [u.new_label()] * depth
    elif style == "separate":
        labels = [u.new_label() for _ in ctrls]
    else:
        labels = [None] * depth
    for d, c in enumerate(ctrls):
        ind = " " * (6 + 3 * d)
        if labels[d] is None:
            u.add("%sDO %s" % (ind, c))
        else:
            u.add("%sDO %d %s" % (ind, labels[d], c))
        if d == 0:
            for line in pre:
                u.add(" " * 9 + line)
    ind = " " * (6 + 3 * depth)
    for line in body:
        if line.startswith("&"):
            u.add("     &" + " " * (3 * depth + 6) + line[1:].strip())
        else:
            u.add(ind + line)
    done = set()
    for d in reversed(range(depth)):
        if labels[d] is None:
            u.add(" " * (6 + 3 * d) + "ENDDO")
        elif labels[d] not in done:
            u.add(lab(labels[d], "CONTINUE"))
            done.add(labels[d])
    return labels[-1]


I2 = ["J = 2, NY - 1", "I = 2, NX - 1"]
A2 = ["J = 1, NY", "I = 1, NX"]


def blk_stencil2d(u, r, ctx):
    s, d = pick2(r)
    u.add("C     Jacobi 4-point stencil %s -> %s" % (s, d))
    nest(u, r, I2, ["%s(I,J) = %s * (%s(I-1,J) + %s(I+1,J) + %s(I,J-1)"
                    % (d, coef(r), s, s, s), "& + %s(I,J+1))" % s])


def blk_copy_max(u, r, ctx):
    s, d = pick2(r)
    u.add("C     copy back and measure the change", "      EPS = 0.0")
    nest(u, r, I2, ["EPS = MAX(EPS, ABS(%s(I,J) - %s(I,J)))" % (s, d),
                    "%s(I,J) = %s(I,J)" % (d, s)])


def blk_stencil3d(u, r, ctx):
    u.add("C     explicit 3-D diffusion step U -> W")
    ctrl = ["K = 2, NZ - 1"] + I2
    nest(u, r, ctrl, ["W(I,J,K) = U(I,J,K) + DT * (U(I-1,J,K) + U(I+1,J,K)",
                      "& + U(I,J-1,K) + U(I,J+1,K) + U(I,J,K-1)",
                      "& + U(I,J,K+1) - 6.0 * U(I,J,K))"])
    nest(u, r, ctrl, ["U(I,J,K) = W(I,J,K)"])


def blk_sum_private(u, r, ctx):
    f = r.choice(["0.5", "0.25", "1.5"])
    u.add("C     energy of the 3-D field (private temporary T)",
          "      S = 0.0")
    nest(u, r, ["K = 1, NZ"] + A2, ["T = W(I,J,K) * %s" % f, "S = S + T * T"])
    u.add("      TOTAL = TOTAL + S / (NX * NY * NZ)")


def blk_recurrence(u, r, ctx):
    u.add("C     first-order recurrence (sequential)", "      X(1) = Y(1)")
    nest(u, r, ["I = 2, NX"],
         ["X(I) = %s * X(I-1) + Y(I)" % r.choice(["0.5", "0.9", "0.25"])])
    nest(u, r, ["I = 1, NX"], ["Y(I) = 0.5 * (Y(I) + X(I) / NX)"])


def blk_if_clip(u, r, ctx):
    s, d = pick2(r)
    u.add("C     clip the field into [-1, 1]")
    nest(u, r, A2, ["IF (%s(I,J) .GT. 1.0) THEN" % s,
                    "   %s(I,J) = 1.0" % d,
                    "ELSE IF (%s(I,J) .LT. -1.0) THEN" % s,
                    "   %s(I,J) = -1.0" % d,
                    "ELSE",
                    "   %s(I,J) = %s(I,J)" % (d, s),
                    "ENDIF"])


def blk_gauss_seidel(u, r, ctx):
    a = r.choice(["A", "B", "C"])
    u.add("C     in-place Gauss-Seidel sweep on %s" % a)
    nest(u, r, I2, ["%s(I,J) = (%s(I-1,J) + %s(I+1,J) + %s(I,J-1)"
                    % (a, a, a, a), "& + %s(I,J+1)) / 4.0" % a])


def blk_call_rows(u, r, ctx):
    a = r.choice(["A", "B", "C"])
    u.add("C     column norms through a helper")
    nest(u, r, ["J = 1, NY"], ["CALL %s(%s(1,J), NX, R)" % (ctx["sub"], a),
                               "Z(J) = R"])


def blk_function(u, r, ctx):
    s, d = pick2(r)
    o = r.choice([x for x in "ABC" if x not in (s, d)])
    u.add("C     pointwise update through a function")
    nest(u, r, A2, ["%s(I,J) = %s(%s(I,J), %s(I,J))" % (d, ctx["fn"], s, o)])


def blk_column_mean(u, r, ctx):
    a = r.choice(["A", "B", "C"])
    u.add("C     column means (inner SUM reduction)")
    n = u.new_label()
    u.add("      DO %d J = 1, NY" % n, "         S = 0.0")
    u.add("         DO I = 1, NX", "            S = S + %s(I,J)" % a,
          "         ENDDO", "         Z(J) = S / NX", lab(n, "CONTINUE"))


def blk_iterate(u, r, ctx):
    s, d = pick2(r)
    n = u.new_label()
    out = u.new_label()
    u.add("C     relaxation until converged (leaves by GOTO)",
          "      DO %d IT = 1, %d" % (n, r.choice([2, 3, 4])),
          "         EPS = 0.0",
          "         DO J = 2, NY - 1",
          "            DO I = 2, NX - 1",
          "               T = 0.25 * (%s(I-1,J) + %s(I+1,J) + %s(I,J-1)"
          % (s, s, s),
          "     &           + %s(I,J+1))" % s,
          "               EPS = MAX(EPS, ABS(T - %s(I,J)))" % d,
          "               %s(I,J) = T" % d,
          "            ENDDO",
          "         ENDDO",
          "         IF (EPS .LT. 1.0E-6) GOTO %d" % out,
          lab(n, "CONTINUE"),
          lab(out, "CONTINUE"))


def blk_maxloc(u, r, ctx):
    a = r.choice(["A", "B", "C"])
    u.add("C     location of the largest value",
          "      TMAX = %s(1,1)" % a, "      IMAX = 1", "      JMAX = 1")
    style = r.choice(["shared", "separate"])
    # The GOTO jumps to the CONTINUE that ends the inner loop; its label is
    # the next one the unit hands out.
    inner = u.label + (10 if style == "shared" else 20)
    nest(u, r, A2, ["IF (%s(I,J) .LE. TMAX) GOTO %d" % (a, inner),
                    "TMAX = %s(I,J)" % a, "IMAX = I", "JMAX = J"], style)
    u.add("      TOTAL = TOTAL + 1.0E-3 * (TMAX + IMAX + JMAX)")


def blk_min_sum(u, r, ctx):
    u.add("C     several reductions in one loop",
          "      TMIN = Z(1)", "      S = 0.0", "      P = 1.0")
    nest(u, r, ["J = 1, NY"], ["TMIN = MIN(TMIN, Z(J))", "S = S + Z(J)",
                               "P = P * (1.0 + 1.0E-4 * Z(J))"])
    u.add("      TOTAL = TOTAL + TMIN + S / NY + P")


def blk_shared_label(u, r, ctx):
    s, d = pick2(r)
    n = u.new_label()
    u.add("C     two loops sharing one terminal statement",
          "      DO %d J = 1, NY" % n,
          "      DO %d I = 1, NX" % n,
          lab(n, "%s(I,J) = 0.5 * (%s(I,J) + %s(I,J))" % (d, d, s)))


BLOCKS = [
    (blk_stencil2d, 3), (blk_copy_max, 3), (blk_stencil3d, 2),
    (blk_sum_private, 2), (blk_recurrence, 2), (blk_if_clip, 2),
    (blk_gauss_seidel, 2), (blk_call_rows, 2), (blk_function, 2),
    (blk_column_mean, 2), (blk_iterate, 2), (blk_maxloc, 1),
    (blk_min_sum, 1), (blk_shared_label, 1),
]
BLOCK_FUNS = [b for b, _ in BLOCKS]
BLOCK_WEIGHTS = [w for _, w in BLOCKS]


# ----------------------------------------------------------------- units --

def kernel(name, r, ctx, target_lines):
    u = Unit()
    u.add("C", "C     %s: one step of a synthetic solver phase" % name, "C",
          "      SUBROUTINE %s(ALPHA)" % name)
    u.add(*HEADER_DECLS)
    u.add("      REAL ALPHA, S, T, R, P, TMAX, TMIN",
          "      INTEGER IMAX, JMAX, IT",
          "      REAL %s" % ctx["fn"],
          "      EXTERNAL %s, %s" % (ctx["fn"], ctx["sub"]),
          "      DT = 0.1 * ALPHA")
    while len(u.lines) < target_lines - 2:
        r.choices(BLOCK_FUNS, BLOCK_WEIGHTS)[0](u, r, ctx)
    u.add("      RETURN", "      END")
    return u.lines


def helper_sub(name):
    return ["C", "C     %s: root mean square of a vector" % name,
            "      SUBROUTINE %s(V, N, R)" % name,
            "      INTEGER N",
            "      REAL V(N), R",
            "      R = 0.0",
            "      DO 10 I = 1, N",
            "         R = R + V(I) * V(I)",
            "   10 CONTINUE",
            "      R = SQRT(R / N)",
            "      RETURN",
            "      END"]


def helper_fn(name, r):
    c = r.choice(["0.1", "0.05", "0.2"])
    return ["C", "C     %s: pure pointwise function" % name,
            "      REAL FUNCTION %s(P, Q)" % name,
            "      REAL P, Q",
            "      %s = 0.5 * (P + Q) - %s * P * Q / (1.0 + ABS(P * Q))" % (name, c),
            "      RETURN",
            "      END"]


def driver(name, kernels, r):
    lines = ["C", "C     %s: runs one group of kernels" % name,
             "      SUBROUTINE %s" % name]
    for k in kernels:
        lines.append("      CALL %s(%s)" % (k, r.choice(["0.5", "1.0", "0.8"])))
    lines += ["      RETURN", "      END"]
    return lines


def init_unit():
    u = Unit()
    u.add("C", "C     INITF: deterministic initial fields", "C",
          "      SUBROUTINE INITF")
    u.add(*HEADER_DECLS)
    u.add("      DO 10 J = 1, NY",
          "         DO 10 I = 1, NX",
          "            A(I,J) = SIN(0.1 * I) * COS(0.07 * J)",
          "            B(I,J) = A(I,J)",
          "            C(I,J) = 0.5 * A(I,J)",
          "   10 CONTINUE",
          "      DO 20 K = 1, NZ",
          "         DO 20 J = 1, NY",
          "            DO 20 I = 1, NX",
          "               U(I,J,K) = SIN(0.05 * (I + J + K))",
          "               W(I,J,K) = U(I,J,K)",
          "   20 CONTINUE",
          "      DO 30 I = 1, NX",
          "         X(I) = 0.0",
          "         Y(I) = 1.0 / I",
          "   30 CONTINUE",
          "      DO 40 J = 1, NY",
          "         Z(J) = 0.0",
          "   40 CONTINUE",
          "      EPS = 0.0",
          "      TOTAL = 0.0",
          "      DT = 0.1",
          "      RETURN",
          "      END")
    return u.lines


def main_unit(drivers):
    lines = ["C", "C     BIGPRG: synthetic benchmark program (bench/gen_big.py)",
             "C", "      PROGRAM BIGPRG"]
    lines += HEADER_DECLS
    lines += ["      INTEGER ISTEP", "      CALL INITF",
              "      DO 10 ISTEP = 1, 2"]
    lines += ["         CALL %s" % d for d in drivers]
    lines += ["   10 CONTINUE",
              "      WRITE (*, 100) TOTAL, A(NX/2,NY/2), U(NX/2,NY/2,NZ/2)",
              "  100 FORMAT (' CHECKSUM ', 3E14.5)",
              "      END"]
    return lines


def generate(n_lines, seed):
    r = random.Random(seed)
    body = init_unit()
    drivers = []
    g = 0
    # Leave room for the main program (about 20 lines + one per driver).
    while len(body) + 20 + len(drivers) < n_lines:
        g += 1
        ctx = {"sub": "HS%04d" % g, "fn": "FN%04d" % g}
        body += helper_sub(ctx["sub"])
        body += helper_fn(ctx["fn"], r)
        kernels = []
        for k in range(KERNELS_PER_GROUP):
            left = n_lines - (len(body) + 20 + len(drivers) + 8)
            if left < 40 and kernels:
                break
            name = "K%04d%d" % (g, k)
            kernels.append(name)
            body += kernel(name, r, ctx, min(r.randint(85, 115), max(left, 40)))
        dname = "DRV%04d" % g
        drivers.append(dname)
        body += driver(dname, kernels, r)
    lines = main_unit(drivers) + body
    for i, line in enumerate(lines, 1):
        if len(line) > 72:
            raise SystemExit("internal error: line %d longer than 72 columns: %r"
                             % (i, line))
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n_lines", type=int, help="approximate number of lines")
    ap.add_argument("out", help="output file (fixed form, .f)")
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument("--grid", default="%d,%d,%d" % DEFAULT_GRID,
                    help="array extents NX,NY,NZ (default %(default)s)")
    a = ap.parse_args()
    if a.n_lines < 200:
        ap.error("N_LINES must be at least 200")
    try:
        nx, ny, nz = (int(v) for v in a.grid.split(","))
    except ValueError:
        ap.error("--grid must be NX,NY,NZ")
    if min(nx, ny, nz) < 4:
        ap.error("--grid extents must be at least 4")
    set_grid(nx, ny, nz)
    lines = generate(a.n_lines, a.seed)
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    units = sum(1 for l in lines if l.startswith(("      SUBROUTINE",
                                                   "      REAL FUNCTION",
                                                   "      PROGRAM")))
    print("%s: %d lines, %d program units" % (a.out, len(lines), units),
          file=sys.stderr)


if __name__ == "__main__":
    main()
