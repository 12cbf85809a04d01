/* Handlers of pypto.pass_verify_print and pypto.pass_verify_save: the
 * interpreter's side effects for pass verification. Text goes to the
 * embedder's debug_print callback and files to its save_dir
 * (PtoInterpOptions); without them the ops do nothing. */
#include "Interp/InterpPypto.h"

#include "Support/Alloc.h"
#include "Support/Str.h"
#include "pto/Dialect/AttrNames.h"
#include "pto/Npy.h"

#include <ctype.h>
#include <inttypes.h>
#include <string.h>

/* Beyond this many elements a dim shows its first and last EDGE entries
 * around "..." (numpy's print threshold and edgeitems). */
enum { SUMMARIZE_OVER = 1000, EDGE = 3 };

static void put_elem(PtoStr *s, const PtoNdArray *a, int64_t off) {
  if (pto_dtype_is_float(a->dtype))
    pto_str_printf(s, "%.8g", pto_dtype_load_f64(a->dtype, a->data, off));
  else if (a->dtype == PTO_DT_BOOL)
    pto_str_puts(s, pto_dtype_load_i64(a->dtype, a->data, off) ? "True" : "False");
  else
    pto_str_int(s, pto_dtype_load_i64(a->dtype, a->data, off));
}

static void put_dims(PtoStr *s, const PtoNdArray *a, unsigned d, int64_t off,
                     bool summarize) {
  if (d == a->rank) {
    put_elem(s, a, off);
    return;
  }
  pto_str_putc(s, '[');
  int64_t n = a->shape[d];
  for (int64_t i = 0; i < n; i++) {
    if (summarize && n > 2 * EDGE && i == EDGE) {
      pto_str_puts(s, ", ...");
      i = n - EDGE;
    }
    if (i) pto_str_puts(s, ", ");
    put_dims(s, a, d + 1, off + i * a->strides[d], summarize);
  }
  pto_str_putc(s, ']');
}

static void put_value(PtoStr *s, PtoInterpFrame *f, PtoOp *op, unsigned i) {
  uint64_t buf;
  PtoNdArray a = interp_operand_array(f, op, i, &buf);
  put_dims(s, &a, 0, 0, pto_ndarray_numel(&a) > SUMMARIZE_OVER);
}

static bool cond_holds(PtoInterpFrame *f, PtoOp *op) {
  return pto_interp_value_as_i64(pto_interp_operand(f, op, 0)) != 0;
}

static PtoResult h_verify_print(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  const PtoInterpOptions *o = &pto_interp_frame_interp(f)->opts;
  if (!o->debug_print || !cond_holds(f, op)) return PTO_SUCCESS;
  const char *fmt = pto_op_named_str(op, PTO_ATTR_ID_FORMAT);
  PtoStr s;
  pto_str_init(&s);
  unsigned next = 1; /* the verifier matched the `{}`s with the operands */
  for (const char *p = fmt ? fmt : ""; *p; p++) {
    if ((p[0] == '{' || p[0] == '}') && p[1] == p[0]) {
      pto_str_putc(&s, *p++);
    } else if (p[0] == '{' && p[1] == '}') {
      if (next < pto_op_num_operands(op)) put_value(&s, f, op, next++);
      p++;
    } else {
      pto_str_putc(&s, *p);
    }
  }
  char *text = pto_str_take(&s);
  o->debug_print(o->debug_user, text);
  pto_free(text);
  return PTO_SUCCESS;
}

/* `fname` with each `$NAME` replaced by the value of the operand its key
 * names (the verifier checked that one does). */
static char *file_name(PtoInterpFrame *f, PtoOp *op) {
  const char *fname = pto_op_named_str(op, PTO_ATTR_ID_FNAME);
  PtoAttr *keys = pto_op_named_attr(op, PTO_ATTR_ID_KEYS);
  unsigned nkeys = keys && pto_attr_kind(keys) == PTO_ATTR_ARRAY ? pto_attr_array_size(keys) : 0;
  PtoStr s;
  pto_str_init(&s);
  for (const char *p = fname ? fname : ""; *p; p++) {
    if (*p != '$') {
      pto_str_putc(&s, *p);
      continue;
    }
    size_t len = 0;
    while (isalnum((unsigned char)p[1 + len]) || p[1 + len] == '_') len++;
    for (unsigned i = 0; i < nkeys; i++) {
      const char *k = pto_attr_str(pto_attr_array_get(keys, i));
      if (strlen(k) == len && strncmp(k, p + 1, len) == 0) {
        pto_str_int(&s, pto_interp_value_as_i64(pto_interp_operand(f, op, 2 + i)));
        break;
      }
    }
    p += len;
  }
  return pto_str_take(&s);
}

static PtoResult h_verify_save(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  const PtoInterpOptions *o = &pto_interp_frame_interp(f)->opts;
  if (!o->save_dir || !cond_holds(f, op)) return PTO_SUCCESS;
  char *name = file_name(f, op);
  char *path = pto_str_format("%s/%s.npy", o->save_dir, name);
  PtoError err;
  PtoResult r = pto_npy_save_file(path, interp_tensor_arg(f, op, 1), NULL, &err);
  if (r) pto_interp_error(f, op, "cannot save '%s': %s", path, err.msg);
  pto_free(path);
  pto_free(name);
  return r;
}

void interp_register_debug_ops(PtoInterp *I) {
  pto_interp_register(I, pto_pypto_op_name(PTO_PYPTO_PASS_VERIFY_PRINT), h_verify_print, NULL);
  pto_interp_register(I, pto_pypto_op_name(PTO_PYPTO_PASS_VERIFY_SAVE), h_verify_save, NULL);
}
