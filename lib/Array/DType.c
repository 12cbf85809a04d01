/* The element-type table: sizes, names, .npy descrs, integer ranges, and
 * the mapping between dtypes and scalar IR types. */
#include "pto/DType.h"

#include "Support/Alloc.h"

#include <string.h>

enum { F_FLOAT = 1, F_INT = 2, F_SIGNED = 4 };

typedef struct DTypeInfo {
  const char *name, *numpy, *descr, *ir;
  uint8_t size, flags;
  int64_t min;
  uint64_t max;
} DTypeInfo;

/* Indexed by PtoDType. */
static const DTypeInfo infos[PTO_DT_COUNT] = {
    [PTO_DT_F32] = {"f32", "float32", "<f4", "f32", 4, F_FLOAT | F_SIGNED, 0, 0},
    [PTO_DT_F16] = {"f16", "float16", "<f2", "f16", 2, F_FLOAT | F_SIGNED, 0, 0},
    [PTO_DT_BF16] = {"bf16", "bfloat16", "<u2", "bf16", 2, F_FLOAT | F_SIGNED,
                     0, 0},
    [PTO_DT_F64] = {"f64", "float64", "<f8", "f64", 8, F_FLOAT | F_SIGNED, 0, 0},
    [PTO_DT_I8] = {"i8", "int8", "|i1", "i8", 1, F_INT | F_SIGNED, INT8_MIN,
                   INT8_MAX},
    [PTO_DT_I16] = {"i16", "int16", "<i2", "i16", 2, F_INT | F_SIGNED,
                    INT16_MIN, INT16_MAX},
    [PTO_DT_I32] = {"i32", "int32", "<i4", "i32", 4, F_INT | F_SIGNED,
                    INT32_MIN, INT32_MAX},
    [PTO_DT_I64] = {"i64", "int64", "<i8", "i64", 8, F_INT | F_SIGNED,
                    INT64_MIN, INT64_MAX},
    [PTO_DT_U8] = {"u8", "uint8", "|u1", "ui8", 1, F_INT, 0, UINT8_MAX},
    [PTO_DT_BOOL] = {"bool", "bool", "|b1", "i1", 1, F_INT, 0, 1},
    [PTO_DT_INDEX] = {"index", "int64", "<i8", "index", 8, F_INT | F_SIGNED,
                      INT64_MIN, INT64_MAX},
    [PTO_DT_U16] = {"u16", "uint16", "<u2", "ui16", 2, F_INT, 0, UINT16_MAX},
    [PTO_DT_U32] = {"u32", "uint32", "<u4", "ui32", 4, F_INT, 0, UINT32_MAX},
    /* numpy names of formats numpy lacks: ml_dtypes' spellings */
    [PTO_DT_F8E4M3] = {"f8e4m3", "float8_e4m3fn", "|u1", "f8E4M3FN", 1,
                       F_FLOAT | F_SIGNED, 0, 0},
    [PTO_DT_F8E5M2] = {"f8e5m2", "float8_e5m2", "|u1", "f8E5M2", 1,
                       F_FLOAT | F_SIGNED, 0, 0},
    [PTO_DT_F8E8M0] = {"f8e8m0", "float8_e8m0fnu", "|u1", "f8E8M0FNU", 1,
                       F_FLOAT, 0, 0},
    [PTO_DT_U64] = {"u64", "uint64", "<u8", "ui64", 8, F_INT, 0, UINT64_MAX},
};

bool pto_dtype_is_valid(int dt) { return dt >= 0 && dt < PTO_DT_COUNT; }

size_t pto_dtype_size(PtoDType dt) { return infos[dt].size; }
const char *pto_dtype_name(PtoDType dt) { return infos[dt].name; }
const char *pto_dtype_ir_name(PtoDType dt) { return infos[dt].ir; }
const char *pto_dtype_numpy_name(PtoDType dt) { return infos[dt].numpy; }
const char *pto_dtype_npy_descr(PtoDType dt) { return infos[dt].descr; }

bool pto_dtype_from_name(const char *name, PtoDType *out) {
  /* index's numpy name is int64, so index is found by its own name only;
   * the loop meets I64 first for "int64". */
  for (int i = 0; i < PTO_DT_COUNT; i++) {
    const DTypeInfo *d = &infos[i];
    if (strcmp(name, d->name) == 0 || strcmp(name, d->numpy) == 0 ||
        strcmp(name, d->ir) == 0) {
      *out = (PtoDType)i;
      return true;
    }
  }
  return false;
}

bool pto_dtype_is_float(PtoDType dt) { return infos[dt].flags & F_FLOAT; }
bool pto_dtype_is_int(PtoDType dt) { return infos[dt].flags & F_INT; }
bool pto_dtype_is_signed(PtoDType dt) { return infos[dt].flags & F_SIGNED; }
int64_t pto_dtype_int_min(PtoDType dt) { return infos[dt].min; }
int64_t pto_dtype_int_max(PtoDType dt) {
  return infos[dt].max > INT64_MAX ? INT64_MAX : (int64_t)infos[dt].max;
}
uint64_t pto_dtype_uint_max(PtoDType dt) { return infos[dt].max; }

/* ---- cast mode names ---- */

static const char *const round_names[] = {"default", "rint",  "round", "floor",
                                          "ceil",    "trunc", "odd"};
static const char *const sat_names[] = {"wrap", "saturate"};

/* Index of `name` in `names`, or -1. */
static int find_name(const char *const *names, unsigned n, const char *name) {
  for (unsigned i = 0; i < n; i++)
    if (strcmp(name, names[i]) == 0) return (int)i;
  return -1;
}

const char *pto_round_mode_name(PtoRoundMode m) {
  return (unsigned)m < PTO_ARRAY_SIZE(round_names) ? round_names[m] : "?";
}

bool pto_round_mode_from_name(const char *name, PtoRoundMode *out) {
  int i = find_name(round_names, PTO_ARRAY_SIZE(round_names), name);
  if (i >= 0) *out = (PtoRoundMode)i;
  return i >= 0;
}

const char *pto_sat_mode_name(PtoSatMode m) {
  return (unsigned)m < PTO_ARRAY_SIZE(sat_names) ? sat_names[m] : "?";
}

bool pto_sat_mode_from_name(const char *name, PtoSatMode *out) {
  int i = find_name(sat_names, PTO_ARRAY_SIZE(sat_names), name);
  if (i >= 0) *out = (PtoSatMode)i;
  return i >= 0;
}
