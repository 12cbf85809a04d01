#!/usr/bin/env python3
"""Writes the Block level of a Lightning-Indexer-shaped score matmul: for
each of B batches, one query tile (16 rows of Q) against the KV tokens of
that batch in blocks of 128, one cube launch per (batch, block), each of
its own kernel as cv-partition leaves them (before subgraph-dedup).

usage: gen-indexer.py BATCHES TOKENS_PER_BATCH [--shared-kernel]
"""
import sys

BLOCK, D, QROWS = 128, 64, 16


def main():
    batches, tokens = int(sys.argv[1]), int(sys.argv[2])
    shared = "--shared-kernel" in sys.argv[3:]
    blocks = tokens // BLOCK
    rows, cols = batches * QROWS, batches * tokens
    q, k, s = (f"tensor<{rows}x{D}xf32>", f"tensor<{D}x{cols}xf32>",
               f"tensor<{rows}x{tokens}xf32>")
    out = []
    nkernels = 1 if shared else batches * blocks
    for i in range(nkernels):
        out.append(
            f"block.kernel cube @score_{i}(%Q: {q}, %K: {k}, %S: {s}, %b: index, %t: index, %c: index) {{\n"
            f"  %q = block.load %Q[%b, 0] : {q} -> !block.buf<{QROWS}x{D}xf32, mat>\n"
            f"  %k = block.load %K[0, %t] : {k} -> !block.buf<{D}x{BLOCK}xf32, mat>\n"
            f"  %s = tile.matmul %q, %k : !block.buf<{QROWS}x{D}xf32, mat>, "
            f"!block.buf<{D}x{BLOCK}xf32, mat> -> !block.buf<{QROWS}x{BLOCK}xf32, acc>\n"
            f"  block.store %s, %S[%b, %c] : !block.buf<{QROWS}x{BLOCK}xf32, acc> into {s}\n"
            f"}}\n")
    out.append(f"func.func @indexer_score(%Q: {q}, %K: {k}) -> {s} {{")
    out.append(f"  %S = block.workspace : {s}")
    consts = sorted({b * QROWS for b in range(batches)} |
                    {b * tokens + j * BLOCK for b in range(batches) for j in range(blocks)} |
                    {j * BLOCK for j in range(blocks)})
    for v in consts:
        out.append(f"  %c{v} = arith.constant {v} : index")
    n = 0
    for b in range(batches):
        for j in range(blocks):
            kb, t, c = b * QROWS, b * tokens + j * BLOCK, j * BLOCK
            out.append(
                f"  block.launch @score_{0 if shared else n}(%Q, %K, %S, %c{kb}, %c{t}, %c{c}) "
                f"{{label = \"score\", "
                f"reads = [{{operand = 0, offsets = [{kb}, 0], sizes = [{QROWS}, {D}]}}, "
                f"{{operand = 1, offsets = [0, {t}], sizes = [{D}, {BLOCK}]}}], "
                f"writes = [{{operand = 2, offsets = [{kb}, {c}], sizes = [{QROWS}, {BLOCK}]}}]}} "
                f": ({q}, {k}, {s}, index, index, index)")
            n += 1
    out.append(f"  func.return %S : {s}")
    out.append("}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
