#!/usr/bin/env python3
"""Writes a large program of one shape, for the scaling tests of the passes:
  call-chain N   private @f0 -> @f1 -> ... -> @fN-1, one call each, from @main
  wide-calls N   @main calls N private leaf functions one after the other
  arith-chain N  one function: N steps of two equal additions and a product
  dead-chain N   one function: N additions nobody uses
  nested-loops N three nested loops of N iterations around one addition"""
import sys


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
    out.append("func.func @main(%x: i32) -> i32 {")
    prev = "%x"
    for i in range(n):
        out.append("  %%r%d = func.call @g%d(%s) : (i32) -> i32" % (i, i, prev))
        prev = "%%r%d" % i
    out.append("  func.return %s : i32" % prev)
    out.append("}")


def arith_chain(n, out):
    out.append("func.func @f(%x: i32) -> i32 {")
    out.append("  %c1 = arith.constant 1 : i32")
    prev = "%x"
    for i in range(n):
        out.append("  %%a%d = arith.addi %s, %%c1 : i32" % (i, prev))
        out.append("  %%b%d = arith.addi %s, %%c1 : i32" % (i, prev))
        out.append("  %%m%d = arith.muli %%a%d, %%b%d : i32" % (i, i, i))
        prev = "%%m%d" % i
    out.append("  func.return %s : i32" % prev)
    out.append("}")


def dead_chain(n, out):
    out.append("func.func @f(%x: i32) -> i32 {")
    prev = "%x"
    for i in range(n):
        out.append("  %%a%d = arith.addi %s, %%x : i32" % (i, prev))
        prev = "%%a%d" % i
    out.append("  func.return %x : i32")
    out.append("}")


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
