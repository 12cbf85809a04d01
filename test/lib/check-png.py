"""Checks that a PNG (8-bit RGB or RGBA, as rsvg-convert writes) is not
blank: decodes it with zlib alone and counts the distinct colours and the
share of non-white pixels. Usage: check-png.py FILE.png MIN_COLOURS"""

import struct
import sys
import zlib


def pixels(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("%s: not a PNG" % path)
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    if depth != 8 or ctype not in (2, 6):
        sys.exit("%s: unsupported PNG (depth %d, colour type %d)"
                 % (path, depth, ctype))
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(idat), w * bpp
    prev, out, i = bytearray(stride), [], 0
    for _ in range(h):
        ft, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if ft == 1:
                line[x] = (line[x] + a) & 255
            elif ft == 2:
                line[x] = (line[x] + b) & 255
            elif ft == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif ft == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[x] = (line[x] + pred) & 255
        out.extend(tuple(line[x:x + 3]) for x in range(0, stride, bpp))
        prev = line
    return w, h, out


w, h, px = pixels(sys.argv[1])
colours = len(set(px))
ink = sum(1 for p in px if p != (255, 255, 255)) / len(px)
if colours < int(sys.argv[2]) or ink < 0.05:
    sys.exit("%s looks blank: %d colours, %.1f%% non-white"
             % (sys.argv[1], colours, 100 * ink))
print("png ok: %dx%d, %d colours, %.0f%% non-white" % (w, h, colours, 100 * ink))
