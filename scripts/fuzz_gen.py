#!/usr/bin/env python3
"""Generator of random, valid, sequential Fortran programs for the differential fuzzer.

    scripts/fuzz_gen.py SEED [--form fixed|free] > prog.f

A program is a function of its seed only (Python's `random.Random(seed)`, which is stable
across Python versions for the calls used here). It aims at the cases where a parallelizing
compiler goes wrong:

- loop nests of depth 1 to 3 over 1-D to 3-D arrays, with affine subscripts whose
  dependences have random distances and directions in any dimension;
- scalars that are private, reductions (sum, product, max, min, MAXLOC-style,
  conditional), values live after the loop, and recurrences;
- a subroutine whose loop sets scalars its caller sees (a dummy set in some iterations, a
  dummy's last value, a COMMON scalar another unit may read back);
- calls to subroutines and functions that read or write COMMON blocks (declared by the
  caller or not) or their arguments, also two levels deep;
- IF, GOTO, EXIT and CYCLE inside loops, DO WHILE, and indirect subscripts `A(IDX(I))`;
- arrays updated element-wise (histograms, sums and maxima per class: array reductions) and
  look-alikes that are not reductions;
- work arrays filled by a call in every iteration (private when the callee surely writes
  what the loop reads) and look-alikes (the callee adds to old values, writes under a
  condition, or fills fewer elements);
- work arrays filled over a run-time range in every iteration and read at offsets and fixed
  points, some of them outside what the iteration wrote (private, each copy starting with the
  values from before the loop), and look-alikes (an element past the range written after it
  is read, the array printed after the loop);
- work arrays in COMMON whose edges a called procedure sets through the block and the loop
  fills between (NPB SP's LHS and LHSINIT: THREADPRIVATE for threads), and look-alikes;
- long loops of batches over no array worth distributing (a work array filled by a call,
  a histogram, a sum: NPB EP's shape; forwards, or backwards with a step), mapped on
  templates, and look-alikes;
- whole 2-D arrays passed to subroutines that compute on them in loops (stencils, sums,
  updates, a second level of calls): dummies every call binds to one array (they inherit
  its distribution) and look-alikes that must not be bound (a dummy of another shape or
  lower bound, an element or a column passed, a call in a loop); two arrays of one shape
  for one dummy are twins, distributed alike;
- 3-D twins: TW3 reads X at a neighbour in one dimension and updates Y, called with C and HC
  in both places (each dummy gets both arrays), so the template's twin HC takes C's
  distribution and the dummies inherit it at every call.
- FFT-like passes: VP3 updates X along its first dimension, then writes V, a vector laid out
  by hand as the 3-D array, along the third (a transposition over full copies), called with
  C and HC in both places and with C for both dummies; a look-alike lays V out with two
  dimensions swapped.

- cache blocking written inline (`JE = MIN(JB + NB - 1, N2)`, `DO J = JB, JE`): disjoint blocks
  (the loop over the blocks is parallel) and look-alikes (overlapping blocks, a block reading
  the previous block's last column);
- DOUBLE COMPLEX sums and products over an array (REDUCTION(SUM) and PRODUCT of complex
  variables), exact in any order, and a look-alike recurrence;
- a subroutine whose loop fills a work array up to a size M it receives (computed at run
  time) and then updates one element of it in place: parallel only when M is large enough,
  which the generated program tests where the loop starts (both outcomes occur across
  seeds); look-alikes that no test makes parallel, or whose array is printed after the loop;
  and two such subroutines sharing a COMMON work array, sizes set once from run-time values
  (NPB SP's solvers: each is parallel when both sizes are large enough).

Every value is an INTEGER kept small with MOD (or a DOUBLE COMPLEX with integer parts), and the
program prints integer checksums, so outputs compare exactly. Subscripts stay inside the
declared bounds by construction (the
fuzzer's oracle build uses -fcheck=bounds to make sure).
"""

import argparse
import os
import random
import re
import sys

ARRAYS = {  # name -> rank
    "a": 1,
    "d": 1,
    "b": 2,
    "e": 2,
    "c": 3,
}


