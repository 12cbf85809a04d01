"""numpy writes arrays of every dtype and shape; pto-npy must read the same
bytes (info: dtype, shape, FNV-1a of the data) and write files numpy reads
back equal (copy), with every header version, from strided sources, and
through a strided (transposed) conversion."""
import sys

import numpy as np

from npytest import DTYPES, FAILURES, finish, fnv1a, tmp, tool

rng = np.random.default_rng(1234)
SHAPES = [(), (1,), (7,), (0,), (2, 3), (4, 1, 3, 2), (3, 0, 2),
          (1, 2, 1, 2, 1, 2, 1, 2)]
NUMPY = ["f16", "f32", "f64", "i8", "i16", "i32", "i64", "u8", "bool", "bf16"]


def random_array(dt, shape):
    raw = rng.integers(0, 256, size=int(np.prod(shape)) * DTYPES[dt].itemsize,
                       dtype=np.uint8)
    a = raw.view(DTYPES[dt]) if dt != "bool" else (raw & 1).astype(bool)
    return a.reshape(shape)


count = 0
for dt in NUMPY:
    for shape in SHAPES:
        a = random_array(dt, shape)
        src, dst = tmp("a.npy"), tmp("b.npy")
        np.save(src, a)
        info = tool("info", src).stdout.strip()
        want = "%s: dtype=%s shape=%s nbytes=%d fnv1a=%016x" % (
            src, dt, str(tuple(shape)), a.nbytes, fnv1a(a.tobytes()))
        if info != want:
            FAILURES.append("info of %s %s:\n  got  %s\n  want %s" % (dt, shape, info, want))
        for version in (None, 1, 2, 3):
            opts = ["--version=%d" % version] if version else []
            tool("copy", src, dst, *opts)
            with open(dst, "rb") as f:
                head = f.read(12)
            major = head[6]
            hlen = int.from_bytes(head[8:10] if major == 1 else head[8:12], "little")
            prefix = 10 if major == 1 else 12
            if major != (version or 1) or (prefix + hlen) % 64:
                FAILURES.append("%s %s v%s: header version %d, %d bytes before the data"
                                % (dt, shape, version, major, prefix + hlen))
            b = np.load(dst)
            if b.dtype != a.dtype or b.shape != a.shape or b.tobytes() != a.tobytes():
                FAILURES.append("copy of %s %s (v%s) differs" % (dt, shape, version))
            count += 1

# numpy's own version 2.0 and 3.0 writers
for version in [(1, 0), (2, 0), (3, 0)]:
    a = random_array("f32", (3, 5))
    with open(tmp("v.npy"), "wb") as f:
        np.lib.format.write_array(f, a, version=version)
    tool("copy", tmp("v.npy"), tmp("w.npy"))
    if np.load(tmp("w.npy")).tobytes() != a.tobytes():
        FAILURES.append("numpy version %s file read differently" % (version,))
    count += 1

# Strided sources: numpy saves a C-order copy; pto-npy must see that copy.
base = rng.standard_normal((6, 8)).astype(np.float32)
for view in [base[::2, ::-1], base[1:5, 2:7], base.T[::3]]:
    np.save(tmp("s.npy"), np.ascontiguousarray(view) if view.flags.f_contiguous else view)
    tool("copy", tmp("s.npy"), tmp("t.npy"))
    if not np.array_equal(np.load(tmp("t.npy")), view):
        FAILURES.append("strided source %s differs" % (view.shape,))
    count += 1

# A strided read inside pto-npy: --transpose reverses the axes.
for dt in ["f32", "i16", "bool"]:
    for shape in [(3, 4), (2, 3, 4), (5,)]:
        a = random_array(dt, shape)
        np.save(tmp("x.npy"), a)
        tool("copy", tmp("x.npy"), tmp("y.npy"), "--transpose")
        if np.load(tmp("y.npy")).tobytes() != np.ascontiguousarray(a.T).tobytes():
            FAILURES.append("transpose of %s %s differs" % (dt, shape))
        count += 1

finish("roundtrip: %d arrays ok" % count)
