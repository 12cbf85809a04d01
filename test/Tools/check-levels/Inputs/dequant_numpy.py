#!/usr/bin/env python3
"""numpy's dequantize for dequantize.pto: `gen DIR` writes the inputs of
@cols and @planes (i8 values over their whole range, f32 scales of mixed
signs and magnitudes) and the results numpy computes for them, in two
roundings: `once/` rounds the exact product of f32(q) and the scale to
the result type once (the Tensor level's definition, the interpreter's);
`f32/` rounds it to f32 first and then to the result type, as the PTO
level's tcvt after the f32 product does (the same for f32 results)."""
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
    x = np.asarray(x, np.float64)
    if not once:
        x = x.astype(np.float32)
    if dtype == 'bf16':
        return bf16_once(x) if once else bf16_bits(x)
    return x.astype(dtype)


def main():
    d = sys.argv[2]
    r = np.random.default_rng(11)
    scale = lambda shape: (r.choice([-1, 1], shape) *
                           r.uniform(1e-3, 3.0, shape)).astype(np.float32)
    args = {
        'cols': [r.integers(-128, 128, (40, 48)).astype(np.int8),
                 scale((1, 48)), scale((40, 1)), scale((40, 48))],
        'planes': [r.integers(-128, 128, (3, 10, 24)).astype(np.int8),
                   scale((3, 1, 24)), scale((1, 1, 24))],
    }
    outs = {
        'cols': [(1, np.float32), (2, 'bf16'), (3, np.float16)],
        'planes': [(1, np.float32), (2, np.float16)],
    }
    for f, a in args.items():
        os.makedirs(os.path.join(d, f), exist_ok=True)
        for i, v in enumerate(a):
            np.save(os.path.join(d, f, 'in%d.npy' % i), v)
        for kind, once in (('once', True), ('f32', False)):
            os.makedirs(os.path.join(d, f, kind), exist_ok=True)
            for k, (s, dt) in enumerate(outs[f]):
                exact = a[0].astype(np.float32).astype(np.float64) * a[s]
                np.save(os.path.join(d, f, kind, 'out%d.npy' % k),
                        narrow(exact, dt, once))
    return 0


if __name__ == '__main__':
    sys.exit(main())