class Gen:
    def __init__(self, seed, form):
        self.r = random.Random(seed)
        self.form = form
        self.lines = []  # (label or None, indent, text)
        self.label = 100
        self.subs = []  # procedure texts (lists of lines)
        self.used_procs = set()
        self.main_declares_cnt = self.r.random() < 0.5
        r = self.r
        big = r.random() < 0.15  # sometimes sizes where every process holds many elements
        n1 = r.randint(24, 60) if big else r.randint(6, 14)
        n2 = r.randint(6, min(n1, 24 if big else 10))
        n3 = r.randint(5, min(n2, 8))
        self.n = [n1, n2, n3]  # n1 >= n2 >= n3: triangular bounds stay inside
        # EQUIVALENCE: g overlays f from element eo + 1 on (g(i) is f(i + eo))
        self.eo = r.randint(0, 2)

    # ------------------------------------------------------------------ output --
    def emit(self, text, indent=0, label=None):
        self.lines.append((label, indent, text))

    def new_label(self):
        self.label += 10
        return self.label

    def render(self, lines):
        out = []
        for label, indent, text in lines:
            if text.startswith("!"):
                out.append(("C" + text[1:]) if self.form == "fixed" else text)
                continue
            if self.form == "fixed":
                text = text.upper()
                lab = f"{label:<5d}" if label else "     "
                body = "  " * indent + text
                first = True
                while body:
                    chunk = body
                    if len(body) > 66:
                        # break after a comma, an operator or a blank, never inside a name
                        cut = max(body.rfind(ch, 0, 66) for ch in ",+*( ")
                        chunk, body = body[: cut + 1], body[cut + 1:]
                    else:
                        body = ""
                    out.append((lab + " " if first else "     &") + chunk)
                    first = False
            else:
                lab = f"{label} " if label else ""
                out.append("  " * (indent + 1) + lab + text)
        return out

    # ------------------------------------------------------------------ pieces --
    def dims(self, name):
        return self.n[: ARRAYS[name]]

    def pick_array(self, min_rank=1, max_rank=3):
        names = [a for a, k in ARRAYS.items() if min_rank <= k <= max_rank]
        return self.r.choice(names)

    def ref(self, name, subs):
        return f"{name}({','.join(subs)})"

    def term(self, v, off):
        if off == 0:
            return v
        return f"{v}+{off}" if off > 0 else f"{v}{off}"

    def nest(self, depth, body_fn, arr_rank, label_style=False, outer_label=None):
        """A loop nest whose loops index the first `depth` dimensions of rank-`arr_rank`
        arrays; body_fn(vars, dims_of_vars, offsets_range) emits the body and returns the
        offsets it used per dimension so bounds can be chosen... bounds are chosen first
        with a margin of 2 on each side so any offset in [-2, 2] stays in range.
        `outer_label`: the outermost loop ends at that label's CONTINUE, which the caller's
        loop around it names too (F77 shared labels)."""
        r = self.r
        vars_ = ["i", "j", "k"][:depth]
        order = list(range(depth))
        r.shuffle(order)  # which loop is outermost
        dimvar = {d: vars_[d] for d in range(depth)}
        # loops from outermost to innermost
        loops = []
        seen = []  # dimensions of the loops already opened (outer ones)
        for pos in order:
            n = self.n[pos]
            lo, hi = 3, n - 2
            step = None
            outer_higher = [d for d in seen if d > pos]
            roll = r.random()
            if roll < 0.15 and outer_higher:
                # triangular: the bound is an outer index of a dimension at most as long
                hi = dimvar[r.choice(outer_higher)]
            elif roll < 0.3:
                step = r.choice([2, 3, -1, -2])
            seen.append(pos)
            loops.append((dimvar[pos], lo, hi, step))
        loops = [(v, lo, hi) if st is None else
                 ((v, lo, f"{hi}, {st}") if st > 0 else (v, hi, f"{lo}, {st}"))
                 for v, lo, hi, st in loops]
        labels = []
        for lvl, (v, lo, hi) in enumerate(loops):
            if lvl == 0 and outer_label:
                labels.append(outer_label)
                self.emit(f"do {outer_label} {v} = {lo}, {hi}", lvl)
            elif label_style and r.random() < 0.4:
                lab = self.new_label()
                labels.append(lab)
                self.emit(f"do {lab} {v} = {lo}, {hi}", lvl)
            else:
                labels.append(None)
                self.emit(f"do {v} = {lo}, {hi}", lvl)
        body_fn(dimvar, depth)
        self.close_loops(labels)

    def close_loops(self, labels):
        """The ends of the loops `nest` opened, innermost first: a CONTINUE with the loop's
        label, or END DO."""
        for lvl in reversed(range(len(labels))):
            if labels[lvl] is not None:
                self.emit("continue", lvl, label=labels[lvl])
            else:
                self.emit("end do", lvl)

    def subs_for(self, name, dimvar, depth, offs=(-2, 2), fixed_rest=None):
        r = self.r
        out = []
        for d in range(ARRAYS[name]):
            if d < depth:
                out.append(self.term(dimvar[d], r.randint(*offs)))
            else:
                out.append(str(fixed_rest if fixed_rest else r.randint(1, self.n[d])))
        return out

    def expr_of(self, dimvar, depth, depth_rank):
        r = self.r
        k = r.randint(1, 3)
        parts = []
        for _ in range(k):
            nm = self.pick_array(min_rank=max(1, depth), max_rank=3) if r.random() < 0.8 else None
            if nm is None:
                parts.append(str(r.randint(1, 9)))
                continue
            ref = self.ref(nm, self.subs_for(nm, dimvar, depth))
            c = r.randint(1, 4)
            parts.append(ref if c == 1 else f"{c}*{ref}")
        if r.random() < 0.3:
            parts.append(dimvar[r.randrange(depth)])
        return "+".join(parts)

    # --------------------------------------------------------------- statements --
    def stencil(self):
        r = self.r
        depth = r.randint(1, 3)
        target = self.pick_array(min_rank=depth)

        def body(dimvar, depth):
            ind = depth
            lhs_offs = (-1, 1) if r.random() < 0.3 else (0, 0)
            lhs = self.ref(target, self.subs_for(target, dimvar, depth, lhs_offs))
            if r.random() < 0.3:
                # a private temporary
                self.emit(f"t = {self.expr_of(dimvar, depth, 0)}", ind)
                self.emit(f"{lhs} = mod(t + {lhs}, 1000)", ind)
            else:
                self.emit(f"{lhs} = mod({self.expr_of(dimvar, depth, 0)}, 1000)", ind)
            if r.random() < 0.2:
                other = self.pick_array(min_rank=depth)
                o = self.ref(other, self.subs_for(other, dimvar, depth, (0, 0)))
                self.emit(f"{o} = mod({o} + 1, 1000)", ind)

        if r.random() < 0.2:
            # an iteration loop around it (in fixed form sometimes ending at the nest's own
            # CONTINUE: what follows a parallel loop must run in every iteration)
            shared = self.new_label() if self.form == "fixed" and r.random() < 0.5 else None
            self.emit(f"do {shared} it = 1, 3" if shared else "do it = 1, 3")
            self.indent_push()
            self.nest(depth, body, ARRAYS[target], label_style=self.form == "fixed", outer_label=shared)
            self.indent_pop()
            if not shared:
                self.emit("end do")
        else:
            self.nest(depth, body, ARRAYS[target], label_style=self.form == "fixed")

    def sweep_pair(self):
        """Two sweeps in a row over the same index space, as iterative solvers write them: a
        stencil computing SU from SV's neighbours, then the copy back with the change's sum
        or maximum (the runtime may run such pairs as one loop, plane by plane:
        runtime/src/convert_fuse.rs). SU and SV are this piece's alone, so that `--auto` may
        distribute them. The offsets are drawn per program; the copy sometimes reads SU's
        neighbours too (a renewal then keeps the loops apart)."""
        r = self.r
        depth = 3
        tgt, src = "su", "sv"
        kind = r.choice(["sum", "max"])

        def subs(dimvar, lo, hi):
            return [self.term(dimvar[d], r.randint(lo, hi)) for d in range(depth)]

        def stencil(dimvar, depth):
            terms = [self.ref(src, subs(dimvar, -2, 2)) for _ in range(r.randint(1, 3))]
            self.emit(f"{self.ref(tgt, subs(dimvar, 0, 0))} = mod({' + '.join(terms)} + 1, 1000)", depth)

        def copy(dimvar, depth):
            here = self.ref(tgt, subs(dimvar, 0, 0))
            read = here if r.random() < 0.7 else self.ref(tgt, subs(dimvar, -1, 1))
            own = self.ref(src, subs(dimvar, 0, 0))
            if kind == "sum":
                self.emit(f"s = s + {read} - {own}", depth)
            else:
                self.emit(f"m = max(m, abs({read} - {own}))", depth)
            self.emit(f"{own} = mod({here} + {own} * 2, 1000)", depth)

        # one loop order and bounds for both nests (what makes them a pair), the copy's
        # sometimes a plane shorter
        vars_ = ["i", "j", "k"]
        order = list(range(depth))
        r.shuffle(order)
        dimvar = {d: vars_[d] for d in range(depth)}

        def sweep(body, short):
            labels = []
            for lvl, pos in enumerate(order):
                lo, hi = 3, self.n[pos] - 2
                if short and lvl == 0:
                    lo += 1
                lab = self.new_label() if self.form == "fixed" and r.random() < 0.4 else None
                labels.append(lab)
                self.emit(f"do {lab} {dimvar[pos]} = {lo}, {hi}" if lab else f"do {dimvar[pos]} = {lo}, {hi}", lvl)
            body(dimvar, depth)
            self.close_loops(labels)

        # (inside a time loop of a few steps, sometimes more than a block of them: the runtime
        # may run its steps in blocks, runtime/src/convert_skew.rs)
        around = r.random() < 0.6
        if around:
            self.emit(f"do it = 1, {r.choice([2, 3, 5, 11])}")
            self.indent_push()
        sweep(stencil, False)
        self.emit("s = 0" if kind == "sum" else "m = -1")
        sweep(copy, r.random() < 0.3)
        self.emit("print *, s" if kind == "sum" else "print *, m")
        # (sometimes leaving the time loop on the step's value: the runtime's blocks of steps
        # are then computed again up to the step that leaves; else sometimes a maximum over
        # SV every few steps in an IF construct on the time variable: blocks then end at
        # those steps)
        if around and r.random() < 0.4:
            self.emit("if (mod(s, 7) .eq. 3) exit" if kind == "sum" else f"if (m .lt. {r.randint(100, 900)}) exit")
        elif around and r.random() < 0.7:
            # (the time loop's indentation is pushed already: levels by hand)
            self.emit(f"if (mod(it, {r.choice([2, 3, 4])}) .eq. 0) then")
            self.emit("cs = -1", 1)
            self.emit("do k = 2, n3 - 1", 1)
            self.emit("do j = 2, n2 - 1", 2)
            self.emit("do i = 2, n1 - 1", 3)
            self.emit("cs = max(cs, sv(i,j,k) * i + j)", 4)
            for lvl in (3, 2, 1):
                self.emit("end do", lvl)
            self.emit("print *, 'every', it, cs", 1)
            self.emit("end if")
        if around:
            self.indent_pop()
            self.emit("end do")
        # what the copies left in SV, every element
        self.checksum3("sv")

    def checksum3(self, a):
        """Print a checksum of every element of the N1 x N2 x N3 array A."""
        self.emit("cs = 0")
        self.emit("do k = 1, n3")
        self.emit("do j = 1, n2", 1)
        self.emit("do i = 1, n1", 2)
        self.emit(f"cs = mod(cs * 31 + {a}(i,j,k) + 7, 1000003)", 3)
        self.close_loops([None] * 3)
        self.emit(f"print *, '{a}', cs")

    def row_order(self):
        """A nest written along the rows, the loop over the first dimension outside: the runtime
        runs that loop innermost where the directive allows (runtime/src/convert_swap.rs), and
        `--auto` keeps a loop that only adds up elements the loops around it own inside the
        nest. Drawn: 2-D on B or E, or 3-D on C with the middle loop over K; the inner loop
        carrying a value along its dimension or not; a scalar assigned before it is read; an
        integer sum or a maximum; a product adding up over an inner loop; a triangular inner
        bound (kept as written)."""
        r = self.r
        kind = r.choice(["free", "carry", "scalar", "sum", "max", "product", "tri", "matvec"])
        n1, n2, n3 = self.n
        if kind == "matvec":
            # a loop over I around statements, a loop along the rows and statements again:
            # the runtime runs I in three parts, scalars kept per I (convert_swap.rs `expand`)
            x = r.choice(["b", "e"])
            y = "e" if x == "b" else "b"
            labelled = self.form == "fixed" and r.random() < 0.5
            la, lb = (self.new_label(), self.new_label()) if labelled else (None, None)
            self.emit(f"do {la} i = 1, {r.choice(['n1', 'n1 - 1'])}" if la else f"do i = 1, {r.choice(['n1', 'n1 - 1'])}")
            self.emit(f"s = mod({y}(i,1) + i, 7)", 1)
            if r.random() < 0.5:
                self.emit("t = s * 2 + 1", 1)
            else:
                self.emit("t = i", 1)
            self.emit(f"do {lb} j = 1, n2" if lb else "do j = 1, n2", 1)
            body = []
            if r.random() < 0.5:
                body.append(f"q = {x}(i,j) * {r.randint(2, 5)} + j")
                body.append(f"s = mod(s + q * {y}(j,1) + t, 1000)")
            else:
                body.append(f"s = mod(s * {r.randint(2, 5)} + {x}(i,j) - t, 1000)")
            if r.random() < 0.4:
                body.append(f"{x}(i,j) = mod({x}(i,j) + s, 1000)")
            # (F77's way: the labelled last statement ends the loop, no CONTINUE)
            ends = lb is not None and r.random() < 0.5
            for k, b in enumerate(body):
                self.emit(b, 2, label=lb if ends and k == len(body) - 1 else None)
            if not ends:
                self.close_loops([lb])
            self.emit(f"{y}(i,n2) = mod(s + t + {y}(i,n2), 1000)", 1)
            self.close_loops([la])
            return
        if kind in ("sum", "max"):
            self.emit("m = 0" if kind == "sum" else "m = -1")
        if r.random() < 0.3 and kind != "product":
            # 3-D: I outside, then K, then J
            self.emit("do i = 1, n1")
            self.emit("do k = 1, n3", 1)
            lo = "2" if kind == "carry" else "1"
            hi = "min(i, n2)" if kind == "tri" else "n2"
            self.emit(f"do j = {lo}, {hi}", 2)
            here, prev = "c(i,j,k)", "c(i,j-1,k)"
            other = r.choice(["su(i,j,k)", "hc(i,j,k)", "b(i,j)"])
            depth = 3
        else:
            x = r.choice(["b", "e"])
            y = "e" if x == "b" else "b"
            self.emit(f"do i = 1, {r.choice(['n1', 'n1 - 1'])}")
            lo = "2" if kind == "carry" else "1"
            hi = "min(i, n2)" if kind == "tri" else "n2"
            if kind == "product":
                self.emit("do j = 1, n2", 1)
                self.emit("do k = 1, n2", 2)
                # (a pure sum over K: K adds up the element of (I,J), then the values are
                # brought back below 1000 so that later products cannot overflow)
                self.emit(f"{x}(i,j) = {x}(i,j) + {y}(i,k) * {y}(k,j)", 3)
                self.close_loops([None] * 3)
                self.emit("do j = 1, n2")
                self.emit("do i = 1, n1", 1)
                self.emit(f"{x}(i,j) = mod({x}(i,j), 1000)", 2)
                self.close_loops([None] * 2)
                return
            self.emit(f"do j = {lo}, {hi}", 1)
            here, prev = f"{x}(i,j)", f"{x}(i,j-1)"
            other = f"{y}(i,j)"
            depth = 2
        c = r.randint(2, 7)
        if kind == "carry":
            self.emit(f"{here} = mod({prev} * {c} + {other} + i, 1000)", depth)
        elif kind == "scalar":
            self.emit(f"t = {other} * {c} + j", depth)
            self.emit(f"{here} = mod({here} + t * 2, 1000)", depth)
        elif kind == "sum":
            self.emit(f"{here} = mod({here} + {other} * {c}, 1000)", depth)
            self.emit(f"m = m + {here} * j", depth)
        elif kind == "max":
            self.emit(f"m = max(m, {here} - {other})", depth)
            self.emit(f"{here} = mod({here} * {c} + {other}, 1000)", depth)
        else:
            self.emit(f"{here} = mod({here} * {c} + {other} + j, 1000)", depth)
        self.close_loops([None] * depth)
        if kind in ("sum", "max"):
            self.emit("print *, m")

    def gauss_seidel(self):
        """An in-place sweep over SU (Gauss-Seidel's shape): each point from neighbours of which
        the sweep has updated some already. `--auto` makes it an ACROSS loop where the
        dependences allow, and the runtime may run its two innermost loops in wavefront strips
        (runtime/src/convert_wave.rs); a neighbour two away in one dimension sometimes (where
        the strips must keep the nest as written). The loop order, offsets and the maximum of
        the old values are drawn per program."""
        r = self.r
        depth = 3
        vars_ = ["i", "j", "k"]
        order = list(range(depth))
        r.shuffle(order)
        terms = []
        for _ in range(r.randint(2, 4)):
            offs = [r.choice([-1, 0, 0, 1]) for _ in range(depth)]
            if r.random() < 0.25:
                offs[r.randrange(depth)] = r.choice([-2, 2])
            terms.append(self.ref("su", [self.term(vars_[d], offs[d]) for d in range(depth)]))
        here = self.ref("su", [self.term(vars_[d], 0) for d in range(depth)])
        maxed = r.random() < 0.5
        around = r.random() < 0.5
        if around:
            self.emit("do it = 1, 2")
            self.indent_push()
        if maxed:
            self.emit("m = -1")
        labels = []
        for lvl, pos in enumerate(order):
            lab = self.new_label() if self.form == "fixed" and r.random() < 0.4 else None
            labels.append(lab)
            head = f"{vars_[pos]} = 3, {self.n[pos] - 2}"
            self.emit(f"do {lab} {head}" if lab else f"do {head}", lvl)
        if maxed:
            self.emit(f"m = max(m, {here})", depth)
        self.emit(f"{here} = mod({' + '.join(terms)} + {here} * 2 + 1, 1000)", depth)
        self.close_loops(labels)
        if maxed:
            self.emit("print *, m")
        if around:
            self.indent_pop()
            self.emit("end do")
        self.checksum3("su")

    # indentation of nested emission
    def indent_push(self):
        self._saved = self.lines
        self.lines = []

    def indent_pop(self):
        inner = self.lines
        self.lines = self._saved
        for lab, ind, t in inner:
            self.lines.append((lab, ind + 1, t))

    def reduction(self):
        r = self.r
        depth = r.randint(1, 2)
        src = self.pick_array(min_rank=depth)
        kind = r.choice(["sum", "prod", "max", "min", "maxloc", "cond", "recur", "live", "sum2"])
        # FUZZ_REDUCTION=maxloc (with FUZZ_PIECE=reduction): that kind in every program
        kind = os.environ.get("FUZZ_REDUCTION", kind)
        init = {"sum": "s = 0", "prod": "p = 1", "max": "m = -1", "min": "m = 100000",
                "maxloc": "m = -1", "cond": "s = 0", "recur": "s = 1", "live": "t = 0",
                "sum2": "s = 0"}[kind]
        self.emit(init)
        if kind == "maxloc" and r.random() < 0.4:
            # a search that records only the index (Livermore kernel 24): a MINLOC/MAXLOC
            # of a value variable the generated program adds
            n = self.n[0]
            rest = [str(r.randint(1, d)) for d in self.dims(src)[1:]]
            cand = self.ref(src, ["i"] + rest)
            best = self.ref(src, ["im"] + rest)
            self.emit(f"im = {r.randint(3, n - 2)}")
            cmp = r.choice([".lt.", ".gt.", ".le."])
            test = f"{cand} {cmp} {best}" if r.random() < 0.5 else f"{best} {cmp} {cand}"
            self.emit(r.choice([f"do i = 3, {n - 2}", f"do i = {n - 2}, 3, -1", f"do i = 3, {n - 2}, 2"]))
            if r.random() < 0.5:
                self.emit(f"if ({test}) im = i", 1)
            else:
                self.emit(f"if ({test}) then", 1)
                self.emit("im = i", 2)
                self.emit("end if", 1)
            self.emit("end do")
            self.emit(f"print *, 'idxloc', im, {best}")
            return
        if kind == "maxloc":
            self.emit("im = 0")
            loc_ties = r.random() < 0.5
            loc_cmp = r.choice([".gt.", ".gt.", ".ge."])
        if kind == "sum2":
            self.emit("q = 0")

        def body(dimvar, depth):
            ind = depth
            x = self.ref(src, self.subs_for(src, dimvar, depth))
            v = dimvar[0]
            if kind == "sum":
                self.emit(f"s = s + {x}", ind)
            elif kind == "sum2":
                self.emit(f"s = s + {x}", ind)
                self.emit(f"q = q + mod({x}, 7)", ind)
            elif kind == "prod":
                self.emit(f"p = p * (1 + mod({x}, 2))", ind)
            elif kind == "max":
                self.emit(f"m = max(m, {x})", ind)
            elif kind == "min":
                self.emit(f"m = min({x}, m)", ind)
            elif kind == "maxloc":
                # few distinct values (ties between processes' parts), a strict or non-strict
                # comparison (the first or the last of equal maxima), the index of any loop
                y = f"mod({x}, 5)" if loc_ties else x
                self.emit(f"if ({y} {loc_cmp} m) then", ind)
                self.emit(f"m = {y}", ind + 1)
                self.emit(f"im = {r.choice(list(dimvar.values()))}", ind + 1)
                self.emit("end if", ind)
            elif kind == "cond":
                self.emit(f"if ({x} .gt. {r.randint(100, 800)}) s = s + {x}", ind)
            elif kind == "recur":
                self.emit(f"s = mod(s * 3 + {x}, 10007)", ind)
            elif kind == "live":
                tgt = self.pick_array(min_rank=depth)
                self.emit(f"t = {x} + {v}", ind)
                self.emit(f"{self.ref(tgt, self.subs_for(tgt, dimvar, depth, (0, 0)))} = mod(t, 1000)", ind)

        if kind == "prod":
            # at most 14 iterations: the product stays below 2**31
            self.emit("do i = 1, n1")
            self.emit(f"p = p * (1 + mod({src}({','.join(['i'] + ['2'] * (ARRAYS[src] - 1))}), 2))", 1)
            self.emit("end do")
        elif self.form == "fixed" and kind in ("sum", "max", "min", "sum2", "cond") and r.random() < 0.25:
            # sweeps around the nest ending at its CONTINUE (F77 shared labels): the reduction
            # is combined in every sweep
            shared = self.new_label()
            self.emit(f"do {shared} it = 1, 2")
            self.indent_push()
            self.nest(depth, body, ARRAYS[src], label_style=True, outer_label=shared)
            self.indent_pop()
        else:
            self.nest(depth, body, ARRAYS[src])
        out = {"sum": "s", "prod": "p", "max": "m", "min": "m", "maxloc": "m, im", "cond": "s",
               "recur": "s", "live": "t", "sum2": "s, q"}[kind]
        self.emit(f"print *, '{kind}', {out}")

    def array_reduction(self):
        """An array updated element-wise in a nest: a histogram, a weighted sum per class, a
        maximum per class (array reductions), and two that are not reductions: the nest also
        reads the array's running value, or updates it with two operators."""
        r = self.r
        depth = r.randint(1, 3)
        src = self.pick_array(min_rank=depth)
        kind = r.choice(["hist", "wsum", "max", "read", "mixed"])
        self.emit("do l = 0, 6")
        self.emit("h(l) = 0" if kind != "max" else "h(l) = -1", 1)
        self.emit("end do")

        def body(dimvar, depth):
            ind = depth
            x = self.ref(src, self.subs_for(src, dimvar, depth))
            v = dimvar[r.randrange(depth)]
            if kind == "hist":
                self.emit(f"h(mod({x}, 7)) = h(mod({x}, 7)) + 1", ind)
            elif kind == "wsum":
                self.emit(f"l = mod({v} * {r.randint(1, 5)}, 7)", ind)
                self.emit(f"h(l) = h(l) + {x}", ind)
            elif kind == "max":
                self.emit(f"h(mod({x} + {v}, 7)) = max(h(mod({x} + {v}, 7)), {x})", ind)
            elif kind == "read":
                tgt = self.pick_array(min_rank=depth)
                self.emit(f"h(mod({x}, 7)) = h(mod({x}, 7)) + 1", ind)
                self.emit(f"{self.ref(tgt, self.subs_for(tgt, dimvar, depth, (0, 0)))} = mod(h(mod({v}, 7)), 1000)", ind)
            else:
                self.emit(f"h(mod({x}, 7)) = h(mod({x}, 7)) + 1", ind)
                self.emit(f"h(mod({v}, 7)) = mod(h(mod({v}, 7)) * 2, 1000)", ind)

        self.nest(depth, body, ARRAYS[src])
        self.emit(f"print *, 'h{kind}', h")

    def call_work(self):
        """A work array filled by a call in every iteration of a loop, then read there (a
        private work array when the callee surely writes what is read before reading it), and
        look-alikes: a callee that adds to the old values, one that writes under a condition,
        one that fills fewer elements than the loop reads."""
        r = self.r
        kind = r.choice(["fill", "fill", "part", "add", "cond"])
        proc = {"fill": "wfl", "part": "wfl", "add": "wad", "cond": "wcd"}[kind]
        self.used_procs.add(proc)
        cnt = 3 if kind == "part" else 5
        tgt = self.pick_array(min_rank=2, max_rank=3)
        rest = ",".join(["1"] * (ARRAYS[tgt] - 2))
        rest = f",{rest}" if rest else ""
        self.emit("do j = 1, n2")
        self.emit(f"call {proc}(j, {cnt}, wk)", 1)
        self.emit("do i = 1, 5", 1)
        self.emit(f"{tgt}(i,j{rest}) = mod({tgt}(i,j{rest}) + wk(i) * {r.randint(1, 4)}, 1000)", 2)
        self.emit("end do", 1)
        self.emit("end do")
        if r.random() < 0.3:
            # the work array's last values used after the loop: not private then
            self.emit("print *, 'wk', wk")

    def batches(self):
        """NPB EP's shape: a long loop of batches that reads and writes no array worth
        distributing: a work array filled by a call in every batch (private), a histogram and a
        sum (reductions). Mapped on a template of its own, its iterations are divided between
        processes. Look-alikes: the callee adds to the old values (the loop is sequential), the
        work array printed after the loop (not private)."""
        r = self.r
        kind = r.choice(["fill", "fill", "fill", "add", "after"])
        proc = "wad" if kind == "add" else "wfl"
        self.used_procs.add(proc)
        nb = r.randint(2000, 6000)
        self.emit("do l = 0, 6")
        self.emit("h(l) = 0", 1)
        self.emit("end do")
        self.emit("s = 0")
        if r.random() < 0.3:
            # backwards with a step: the template covers 1..NB, the loop every STEP-th index
            self.emit(f"do k = {nb}, 1, -{r.randint(1, 3)}")
        else:
            self.emit(f"do k = 1, {nb}")
        self.emit(f"call {proc}(k, 5, wk)", 1)
        self.emit("do i = 1, 5", 1)
        self.emit(f"l = mod(wk(i) + k * {r.randint(1, 5)}, 7)", 2)
        self.emit("h(l) = h(l) + 1", 2)
        self.emit("s = s + wk(i)", 2)
        self.emit("end do", 1)
        self.emit("end do")
        self.emit("print *, 'hb', h, s")
        if kind == "after":
            self.emit("print *, 'wkb', wk")

    def strided(self):
        """NPB MG's RPRJ3: the work array WS written at every other element `WS(2*I-DD)` (DD 0
        or 1, set by an IF on a run-time value before the loop) and read at `WS(2*I-DD)` and
        `WS(2*I+2-DD)` in every iteration of J: private to J when counted by twos. Look-alikes:
        a read of the other parity `WS(2*I+1-DD)` (not written in the iteration: sequential),
        WS printed after the loop (its last values are used)."""
        r = self.r
        kind = r.choice(["even", "even", "odd", "after"])
        x = r.choice(["b", "e"])
        self.emit("im = 0")
        self.emit(f"if (mod(a({r.randint(1, 3)}), 2) .eq. 1) im = 1")
        self.emit("do j = 1, n2")
        self.emit("do i = 1, (n1 - 1) / 2", 1)
        self.emit(f"ws(2*i - im) = mod({x}(2*i - im, j) + j * {r.randint(1, 5)}, 100)", 2)
        self.emit("end do", 1)
        self.emit("do i = 1, (n1 - 1) / 2 - 1", 1)
        other = "ws(2*i + 1 - im)" if kind == "odd" else "ws(2*i + 2 - im)"
        self.emit(f"{x}(2*i + 1 - im, j) = mod({x}(2*i + 1 - im, j) + ws(2*i - im) + {other} * 2, 1000)", 2)
        self.emit("end do", 1)
        self.emit("end do")
        if kind == "after":
            self.emit("print *, 'wss', ws")

    def elimination(self):
        """Gaussian elimination's shape (the DVM system's Gauss example, written sequentially):
        step I updates the rows past I from row I (or the columns past J from column J), which
        other processes own under a distribution dividing that dimension: `--auto` reads it
        through REMOTE_ACCESS of that row while the loop updates the others, and the runtime
        fetches that row alone. Drawn: rows or columns, the first updated index one or two
        past the step (reading the next row then), the inner range from the step on or whole,
        a pivot-like element of the row read or not; sometimes the range starts at the step
        itself (the row read is written: no such loop may run in parallel)."""
        r = self.r
        tgt = r.choice(["b", "e"])
        n1, n2 = self.n[0], self.n[1]
        ahead = r.choice([1, 1, 2, 0])
        piv = r.random() < 0.6
        # (rows: step I, the rows J past it, columns K; columns: step J, the columns K past
        # it, rows I)
        rows = r.random() < 0.6
        s, u, w, ns, nw = ("i", "j", "k", n1, n2) if rows else ("j", "k", "i", n2, n1)
        src = s if ahead != 2 else f"{s}+1"
        lo = f"{s} + 1" if r.random() < 0.6 else "1"

        def el(a, b):
            return f"{tgt}({a},{b})" if rows else f"{tgt}({b},{a})"

        self.emit(f"do {s} = 1, {ns - 2}")
        self.emit(f"do {u} = {s} + {ahead}, {ns}", 1)
        self.emit(f"do {w} = {lo}, {nw}", 2)
        extra = f" + {el(src, r.randint(1, nw))} * 3" if piv else ""
        self.emit(f"{el(u, w)} = mod({el(u, w)} + {el(u, r.randint(1, nw))} * {el(src, w)}{extra} + 1, 1000)", 3)
        self.close_loops([None] * 3)

    def redblack(self):
        """A red-black sweep over a 2-D array: `DO I = MOD(J,2)+2, N1-1, 2` updates the points
        of one colour from their four neighbours of the other (both loops parallel: I is J
        modulo 2). Look-alikes: a read of the same colour in the row before (J carries it), a
        start MOD(J,3) (no colour: sequential as written)."""
        r = self.r
        kind = r.choice(["colour", "colour", "same", "three"])
        x = r.choice(["b", "e"])
        start = {"colour": "mod(j, 2) + 2", "same": "mod(j, 2) + 2", "three": "mod(j, 3) + 2"}[kind]
        self.emit("do j = 2, n2 - 1")
        self.emit(f"do i = {start}, n1 - 1, 2", 1)
        if kind == "same":
            self.emit(f"{x}(i,j) = mod({x}(i,j) + {x}(i+1,j-1) * {r.randint(2, 5)}, 1000)", 2)
        else:
            self.emit(f"{x}(i,j) = mod({x}(i-1,j) + {x}(i+1,j) + {x}(i,j-1) * {r.randint(1, 3)} + {x}(i,j+1), 1000)", 2)
        self.emit("end do", 1)
        self.emit("end do")

    def flagged(self):
        """NPB EP's batches with its timer calls: a counting call (ACC adds to COMMON /CNT/)
        runs only when the flag FL, set from a run-time value (true or false across seeds),
        holds. The loop is parallel when .NOT. FL, and written twice, its labels renumbered in
        the second copy (a search loop left by GO TO, labelled terminal statements). Look-alikes:
        the call in the ELSE arm of a block IF (parallel when FL is false again), the flag
        changed inside the loop, a call in both arms (sequential either way)."""
        r = self.r
        kind = r.choice(["guard", "guard", "block", "setin", "both"])
        self.used_procs.update({"acc", "wfl"})
        lab, search, found = self.new_label(), self.new_label(), self.new_label()
        nb = r.randint(500, 3000)
        self.emit(f"fl = mod(a({r.randint(1, 3)}), 2) .eq. {r.randint(0, 1)}")
        self.emit("do l = 0, 6")
        self.emit("h(l) = 0", 1)
        self.emit("end do")
        self.emit("s = 0")
        self.emit(f"do {lab} k = 1, {nb}")
        self.emit("im = k", 1)
        self.emit(f"do {search} i = 1, 20", 1)
        self.emit(f"if (im .le. {r.randint(1, 9)}) goto {found}", 2)
        self.emit("im = im / 2", 2)
        self.emit("continue", 1, label=search)
        self.emit("continue", 1, label=found)
        if kind == "guard":
            self.emit("if (fl) call acc(k)", 1)
        elif kind == "block":
            self.emit("if (.not. fl) then", 1)
            self.emit("s = s + 1", 2)
            self.emit("else", 1)
            self.emit("call acc(im)", 2)
            self.emit("end if", 1)
        elif kind == "setin":
            self.emit("if (fl) call acc(k)", 1)
            self.emit(f"if (k .eq. {nb // 2}) fl = .not. fl", 1)
        else:
            self.emit("if (fl) then", 1)
            self.emit("call acc(k)", 2)
            self.emit("else", 1)
            self.emit("call acc(im)", 2)
            self.emit("end if", 1)
        self.emit("call wfl(k + im, 5, wk)", 1)
        self.emit("do i = 1, 5", 1)
        self.emit(f"l = mod(wk(i) + k * {r.randint(1, 5)}, 7)", 2)
        self.emit("h(l) = h(l) + 1", 2)
        self.emit("s = s + wk(i)", 2)
        self.emit("end do", 1)
        self.emit("continue", 0, label=lab)
        self.emit("print *, 'fb', h, s")

    def quiet(self):
        """NPB FT's SWARZTRAUBER: the loop over the columns of B calls a procedure that
        counts its calls (ACC, COMMON /CNT/) or prints only under a logical flag QF in
        COMMON /QFB/, set from a run-time value (true or false across seeds), tested inside
        the procedure. The loop is parallel when .NOT. QF holds where it starts. Look-alikes:
        the loop sets QF itself, the procedure also counts without the flag (sequential
        either way), and the procedure clears QF under QF (it stays false once false)."""
        r = self.r
        kind = r.choice(["guard", "guard", "io", "setin", "unguarded", "clears"])
        proc = {"guard": "qsg", "io": "qsi", "setin": "qsg", "unguarded": "qsu", "clears": "qsc"}[kind]
        self.used_procs.update({proc, "acc"})
        self.emit(f"qf = mod(a({r.randint(1, 3)}), 2) .eq. {r.randint(0, 1)}")
        self.emit("do j = 1, n2")
        self.emit(f"call {proc}(b(1,j), j)", 1)
        if kind == "setin":
            self.emit(f"if (j .eq. {max(1, self.n[1] // 2)}) qf = .not. qf", 1)
        self.emit("end do")

    def common_work(self):
        """A work array WC in COMMON whose edges a called procedure sets through the block
        (NPB SP's LHSINIT) and the loop fills between, in every iteration of a loop over the
        last dimension of a 2-D or 3-D array (a variant distributing that dimension maps it,
        with threads): private to that loop, and THREADPRIVATE for threads. Look-alikes: the
        callee adds to an old edge (the loop is sequential), sets the low edge only (the high
        one keeps its value from before the loop: each copy starts with it), WC printed after
        the loop (not private). Sometimes a later loop sets WC (a shared write: one thread) and
        another reads it (each thread starts with the master's block)."""
        r = self.r
        kind = r.choice(["edge", "edge", "low", "add", "after"])
        proc = {"edge": "wce", "low": "wc0", "add": "wca", "after": "wce"}[kind]
        self.used_procs.add(proc)
        tgt = self.pick_array(min_rank=2, max_rank=3)
        rank = ARRAYS[tgt]
        v, hi = ("j", "n2") if rank == 2 else ("k", "n3")
        mid = ",1" if rank == 3 else ""
        at = lambda i: f"{tgt}({i}{mid},{v})"
        self.emit(f"do {v} = 1, {hi}")
        self.emit(f"call {proc}(n1 + 1, {v})", 1)
        self.emit("do i = 1, n1", 1)
        self.emit(f"wc(i) = mod({at('i')} + {v}, 100)", 2)
        self.emit("end do", 1)
        self.emit("do i = 1, n1", 1)
        self.emit(f"{at('i')} = mod({at('i')} + wc(i-1) + wc(i+1) * 2, 1000)", 2)
        self.emit("end do", 1)
        self.emit("end do")
        if kind == "after":
            self.emit("print *, 'wc', wc")
        if r.random() < 0.4:
            self.emit("do i = 0, n1 + 1")
            self.emit(f"wc(i) = mod(i * {r.randint(2, 9)} + {r.randint(0, 9)}, 50)", 1)
            self.emit("end do")
            self.emit(f"do {v} = 1, {hi}")
            self.emit(f"{at('1')} = mod({at('1')} + wc(mod({v}, n1) + 1), 1000)", 1)
            self.emit("end do")

    def work_sym(self):
        """A work array WS filled for I = 0..M (M known at run time only) in every iteration of
        loop J, then read at I-1, I+1 (WS(M+1) is written by no iteration) and at a fixed
        point (inside or outside the filled part): private, each copy starting with the values
        from before the loop. Look-alikes: WS(M+1) written after the reads (the next iteration
        reads it: sequential), WS printed after the loop (not private)."""
        r = self.r
        kind = r.choice(["edge", "edge", "late", "after"])
        tgt = self.pick_array(min_rank=2, max_rank=3)
        rest = ",".join(["1"] * (ARRAYS[tgt] - 2))
        rest = f",{rest}" if rest else ""
        self.emit(f"m = min(n1 - 1, mod(a({r.randint(1, 3)}), 5) + 1)")
        self.emit("do j = 1, n2")
        self.emit("do i = 0, m", 1)
        self.emit(f"ws(i) = mod({tgt}(i+1,j{rest}) + j, 100)", 2)
        self.emit("end do", 1)
        self.emit("do i = 1, m", 1)
        self.emit(f"{tgt}(i,j{rest}) = mod({tgt}(i,j{rest}) + ws(i-1) + ws(i+1) * 2, 1000)", 2)
        self.emit("end do", 1)
        self.emit(f"{tgt}(n1,j{rest}) = mod({tgt}(n1,j{rest}) + ws({r.randint(1, 4)}), 1000)", 1)
        if kind == "late":
            self.emit("ws(m + 1) = j", 1)
        self.emit("end do")
        if kind == "after":
            self.emit("print *, 'ws', ws")

    def sized(self):
        """A subroutine whose loop over J fills a work array W for I = 0..M (M a dummy, from a
        value the main program computes at run time) and then updates W(P) in place: private
        when M >= P, a value carried from one iteration to the next otherwise. The analysis
        says "parallel when M .GE. P" and the generated program tests it where the loop starts
        (M is 1..5 here, so both branches run across seeds). Look-alikes: the update at W(M+1)
        (never covered: sequential), W printed after the loop (its last values are used)."""
        r = self.r
        proc = r.choice(["wsa", "wsa", "wsb", "wsc"])
        self.used_procs.add(proc)
        tgt = r.choice(["b", "e"])
        self.emit(f"m = min(n1 - 1, mod(a({r.randint(1, 3)}), 5) + 1)")
        self.emit(f"call {proc}({tgt}, m, {r.randint(0, 9)})")

    def sized_common(self):
        """NPB SP's solvers in small: SX and SY share the COMMON work array W3, each filling
        W3(0:NS+1) (NS = GS(d) - 1, set once here from run-time values) and then updating
        W3(2), written first only when GS(d) >= 2; what one leaves in W3 the other reads first
        only on the smaller size. Each loop is parallel when both sizes are large enough
        (its own test and the other's). Once per program (the sizes are set once); again, the
        `sized` piece. The main program does not declare W3 (SW3 sets it first): a caller that
        declares the block and calls SX then SY keeps W3 live where SX ends whatever the sizes
        (what a call reads first is not taken under tests). On C (one program in three),
        SX3 and SY3 sweep the lines of every plane: the distributed variants map their outer
        loops on C's planes under the tests."""
        r = self.r
        if "sx" in self.used_procs or "sx3" in self.used_procs:
            return self.sized()
        # (on C, the usual template, SX3 and SY3 sweep lines of every plane: their outer
        # loops, parallel under the tests, are mapped on the distributed planes or divided
        # over copies in the variants that fit them)
        tgt = r.choice(["b", "e", "c"])
        sx, sy = ("sx3", "sy3") if tgt == "c" else ("sx", "sy")
        self.used_procs.update({sx, sy, "sw3"})
        self.emit(f"gs(1) = mod(a({r.randint(1, 3)}), 5) + 1")
        self.emit(f"gs(2) = mod(d({r.randint(1, 3)}), {4 if tgt == 'c' else 5}) + 1")
        self.emit("ns1 = gs(1) - 1")
        self.emit("ns2 = gs(2) - 1")
        self.emit("call sw3")
        self.emit("do it = 1, 2")
        self.emit(f"call {sx}({tgt})", 1)
        self.emit(f"call {sy}({tgt})", 1)
        self.emit("end do")

    def plane_calls(self):
        """Planes of C given to a procedure as 2-D arrays whose sizes it gets as arguments,
        from PDR, where C is a dummy of symbolic size (X(L1,L2,L3)): PL2(X(1,1,K), L1, L2, K)
        is parallel over K (the dummy's columns are the plane's); from the second column on
        with L2 - 1 columns too. Look-alikes: L1 - 1 rows (the dummy's columns straddle the
        plane's: sequential), and M columns, M a run-time value: parallel when L2 .GE. M, and
        with M = L2 + 1 each call spills into the next plane's first column (K up to L3 - 1)."""
        r = self.r
        kind = r.choice(["whole", "whole", "second", "straddle", "cols"])
        self.used_procs.update({"pdr", "pl2"})
        m = self.n[1] + (1 if r.random() < 0.5 else 0)
        self.emit(f"m = mod(a({r.randint(1, 3)}), 1) + {m}")
        self.emit(f"call pdr(c, n1, n2, n3, m, {['whole', 'second', 'straddle', 'cols'].index(kind)})")

    def blocked(self):
        """Cache blocking in BDR: blocks of 3 columns of B (a dummy of symbolic size) given to
        BKN(X(LDX,*)), the block's end JE = MIN(JB + 2, L2), or JB + 2 clamped by an IF, so the
        blocks are disjoint and the loop over JB is parallel; or blocks of 3 elements of A to
        BHV. Look-alike: JE = JB + 3 clamped (each block overlaps the next by a column)."""
        r = self.r
        kind = r.choice([0, 0, 1, 2, 3])
        self.used_procs.update({"bdr", "bkn", "bhv"})
        self.emit(f"call bdr(b, a, n1, n2, {kind})")

    def inline_blocked(self):
        """Cache blocking written inline: DO JB = 1, N2, NB, the block's end JE = MIN(JB + NB -
        1, N2) or JB + NB - 1 clamped by an IF, then DO J = JB, JE over columns of B or E (I
        outside or inside): the blocks are disjoint and the loop over JB is parallel, with no
        array reduction. Look-alikes: JE = MIN(JB + NB, N2) (each block overlaps the next's
        first column) and a block reading the column before each of its own (J - 1: the
        previous block's last)."""
        r = self.r
        tgt = r.choice(["b", "e"])
        nb = r.randint(2, 4)
        kind = r.choice(["min", "min", "clamp", "overlap", "prev"])
        self.emit(f"do jb = {2 if kind == 'prev' else 1}, n2, {nb}")
        if kind == "clamp":
            self.emit(f"je = jb + {nb - 1}", 1)
            self.emit("if (je .gt. n2) je = n2", 1)
        else:
            self.emit(f"je = min(jb + {nb if kind == 'overlap' else nb - 1}, n2)", 1)
        body = {
            "prev": f"{tgt}(i, j) = mod({tgt}(i, j - 1) * 2 + i + j, 1000)",
            "overlap": f"{tgt}(i, j) = mod({tgt}(i, j) * 3 + j, 1000)",
        }.get(kind, f"{tgt}(i, j) = mod({tgt}(i, j) * 2 + {tgt}(i - 1, j) + j, 1000)")
        loops = ["do j = jb, je", "do i = 2, n1"]
        if r.random() < 0.5:
            loops.reverse()
        self.emit(loops[0], 1)
        self.emit(loops[1], 2)
        self.emit(body, 3)
        self.emit("end do", 2)
        self.emit("end do", 1)
        self.emit("end do")

    def hand_matrix(self):
        """A column of B or E copied into a vector laid out by hand as a matrix (NPB FT's
        PLANE): blocks of HNB rows (DO IB = 1, N1, HNB, IE clamped), each row I twice,
        HW(I-IB+1+HLD*(K-1)), read back as HW(I-IB+1) and HW(I-IB+1+HLD). HNB comes from the
        data, so the stride HLD = HNB + d is a variable: with d >= 0 HW is private in the loop
        over columns. Look-alikes: d = -1 (rows overlap: the analysis may only test it) and a
        read of HW before the column writes it (the previous column's values: sequential)."""
        r = self.r
        tgt = r.choice(["b", "e"])
        kind = r.choice(["fit", "fit", "wide", "overlap", "prev"])
        d = {"wide": 2, "overlap": -1}.get(kind, 0)
        self.emit("hnb = mod(a(1), 3) + 2")
        self.emit(f"hld = hnb + {d}" if d >= 0 else f"hld = hnb - {-d}")
        self.emit("do j = 1, n2")
        if kind == "prev":
            self.emit(f"{tgt}(1, j) = mod({tgt}(1, j) + hw(2) + hw(hld + 1), 1000)", 1)
        self.emit("do ib = 1, n1, hnb", 1)
        self.emit("ie = ib + hnb - 1", 2)
        self.emit("if (ie .gt. n1) ie = n1", 2)
        self.emit("do i = ib, ie", 2)
        self.emit("do k = 1, 2", 3)
        self.emit(f"hw(i - ib + 1 + hld * (k - 1)) = mod({tgt}(i, j) * k + j, 1000)", 4)
        self.emit("end do", 3)
        self.emit("end do", 2)
        self.emit("do i = ib, ie", 2)
        self.emit(f"{tgt}(i, j) = mod(hw(i - ib + 1) * 2 + hw(i - ib + 1 + hld) + i, 1000)", 3)
        self.emit("end do", 2)
        self.emit("end do", 1)
        self.emit("end do")

    def halo_work(self):
        """NPB LU's eta fluxes: for each plane K and row I, in order, a loop over J fills the
        COMMON work array HX from HC (which only this piece reads), maybe a second one from J = 2
        reading HC at J-1, and a loop over J after it updates C(I,J,K) from HX at J+LO and J+HI
        and from HC(I,J,K) (which aligns HC with C). Under a variant dividing J the loop over K runs in order and the fillers reach
        past each block (SHADOW_COMPUTE), HX not merged. Look-alikes: HX read before the
        filler in each row (the previous row's values: not private) and HX read after the
        nest (its last values live on)."""
        r = self.r
        kind = r.choice(["plain", "plain", "two", "before", "after"])
        lo, hi = r.choice([(-1, 1), (0, 1), (-2, 0), (-1, 2), (1, 1)])
        self.emit("do k = 1, n3")
        self.emit("do i = 1, n1", 1)
        if kind == "before":
            self.emit("c(i, 1, k) = mod(c(i, 1, k) + hx(2), 1000)", 2)
        self.emit("do j = 1, n2", 2)
        self.emit(f"hx(j) = mod(hc(i, j, k) * {r.randint(2, 5)} + k + i, 1000)", 3)
        self.emit("end do", 2)
        if kind == "two":
            self.emit("do j = 2, n2", 2)
            self.emit("hx(j) = mod(hx(j) + hc(i, j - 1, k), 1000)", 3)
            self.emit("end do", 2)
        self.emit(f"do j = {max(1, 1 - lo)}, n2 - {max(0, hi)}", 2)
        # (HC beside C here: HC is aligned with C, so the fillers read distributed data)
        self.emit(f"c(i, j, k) = mod(c(i, j, k) + hx({self.term('j', lo)}) + 2 * hx({self.term('j', hi)}) + hc(i, j, k), 1000)", 3)
        self.emit("end do", 2)
        self.emit("end do", 1)
        self.emit("end do")
        if kind == "after":
            self.emit("e(1, 1) = mod(e(1, 1) + hx(2), 1000)")

    def stage_work(self):
        """NPB FT's SWARZTRAUBER: STG's passes write the COMMON work array SW at I*LJ+K and
        I*LJ+LK+K (LJ = 2*LK, LI halved each pass, so each pass writes SW(1:2**L)) and read
        SW(1:N) back into a column of B, called for every column with L = ILG(N) (an integer
        function: the least L with 2**L >= N). Only executing STG with the values the calls
        give it shows that each call writes what it reads first: the loop over columns is then
        parallel with SW private (STG's last statement sets SW(N), which the next call
        overwrites first). Look-alikes: L - 1 (2**(L-1) < N: the next call reads SW(N), the
        previous column's value, before its passes write it: sequential), SW printed after the loop
        (its last values live on), and L passed through a variable set in an IF on data
        (the analysis does not know it)."""
        r = self.r
        kind = r.choice(["fit", "fit", "twice", "short", "after", "data"])
        self.used_procs.update({"stg", "ilg"})
        self.emit("do i = 1, 2 * n1")
        self.emit(f"sw(i) = mod(i * {r.randint(2, 9)} + {r.randint(0, 9)}, 31)", 1)
        self.emit("end do")
        self.emit("lg = ilg(n1)")
        if kind == "short":
            self.emit("lg = lg - 1")
        elif kind == "data":
            self.emit("if (a(1) .gt. 1000) lg = lg + 1")
        self.emit("do j = 1, n2")
        self.emit(f"call stg(b(1, j), n1, lg, j + {r.randint(0, 5)})", 1)
        if kind == "twice":
            self.emit("call stg(b(1, j), n1, lg, 2 * j)", 1)
        self.emit("end do")
        if kind == "after":
            self.emit("print *, 'sw', sw(1) + sw(n1)")

    def split_planes(self):
        """NPB LU's fourth-order dissipation next to the J boundaries: a loop over I (in a loop
        over K) updates C at two fixed planes J, each statement reading a neighbour of its own
        plane along J, and HC. No one ON plane maps both statements; under a variant dividing J
        the loop is split by statements, one parallel loop per plane. Kinds: two statements;
        three on two planes (two share one, kept together in order); the loops ending on one
        labelled CONTINUE (the second copy relabelled); after a loop over J in the same loop
        over K (the K loop in order, the loops inside mapped). A neighbour read that is the
        other statement's plane keeps the loop whole (a look-alike)."""
        r = self.r
        n2 = self.n[1]
        kind = r.choice(["two", "three", "label", "inner"])
        p1, p2 = r.sample(range(1, n2 + 1), 2)

        def stmt(p, lvl):
            o = r.choice([o for o in (-2, -1, 1, 2) if 1 <= p + o <= n2])
            self.emit(f"c(i, {p}, k) = mod(c(i, {p}, k) * {r.randint(2, 5)} + c(i, {p + o}, k) + hc(i, {p}, k) + k, 1000)", lvl)

        label = self.new_label() if kind == "label" else None
        self.emit(f"do {label} k = 1, n3" if label else "do k = 1, n3")
        if kind == "inner":
            self.emit("do j = 2, n2", 1)
            self.emit("do i = 1, n1", 2)
            self.emit("c(i, j, k) = mod(c(i, j, k) + hc(i, j - 1, k), 1000)", 3)
            self.emit("end do", 2)
            self.emit("end do", 1)
        self.emit(f"do {label} i = 1, n1" if label else "do i = 1, n1", 1)
        for p in [p1, p2, p1] if kind == "three" else [p1, p2]:
            stmt(p, 2)
        if label:
            self.emit("continue", 1, label=label)
        else:
            self.emit("end do", 1)
            self.emit("end do")

    def planes(self):
        """NPB LU's shape: a sequential loop over K calls PJC, whose loop over (J, I) reads plane K
        of C next to each point (a shadow renewal limited to plane K), then PLW, a lower-
        triangular sweep of plane K (ACROSS, pipelined in tiles; the corner behind, and plane
        K-1), or PLW only after the loop over K (C held unchanged in it, maybe left by a
        GOTO); or (one program in three) RIN, a loop over K whose loops
        over I each keep a work array to one I (under a variant dividing I, the K loop runs in
        order and the loops inside it are mapped)."""
        r = self.r
        if r.random() < 0.34:
            self.used_procs.add("rin")
            self.emit("call rin(c)")
            return
        self.used_procs.update({"pjc", "plw"})
        tgt = r.choice(["b", "e"])
        # (two sweeps: a loop of one trip is parallel, and C passed inside it stays replicated)
        self.emit("do it = 1, 2")
        if r.random() < 0.5:
            # the sweep leaves C unchanged: its edges are renewed once for the whole sweep (a
            # hold); PLW changes it after the sweep, so the next sweep renews them again. A
            # sweep a GOTO may leave (whether it does depends on the data) holds nothing.
            out = self.new_label() if r.random() < 0.4 else None
            self.emit("do k = 2, n3", 1)
            self.emit(f"call pjc(c, {tgt}, k)", 2)
            if out:
                self.emit(f"if (k .eq. mod({tgt}(2,2), 4) + 2) goto {out}", 2)
            self.emit("end do", 1)
            if out:
                self.emit("continue", 1, label=out)
            self.emit(f"call plw(c, {r.randint(2, self.n[2])})", 1)
        else:
            self.emit("do k = 2, n3", 1)
            self.emit(f"call pjc(c, {tgt}, k)", 2)
            self.emit("call plw(c, k)", 2)
            self.emit("end do", 1)
        self.emit("end do")

    def twins(self):
        """3-D twins: TW3(X, Y) updates Y from X at a neighbour (the dimension and side drawn
        once per program), called with C and HC in both orders, sometimes in a loop with a
        print of an element between the calls."""
        r = self.r
        if "tw3" not in self.used_procs:
            self.tw_dim = r.randint(0, 2)
            self.tw_off = r.choice([-1, 1])
        self.used_procs.add("tw3")
        calls = ["call tw3(c, hc, n1, n2, n3)", "call tw3(hc, c, n1, n2, n3)"]
        r.shuffle(calls)
        if r.random() < 0.5:
            self.emit("do it = 1, 2")
            for c in calls:
                self.emit(c, 1)
            self.emit("print *, 'tw', c(2, 2, 2), hc(n1, 1, n3)", 1)
            self.emit("end do")
        else:
            for c in calls[: r.randint(1, 2)]:
                self.emit(c)

    def vector_passes(self):
        """NPB FT's passes: VP3(X, V, ...) updates X in place along its first dimension for each
        plane K, then writes V, a vector laid out by hand as the 3-D array, from columns of X
        along the third dimension (the loop over J over full copies: a transposition), called
        with C and HC in both places and with C for both dummies. Look-alike: V laid out with
        the second and third dimensions swapped (its strides are not the arrays' extents where
        N2 and N3 differ: the vector then moves whole), never given one array twice."""
        r = self.r
        if "vp3" not in self.used_procs:
            self.vp_kind = r.choice(["z", "z", "acc", "perm"])
        self.used_procs.add("vp3")
        calls = ["call vp3(c, hc, n1, n2, n3, 1)", "call vp3(hc, c, n1, n2, n3, 2)"]
        if self.vp_kind != "perm":
            calls.append("call vp3(c, c, n1, n2, n3, 3)")
        r.shuffle(calls)
        calls = calls[: r.randint(1, len(calls))]
        if r.random() < 0.4:
            self.emit("do it = 1, 2")
            for c in calls:
                self.emit(c, 1)
            self.emit("print *, 'vp', c(1, 2, 2), hc(n1, n2, 1)", 1)
            self.emit("end do")
        else:
            for c in calls:
                self.emit(c)

    def vp3_body(self):
        """VP3's text (`vector_passes`)."""
        kind = getattr(self, "vp_kind", "z")
        n1, n3 = self.n[0], self.n[2]
        at = "i + m1 * (k - 1 + m3 * (j - 1))" if kind == "perm" else "i + m1 * (j - 1 + m2 * (k - 1))"
        new = f"mod(t(k) * 3 + t(m3 + 1 - k) + sg * j, 1000)"
        if kind == "acc":
            new = f"mod(v({at}) + t(k) * 2 + t(m3 + 1 - k) + sg, 1000)"
        return [
            "subroutine vp3(x, v, m1, m2, m3, sg)",
            f"integer m1, m2, m3, sg, x(m1, m2, m3), v(m1 * m2 * m3), t({max(n1, n3)}), i, j, k",
            "do k = 1, m3",
            "do j = 1, m2",
            "do i = 1, m1",
            "t(i) = x(i, j, k)",
            "end do",
            "do i = 1, m1",
            "x(i, j, k) = mod(t(i) + t(m1 + 1 - i) * 2 + sg * k, 1000)",
            "end do",
            "end do",
            "end do",
            "do j = 1, m2",
            "do i = 1, m1",
            "do k = 1, m3",
            "t(k) = x(i, j, k)",
            "end do",
            "do k = 1, m3",
            f"v({at}) = {new}",
            "end do",
            "end do",
            "end do",
            "end",
        ]

    def owned(self):
        """NPB LU's TV: OWC's local work array W(N1*N2), handed to OWW only, which sees it as
        W(L1,L2), writes it in one loop over plane K of C and reads it in the next: at the
        iteration's own (I,J) (each element touched by its owner only: not merged), at I+1 or
        J-1 (elements of other processes where I or J is divided: merged), or also read back
        by OWC after the call (merged). A sequential loop over K calls OWC."""
        r = self.r
        if not hasattr(self, "own_kind"):
            self.own_kind = r.choice(["own", "own", "iplus", "jminus", "leak"])
        self.used_procs.update({"owc", "oww"})
        self.emit("do k = 2, n3")
        self.emit("call owc(c, k)", 1)
        self.emit("end do")

    def complex_sums(self):
        """DOUBLE COMPLEX sums and products over an array (NPB FT's checksum): REDUCTION(SUM(ZS))
        and REDUCTION(PRODUCT(ZP)) the runtime combines as complex numbers, or a look-alike that
        turns the running value by a unit factor before adding (a recurrence: sequential).
        Integer parts and unit factors (1, i, -1, -i) keep every value exact in any order."""
        r = self.r
        # (2-D and 3-D: the arrays the variants distribute)
        tgt = self.pick_array(min_rank=2, max_rank=3)
        rank = ARRAYS[tgt]
        kind = r.choice(["sum", "prod", "both", "both", "turn"])
        vs = ["i", "j", "k"][:rank]
        self.emit("zs = (0.0d0, 0.0d0)")
        self.emit("zp = (1.0d0, 0.0d0)")
        for lvl, v in enumerate(vs[::-1]):
            self.emit(f"do {v} = 1, n{'ijk'.index(v) + 1}", lvl)
        el = f"{tgt}({','.join(vs)})"
        add = f"dcmplx(dble({el}), dble(mod(i * {r.randint(2, 9)}, 7)))"
        if kind in ("sum", "both"):
            self.emit(f"zs = zs + {add}", rank)
        if kind in ("prod", "both"):
            self.emit(f"zp = zp * zu(mod({el} + i, 4))", rank)
        if kind == "turn":
            self.emit(f"zs = zs * zu(mod({el}, 4)) + {add}", rank)
        for lvl in reversed(range(rank)):
            self.emit("end do", lvl)
        self.emit("print *, 'z', nint(dble(zs)), nint(dimag(zs)), nint(dble(zp)), nint(dimag(zp))")

    def seq_update(self):
        """A sequential loop (a scalar recurrence carries it) that updates elements of an
        array reading only the element it writes (run by the owner alone under a
        distribution), or also a neighbour or a fixed element (every process), then a
        sequential nest that reads the array with an offset and a fixed subscript (a fetched
        section)."""
        r = self.r
        tgt = self.pick_array(min_rank=1, max_rank=2)
        two = ARRAYS[tgt] == 2
        jv = f",{r.randint(1, self.n[1])}" if two else ""
        kind = r.choice(["own", "own", "neighbour", "fixed"])
        extra = {"own": "", "neighbour": f" + {tgt}(i-1{jv})", "fixed": f" + {tgt}({r.randint(1, self.n[0])}{jv})"}[kind]
        self.emit("s = 0")
        self.emit("do i = 2, n1 - 1")
        self.emit(f"s = mod(s * {r.randint(3, 9)} + i, 13)", 1)
        self.emit(f"{tgt}(i{jv}) = mod({tgt}(i{jv}) * {r.randint(2, 5)} + s{extra}, 997)", 1)
        self.emit("end do")
        self.emit("t = 0")
        if two:
            self.emit("do j = 2, n2")
            self.emit("do i = 1, n1 - 1", 1)
            self.emit(f"t = mod(t * 3 + {tgt}(i+1,j-1) + {tgt}(i,{r.randint(1, self.n[1])}), 100003)", 2)
            self.emit("end do", 1)
            self.emit("end do")
        else:
            self.emit("do i = n1 - 1, 1, -1")
            self.emit(f"t = mod(t * 3 + {tgt}(i+1) + {tgt}({r.randint(1, self.n[0])}), 100003)", 1)
            self.emit("end do")
        self.emit("print *, 'su', t")

    def call_stmt(self):
        r = self.r
        kind = r.choice(["upd", "acc", "two", "fun", "funcnt"])
        src = "a" if r.random() < 0.5 else "d"
        self.emit("do i = 2, n1 - 1")
        if kind == "upd":
            self.used_procs.add("upd")
            self.emit(f"call upd({src}, i)", 1)
        elif kind == "acc":
            self.used_procs.add("acc")
            self.emit(f"call acc({src}(i))", 1)
        elif kind == "two":
            self.used_procs.update(["two", "upd", "acc"])
            self.emit(f"call two({src}, i)", 1)
        elif kind == "fun":
            self.used_procs.add("ifn")
            other = "d" if src == "a" else "a"
            self.emit(f"{other}(i) = ifn({src}(i)) + {src}(i-1)", 1)
        else:
            self.used_procs.add("icn")
            other = "d" if src == "a" else "a"
            self.emit(f"{other}(i) = mod(icn({src}(i)) + 1, 1000)", 1)
        self.emit("end do")

    def out_scalars(self):
        """A subroutine whose loop sets scalars the caller sees: a dummy set only in some
        iterations, a dummy's last value, a COMMON scalar read back by another unit or by
        none (then it is a work scalar and may be private)."""
        r = self.r
        src = "a" if r.random() < 0.5 else "d"
        self.used_procs.add("scn")
        self.emit(f"call scn({src}, t, m)")
        self.emit("print *, 'scn', t, m")
        if r.random() < 0.5:
            self.used_procs.add("shk")
            self.emit("call shk")

    def control(self):
        r = self.r
        kind = r.choice(["cycle", "exit", "goto", "while", "ifelse"])
        x = "a" if r.random() < 0.5 else "d"
        y = "d" if x == "a" else "a"
        if kind == "cycle":
            self.emit("do i = 1, n1")
            self.emit(f"if (mod({y}(i), 3) .eq. 0) cycle", 1)
            self.emit(f"{x}(i) = mod({x}(i) + {y}(i), 1000)", 1)
            self.emit("end do")
        elif kind == "exit":
            self.emit("do i = 2, n1")
            self.emit(f"if ({x}(i) .gt. {r.randint(500, 990)}) exit", 1)
            self.emit(f"{x}(i) = mod({x}(i-1) + {x}(i), 1000)", 1)
            self.emit("end do")
            self.emit("print *, 'exit', i")
        elif kind == "goto":
            lab = self.new_label()
            self.emit(f"do {lab} i = 1, n1")
            self.emit(f"if ({y}(i) .lt. {r.randint(100, 500)}) goto {lab}", 1)
            self.emit(f"{x}(i) = mod({x}(i) * 3 + 1, 1000)", 1)
            self.emit("continue", 0, label=lab)
        elif kind == "while":
            self.emit("k = 1")
            self.emit("do while (k .le. n1)")
            self.emit(f"{x}(k) = mod({x}(k) + k, 1000)", 1)
            self.emit(f"k = k + {r.randint(1, 3)}", 1)
            self.emit("end do")
        else:
            self.emit("do i = 1, n1")
            self.emit(f"if ({y}(i) .gt. 500) then", 1)
            self.emit(f"{x}(i) = {y}(i) - 500", 2)
            self.emit(f"else if ({y}(i) .gt. 200) then", 1)
            self.emit(f"{x}(i) = {x}(i) + 1", 2)
            self.emit("else", 1)
            self.emit(f"{x}(i) = mod({x}(i) * 2, 1000)", 2)
            self.emit("end if", 1)
            self.emit("end do")

    def equiv(self):
        """Two names for one storage (EQUIVALENCE): g(i) is f(i + eo)."""
        r = self.r
        self.uses_equiv = True
        kind = r.choice(["shift", "copy", "pair"])
        o = r.randint(-1, 2)
        if kind == "shift":
            # a dependence only through the alias: distance eo - o
            self.emit("do i = 2, n1 - 1")
            self.emit(f"g(i) = mod(f(i{'+' if o >= 0 else ''}{o}) + g(i) + i, 1000)", 1)
            self.emit("end do")
        elif kind == "copy":
            self.emit("do i = 1, n1")
            self.emit(f"f(i) = mod(g(i) * 2 + {r.randint(1, 9)}, 1000)", 1)
            self.emit("end do")
        else:
            self.emit("do i = 2, n1 - 1")
            self.emit(f"f(i) = mod(a(i) + i, 1000)", 1)
            self.emit(f"g(i) = mod(g(i) + f(i{'+' if o >= 0 else ''}{o}), 1000)", 1)
            self.emit("end do")

    def pass_section(self):
        """An array column passed to a subroutine inside a loop over columns."""
        r = self.r
        x = "b" if r.random() < 0.5 else "e"
        y = "e" if x == "b" else "b"
        kind = r.choice(["own", "prev", "other", "beside"])
        self.used_procs.add("col")
        if kind == "beside":
            # beside an assignment to C, which a variant may distribute: the loop is divided
            # along C's second dimension, and the column the call writes must reach every
            # copy of X (X, passed to a procedure, stays replicated)
            self.emit("do j = 1, n2")
            self.emit("c(1,j,1) = mod(c(1,j,1) + j, 1000)", 1)
            self.emit(f"call col({x}(1,j), {y}(1,j), j)", 1)
        elif kind == "own":
            self.emit("do j = 1, n2")
            self.emit(f"call col({x}(1,j), {x}(1,j), j)", 1)
        elif kind == "prev":
            # reads the column the previous iteration wrote: a carried dependence
            self.emit("do j = 2, n2")
            self.emit(f"call col({x}(1,j), {x}(1,j-1), j)", 1)
        else:
            self.emit("do j = 1, n2")
            self.emit(f"call col({x}(1,j), {y}(1,j), j)", 1)
        self.emit("end do")

    def whole_call(self):
        """A whole 2-D array passed to a subroutine computing on it in loops."""
        r = self.r
        x = "b" if r.random() < 0.5 else "e"
        y = "e" if x == "b" else "b"
        kind = r.choice(["sten", "sum", "chain", "two", "shape", "loop", "col"])
        if kind == "sten":
            self.used_procs.add("wst")
            self.emit(f"call wst({x}, {y}, n1, n2)")
        elif kind == "sum":
            self.used_procs.add("wsm")
            self.emit(f"call wsm({x}, n1, n2, s)")
            self.emit("print *, 'wsm', s")
        elif kind == "chain":
            self.used_procs.update(["wch", "wup"])
            self.emit(f"call wch({x}, n1, n2)")
        elif kind == "two":
            # one dummy, two arrays of one shape: twins, distributed alike (the dummy
            # inherits the same distribution at both calls)
            self.used_procs.add("wup")
            self.emit(f"call wup({x}, n1, n2)")
            self.emit(f"call wup({y}, n1, n2)")
        elif kind == "shape":
            # the dummy has another lower bound: not bound
            self.used_procs.add("wlb")
            self.emit(f"call wlb({x}, n1, n2)")
        elif kind == "loop":
            self.used_procs.add("wup")
            self.emit("do it = 1, 2")
            self.emit(f"call wup({x}, n1, n2)", 1)
            self.emit(f"print *, 'wl', {x}(2, 2)", 1)
            self.emit("end do")
        else:
            # a column passed besides the whole array: the dummy is not bound
            self.used_procs.update(["wup", "col"])
            self.emit(f"call wup({x}, n1, n2)")
            self.emit(f"call col({x}(1,2), {y}(1,1), 2)")

    def indirect(self):
        r = self.r
        x = "a" if r.random() < 0.5 else "d"
        y = "d" if x == "a" else "a"
        if r.random() < 0.5:
            self.emit("do i = 1, n1")
            self.emit(f"{x}(i) = mod({y}(idx(i)) + i, 1000)", 1)
            self.emit("end do")
        else:
            self.emit("do i = 1, n1")
            self.emit(f"{x}(idx(i)) = mod({x}(idx(i)) + {y}(i), 1000)", 1)
            self.emit("end do")

    def rows(self):
        """Loops whose bounds read a distributed array (NPB CG's rows, `DO K = ROWSTR(J),
        ROWSTR(J+1)-1`): IDX is first indexed with the rows of C, the usual template (so it is
        aligned with them), then a sequential loop over J runs a loop over K from one element of IDX to
        the next, parallel (mapped on a column: every process evaluates its bounds, which are
        fetched from their owners first; read locally they came from a shadow edge nobody
        renewed) or carrying a value from one K to the next (a DO statement of ordinary
        code)."""
        r = self.r
        self.emit("do i = 1, n1")
        self.emit("c(i,1,1) = mod(c(i,1,1) + idx(i) * 3, 1000)", 1)
        self.emit("end do")
        self.emit("do j = 1, n1 - 1")
        self.emit("do k = min(idx(j), idx(j + 1)), max(idx(j), idx(j + 1))", 1)
        if r.random() < 0.5:
            self.emit(f"c(k,2,1) = mod(c(k,2,1) + j * {r.randint(2, 9)}, 1000)", 2)
        else:
            self.emit("c(k,2,1) = mod(c(k,2,1) * 3 + c(max(k - 1, 1),2,1) + j, 1000)", 2)
        self.emit("end do", 1)
        self.emit("end do")

    def seeds(self):
        """A seed each column leaves to the next (NPB MG's ZRAN3): `t = p` starts the column,
        `p = mod(p * A + B, 1009)` (or `call snx(p)`) ends it, or starts it before `t = p`:
        parallel once the seeds are computed ahead (the generated program keeps them in an
        array and runs the update in the loop too). Look-alikes: the new seed also added to
        A(J) after the update; the column given to a
        procedure reaching `m` elements from row `r0` in a subroutine where both are dummies
        (parallel under the test that the reach stays in the column, which fails for some
        seeds: the copy of the loop in the ELSE branch runs then)."""
        r = self.r
        tgt = r.choice(["b", "e"])
        kind = r.randint(0, 3)
        if kind == 3:
            self.used_procs.update({"sdf", "sdc"})
            self.emit(f"m = min(n1, mod(a({r.randint(1, 3)}), 7) + 1)")
            self.emit(f"p = {r.randint(1, 50)}")
            self.emit(f"call sdf({tgt}, m, {r.randint(1, self.n[0])}, p)")
            self.emit("d(2) = mod(d(2) + p, 1000)")
            return
        self.emit(f"p = {r.randint(1, 50)}")
        self.emit("do j = 1, n2")
        # the update first (the column reads the new seed) or last
        update_first = r.random() < 0.4
        update = ("call snx(p)" if kind == 1 else f"p = mod(p * {r.randint(2, 9)} + {r.randint(1, 9)}, 1009)")
        if kind == 1:
            self.used_procs.add("snx")
        if update_first:
            self.emit(update, 1)
        self.emit("t = p", 1)
        self.emit("do i = 1, n1", 1)
        self.emit(f"t = mod(t * {r.randint(2, 9)} + i, 1009)", 2)
        self.emit(f"{tgt}(i,j) = mod({tgt}(i,j) + t, 1000)", 2)
        self.emit("end do", 1)
        if not update_first:
            self.emit(update, 1)
        if kind == 2:
            self.emit("a(j) = mod(a(j) + p, 1000)", 1)
        self.emit("end do")
        self.emit("d(1) = mod(d(1) + p, 1000)")

    def diagonal(self):
        """A loop over the diagonal of a 2-D or 3-D array: no reference fits a distribution
        of both its dimensions, so under one the loop runs on every process over the
        distributed data (reading it, writing it, or both: then the variant is rejected)."""
        r = self.r
        kind = r.randint(0, 2)
        self.emit("do i = 1, min(n1, n2)")
        if kind == 0:
            self.emit(f"a(i) = mod(a(i) + b(i,i) * {r.randint(2, 7)}, 1000)", 1)
        elif kind == 1:
            self.emit(f"b(i,i) = mod(a(i) + e(i,i) + {r.randint(1, 9)}, 1000)", 1)
        else:
            self.emit("do k = 1, n3", 1)
            self.emit(f"c(i,i,k) = mod(c(i,i,k) + e(i,i) * k + {r.randint(1, 9)}, 1000)", 2)
            self.emit("end do", 1)
        self.emit("end do")

    # ------------------------------------------------------------------ program --
    def program(self):
        r = self.r
        n1, n2, n3 = self.n
        self.emit(f"! fuzz program, form {self.form}")
        self.emit("program fz")
        self.emit("integer n1, n2, n3")
        self.emit(f"parameter (n1 = {n1}, n2 = {n2}, n3 = {n3})")
        self.emit("integer a(n1), d(n1), idx(n1), b(n1,n2), e(n1,n2), c(n1,n2,n3)")
        self.emit("integer i, j, k, it, s, t, m, im, p, q, cs, l, h(0:6), wk(5)")
        self.emit("integer ifn, icn, ws(0:n1 + 2), wc(0:n1 + 1)")
        self.emit("common /wcb/ wc")
        self.emit("integer sw(2 * n1), lg, ilg")
        self.emit("common /swb/ sw")
        self.emit("integer gs(2), ns1, ns2, jb, je")
        self.emit("integer hw(16), hnb, hld, ib, ie, hx(0:n2 + 1), hc(n1,n2,n3)")
        self.emit("integer su(n1,n2,n3), sv(n1,n2,n3)")
        self.emit("common /hxb/ hx")
        self.emit("common /szb/ gs, ns1, ns2")
        self.emit("logical fl, qf")
        self.emit("common /qfb/ qf")
        self.emit("double complex zs, zp, zu(0:3)")
        self.emit(f"integer f(n1 + 2), g(n1)")
        self.emit(f"equivalence (f({self.eo + 1}), g(1))")
        if self.main_declares_cnt:
            self.emit("integer kc")
            self.emit("common /cnt/ kc")
        # initial values
        self.emit("do i = 1, n1")
        self.emit(f"a(i) = mod(i * {r.randint(3, 17)} + {r.randint(0, 9)}, 97)", 1)
        self.emit(f"d(i) = mod(i * i + {r.randint(0, 9)}, 89)", 1)
        perm = r.random() < 0.5
        self.emit(f"idx(i) = {'n1 + 1 - i' if perm else 'mod(i * 3, n1) + 1'}", 1)
        self.emit("end do")
        self.emit("do i = 1, n1 + 2")
        self.emit(f"f(i) = mod(i * {r.randint(2, 9)}, 61)", 1)
        self.emit("end do")
        self.emit("do i = 1, 5")
        self.emit("wk(i) = i", 1)
        self.emit("end do")
        self.emit("do i = 1, 16")
        self.emit("hw(i) = 0", 1)
        self.emit("end do")
        self.emit("do i = 0, n2 + 1")
        self.emit("hx(i) = 0", 1)
        self.emit("end do")
        self.emit("zu(0) = (1.0d0, 0.0d0)")
        self.emit("zu(1) = (0.0d0, 1.0d0)")
        self.emit("zu(2) = (-1.0d0, 0.0d0)")
        self.emit("zu(3) = (0.0d0, -1.0d0)")
        self.emit("do i = 0, n1 + 2")
        self.emit(f"ws(i) = mod(i * {r.randint(2, 9)}, 37)", 1)
        self.emit("end do")
        self.emit("do i = 0, n1 + 1")
        self.emit("wc(i) = mod(i * 5, 29)", 1)
        self.emit("end do")
        self.emit("do j = 1, n2")
        self.emit("do i = 1, n1", 1)
        self.emit(f"b(i,j) = mod(i * {r.randint(2, 9)} + j * {r.randint(2, 9)}, 101)", 2)
        self.emit("e(i,j) = mod(i + j * j, 53)", 2)
        self.emit("end do", 1)
        self.emit("end do")
        self.emit("do k = 1, n3")
        self.emit("do j = 1, n2", 1)
        self.emit("do i = 1, n1", 2)
        self.emit(f"c(i,j,k) = mod(i * j + k * {r.randint(2, 7)}, 71)", 3)
        self.emit("hc(i,j,k) = mod(i + 2 * j + 3 * k, 41)", 3)
        self.emit("su(i,j,k) = 0", 3)
        self.emit("sv(i,j,k) = mod(i * 3 + j + k * 5, 37)", 3)
        self.emit("end do", 2)
        self.emit("end do", 1)
        self.emit("end do")
        pieces = [self.stencil] * 5 + [self.reduction] * 3 + [self.call_stmt] * 2 + [self.control] * 2 + [self.indirect] + [self.equiv, self.pass_section, self.diagonal, self.out_scalars] + [self.array_reduction, self.call_work, self.work_sym, self.seq_update] * 2 + [self.whole_call] * 2 + [self.batches, self.common_work, self.sized, self.sized_common, self.flagged, self.quiet, self.plane_calls, self.blocked, self.inline_blocked, self.hand_matrix, self.redblack, self.strided, self.planes, self.rows, self.owned, self.complex_sums, self.seeds, self.halo_work, self.split_planes, self.stage_work, self.twins, self.vector_passes, self.sweep_pair, self.gauss_seidel, self.elimination, self.row_order]
        for _ in range(r.randint(3, 7)):
            r.choice(pieces)()
        # FUZZ_PIECE=common_work (a method name): that piece once more in every program, for a
        # run aimed at one construct (the seeds then give other programs than without it)
        forced = os.environ.get("FUZZ_PIECE")
        if forced:
            getattr(self, forced)()
        # checksums (sequential recurrences)
        for name, rank in list(ARRAYS.items()) + [("f", 1)]:
            self.emit("cs = 0")
            loops = ["i", "j", "k"][:rank][::-1]
            for lvl, v in enumerate(loops):
                hi = "n1 + 2" if name == "f" else f"n{'ijk'.index(v) + 1}"
                self.emit(f"do {v} = 1, {hi}", lvl)
            self.emit(f"cs = mod(cs * 31 + {name}({','.join(['i', 'j', 'k'][:rank])}) + 7, 1000003)", rank)
            for lvl in reversed(range(rank)):
                self.emit("end do", lvl)
            self.emit(f"print *, '{name}', cs")
        if self.used_procs & {"acc", "two", "icn"}:
            self.used_procs.add("show")
            self.emit("call show")
        self.emit("end")
        main = self.render(self.lines)
        return "\n".join(main + self.procedures()) + "\n"

    def procedures(self):
        out = []
        n1 = self.n[0]
        bodies = {
            "upd": [
                "subroutine upd(x, i)",
                f"integer x({n1}), i",
                "x(i) = mod(x(i) + i * 2, 1000)",
                "end",
            ],
            "acc": [
                "subroutine acc(v)",
                "integer v, kc",
                "common /cnt/ kc",
                "kc = mod(kc + v, 100003)",
                "end",
            ],
            "two": [
                "subroutine two(x, i)",
                f"integer x({n1}), i",
                "call upd(x, i)",
                "call acc(x(i))",
                "end",
            ],
            "ifn": [
                "integer function ifn(v)",
                "integer v",
                "ifn = mod(v * v + 1, 97)",
                "end",
            ],
            "icn": [
                "integer function icn(v)",
                "integer v, kc",
                "common /cnt/ kc",
                "kc = mod(kc * 3 + v, 100003)",
                "icn = mod(kc, 89)",
                "end",
            ],
            "col": [
                "subroutine col(x, y, j)",
                f"integer x({n1}), y({n1}), j, i",
                "do i = 1, " + str(n1),
                "x(i) = mod(x(i) + y(i) + i * j, 1000)",
                "end do",
                "end",
            ],
            "snx": [
                "subroutine snx(v)",
                "integer v",
                "v = mod(v * 3 + 1, 1009)",
                "end",
            ],
            "sdc": [
                "subroutine sdc(n, t, y)",
                "integer n, t, y(*), i",
                "do i = 1, n",
                "t = mod(t * 7 + i, 1009)",
                "y(i) = mod(y(i) + t, 1000)",
                "end do",
                "end",
            ],
            "sdf": [
                "subroutine sdf(x, m, r0, p)",
                f"integer x({n1}, {self.n[1]}), m, r0, p, q, t, j",
                "q = p",
                # (not the last column: a reach past a column stays inside the array)
                f"do j = 1, {self.n[1] - 1}",
                "t = q",
                "call sdc(m, t, x(r0, j))",
                "q = mod(q * 5 + 3, 1009)",
                "end do",
                "p = q",
                "end",
            ],
            "scn": [
                "subroutine scn(x, flg, lst)",
                f"integer x({n1}), flg, lst, i, w, kw, wa({n1})",
                "common /cwk/ kw",
                "common /cwa/ wa",
                "flg = 0",
                f"do i = 1, {n1}",
                "w = mod(x(i) * 3 + i, 17)",
                "if (w .gt. 9) flg = i",
                "lst = x(i) + w",
                "kw = w * 2",
                "wa(i) = mod(x(i) + w, 1000)",
                "end do",
                "end",
            ],
            "shk": [
                "subroutine shk",
                f"integer kw, wa({n1})",
                "common /cwk/ kw",
                "common /cwa/ wa",
                f"print *, 'kw', kw, wa(1) + wa({n1})",
                "end",
            ],
            "stg": [
                "subroutine stg(y, n, l, v)",
                f"integer n, l, v, y(n), sw({2 * n1})",
                "integer li, lj, lk, st, i, k, u",
                "common /swb/ sw",
                "li = 2 ** l",
                "lj = 1",
                "do st = 1, l",
                "lk = lj",
                "lj = 2 * lk",
                "li = li / 2",
                "do i = 0, li - 1",
                "do k = 1, lk",
                "u = y(mod(i * lk + k - 1, n) + 1)",
                "sw(i * lj + k) = mod(u + v, 1000)",
                "sw(i * lj + lk + k) = mod(u * 3 + st, 1000)",
                "end do",
                "end do",
                "do i = 1, n",
                "y(i) = mod(y(i) + sw(i) * st, 1000)",
                "end do",
                "end do",
                "sw(n) = mod(y(1) + v, 1000)",
                "end",
            ],
            "ilg": [
                "integer function ilg(n)",
                "integer n, p",
                "ilg = 0",
                "p = 1",
                "do while (p .lt. n)",
                "p = p * 2",
                "ilg = ilg + 1",
                "end do",
                "end",
            ],
            "wce": [
                "subroutine wce(ni, v)",
                f"integer ni, v, wc(0:{n1 + 1})",
                "common /wcb/ wc",
                "wc(0) = mod(v, 7)",
                "wc(ni) = mod(v * 3, 11)",
                "end",
            ],
            "wc0": [
                "subroutine wc0(ni, v)",
                f"integer ni, v, wc(0:{n1 + 1})",
                "common /wcb/ wc",
                "wc(0) = mod(v + ni, 7)",
                "end",
            ],
            "wca": [
                "subroutine wca(ni, v)",
                f"integer ni, v, wc(0:{n1 + 1})",
                "common /wcb/ wc",
                "wc(0) = mod(wc(0) + v, 7)",
                "wc(ni) = mod(v * 3, 11)",
                "end",
            ],
            "wfl": [
                "subroutine wfl(j, n, w)",
                "integer j, n, w(5), m",
                "do m = 1, n",
                "w(m) = mod(j * m + 3, 41)",
                "end do",
                "end",
            ],
            "wad": [
                "subroutine wad(j, n, w)",
                "integer j, n, w(5), m",
                "do m = 1, n",
                "w(m) = mod(w(m) + j * m, 41)",
                "end do",
                "end",
            ],
            "wcd": [
                "subroutine wcd(j, n, w)",
                "integer j, n, w(5), m",
                "if (mod(j, 3) .ne. 0) then",
                "do m = 1, n",
                "w(m) = mod(j + m, 41)",
                "end do",
                "end if",
                "end",
            ],
            "wst": [
                "subroutine wst(x, y, m1, m2)",
                "integer m1, m2, x(m1, m2), y(m1, m2), i, j",
                "do j = 2, m2 - 1",
                "do i = 2, m1 - 1",
                "y(i,j) = mod(x(i-1,j) + x(i+1,j) + x(i,j-1) + x(i,j+1) + y(i,j), 1000)",
                "end do",
                "end do",
                "end",
            ],
            "wsm": [
                "subroutine wsm(x, m1, m2, t)",
                "integer m1, m2, x(m1, *), t, i, j",
                "t = 0",
                "do j = 1, m2",
                "do i = 1, m1",
                "t = t + x(i,j) * mod(i + j, 5)",
                "end do",
                "end do",
                "end",
            ],
            "wch": [
                "subroutine wch(x, m1, m2)",
                "integer m1, m2, x(m1, m2), i",
                "call wup(x, m1, m2)",
                "do i = 1, m1",
                "x(i,1) = mod(x(i,1) + x(i,m2), 1000)",
                "end do",
                "end",
            ],
            "wup": [
                "subroutine wup(x, m1, m2)",
                "integer m1, m2, x(m1, m2), i, j",
                "do j = 1, m2",
                "do i = 1, m1",
                "x(i,j) = mod(x(i,j) * 3 + i + j, 1000)",
                "end do",
                "end do",
                "end",
            ],
            "wlb": [
                "subroutine wlb(x, m1, m2)",
                "integer m1, m2, x(0:m1-1, m2), i, j",
                "do j = 1, m2",
                "do i = 0, m1 - 1",
                "x(i,j) = mod(x(i,j) + i * j, 1000)",
                "end do",
                "end do",
                "end",
            ],
            **{name: self.sized_body(name) for name in ("wsa", "wsb", "wsc")},
            "sw3": [
                "subroutine sw3",
                f"integer w3(0:{n1 + 2}), i",
                "common /w3b/ w3",
                f"do i = 0, {n1 + 2}",
                "w3(i) = mod(i * 7, 31)",
                "end do",
                "end",
            ],
            "sx": [
                "subroutine sx(x)",
                f"integer x({n1}, {self.n[1]}), gs(2), ns1, ns2, w3(0:{n1 + 2}), i, k",
                "common /szb/ gs, ns1, ns2",
                "common /w3b/ w3",
                f"do k = 1, {self.n[1]}",
                "do i = 0, ns1 + 1",
                "w3(i) = mod(x(i+1,k) + k, 100)",
                "end do",
                "w3(2) = mod(w3(2) + k, 100)",
                f"x({n1},k) = mod(x({n1},k) + w3(2) * 3 + w3(1), 1000)",
                "end do",
                "end",
            ],
            "sy": [
                "subroutine sy(x)",
                f"integer x({n1}, {self.n[1]}), gs(2), ns1, ns2, w3(0:{n1 + 2}), i, k",
                "common /szb/ gs, ns1, ns2",
                "common /w3b/ w3",
                f"do i = 1, {n1}",
                "do k = 0, ns2 + 1",
                "w3(k) = mod(x(i,k+1) * 3 + i, 100)",
                "end do",
                "w3(2) = mod(w3(2) + i, 100)",
                f"x(i,{self.n[1]}) = mod(x(i,{self.n[1]}) + w3(2) + w3(1) * 2, 1000)",
                "end do",
                "end",
            ],
            "pjc": [
                "subroutine pjc(x, y, k)",
                f"integer x({n1}, {self.n[1]}, {self.n[2]}), y({n1}, {self.n[1]}), k, i, j",
                f"do j = 2, {self.n[1]}",
                f"do i = 2, {n1}",
                "y(i,j) = mod(y(i,j) + x(i-1,j,k) * 2 + x(i,j-1,k) + x(i,j,k), 997)",
                "end do",
                "end do",
                "end",
            ],
            "plw": [
                "subroutine plw(x, k)",
                f"integer x({n1}, {self.n[1]}, {self.n[2]}), k, i, j",
                f"do j = 2, {self.n[1]}",
                f"do i = 2, {n1}",
                "x(i,j,k) = mod(x(i,j,k) + x(i-1,j,k) * 3 + x(i,j-1,k) + x(i-1,j-1,k) + x(i,j,k-1), 1000)",
                "end do",
                "end do",
                "end",
            ],
            "owc": [
                "subroutine owc(x, k)",
                f"integer x({n1}, {self.n[1]}, {self.n[2]}), k, w({n1} * {self.n[1]})",
                f"call oww(x, w, k, {n1}, {self.n[1]})",
            ] + ([f"x(1,1,k) = mod(x(1,1,k) + w({n1} + 2), 1000)"] if getattr(self, "own_kind", "") == "leak" else []) + [
                "end",
            ],
            "oww": [
                "subroutine oww(x, w, k, l1, l2)",
                "integer l1, l2",
                f"integer x({n1}, {self.n[1]}, {self.n[2]}), w(l1, l2), k, i, j",
                f"do j = 1, {self.n[1]}",
                f"do i = 1, {n1}",
                "w(i,j) = mod(x(i,j,k) * 3 + i + x(i,j,k-1), 1009)",
                "end do",
                "end do",
                f"do j = 2, {self.n[1]} - 1",
                f"do i = 2, {n1} - 1",
                "w(i,j) = mod(w(i,j) * 2 + j, 1009)",
                "x(i,j,k) = mod(x(i,j,k) + {}, 1000)".format({"iplus": "w(i+1,j)", "jminus": "w(i,j-1)"}.get(getattr(self, "own_kind", ""), "w(i,j)")),
                "end do",
                "end do",
                "end",
            ],
            "rin": [
                "subroutine rin(x)",
                f"integer x({n1}, {self.n[1]}, {self.n[2]}), w({self.n[1]}), i, j, k",
                f"do k = 1, {self.n[2]}",
                f"do i = 1, {n1}",
                f"do j = 1, {self.n[1]}",
                "w(j) = mod(x(i,j,k) * 7 + j, 100)",
                "end do",
                f"do j = 2, {self.n[1]} - 1",
                "x(i,j,k) = mod(x(i,j,k) + w(j+1) - w(j-1) + 100, 1000)",
                "end do",
                "end do",
                f"do i = 1, {n1}",
                "x(i,1,k) = mod(x(i,1,k) + x(i,2,k), 1000)",
                "end do",
                "end do",
                "end",
            ],
            "sx3": [
                "subroutine sx3(x)",
                f"integer x({n1}, {self.n[1]}, {self.n[2]}), gs(2), ns1, ns2, w3(0:{n1 + 2}), i, j, k",
                "common /szb/ gs, ns1, ns2",
                "common /w3b/ w3",
                f"do k = 1, {self.n[2]}",
                f"do j = 1, {self.n[1]}",
                "do i = 0, ns1 + 1",
                "w3(i) = mod(x(i+1,j,k) + k + j, 100)",
                "end do",
                "w3(2) = mod(w3(2) + k, 100)",
                f"x({n1},j,k) = mod(x({n1},j,k) + w3(2) * 3 + w3(1), 1000)",
                "end do",
                "end do",
                "end",
            ],
            "sy3": [
                "subroutine sy3(x)",
                f"integer x({n1}, {self.n[1]}, {self.n[2]}), gs(2), ns1, ns2, w3(0:{n1 + 2}), i, j, k",
                "common /szb/ gs, ns1, ns2",
                "common /w3b/ w3",
                f"do j = 1, {self.n[1]}",
                f"do i = 1, {n1}",
                "do k = 0, ns2 + 1",
                "w3(k) = mod(x(i,j,k+1) * 3 + i, 100)",
                "end do",
                "w3(2) = mod(w3(2) + i + j, 100)",
                f"x(i,j,{self.n[2]}) = mod(x(i,j,{self.n[2]}) + w3(2) + w3(1) * 2, 1000)",
                "end do",
                "end do",
                "end",
            ],
            "bdr": [
                "subroutine bdr(x, v, l1, l2, kind)",
                "integer l1, l2, kind, jb, je, nb",
                "parameter (nb = 3)",
                "integer x(l1, l2), v(l1)",
                "if (kind .eq. 0) then",
                "do jb = 1, l2, nb",
                "je = min(jb + nb - 1, l2)",
                "call bkn(x(1, jb), l1, je - jb + 1)",
                "end do",
                "else if (kind .eq. 1) then",
                "do jb = 1, l2, nb",
                "je = jb + nb - 1",
                "if (je .gt. l2) je = l2",
                "call bkn(x(1, jb), l1, je - jb + 1)",
                "end do",
                "else if (kind .eq. 2) then",
                "do jb = 1, l2, nb",
                "je = jb + nb",
                "if (je .gt. l2) je = l2",
                "call bkn(x(1, jb), l1, je - jb + 1)",
                "end do",
                "else",
                "do jb = 1, l1, nb",
                "je = min(jb + nb - 1, l1)",
                "call bhv(v(jb), je - jb + 1)",
                "end do",
                "end if",
                "end",
            ],
            "bkn": [
                "subroutine bkn(y, ldy, nc)",
                "integer ldy, nc, i, j",
                "integer y(ldy, *)",
                "do j = 1, nc",
                "do i = 2, ldy",
                "y(i, j) = mod(y(i, j) + y(i - 1, j) * 2 + j, 1000)",
                "end do",
                "end do",
                "end",
            ],
            "bhv": [
                "subroutine bhv(y, m)",
                "integer m, i",
                "integer y(m)",
                "do i = 1, m",
                "y(i) = mod(y(i) * 3 + i + m, 1000)",
                "end do",
                "end",
            ],
            "pdr": [
                "subroutine pdr(x, l1, l2, l3, m, kind)",
                "integer l1, l2, l3, m, kind, k",
                "integer x(l1, l2, l3)",
                "if (kind .eq. 0) then",
                "do k = 1, l3",
                "call pl2(x(1,1,k), l1, l2, k)",
                "end do",
                "else if (kind .eq. 1) then",
                "do k = 1, l3",
                "call pl2(x(1,2,k), l1, l2 - 1, k)",
                "end do",
                "else if (kind .eq. 2) then",
                "do k = 1, l3",
                "call pl2(x(1,1,k), l1 - 1, l2, k)",
                "end do",
                "else",
                "do k = 1, l3 - 1",
                "call pl2(x(1,1,k), l1, m, k)",
                "end do",
                "end if",
                "end",
            ],
            "pl2": [
                "subroutine pl2(y, m1, m2, k)",
                "integer m1, m2, k, i, j",
                "integer y(m1, m2)",
                "do j = 1, m2",
                "do i = 2, m1",
                "y(i, j) = mod(y(i - 1, j) * 3 + y(i, j) + k + j, 1000)",
                "end do",
                "end do",
                "end",
            ],
            "qsg": [
                "subroutine qsg(x, j)",
                f"integer x({n1}), j, i",
                "logical qf",
                "common /qfb/ qf",
                "if (qf) call acc(j)",
                "do i = 2, " + str(n1),
                "x(i) = mod(x(i) + x(i-1) + j, 1000)",
                "end do",
                "end",
            ],
            "qsi": [
                "subroutine qsi(x, j)",
                f"integer x({n1}), j, i",
                "logical qf",
                "common /qfb/ qf",
                "do i = 2, " + str(n1),
                "x(i) = mod(x(i) * 3 + x(i-1) + j, 1000)",
                "end do",
                "if (qf .and. mod(j, 3) .eq. 0) then",
                "call acc(x(1))",
                "print *, 'qs', j, x(1)",
                "end if",
                "end",
            ],
            "qsu": [
                "subroutine qsu(x, j)",
                f"integer x({n1}), j, i",
                "logical qf",
                "common /qfb/ qf",
                "if (qf) call acc(j)",
                "call acc(1)",
                "do i = 2, " + str(n1),
                "x(i) = mod(x(i) + x(i-1) * 2 + j, 1000)",
                "end do",
                "end",
            ],
            "qsc": [
                "subroutine qsc(x, j)",
                f"integer x({n1}), j, i",
                "logical qf",
                "common /qfb/ qf",
                "if (qf) then",
                "call acc(j)",
                "qf = j .lt. 3",
                "end if",
                "do i = 2, " + str(n1),
                "x(i) = mod(x(i) + x(i-1) + 2 * j, 1000)",
                "end do",
                "end",
            ],
            "tw3": self.tw3_body(),
            "vp3": self.vp3_body(),
            "show": [
                "subroutine show",
                "integer kc",
                "common /cnt/ kc",
                "print *, 'kc', kc",
                "end",
            ],
        }
        for name in ["snx", "sdc", "sdf", "upd", "acc", "two", "ifn", "icn", "col", "scn", "shk", "wce", "wc0", "wca", "wfl", "wad", "wcd", "wst", "wsm", "wch", "wup", "wlb", "wsa", "wsb", "wsc", "sw3", "sx", "sy", "sx3", "sy3", "pjc", "plw", "rin", "owc", "oww", "qsg", "qsi", "qsu", "qsc", "pdr", "pl2", "bdr", "bkn", "bhv", "stg", "ilg", "tw3", "vp3", "show"]:
            if name in self.used_procs:
                out.append("")
                out.extend(self.render([(None, 0 if k in (0, len(bodies[name]) - 1) else 1, t)
                                        for k, t in enumerate(bodies[name])]))
        if self.used_procs & {"acc", "icn", "show"}:
            out.append("")
            out.extend(self.render([(None, 0, "block data bd"), (None, 1, "integer kc"),
                                    (None, 1, "common /cnt/ kc"), (None, 1, "data kc /3/"),
                                    (None, 0, "end")]))
        return out


    def tw3_body(self):
        """TW3's text: Y(I,J,K) from X one step along dimension `tw_dim` (side `tw_off`), the
        loop over that dimension clipped so the neighbour stays inside."""
        d, o = getattr(self, "tw_dim", 0), getattr(self, "tw_off", 1)
        v = "ijk"
        bounds = []
        for q in (2, 1, 0):
            lo, hi = "1", f"m{q + 1}"
            if q == d:
                lo, hi = ("2", hi) if o < 0 else ("1", f"{hi} - 1")
            bounds.append(f"do {v[q]} = {lo}, {hi}")
        sub = [v[q] if q != d else f"{v[q]} {'-' if o < 0 else '+'} 1" for q in range(3)]
        return (["subroutine tw3(x, y, m1, m2, m3)",
                 "integer m1, m2, m3, x(m1, m2, m3), y(m1, m2, m3), i, j, k"]
                + bounds
                + [f"y(i, j, k) = mod(y(i, j, k) * 2 + x({', '.join(sub)}) + k, 1000)",
                   "end do", "end do", "end do", "end"])

    def sized_body(self, name):
        """The subroutine of the `sized` piece: W(P) updated in place (wsa), W(M+1) (wsb), or
        wsa's loop with W printed after it (wsc). P and Q come from the sizes (the seeds' other
        programs stay as they were)."""
        n1, n2 = self.n[0], self.n[1]
        p, q = n1 % 4 + 1, n2 % 5
        at = "m + 1" if name == "wsb" else str(p)
        body = [
            f"subroutine {name}(x, m, v)",
            f"integer m, v, x({n1}, {n2}), w2(0:{n1 + 2}), i, j",
            f"do i = 0, {n1 + 2}",
            "w2(i) = mod(i * 3 + v, 37)",
            "end do",
            f"do j = 1, {n2}",
            "do i = 0, m",
            "w2(i) = mod(x(i+1,j) + j, 100)",
            "end do",
            f"w2({at}) = mod(w2({at}) + j, 100)",
            f"x({n1},j) = mod(x({n1},j) + w2({at}) * 3 + w2({q}), 1000)",
            "end do",
        ]
        if name == "wsc":
            body.append(f"print *, 'w2', w2({p}), w2({q})")
        return body + ["end"]


