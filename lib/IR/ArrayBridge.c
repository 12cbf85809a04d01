/* The IR side of lib/Array (pto/IRArray.h): it lives here so that
 * lib/Array knows no IR. */
#include "pto/IRArray.h"

#include "IR/IRInternal.h"

bool pto_dtype_from_type(const PtoType *t, PtoDType *out) {
  switch (pto_type_kind(t)) {
  case PTO_TYPE_INDEX:
    *out = PTO_DT_INDEX;
    return true;
  case PTO_TYPE_FLOAT:
    switch (pto_type_float_kind(t)) {
    case PTO_F16:
      *out = PTO_DT_F16;
      return true;
    case PTO_BF16:
      *out = PTO_DT_BF16;
      return true;
    case PTO_F32:
      *out = PTO_DT_F32;
      return true;
    case PTO_F64:
      *out = PTO_DT_F64;
      return true;
    default:
      return pto_float_kind_f8_dtype(pto_type_float_kind(t), out);
    }
  case PTO_TYPE_INTEGER: {
    unsigned w = pto_type_int_width(t);
    PtoSignedness s = pto_type_int_signedness(t);
    if (s == PTO_UNSIGNED) {
      switch (w) {
      case 8: *out = PTO_DT_U8; return true;
      case 16: *out = PTO_DT_U16; return true;
      case 32: *out = PTO_DT_U32; return true;
      case 64: *out = PTO_DT_U64; return true;
      default: return false;
      }
    }
    switch (w) {
    case 1:
      /* si1 holds {-1, 0}: not a bool */
      if (s != PTO_SIGNLESS) return false;
      *out = PTO_DT_BOOL;
      return true;
    case 8:
      *out = PTO_DT_I8;
      return true;
    case 16:
      *out = PTO_DT_I16;
      return true;
    case 32:
      *out = PTO_DT_I32;
      return true;
    case 64:
      *out = PTO_DT_I64;
      return true;
    }
    return false;
  }
  default:
    return false;
  }
}

PtoType *pto_dtype_to_type(PtoContext *ctx, PtoDType dt) {
  switch (dt) {
  case PTO_DT_F32:
    return pto_type_float(ctx, PTO_F32);
  case PTO_DT_F16:
    return pto_type_float(ctx, PTO_F16);
  case PTO_DT_BF16:
    return pto_type_float(ctx, PTO_BF16);
  case PTO_DT_F64:
    return pto_type_float(ctx, PTO_F64);
  case PTO_DT_I8:
    return pto_type_int(ctx, 8);
  case PTO_DT_I16:
    return pto_type_int(ctx, 16);
  case PTO_DT_I32:
    return pto_type_int(ctx, 32);
  case PTO_DT_I64:
    return pto_type_int(ctx, 64);
  case PTO_DT_U8:
    return pto_type_int_signed(ctx, 8, PTO_UNSIGNED);
  case PTO_DT_U16:
    return pto_type_int_signed(ctx, 16, PTO_UNSIGNED);
  case PTO_DT_U32:
    return pto_type_int_signed(ctx, 32, PTO_UNSIGNED);
  case PTO_DT_U64:
    return pto_type_int_signed(ctx, 64, PTO_UNSIGNED);
  case PTO_DT_BOOL:
    return pto_type_int(ctx, 1);
  case PTO_DT_INDEX:
    return pto_type_index(ctx);
  case PTO_DT_F8E4M3:
    return pto_type_float(ctx, PTO_F8E4M3FN);
  case PTO_DT_F8E5M2:
    return pto_type_float(ctx, PTO_F8E5M2);
  case PTO_DT_F8E8M0:
    return pto_type_float(ctx, PTO_F8E8M0FNU);
  }
  return NULL;
}

PtoResult pto_emit_plain_error(PtoContext *ctx, PtoLoc *loc,
                               const PtoError *err) {
  return pto_emit_error(ctx, loc, "%s", err->msg);
}

static PtoNdArray *read_failed(PtoContext *ctx, const char *name,
                               const PtoError *err) {
  pto_emit_plain_error(ctx, pto_loc_name(ctx, name, NULL), err);
  return NULL;
}

PtoNdArray *pto_npy_read_file(PtoContext *ctx, const char *path) {
  return pto_npy_read_file_bounded(ctx, path, 0);
}

PtoNdArray *pto_npy_read_file_bounded(PtoContext *ctx, const char *path,
                                      uint64_t max_bytes) {
  PtoError err;
  PtoNdArray *a = pto_npy_load_file(path, max_bytes, &err);
  return a ? a : read_failed(ctx, path, &err);
}

PtoNdArray *pto_npy_read_buffer(PtoContext *ctx, const void *buf, size_t len,
                                const char *name) {
  PtoError err;
  PtoNdArray *a = pto_npy_load_buffer(buf, len, &err);
  return a ? a : read_failed(ctx, name ? name : "<memory>", &err);
}

PtoResult pto_npy_write_file(PtoContext *ctx, const char *path,
                             const PtoNdArray *a,
                             const PtoNpyWriteOptions *opts) {
  PtoError err;
  if (!pto_npy_save_file(path, a, opts, &err)) return PTO_SUCCESS;
  return pto_emit_plain_error(ctx, pto_loc_name(ctx, path, NULL), &err);
}

void *pto_npy_write_buffer(PtoContext *ctx, const PtoNdArray *a,
                           const PtoNpyWriteOptions *opts, size_t *len) {
  PtoError err;
  void *buf = pto_npy_save_buffer(a, opts, len, &err);
  if (!buf)
    pto_emit_plain_error(ctx, pto_loc_name(ctx, "<memory>", NULL), &err);
  return buf;
}
