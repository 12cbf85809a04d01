#!/usr/bin/env python3
"""numpy's dequantize for dequantize.pto: `gen DIR` writes the inputs of
@cols and @planes (i8 values over their whole range, f32 scales of mixed
signs and magnitudes) and, in DIR/<func>/want/, the results as the Tensor
level defines them: the product of f32(q) and the scale rounded to f32,
then converted to the result type (the same for f32 results).

Some elements of each f16 and bf16 result get values and scales, found by
a search here, whose exact product rounds to a different result when
rounded once to the result type than when rounded to f32 first; for each
such result the generator prints how many of its elements differ so, and
fails when none do."""
import os
import sys

import numpy as np


def bf16_bits(x):
    """float64 -> bf16 bits (round to nearest even), as numpy has no bf16."""
    b = np.asarray(x, np.float64).astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_once(x):
    """float64 -> bf16 bits rounded once: to f32 by round-to-odd (toward
    zero, the last bit set when inexact), which keeps the information the
    second rounding needs when the target has at least 2 bits fewer."""
    x = np.asarray(x, np.float64)
    f = x.astype(np.float32)
    over = np.abs(f.astype(np.float64)) > np.abs(x)
    f = np.where(over, np.nextafter(f, np.float32(0)), f).astype(np.float32)
    exact = f.astype(np.float64) == x
    bits = np.where(exact, f.view(np.uint32), f.view(np.uint32) | 1)
    return bf16_bits(bits.astype(np.uint32).view(np.float32))


def narrow(x, dtype, once):
    """The exact values x rounded to dtype once, or to f32 first (as bits
    for bf16)."""
    x = np.asarray(x, np.float64)
    if dtype == 'bf16':
        return bf16_once(x) if once else bf16_bits(x)
    if not once:
        x = x.astype(np.float32)
    return x.astype(dtype)


def doubly_rounded(r, dtype, n):
    """n (value, scale) pairs whose product rounds differently to dtype
    once and through f32."""
    found = []
    while len(found) < n:
        q = r.integers(-128, 128, 1 << 20)
        s = (r.choice([-1, 1], q.size) * r.uniform(1e-3, 3.0, q.size)).astype(np.float32)
        p = q.astype(np.float64) * s
        once = np.asarray(narrow(p, dtype, True)).view(np.uint16)
        twice = np.asarray(narrow(p, dtype, False)).view(np.uint16)
        found += [(q[i], s[i]) for i in np.nonzero(once != twice)[0]]
    return found[:n]


def main():
    d = sys.argv[2]
    r = np.random.default_rng(11)
    scale = lambda shape: (r.choice([-1, 1], shape) *
                           r.uniform(1e-3, 3.0, shape)).astype(np.float32)
    cols = [r.integers(-128, 128, (40, 48)).astype(np.int8),
            scale((1, 48)), scale((40, 1)), scale((40, 48))]
    planes = [r.integers(-128, 128, (3, 10, 24)).astype(np.int8),
              scale((3, 1, 24)), scale((1, 1, 24))]
    # one per row of the per-row scale (bf16), one per element of the
    # per-element scale (f16), one per element of the per-column scale of
    # @planes (f16), in elements of q no other plant uses
    for i, (q, s) in enumerate(doubly_rounded(r, 'bf16', 8)):
        cols[2][i, 0], cols[0][i, 5 * i + 1] = s, q
    for i, (q, s) in enumerate(doubly_rounded(r, np.float16, 8)):
        cols[3][10 + i, 3 * i], cols[0][10 + i, 3 * i] = s, q
    for k, (q, s) in enumerate(doubly_rounded(r, np.float16, 8)):
        planes[2][0, 0, k], planes[0][k % 3, k, k] = s, q
    args = {'cols': cols, 'planes': planes}
    outs = {
        'cols': [(1, np.float32), (2, 'bf16'), (3, np.float16)],
        'planes': [(1, np.float32), (2, np.float16)],
    }
    status = 0
    for f, a in args.items():
        os.makedirs(os.path.join(d, f, 'want'), exist_ok=True)
        for i, v in enumerate(a):
            np.save(os.path.join(d, f, 'in%d.npy' % i), v)
        for k, (s, dt) in enumerate(outs[f]):
            exact = a[0].astype(np.float32).astype(np.float64) * a[s]
            want = narrow(exact, dt, False)
            np.save(os.path.join(d, f, 'want', 'out%d.npy' % k), want)
            if dt == np.float32:
                continue
            once = np.asarray(narrow(exact, dt, True))
            differ = int(np.sum(once.view(np.uint16) != want.view(np.uint16)))
            print('%s out%d: %d of %d elements differ when rounded once'
                  % (f, k, differ, want.size))
            status |= differ == 0
    return status


if __name__ == '__main__':
    sys.exit(main())
