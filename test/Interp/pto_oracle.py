"""numpy as the independent oracle of the interpreter at the PTO level.

usage: pto_oracle.py WORKDIR

Each case is one pto instruction in a kernel that loads its operands from
GM (tload), synchronises the pipes with flag pairs, runs the instruction
and stores its results (tstore), launched by a host function that returns
them. Every case runs twice: with unplanned tiles, and with tiles planned
at byte offsets of the core's buffers (so that operands and results move
through the byte image). The references are oracle.py's, from the docs'
definitions; data movement, integer ops, comparisons, selections, sorts
and quantisation must match bit for bit.

It prints "pto: N checks passed" and exits 0, or lists the failures and
exits 1. PTO_ORACLE_SAMPLE samples the cases as in oracle.py.
"""
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402
from oracle import (FLOATS, FAILURES, PASSED, RNG, binary_want, compare,  # noqa: E402
                    load, rand, save, ttype)

NUMERIC = FLOATS + ["i32", "i16", "i8"]
ALIGN = {"vec": 32, "mat": 32, "left": 512, "right": 512, "acc": 1024}
SIZE = {"f32": 4, "f16": 2, "bf16": 2, "i32": 4, "i16": 2, "i8": 1, "i1": 1}


class Tile:
    """An operand loaded from a GM input (vals, dt) into `space`."""

    def __init__(self, vals, dt, space="vec"):
        self.vals, self.dt, self.space = np.asarray(vals), dt, space


class Gm:
    """A GM operand the instruction addresses itself (tgather_gm), at the
    window offsets `offs`."""

    def __init__(self, vals, dt, offs):
        self.vals, self.dt, self.offs = np.asarray(vals), dt, offs


class Scalar:
    def __init__(self, value, dt):
        self.vals, self.dt = value, dt


class Planner:
    """Offsets one after another in each space (planned runs)."""

    def __init__(self, on):
        self.on, self.next = on, {}

    def tile(self, shape, dt, space):
        off = ""
        if self.on:
            at = self.next.get(space, 0)
            nbytes = shape[0] * shape[1] * SIZE[dt]
            self.next[space] = at + (nbytes + ALIGN[space] - 1) // ALIGN[space] * ALIGN[space]
            off = ", offset = %d" % at
        return "!pto.tile<%dx%dx%s, %s%s>" % (shape[0], shape[1], dt, space, off)


def scalar_text(v, dt):
    return repr(float(v)) if dt in FLOATS else str(int(v))