SIMPLE_ASSIGN = re.compile(r"^(\s+)([a-z_][a-z0-9_]*(\([^!;'\"]*\))?\s*=[^=][^!;'\"&]*)$", re.I)
NOT_ASSIGN = ("do ", "if", "else", "end", "call ", "print", "write", "read", "go", "return", "stop", "continue")


def join_statements(text, form, r):
    """Put some pairs of adjacent simple assignments on one line, separated by `;` (the
    converter rewrites each statement of a shared line alone): at the same indentation,
    neither labelled nor continued, within column 72 in fixed form and 132 in free form."""
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        a = lines[i]
        b = lines[i + 1] if i + 1 < len(lines) else None
        ma = SIMPLE_ASSIGN.match(a) if a else None
        mb = SIMPLE_ASSIGN.match(b) if b else None
        ok = ma and mb and ma.group(1) == mb.group(1)
        if ok:
            body_a, body_b = ma.group(2).strip(), mb.group(2).strip()
            ok = not body_a.lower().startswith(NOT_ASSIGN) and not body_b.lower().startswith(NOT_ASSIGN)
            if form == "fixed":
                ok = ok and len(ma.group(1)) >= 6 and a[:6].strip() == "" and b[:6].strip() == ""
                ok = ok and len(a.rstrip()) + 2 + len(body_b) <= 72
            else:
                ok = ok and len(a.rstrip()) + 2 + len(body_b) <= 132
        if ok and r.random() < 0.4:
            out.append(f"{a.rstrip()}; {body_b}")
            i += 2
            continue
        out.append(a)
        i += 1
    return "\n".join(out)


def generate(seed, form=None):
    r = random.Random(seed)
    if form is None:
        form = "fixed" if r.random() < 0.5 else "free"
    text = Gen(seed * 7919 + 1, form).program()
    # in half of the programs, statements share lines
    j = random.Random(seed * 31 + 17)
    if j.random() < 0.5:
        text = join_statements(text, form, j)
    return text, form


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("seed", type=int)
    ap.add_argument("--form", choices=["fixed", "free"])
    a = ap.parse_args()
    text, _ = generate(a.seed, a.form)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
