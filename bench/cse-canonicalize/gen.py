#!/usr/bin/env python3
"""Writes an arithmetic program of about --ops ops, in PTO's spelling
(func.func, func.return, arith) or in MLIR 14's (builtin.func written
`func`, std.return written `return`, arith).

The functions mix what CSE and canonicalize remove with what they keep:
constants (many equal), additions and multiplications of live values,
exact duplicates of earlier ops, identities (x + 0, x * 1), operations on
constants only, and dead ops. Shapes whose result would depend on
canonicalization patterns that differ between the two tools (such as
re-associating `(x + c1) + c2`) are not generated, so that both remove the
same ops. The output is deterministic for given --ops, --seed, --funcs."""

import argparse
import random
import sys

OPS = ("arith.addi", "arith.muli")


def gen_function(rng, fname, nops, out, mlir14):
    args = ["%%arg%d" % i for i in range(4)]
    lines = []
    n = [0]

    def fresh():
        n[0] += 1
        return "%%v%d" % n[0]

    def emit(text):
        lines.append("    " + text)

    # Identity constants first: they feed x + 0 and x * 1.
    c0, c1 = fresh(), fresh()
    emit("%s = arith.constant 0 : i64" % c0)
    emit("%s = arith.constant 1 : i64" % c1)
    vars_ = list(args)
    unused = list(args)  # values no op uses yet: most values get a user
    consts = []      # constants and results of ops on constants only
    binops = []      # (op, a, b) of var-var ops, for duplicates
    count = 2
    while count < nops - 1:
        r = rng.random()
        recent = vars_[-12:]
        if r < 0.20:
            v = fresh()
            emit("%s = arith.constant %d : i64" % (v, rng.randrange(2, 40)))
            consts.append(v)
        elif r < 0.55 or len(vars_) < 2 or (r < 0.70 and not binops):
            a = unused.pop(0) if unused else rng.choice(recent)
            b = rng.choice([x for x in recent if x != a] or
                           [x for x in vars_ if x != a])
            if b in unused:
                unused.remove(b)
            op = rng.choice(OPS)
            v = fresh()
            emit("%s = %s %s, %s : i64" % (v, op, a, b))
            binops.append((op, a, b))
            vars_.append(v)
            unused.append(v)
        elif r < 0.70:
            op, a, b = rng.choice(binops[-50:])
            v = fresh()
            emit("%s = %s %s, %s : i64" % (v, op, a, b))
            vars_.append(v)
        elif r < 0.80:
            x = unused.pop(0) if unused else rng.choice(recent)
            v = fresh()
            if rng.random() < 0.5:
                emit("%s = arith.addi %s, %s : i64" % (v, x, c0))
            else:
                emit("%s = arith.muli %s, %s : i64" % (v, c1, x))
            vars_.append(v)
            unused.append(v)
        elif r < 0.90 and len(consts) >= 2:
            a, b = rng.sample(consts[-20:], 2)
            v = fresh()
            emit("%s = %s %s, %s : i64" % (v, rng.choice(OPS), a, b))
            consts.append(v)
        else:
            a, b = rng.sample(vars_, 2)
            emit("%s = %s %s, %s : i64" % (fresh(), rng.choice(OPS), a, b))
        count += 1
    results = (unused[-6:] or vars_[-1:]) + (consts[-1:] if consts else [])
    types = ", ".join(["i64"] * len(results))
    ret = "return" if mlir14 else "func.return"
    emit("%s %s : %s" % (ret, ", ".join(results), types))
    sig = ", ".join("%s: i64" % a for a in args)
    head = "func" if mlir14 else "func.func"
    out.write("  %s @%s(%s) -> (%s) {\n" % (head, fname, sig, types))
    out.write("\n".join(lines))
    out.write("\n  }\n")
    return count + 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", type=int, default=200000)
    ap.add_argument("--funcs", type=int, default=0,
                    help="number of functions (default: one per 1000 ops)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--mlir14", action="store_true",
                    help="MLIR 14's spelling instead of PTO's")
    ap.add_argument("-o", "--output", default="-")
    a = ap.parse_args()
    funcs = a.funcs or max(1, a.ops // 1000)
    rng = random.Random(a.seed)
    out = sys.stdout if a.output == "-" else open(a.output, "w")
    out.write("module {\n")
    total = 0
    for i in range(funcs):
        per = a.ops // funcs + (1 if i < a.ops % funcs else 0)
        total += gen_function(rng, "f%d" % i, max(per, 4), out, a.mlir14)
    out.write("}\n")
    if out is not sys.stdout:
        out.close()
    print("gen.py: %d ops in %d functions" % (total, funcs), file=sys.stderr)


if __name__ == "__main__":
    main()
