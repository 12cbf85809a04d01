"""Element types: PyPTO's DT_* names, their IR spellings, numpy dtypes and
the PtoDType codes of the C library (include/pto/DType.h)."""

import enum

import numpy as np

# PtoDType values (stable in the C API)
_PTO_F32, _PTO_F16, _PTO_BF16, _PTO_I8, _PTO_I16, _PTO_I32, _PTO_I64, _PTO_BOOL = (
    0, 1, 2, 4, 5, 6, 7, 9)
_PTO_U8, _PTO_U16, _PTO_U32, _PTO_U64 = 8, 11, 12, 16
_PTO_F8E4M3, _PTO_F8E5M2, _PTO_F8E8M0 = 13, 14, 15
PTO_INDEX = 10


class DataType(enum.Enum):
    """A tensor element type. ``ir`` is its IR spelling, ``numpy`` the numpy
    dtype holding it (bf16: uint16 bit patterns, the .npy convention; the
    8-bit floats: uint8 bit patterns)."""

    DT_FP32 = ("f32", _PTO_F32, "float32", 4)
    DT_FP16 = ("f16", _PTO_F16, "float16", 2)
    DT_BF16 = ("bf16", _PTO_BF16, "uint16", 2)
    DT_INT8 = ("i8", _PTO_I8, "int8", 1)
    DT_INT16 = ("i16", _PTO_I16, "int16", 2)
    DT_INT32 = ("i32", _PTO_I32, "int32", 4)
    DT_INT64 = ("i64", _PTO_I64, "int64", 8)
    DT_BOOL = ("i1", _PTO_BOOL, "bool", 1)
    DT_UINT8 = ("ui8", _PTO_U8, "uint8", 1)
    DT_UINT16 = ("ui16", _PTO_U16, "uint16", 2)
    DT_UINT32 = ("ui32", _PTO_U32, "uint32", 4)
    DT_UINT64 = ("ui64", _PTO_U64, "uint64", 8)
    DT_FP8E4M3 = ("f8E4M3FN", _PTO_F8E4M3, "uint8", 1)
    DT_FP8E5M2 = ("f8E5M2", _PTO_F8E5M2, "uint8", 1)
    DT_FP8E8M0 = ("f8E8M0FNU", _PTO_F8E8M0, "uint8", 1)

    def __init__(self, ir, code, np_name, itemsize):
        self.ir = ir
        self.code = code
        self.numpy = np.dtype(np_name)
        self.itemsize = itemsize

    @property
    def is_float(self):
        return self in (DataType.DT_FP32, DataType.DT_FP16, DataType.DT_BF16)

    @property
    def is_fp8(self):
        """The 8-bit floats: stored and converted (cast, quant_mx,
        scaled_mm), not computed on."""
        return self in _FP8

    @property
    def is_int(self):
        """Signed or unsigned integers (not DT_BOOL)."""
        return self in (DataType.DT_INT8, DataType.DT_INT16, DataType.DT_INT32,
                        DataType.DT_INT64) or self.is_unsigned

    @property
    def is_unsigned(self):
        return self in (DataType.DT_UINT8, DataType.DT_UINT16, DataType.DT_UINT32,
                        DataType.DT_UINT64)

    @property
    def int_range(self):
        """(min, max) of an integer dtype."""
        bits = self.itemsize * 8
        if self.is_unsigned:
            return 0, (1 << bits) - 1
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1

    def __repr__(self):
        return f"pypto.{self.name}"

    __str__ = __repr__


DT_FP32 = DataType.DT_FP32
DT_FP16 = DataType.DT_FP16
DT_BF16 = DataType.DT_BF16
DT_INT8 = DataType.DT_INT8
DT_INT16 = DataType.DT_INT16
DT_INT32 = DataType.DT_INT32
DT_INT64 = DataType.DT_INT64
DT_BOOL = DataType.DT_BOOL
DT_UINT8 = DataType.DT_UINT8
DT_UINT16 = DataType.DT_UINT16
DT_UINT32 = DataType.DT_UINT32
DT_UINT64 = DataType.DT_UINT64
DT_FP8E4M3 = DataType.DT_FP8E4M3
DT_FP8E5M2 = DataType.DT_FP8E5M2
DT_FP8E8M0 = DataType.DT_FP8E8M0
_FP8 = frozenset((DT_FP8E4M3, DT_FP8E5M2, DT_FP8E8M0))