def program(operands, instr, outs, plan, cube=False, attrs=""):
    """The kernel and host function for one instruction: `instr` is its
    mnemonic, `outs` the (shape, dt, space) of its results."""
    P = Planner(plan)
    kargs, hargs, loads, names, types = [], [], [], [], []
    for i, o in enumerate(operands):
        if isinstance(o, Scalar):
            kargs.append("%%a%d: %s" % (i, o.dt))
            hargs.append("%%a%d: %s" % (i, o.dt))
            names.append("%%a%d" % i)
            types.append(o.dt)
            continue
        tt = ttype(o.vals.shape, o.dt)
        kargs.append("%%a%d: %s" % (i, tt))
        hargs.append("%%a%d: %s" % (i, tt))
        if isinstance(o, Gm):
            names.append("%%a%d[%s]" % (i, o.offs))
            types.append(tt)
            continue
        space = "mat" if o.space in ("left", "right") else o.space
        ty = P.tile(o.vals.shape, o.dt, space)
        loads.append("  %%t%d = pto.tload %%a%d[0, 0] : %s -> %s" % (i, i, tt, ty))
        if o.space != space:
            ty2 = P.tile(o.vals.shape, o.dt, o.space)
            loads.append("  %%u%d = pto.tmov %%t%d : %s -> %s" % (i, i, ty, ty2))
            names.append("%%u%d" % i)
            types.append(ty2)
        else:
            names.append("%%t%d" % i)
            types.append(ty)
    n = len(operands)
    pre = []
    if instr == "tmatmul_acc":
        # the accumulator comes from a first product of operands 0 and 1,
        # into the buffer the second one accumulates in
        acc = P.tile(outs[0][0], outs[0][1], "acc")
        pre.append("  %%c = pto.tmatmul %s, %s : %s, %s -> %s"
                   % (names[0], names[1], types[0], types[1], acc))
        names, types = ["%c"] + names[2:], [acc] + types[2:]
        rtypes = [acc]
    else:
        rtypes = [P.tile(s, dt, sp) for s, dt, sp in outs]
    for j, (s, dt, sp) in enumerate(outs):
        kargs.append("%%o%d: %s" % (j, ttype(s, dt)))
    body = ["pto.kernel %s @k(%s) {" % ("cube" if cube else "vector", ", ".join(kargs))]
    body += [ln for ln in loads if "tload" in ln]
    if cube:
        body += ["  pto.set_flag MTE2 -> MTE1, 0", "  pto.wait_flag MTE2 -> MTE1, 0"]
        body += [ln for ln in loads if "tmov" in ln]
        body += ["  pto.set_flag MTE1 -> M, 0", "  pto.wait_flag MTE1 -> M, 0"]
    else:
        body += ["  pto.set_flag MTE2 -> V, 0", "  pto.wait_flag MTE2 -> V, 0"]
    body += pre
    res = ", ".join("%%r%d" % j for j in range(len(outs)))
    body.append("  %s = pto.%s %s%s : %s -> %s"
                % (res, instr, ", ".join(names), attrs, ", ".join(types),
                   ", ".join(rtypes)))
    body += (["  pto.set_flag M -> FIX, 0", "  pto.wait_flag M -> FIX, 0"] if cube
             else ["  pto.set_flag V -> MTE3, 0", "  pto.wait_flag V -> MTE3, 0"])
    for j, (s, dt, sp) in enumerate(outs):
        body.append("  pto.tstore %%r%d, %%o%d[0, 0] : %s into %s"
                    % (j, j, rtypes[j], ttype(s, dt)))
    body.append("}")
    otypes = [ttype(s, dt) for s, dt, sp in outs]
    host = ["func.func @f(%s) -> (%s) {" % (", ".join(hargs), ", ".join(otypes))]
    for j, t in enumerate(otypes):
        host.append("  %%o%d = block.workspace : %s" % (j, t))
    launch_args = ["%%a%d" % i for i in range(n)] + ["%%o%d" % j for j in range(len(outs))]
    launch_types = [a.split(": ", 1)[1] for a in kargs]
    host.append("  block.launch @k(%s) {label = \"k\", reads = [], writes = []} : (%s)"
                % (", ".join(launch_args), ", ".join(launch_types)))
    host.append("  func.return %s : %s" % (", ".join("%%o%d" % j for j in range(len(outs))),
                                          ", ".join(otypes)))
    host.append("}")
    return "\n".join(body + host) + "\n"


