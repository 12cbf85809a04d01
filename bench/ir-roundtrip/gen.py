#!/usr/bin/env python3
"""Writes a large generic-form IR file for the parse/verify/print benchmark.

The module holds many "func.func" ops whose bodies look like real kernels:
elementwise and reduction ops on tensors and scalars, constants with every
kind of attribute (integers, floats, strings, booleans, arrays, dictionaries,
types, symbol references, dense elements), loops and conditionals with nested
regions, multi-result ops and a few multi-block regions with successors.

Compute ops live in the unregistered dialect `bench`, so pto-opt and mlir-opt
(with --allow-unregistered-dialect) do the same work on them: parse, check
structure and dominance, print. `func.func`/`func.return` are registered
in PTO but not in MLIR 14; the file follows their rules (function_type
matches the entry block and the return) so that PTO's verifier accepts it.
The output is deterministic for a given size and seed.

Usage: gen.py [--ops N] [--seed S] [-o FILE]
"""

import argparse
import random
import sys

SHAPES = [(128, 64), (64, 64), (32, 128), (256, 32)]
ELEMS = ["f32", "f16", "bf16"]


def tensor(shape, elem):
    return "tensor<%sx%s>" % ("x".join(str(d) for d in shape), elem)


def fmt_float(x):
    return repr(float(x)) if abs(x) >= 1e-3 or x == 0 else "%e" % x


