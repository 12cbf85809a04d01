#!/usr/bin/env python3
"""Writes a large program of one shape, for the scaling tests of the passes:
  call-chain N   private @f0 -> @f1 -> ... -> @fN-1, one call each, from @main
  wide-calls N   @main calls N private leaf functions one after the other
  arith-chain N  one function: N steps of two equal additions and a product
  dead-chain N   one function: N additions nobody uses
  nested-loops N three nested loops of N iterations around one addition"""
import sys


def chain_function(out, header, n, step, first="%x"):
    """A function whose body is n steps, each step(i, prev) giving its lines
    and the value the next step starts from; returns the last value."""
    out.append(header)
    prev = first
    for i in range(n):
        lines, prev = step(i, prev)
        out.extend(lines)
    out.append("  func.return %s : i32" % prev)
    out.append("}")


def call_chain(n, out):
    for i in range(n):
        out.append("func.func private @f%d(%%x: i32) -> i32 {" % i)
        if i + 1 < n:
            out.append("  %%y = func.call @f%d(%%x) : (i32) -> i32" % (i + 1))
            out.append("  %z = arith.addi %y, %x : i32")
            out.append("  func.return %z : i32")
        else:
            out.append("  func.return %x : i32")
        out.append("}")
    out.append("func.func @main(%x: i32) -> i32 {")
    out.append("  %y = func.call @f0(%x) : (i32) -> i32")
    out.append("  func.return %y : i32")
    out.append("}")


def wide_calls(n, out):
    for i in range(n):
        out.append("func.func private @g%d(%%x: i32) -> i32 {" % i)
        out.append("  %%c = arith.constant %d : i32" % i)
        out.append("  %z = arith.addi %x, %c : i32")
        out.append("  func.return %z : i32")
        out.append("}")
    chain_function(out, "func.func @main(%x: i32) -> i32 {", n,
                   lambda i, prev: (["  %%r%d = func.call @g%d(%s) : (i32) -> i32"
                                     % (i, i, prev)], "%%r%d" % i))


def arith_chain(n, out):
    def step(i, prev):
        return (["  %%a%d = arith.addi %s, %%c1 : i32" % (i, prev),
                 "  %%b%d = arith.addi %s, %%c1 : i32" % (i, prev),
                 "  %%m%d = arith.muli %%a%d, %%b%d : i32" % (i, i, i)],
                "%%m%d" % i)
    chain_function(out, "func.func @f(%x: i32) -> i32 {\n"
                   "  %c1 = arith.constant 1 : i32", n, step)


def dead_chain(n, out):
    def step(i, prev):
        return ["  %%a%d = arith.addi %s, %%x : i32" % (i, prev)], "%%a%d" % i
    chain_function(out, "func.func @f(%x: i32) -> i32 {", n, step)
    out[-2] = "  func.return %x : i32"  # nobody uses the chain


def nested_loops(n, out):
    out.append("func.func @f(%x: i32) -> i32 {")
    out.append("  %c0 = arith.constant 0 : index")
    out.append("  %c1 = arith.constant 1 : index")
    out.append("  %%cn = arith.constant %d : index" % n)
    out.append("  %0 = scf.for %i = %c0 to %cn step %c1 iter_args(%a = %x) -> (i32) {")
    out.append("    %1 = scf.for %j = %c0 to %cn step %c1 iter_args(%b = %a) -> (i32) {")
    out.append("      %2 = scf.for %k = %c0 to %cn step %c1 iter_args(%c = %b) -> (i32) {")
    out.append("        %y = arith.addi %c, %x : i32")
    out.append("        scf.yield %y : i32")
    out.append("      }")
    out.append("      scf.yield %2 : i32")
    out.append("    }")
    out.append("    scf.yield %1 : i32")
    out.append("  }")
    out.append("  func.return %0 : i32")
    out.append("}")


SHAPES = {"call-chain": call_chain, "wide-calls": wide_calls,
          "arith-chain": arith_chain, "dead-chain": dead_chain,
          "nested-loops": nested_loops}

if __name__ == "__main__":
    out = []
    SHAPES[sys.argv[1]](int(sys.argv[2]), out)
    sys.stdout.write("\n".join(out) + "\n")