_BY_IR = {d.ir: d for d in DataType}
_BY_NUMPY = {np.dtype("float32"): DT_FP32, np.dtype("float16"): DT_FP16,
             np.dtype("int8"): DT_INT8, np.dtype("int16"): DT_INT16,
             np.dtype("int32"): DT_INT32, np.dtype("int64"): DT_INT64,
             np.dtype("bool"): DT_BOOL, np.dtype("uint8"): DT_UINT8,
             np.dtype("uint16"): DT_UINT16, np.dtype("uint32"): DT_UINT32,
             np.dtype("uint64"): DT_UINT64}
_TORCH_NAMES = {"float32": DT_FP32, "float16": DT_FP16, "bfloat16": DT_BF16,
                "int8": DT_INT8, "int16": DT_INT16, "int32": DT_INT32,
                "int64": DT_INT64, "bool": DT_BOOL, "uint8": DT_UINT8,
                "uint16": DT_UINT16, "uint32": DT_UINT32, "uint64": DT_UINT64,
                "float8_e4m3fn": DT_FP8E4M3, "float8_e5m2": DT_FP8E5M2,
                "float8_e8m0fnu": DT_FP8E8M0}


def from_ir(ir):
    return _BY_IR.get(ir)


def from_numpy(dt, annotated=None):
    """The DataType of a numpy dtype; uint16 reads as bf16 bit patterns when
    the parameter is declared DT_BF16 (and ml_dtypes' bfloat16 always), and
    uint8 as the bit patterns of the 8-bit float it is declared as."""
    if not isinstance(dt, np.dtype):
        dt = np.dtype(dt)
    if dt.name == "bfloat16" or (dt == np.uint16 and annotated is DT_BF16):
        return DT_BF16
    if dt == np.uint8 and annotated in _FP8:
        return annotated
    return _BY_NUMPY.get(dt)


def from_torch(tdtype):
    return _TORCH_NAMES.get(str(tdtype).replace("torch.", ""))


def coerce(value, what="dtype"):
    """A DataType from a DataType, its name, IR spelling or a numpy dtype."""
    if isinstance(value, DataType):
        return value
    if isinstance(value, str):
        if value in DataType.__members__:
            return DataType[value]
        if value in _BY_IR:
            return _BY_IR[value]
    try:
        d = from_numpy(value)
    except TypeError:
        d = None
    if d is not None:
        return d
    raise TypeError(f"{what} must be a pypto dtype (DT_FP32, DT_FP16, DT_BF16, "
                    f"DT_INT8, DT_INT16, DT_INT32, DT_INT64, DT_UINT8, DT_UINT16, "
                    f"DT_UINT32, DT_UINT64, DT_BOOL, DT_FP8E4M3, DT_FP8E5M2, DT_FP8E8M0), got {value!r}")


def bytes_of(dtype):
    return coerce(dtype).itemsize


class Element:
    """A scalar with an element type (``pypto.Element(pypto.DT_FP32, 3)``):
    ops take it wherever they take a Python number; its value is converted
    to its dtype first (3.7 as DT_INT32 is 3)."""
    __slots__ = ("_dtype", "_value")

    def __init__(self, dtype, value):
        d = coerce(dtype)
        if d.is_fp8:
            raise TypeError(f"pypto.Element: {d.name} is a storage type; give the value as "
                            "a DT_FP32 Element or a number (pypto.full and pypto.cast "
                            "round it to the 8-bit float)")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            if not (d is DT_BOOL and isinstance(value, bool)):
                raise TypeError(f"pypto.Element takes an int or a float, got {value!r}")
        if d is DT_BOOL:
            value = bool(value)
        elif d.is_int:
            value = int(value)
            lo, hi = d.int_range
            if not lo <= value <= hi:
                raise OverflowError(f"{value} does not fit {d!r}")
        else:
            value = float(np.array(value, np.float32 if d is DT_BF16 else d.numpy))
        self._dtype = d
        self._value = value

    @property
    def dtype(self):
        return self._dtype

    @property
    def value(self):
        return self._value

    def __repr__(self):
        return f"pypto.Element({self._dtype!r}, {self._value!r})"