class Func:
    """Emits one function body; tracks live values by type for operands."""

    def __init__(self, gen, name, shape, elem):
        self.g = gen
        self.rng = gen.rng
        self.name = name
        self.shape = shape
        self.elem = elem
        self.tt = tensor(shape, elem)
        self.next_id = 0
        self.lines = []
        # Values visible at the current point, per type; a stack of scopes
        # so that values defined in a region are not used after it.
        self.scopes = [{}]

    def fresh(self, prefix="v"):
        self.next_id += 1
        return "%%%s%d" % (prefix, self.next_id)

    def define(self, v, ty):
        self.scopes[-1].setdefault(ty, []).append(v)

    def pick(self, ty):
        cands = []
        for s in self.scopes:
            cands.extend(s.get(ty, ()))
        # Prefer recent values, as real code mostly uses what it just made.
        recent = cands[-6:]
        return self.rng.choice(recent)

    def line(self, depth, text):
        """A line that is not an op of its own (labels, region openings)."""
        self.lines.append("  " * depth + text)

    def emit(self, depth, text):
        """A line that completes one op."""
        self.line(depth, text)
        self.g.count += 1

    # ---- single ops ----

    def op_binary(self, d):
        name = self.rng.choice(["addf", "subf", "mulf", "divf", "maxf"])
        a, b = self.pick(self.tt), self.pick(self.tt)
        r = self.fresh()
        self.emit(d, '%s = "bench.%s"(%s, %s) : (%s, %s) -> %s'
                  % (r, name, a, b, self.tt, self.tt, self.tt))
        self.define(r, self.tt)

    def op_unary(self, d):
        name = self.rng.choice(["exp", "sqrt", "neg", "relu", "tanh"])
        a = self.pick(self.tt)
        r = self.fresh()
        attrs = ""
        if self.rng.random() < 0.3:
            attrs = ' {label = "%s_%d", vec_tile = [32, %d]}' % (
                name, self.next_id, self.rng.choice([32, 64]))
        self.emit(d, '%s = "bench.%s"(%s)%s : (%s) -> %s'
                  % (r, name, a, attrs, self.tt, self.tt))
        self.define(r, self.tt)

    def op_scalar(self, d):
        kind = self.rng.random()
        r = self.fresh()
        if kind < 0.4:
            a, b = self.pick("index"), self.pick("index")
            op = self.rng.choice(["addi", "muli", "subi"])
            self.emit(d, '%s = "bench.%s"(%s, %s) : (index, index) -> index'
                      % (r, op, a, b))
            self.define(r, "index")
        elif kind < 0.7:
            a, b = self.pick("f32"), self.pick("f32")
            self.emit(d, '%s = "bench.mulf"(%s, %s) {fastmath = #bench.fm<fast>} '
                      ': (f32, f32) -> f32' % (r, a, b))
            self.define(r, "f32")
        else:
            a, b = self.pick("f32"), self.pick("f32")
            pred = self.rng.choice(["olt", "oge", "une"])
            self.emit(d, '%s = "bench.cmpf"(%s, %s) {predicate = "%s"} '
                      ': (f32, f32) -> i1' % (r, a, b, pred))
            self.define(r, "i1")

    def op_constant(self, d):
        r = self.fresh("c")
        k = self.rng.randrange(6)
        if k == 0:
            v = self.rng.randrange(-1000, 100000)
            self.emit(d, '%s = "bench.constant"() {value = %d : index} : () -> index'
                      % (r, v))
            self.define(r, "index")
        elif k == 1:
            v = fmt_float(self.rng.choice([0.5, 1e-5, 3.25, -2.0, 0.125]))
            self.emit(d, '%s = "bench.constant"() {value = %s : f32} : () -> f32'
                      % (r, v))
            self.define(r, "f32")
        elif k == 2:
            self.emit(d, '%s = "bench.constant"() {value = dense<0.0> : %s} '
                      ': () -> %s' % (r, self.tt, self.tt))
            self.define(r, self.tt)
        elif k == 3:
            vals = ", ".join(fmt_float(self.rng.randrange(-64, 64) / 8.0)
                             for _ in range(8))
            self.emit(d, '%s = "bench.constant"() {value = dense<[%s]> : '
                      'tensor<8xf32>} : () -> tensor<8xf32>' % (r, vals))
            self.define(r, "tensor<8xf32>")
        elif k == 4:
            rows = ", ".join("[%d, %d]" % (self.rng.randrange(100),
                                           self.rng.randrange(100))
                             for _ in range(2))
            self.emit(d, '%s = "bench.constant"() {value = dense<[%s]> : '
                      'tensor<2x2xi32>} : () -> tensor<2x2xi32>' % (r, rows))
            self.define(r, "tensor<2x2xi32>")
        else:
            self.emit(d, '%s = "bench.constant"() {value = %s} : () -> i1'
                      % (r, self.rng.choice(["true", "false"])))
            self.define(r, "i1")

    def op_multi(self, d):
        a = self.pick(self.tt)
        r = self.fresh("m")
        if self.rng.random() < 0.5:
            self.emit(d, '%s:2 = "bench.max_with_index"(%s) {dim = 1 : i64, '
                      'keepdim} : (%s) -> (%s, tensor<%dx1xi64>)'
                      % (r, a, self.tt, self.tt, self.shape[0]))
            self.define(r + "#0", self.tt)
        else:
            self.emit(d, '%s:3 = "bench.norm_stats"(%s) {eps = 1.0e-05 : f32, '
                      'axes = [0, 1], config = {mode = "welford", unroll = 4 : '
                      'i32}} : (%s) -> (%s, f32, f32)'
                      % (r, a, self.tt, self.tt))
            self.define(r + "#0", self.tt)
            self.define(r + "#1", "f32")
            self.define(r + "#2", "f32")

    def op_matmul(self, d):
        a, b = self.pick(self.tt), self.pick(self.tt)
        r = self.fresh()
        self.emit(d, '%s = "bench.matmul"(%s, %s) {a_trans = false, b_trans = '
                  'true, cube_tile = [[64, 128], [64, 256], [128, 256]], '
                  'acc_type = f32} : (%s, %s) -> %s'
                  % (r, a, b, self.tt, self.tt, self.tt))
        self.define(r, self.tt)

    def op_call(self, d):
        callee = self.g.pick_callee(self.shape, self.elem)
        if not callee:
            return self.op_binary(d)
        a = self.pick(self.tt)
        s = self.pick("index")
        r = self.fresh()
        self.emit(d, '%s = "bench.call"(%s, %s) {callee = @%s} : (%s, index) -> %s'
                  % (r, a, s, callee, self.tt, self.tt))
        self.define(r, self.tt)

    def simple(self, d):
        x = self.rng.random()
        if x < 0.30:
            self.op_binary(d)
        elif x < 0.45:
            self.op_unary(d)
        elif x < 0.62:
            self.op_scalar(d)
        elif x < 0.80:
            self.op_constant(d)
        elif x < 0.88:
            self.op_multi(d)
        elif x < 0.95:
            self.op_matmul(d)
        else:
            self.op_call(d)

    # ---- region ops ----

    def block_body(self, d, nops, depth_left):
        for _ in range(nops):
            if depth_left > 0 and self.rng.random() < 0.08:
                self.region_op(d, depth_left - 1)
            else:
                self.simple(d)

    def op_for(self, d, depth_left):
        lb, ub, step = self.pick("index"), self.pick("index"), self.pick("index")
        init = self.pick(self.tt)
        r = self.fresh("l")
        iv, acc = self.fresh("i"), self.fresh("acc")
        self.line(d, '%s = "bench.for"(%s, %s, %s, %s) ({' % (r, lb, ub, step, init))
        self.line(d, "^bb0(%s: index, %s: %s):" % (iv, acc, self.tt))
        self.scopes.append({"index": [iv], self.tt: [acc]})
        self.block_body(d + 1, self.rng.randrange(3, 9), depth_left)
        self.emit(d + 1, '"bench.yield"(%s) : (%s) -> ()' % (self.pick(self.tt), self.tt))
        self.scopes.pop()
        self.emit(d, '}) {unroll = %d : i64, pipeline = "double_buffer"} '
                  ': (index, index, index, %s) -> %s'
                  % (self.rng.choice([1, 2, 4]), self.tt, self.tt))
        self.define(r, self.tt)

    def op_if(self, d, depth_left):
        c = self.pick("i1")
        r = self.fresh("s")
        self.line(d, '%s = "bench.if"(%s) ({' % (r, c))
        for i in range(2):
            if i:
                self.line(d, "}, {")
            self.scopes.append({})
            self.block_body(d + 1, self.rng.randrange(1, 6), depth_left)
            self.emit(d + 1, '"bench.yield"(%s) : (%s) -> ()'
                      % (self.pick(self.tt), self.tt))
            self.scopes.pop()
        self.emit(d, '}) : (i1) -> %s' % self.tt)
        self.define(r, self.tt)

    def op_cfg(self, d, depth_left):
        """A region with a diamond of blocks joined by successors."""
        c, x = self.pick("i1"), self.pick("f32")
        r = self.fresh("g")
        self.line(d, '%s = "bench.execute_region"() ({' % r)
        self.emit(d + 1, '"bench.cond_br"(%s)[^bb1, ^bb2] : (i1) -> ()' % c)
        for bb in (1, 2):
            self.line(d, "^bb%d:" % bb)
            self.scopes.append({})
            self.block_body(d + 1, self.rng.randrange(1, 5), 0)
            self.emit(d + 1, '"bench.br"(%s)[^bb3] : (f32) -> ()' % x)
            self.scopes.pop()
        m = self.fresh("phi")
        self.line(d, "^bb3(%s: f32):" % m)
        self.emit(d + 1, '"bench.yield"(%s) : (f32) -> ()' % m)
        self.emit(d, '}) : () -> f32')
        self.define(r, "f32")

    def region_op(self, d, depth_left):
        x = self.rng.random()
        if x < 0.5:
            self.op_for(d, depth_left)
        elif x < 0.85:
            self.op_if(d, depth_left)
        else:
            self.op_cfg(d, depth_left)

    # ---- the function ----

    def build(self, nops):
        args = [("%arg0", self.tt), ("%arg1", self.tt), ("%arg2", "index"),
                ("%arg3", "f32")]
        for v, t in args:
            self.define(v, t)
        self.line(0, '"func.func"() ({')
        self.line(0, "^bb0(%s):" % ", ".join("%s: %s" % a for a in args))
        d = 1
        # Scalars every op kind may need, so that `pick` always succeeds.
        for ty, v in (("index", 0), ("index", 1), ("index", 64)):
            r = self.fresh("c")
            self.emit(d, '%s = "bench.constant"() {value = %d : index} : () -> index'
                      % (r, v))
            self.define(r, ty)
        r = self.fresh("c")
        self.emit(d, '%s = "bench.cmpf"(%%arg3, %%arg3) {predicate = "olt"} '
                  ': (f32, f32) -> i1' % r)
        self.define(r, "i1")
        self.block_body(d, nops, 2)
        self.emit(d, '"func.return"(%s, %s) : (%s, f32) -> ()'
                  % (self.pick(self.tt), self.pick("f32"), self.tt))
        ftype = "(%s) -> (%s, f32)" % (", ".join(t for _, t in args), self.tt)
        vis = ', sym_visibility = "private"' if self.rng.random() < 0.3 else ""
        self.emit(0, '}) {function_type = %s, sym_name = "%s"%s} : () -> ()'
                  % (ftype, self.name, vis))


