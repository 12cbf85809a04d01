"""Kernel arguments: numpy arrays and torch CPU tensors described to the C
library as PtoNdArray (pointer, dtype, shape, strides) without copying."""

import sys

import numpy as np

from . import _dtypes
from ._lib import MAX_RANK

__all__ = ["ArgInfo", "describe", "fill_ndarray", "result_to_numpy"]


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
    wrong otherwise."""
    if isinstance(value, np.ndarray):
        dt = _dtypes.from_numpy(value.dtype, annotated_dtype)
        if dt is None:
            return (f"a numpy array of dtype {value.dtype}, which pypto does not support "
                    "(float32, float16, int8, int16, int32, int64, bool; bf16 as uint16 bit "
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