def run(name, operands, instr, expect, tol="exact", cube=False, attrs="",
        spaces=None):
    """Runs `instr` on the operands, unplanned and planned, and compares
    result j with expect[j] = (values, dt)."""
    outs = [(np.shape(w), dt, (spaces or {}).get(j, "acc" if cube else "vec"))
            for j, (w, dt) in enumerate(expect)]
    for plan in (False, True):
        case = "%s-%s" % (name, "planned" if plan else "unplanned")
        if not oracle.sampled(case):
            continue
        d = os.path.join(oracle.WORK, case)
        os.makedirs(d, exist_ok=True)
        text = program(operands, instr, outs, plan, cube, attrs)
        src = os.path.join(d, "k.pto")
        with open(src, "w") as f:
            f.write(text)
        cmd = ["pto-run", src, "--quiet", "--out-dir", d]
        for i, o in enumerate(operands):
            if isinstance(o, Scalar):
                cmd += ["--input", "%d=%s" % (i, scalar_text(o.vals, o.dt))]
            else:
                p = os.path.join(d, "in%d.npy" % i)
                save(p, o.vals, o.dt)
                cmd += ["--input", "%d=%s" % (i, p)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            FAILURES.append("%s: pto-run failed:\n%s\n%s" % (case, r.stderr, text))
            continue
        for j, (want, dt) in enumerate(expect):
            got = load(os.path.join(d, "out%d.npy" % j), dt)
            compare(case, j, got, np.asarray(want), dt, tol, text)


BINARY = {"tadd": "add", "tsub": "sub", "tmul": "mul", "tdiv": "div",
          "tmax": "maximum", "tmin": "minimum"}
UNARY = {"texp": "exp", "tlog": "log", "tsqrt": "sqrt", "trsqrt": "rsqrt",
         "trecip": "reciprocal", "trelu": "relu", "tabs": "abs", "tneg": "neg"}
UNARY_EXACT = {"tsqrt", "trecip", "trelu", "tabs", "tneg", "trsqrt"}
REDUCE = {"sum": ("trowsum", "tcolsum"), "amax": ("trowmax", "tcolmax"),
          "amin": ("trowmin", "tcolmin")}


def dtypes(instr):
    return FLOATS if instr in ("tdiv", "tdivs", "trowexpanddiv") else NUMERIC


def suite_vector():
    for instr, op in BINARY.items():
        for dt in dtypes(instr):
            a = rand((8, 16), dt, -4.0, 4.0, special=dt in FLOATS)
            b = rand((8, 16), dt, -3.0, 3.0)
            run("%s-%s" % (instr, dt), [Tile(a, dt), Tile(b, dt)], instr,
                [(binary_want(op, a, b, dt), dt)])
            s = 0.75 if dt in FLOATS else -3
            run("%ss-%s" % (instr, dt), [Tile(a, dt), Scalar(s, dt)], instr + "s",
                [(binary_want(op, a, np.array(s, dtype=a.dtype), dt), dt)])
            c = rand((8, 1), dt, -3.0, 3.0)
            if dt not in FLOATS and op == "div":
                continue
            ex = "trowexpand" + instr[1:]
            run("%s-%s" % (ex, dt), [Tile(a, dt), Tile(c, dt)], ex,
                [(binary_want(op, a, c, dt), dt)])
    for instr, op in UNARY.items():
        for dt in NUMERIC if instr in ("trelu", "tabs", "tneg") else FLOATS:
            lo, hi = (0.01, 4.0) if instr in ("tlog", "tsqrt", "trsqrt") else (-3.0, 3.0)
            x = rand((4, 32), dt, lo, hi, special=dt in FLOATS)
            if dt in FLOATS:
                with np.errstate(all="ignore"):
                    want = oracle.UNARY[op](x)
            else:
                want = oracle.UNARY_INT[op](x.astype(object))
            tol = "exact" if instr in UNARY_EXACT or dt not in FLOATS else 2
            run("%s-%s" % (instr, dt), [Tile(x, dt)], instr, [(want, dt)], tol)
    for src, dst, mode, sat in [("f32", "f16", "rint", False), ("f32", "i8", "floor", True),
                                ("f32", "i32", "rint", False), ("i32", "f32", "rint", False),
                                ("f16", "bf16", "trunc", False), ("i16", "i8", "rint", False)]:
        x = rand((8, 8), src, -300.0, 300.0)
        attrs = ' {mode = "%s", satmode = "%s"}' % (mode, "on" if sat else "off")
        run("tcvt-%s-%s-%s" % (src, dst, mode), [Tile(x, src)], "tcvt",
            [(oracle.cast_ref(x, src, dst, mode, sat), dst)], attrs=attrs)
    for pred, fn in oracle.COMPARE.items():
        for dt in NUMERIC:
            a = rand((8, 8), dt, -2.0, 2.0, special=dt in FLOATS)
            b = a.copy()
            b.reshape(-1)[::3] = rand((22,), dt, -2.0, 2.0)
            with np.errstate(all="ignore"):
                want = fn(a, b).astype(np.int64)
            run("tcmp-%s-%s" % (pred, dt), [Tile(a, dt), Tile(b, dt)], "tcmp",
                [(want, "i1")], attrs=' {cmp = "%s"}' % pred)
    for dt in NUMERIC:
        m = rand((8, 8), "i1")
        a, b = rand((8, 8), dt), rand((8, 8), dt)
        run("tsel-%s" % dt, [Tile(m, "i1"), Tile(a, dt), Tile(b, dt)], "tsel",
            [(np.where(m != 0, a, b), dt)])
    for op, (row, col) in REDUCE.items():
        for dt in NUMERIC:
            x = rand((8, 24), dt, -4.0, 4.0)
            tol = 2 if dt in FLOATS and op == "sum" else "exact"
            for instr, dim in ((row, 1), (col, 0)):
                want = np.expand_dims(np.asarray(oracle.reduce_ref(op, x, dim, dt)), dim)
                run("%s-%s" % (instr, dt), [Tile(x, dt)], instr, [(want, dt)], tol)
    for dt in NUMERIC:
        # products in double rounded once; arg forms: the first extreme, a
        # NaN over every number; merges keep (v0, i0) on ties
        x = rand((8, 24), dt, 0.5, 1.5)
        wide = x.astype(np.float64) if dt in FLOATS else x.astype(object)
        for instr, dim in (("trowprod", 1), ("tcolprod", 0)):
            want = np.expand_dims(np.prod(wide, axis=dim), dim)
            run("%s-%s" % (instr, dt), [Tile(x, dt)], instr, [(want, dt)],
                1 if dt in FLOATS else "exact")
        y = rand((8, 24), dt, -4.0, 4.0)
        if dt in FLOATS:
            y[3, 7] = y[3, 20] = np.nan
            y[5, 2] = np.nan
        y[6, :] = y[6, 0]
        for op in ("argmax", "argmin"):
            for form, dim in (("row", 1), ("col", 0)):
                idx = np.expand_dims(oracle.reduce_ref(op, y, dim, dt), dim)
                run("t%s%s-%s" % (form, op, dt), [Tile(y, dt)], "t%s%s" % (form, op),
                    [(np.take_along_axis(y, idx, axis=dim), dt), (idx, "i32")])
        v0, v1 = rand((8, 4), dt, -2.0, 2.0), rand((8, 4), dt, -2.0, 2.0)
        v1[::2] = v0[::2]
        if dt in FLOATS:
            v0[1, 1] = v1[2, 2] = v0[3, 3] = v1[3, 3] = np.nan
        i0, i1 = RNG.integers(0, 99, size=(8, 4)), RNG.integers(0, 99, size=(8, 4))
        for op, better in (("argmax", np.greater), ("argmin", np.less)):
            with np.errstate(invalid="ignore"):
                take = ~np.isnan(v0) & (np.isnan(v1) | better(v1, v0)) \
                    if dt in FLOATS else better(v1, v0)
            run("t%s_combine-%s" % (op, dt),
                [Tile(v0, dt), Tile(i0, "i32"), Tile(v1, dt), Tile(i1, "i32")],
                "t%s_combine" % op,
                [(np.where(take, v1, v0), dt), (np.where(take, i1, i0), "i32")])
    for dt in NUMERIC + ["i1"]:
        x = rand((8, 24), dt)
        run("ttrans-%s" % dt, [Tile(x, dt)], "ttrans", [(x.T, dt)])
        # the 30x4 tile seen as [2, 3, 5, 4], and a 2x4 one as [2, 1, 4]
        v = rand((30, 4), dt)
        run("tpermute-%s" % dt, [Tile(v, dt)], "tpermute",
            [(v.reshape(2, 3, 5, 4).transpose(3, 0, 2, 1).reshape(40, 3), dt)],
            attrs=" {shape = [2, 3, 5, 4], perm = [3, 0, 2, 1]}")
        r = rand((2, 4), dt)
        run("trepeat-%s" % dt, [Tile(r, dt)], "trepeat",
            [(np.broadcast_to(r.reshape(2, 1, 4), (2, 3, 4)).reshape(6, 4), dt)],
            attrs=" {shape = [2, 1, 4], repeats = [1, 3, 1]}")
    for dt in NUMERIC:
        x = rand((8, 24), dt)
        idx = RNG.integers(0, 24, size=(8, 5))
        run("tgather-%s" % dt, [Tile(x, dt), Tile(idx, "i32")], "tgather",
            [(np.take_along_axis(x, idx, axis=1), dt)])


def suite_gather_gm():
    # torch.gather of a GM window: along dim 1 rows 2..7 of the tensor,
    # along dim 0 columns 3..9; indices cover the whole dim
    for dt in NUMERIC:
        x = rand((10, 24), dt, special=dt in FLOATS)
        idx = RNG.integers(0, 24, size=(6, 5))
        run("tgather_gm-dim1-%s" % dt, [Gm(x, dt, "2, 0"), Tile(idx, "i32")],
            "tgather_gm", [(np.take_along_axis(x[2:8], idx, axis=1), dt)],
            attrs=" {dim = 1 : i64}")
        idx = RNG.integers(0, 10, size=(4, 7))
        run("tgather_gm-dim0-%s" % dt, [Gm(x, dt, "0, 3"), Tile(idx, "i32")],
            "tgather_gm", [(np.take_along_axis(x[:, 3:10], idx, axis=0), dt)],
            attrs=" {dim = 0 : i64}")


def sorted_windows(x, idx, w):
    """Each window of w elements of each row sorted descending, stably,
    with the index carried along."""
    v, i = x.copy(), idx.copy()
    for r in range(x.shape[0]):
        for c in range(0, x.shape[1], w):
            order = np.argsort(-x[r, c:c + w], kind="stable")
            v[r, c:c + w] = x[r, c:c + w][order]
            i[r, c:c + w] = idx[r, c:c + w][order]
    return v, i


def suite_sort():
    for dt in FLOATS:
        x = rand((4, 128), dt, -8.0, 8.0)
        x[0, 3] = x[0, 7]                     # a tie inside a block
        cols = np.tile(np.arange(128), (4, 1))
        v, i = sorted_windows(x, cols, 32)
        run("tsort32-%s" % dt, [Tile(x, dt)], "tsort32", [(v, dt), (i, "i32")])
        perm = np.stack([RNG.permutation(128) for _ in range(4)])
        v, i = sorted_windows(x, perm, 32)    # sorted runs, arbitrary indices
        for block in (32, 64):
            mv, mi = sorted_windows(v, i, 2 * block)
            run("tmrgsort-%s-%d" % (dt, block), [Tile(v, dt), Tile(i, "i32")],
                "tmrgsort", [(mv, dt), (mi, "i32")], attrs=" {block = %d}" % block)
            v, i = mv, mi
        np.testing.assert_array_equal(v, np.sort(x, axis=1)[:, ::-1])


def topk_want(x, k, largest):
    """The k largest (smallest) of each row and their columns, ties in
    column order, as the Tensor level's topk defines them."""
    keys = x.astype(np.float64)
    order = np.argsort(-keys if largest else keys, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(x, order, axis=1), order


def suite_topk():
    for dt in NUMERIC:
        lo, hi = (-8.0, 8.0) if dt in FLOATS else (-100, 100)
        x = rand((5, 40), dt, lo, hi)
        x[0, 9] = x[0, 20] = x[0, 5]          # ties across the row
        x[1, :] = x[1, 0]                      # a row of one value
        x[2, 30] = x[2, 3]
        for k, largest in ((1, True), (3, True), (3, False), (40, True), (40, False)):
            v, i = topk_want(x, k, largest)
            attrs = " {k = %d, largest = %s}" % (k, "true" if largest else "false")
            run("ttopk-%s-%d-%s" % (dt, k, largest), [Tile(x, dt)], "ttopk",
                [(v, dt), (i, "i32")], attrs=attrs)
        # the merge: topk over the two lists side by side, carrying the
        # index values (ties: the first list, then the lower position)
        a, b = x[:, :12], x[:, 30:36]
        ia, ib = RNG.integers(0, 999, size=a.shape), RNG.integers(0, 999, size=b.shape)
        both, ids = np.concatenate([a, b], axis=1), np.concatenate([ia, ib], axis=1)
        for k, largest in ((1, True), (5, False), (18, True)):
            v, pos = topk_want(both, k, largest)
            attrs = " {k = %d, largest = %s}" % (k, "true" if largest else "false")
            run("ttopk_merge-%s-%d-%s" % (dt, k, largest),
                [Tile(a, dt), Tile(ia, "i32"), Tile(b, dt), Tile(ib, "i32")],
                "ttopk_merge",
                [(v, dt), (np.take_along_axis(ids, pos, axis=1), "i32")], attrs=attrs)


def suite_quant():
    for dt in FLOATS:
        x = rand((6, 32), dt, -3.0, 3.0)
        xf = x.astype(np.float32)
        s = (np.max(np.abs(xf), axis=1, keepdims=True) / np.float32(100)).astype(np.float32)
        s[2, 0] = 0.0
        with np.errstate(all="ignore"):
            q = np.where(s == 0, 0, np.clip(np.rint((xf / s).astype(np.float32)), -127, 127))
        run("tquant-%s" % dt, [Tile(x, dt), Tile(s, "f32")], "tquant",
            [(q.astype(np.int64), "i8")])


def suite_cube():
    for dt, cdt in [("f32", "f32"), ("f16", "f32"), ("bf16", "f32"), ("i8", "i32")]:
        tol = "exact" if dt == "i8" else 4
        a, b = rand((16, 32), dt, -2.0, 2.0), rand((32, 8), dt, -2.0, 2.0)
        obj = dt == "i8"
        want = oracle.matmul_ref(a.astype(object) if obj else a,
                                 b.astype(object) if obj else b, False, False, None)
        run("tmatmul-%s" % dt, [Tile(a, dt, "left"), Tile(b, dt, "right")],
            "tmatmul", [(want, cdt)], tol, cube=True)
        a2, b2 = rand((16, 32), dt, -2.0, 2.0), rand((32, 8), dt, -2.0, 2.0)
        want2 = oracle.matmul_ref(a2.astype(object) if obj else a2,
                                  b2.astype(object) if obj else b2, False, False, None)
        run("tmatmul_acc-%s" % dt,
            [Tile(a, dt, "left"), Tile(b, dt, "right"), Tile(a2, dt, "left"),
             Tile(b2, dt, "right")],
            # the first product is rounded to C's type in the accumulator
            "tmatmul_acc", [((want if obj else oracle.fit(want, cdt)) + want2, cdt)],
            tol, cube=True)
        bias = rand((1, 8), cdt, -2.0, 2.0)
        run("tmatmul_bias-%s" % dt,
            [Tile(a, dt, "left"), Tile(b, dt, "right"), Tile(bias, cdt, "mat")],
            "tmatmul_bias", [(want + (bias.astype(object) if obj else bias), cdt)],
            tol, cube=True)


def main():
    oracle.WORK = sys.argv[1]
    os.makedirs(oracle.WORK, exist_ok=True)
    for suite in (suite_vector, suite_gather_gm, suite_sort, suite_topk, suite_quant,
                  suite_cube):
        suite()
    if FAILURES:
        print("\n\n".join(FAILURES[:20]))
        print("pto: %d checks passed, %d failed" % (PASSED[0], len(FAILURES)))
        return 1
    print("pto: %d checks passed" % PASSED[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