class Gen:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.count = 0
        self.funcs = []  # (name, shape, elem) of functions written so far

    def pick_callee(self, shape, elem):
        # Calls only need a symbol of the right shape; take a recent one.
        same = [n for n, s, e in self.funcs[-20:] if s == shape and e == elem]
        return self.rng.choice(same) if same else None

    def write(self, out, target):
        out.write("// Generated by bench/ir-roundtrip/gen.py; do not edit.\n")
        out.write('"builtin.module"() ({\n')
        self.count = 1  # the module
        i = 0
        while self.count < target:
            shape = self.rng.choice(SHAPES)
            elem = self.rng.choice(ELEMS)
            name = "kernel_%d" % i
            # Most functions are mid-sized; a few are much larger.
            n = self.rng.randrange(40, 160)
            if self.rng.random() < 0.05:
                n *= 8
            n = max(1, min(n, target - self.count - 6))
            f = Func(self, name, shape, elem)
            f.build(n)
            out.write("\n".join("  " + l for l in f.lines))
            out.write("\n")
            self.funcs.append((name, shape, elem))
            i += 1
        out.write("}) : () -> ()\n")
        return self.count


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", type=int, default=200000,
                    help="approximate number of operations (default 200000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-o", "--output", default="-")
    a = ap.parse_args()
    out = sys.stdout if a.output == "-" else open(a.output, "w")
    n = Gen(a.seed).write(out, a.ops)
    if out is not sys.stdout:
        out.close()
    print("gen.py: wrote %d ops" % n, file=sys.stderr)


if __name__ == "__main__":
    main()
