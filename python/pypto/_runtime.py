"""Kernel arguments: numpy arrays and torch CPU tensors described to the C
library as PtoNdArray (pointer, dtype, shape, strides) without copying."""

import sys

import numpy as np

from . import _dtypes
from ._lib import MAX_RANK

__all__ = ["ArgInfo", "describe", "fill_ndarray", "result_to_numpy", "output_problem",
           "to_torch"]


class ArgInfo:
    """What a tensor argument is: dtype, shape, strides in elements, data
    pointer, writability, and the object keeping the memory alive."""
    __slots__ = ("dtype", "shape", "strides", "ptr", "nbytes", "writeable", "obj", "kind")

    def __init__(self, dtype, shape, strides, ptr, nbytes, writeable, obj, kind):
        self.dtype = dtype
        self.shape = shape
        self.strides = strides
        self.ptr = ptr
        self.nbytes = nbytes
        self.writeable = writeable
        self.obj = obj
        self.kind = kind


def _torch():
    return sys.modules.get("torch")


def describe(value, annotated_dtype):
    """ArgInfo of a numpy array or torch CPU tensor; a string saying what is
    wrong otherwise. A pypto.from_torch tensor stands for its torch tensor."""
    host = getattr(value, "_host", None)
    if host is not None:
        value = host
    if isinstance(value, np.ndarray):
        if value.ndim > MAX_RANK:
            return f"a numpy array of rank {value.ndim}; pypto tensors have at most {MAX_RANK} dims"
        dt = _dtypes.from_numpy(value.dtype, annotated_dtype)
        if dt is None:
            return (f"a numpy array of dtype {value.dtype}, which pypto does not support "
                    "(float32, float16, int8, int16, int32, int64, uint8, uint16, uint32, "
                    "uint64, bool; bf16 as uint16 bit "
                    "patterns for DT_BF16 parameters)")
        item = value.itemsize
        strides = []
        for s in value.strides:
            if s % item:
                return "a numpy array whose strides are not multiples of its item size"
            strides.append(s // item)
        ptr = value.__array_interface__["data"][0]
        return ArgInfo(dt, value.shape, tuple(strides), ptr, value.nbytes,
                       value.flags.writeable, value, "numpy")
    torch = _torch()
    if torch is not None and isinstance(value, torch.Tensor):
        if value.device.type != "cpu":
            return f"a torch tensor on device '{value.device}'; pass CPU tensors"
        dt = _dtypes.from_torch(value.dtype)
        if dt is None:
            return f"a torch tensor of dtype {value.dtype}, which pypto does not support"
        shape = tuple(value.shape)
        if len(shape) > MAX_RANK:
            return f"a torch tensor of rank {len(shape)}; pypto tensors have at most {MAX_RANK} dims"
        return ArgInfo(dt, shape, tuple(value.stride()), value.data_ptr(),
                       value.numel() * value.element_size(), True, value, "torch")
    return None


def fill_ndarray(nd, info, dtype):
    """Fills a PtoNdArray describing `info` as `dtype`."""
    nd.dtype = dtype.code
    rank = len(info.shape)
    nd.rank = rank
    shape, strides = nd.shape, nd.strides
    for i in range(MAX_RANK):
        if i < rank:
            shape[i] = info.shape[i]
            strides[i] = info.strides[i]
        else:
            shape[i] = 0
            strides[i] = 0
    nd.data = info.ptr
    nd.nbytes = info.nbytes
    nd.owns_data = False


def result_to_numpy(nd_ptr, dtype):
    """A numpy copy of a result the library keeps (a C-contiguous
    PtoNdArray)."""
    nd = nd_ptr.contents
    shape = tuple(nd.shape[i] for i in range(nd.rank))
    out = np.empty(shape, dtype=dtype.numpy)
    if out.nbytes:
        import ctypes
        ctypes.memmove(out.ctypes.data, nd.data, out.nbytes)
    return out


def _overlapping(shape, strides):
    """Whether two indices of the array address the same element (a
    broadcast, an expand()ed or an as_strided view): the dims of size > 1,
    ordered by stride, must each step past the whole extent of the ones
    inside them. Conservative: a layout it cannot prove disjoint counts."""
    dims = sorted((abs(s), n) for n, s in zip(shape, strides) if n > 1)
    extent = 1
    for stride, n in dims:
        if stride < extent:
            return True
        extent = stride * n
    return False


def _writable_memory(ptr, nbytes):
    """Whether [ptr, ptr + nbytes) lies in writable mappings of this process
    (a tensor over a read-only memory map says nothing about it itself).
    True when the platform has no /proc/self/maps to ask."""
    if nbytes == 0:
        return True
    try:
        with open("/proc/self/maps", "rb") as f:
            maps = f.read().split(b"\n")
    except OSError:
        return True
    lo, hi = ptr, ptr + nbytes
    for line in maps:          # in ascending address order
        if not line:
            continue
        rng, perms = line.split(b" ", 2)[:2]
        a, b = (int(x, 16) for x in rng.split(b"-"))
        if b <= lo:
            continue
        if a > lo or perms[1:2] != b"w":
            return False
        lo = b
        if lo >= hi:
            return True
    return False


def output_problem(info):
    """Why the kernel cannot write into `info`'s memory, or None."""
    if not info.writeable:
        return "its array is read-only"
    if _overlapping(info.shape, info.strides):
        return ("its elements overlap in memory (a broadcast or expand()ed view); pass a "
                "tensor with distinct elements, e.g. a .clone() or np.ascontiguousarray copy")
    if info.kind == "torch" and info.nbytes:
        item = info.dtype.itemsize
        lo = sum((n - 1) * s for n, s in zip(info.shape, info.strides) if s < 0)
        hi = sum((n - 1) * s for n, s in zip(info.shape, info.strides) if s > 0)
        if not _writable_memory(info.ptr + lo * item, (hi - lo + 1) * item):
            return "its memory is read-only (a tensor over a read-only memory map)"
    return None


def to_torch(arr, dtype):
    """A torch tensor sharing a result's numpy array; bf16 results (uint16
    bit patterns in numpy) become torch.bfloat16."""
    import torch
    if dtype is _dtypes.DT_BF16:
        return torch.from_numpy(arr.view(np.int16)).view(torch.bfloat16)
    if dtype.is_unsigned and getattr(torch, dtype.numpy.name, None) is None:
        # torch.from_numpy's own message lists what it takes, not why
        from ._errors import UnsupportedError
        raise UnsupportedError(f"torch {torch.__version__} has no {dtype.numpy.name} tensors, "
                               f"so a {dtype.name} result cannot be returned as one; "
                               "pass numpy arrays to get a numpy result")
    return torch.from_numpy(arr)
