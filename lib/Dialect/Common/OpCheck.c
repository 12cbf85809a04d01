/* Attribute, operand and dtype rules shared by the op verifiers of the
 * Tensor and Tile levels (see OpCheck.h). */
#include "Dialect/Common/OpCheck.h"
#include "pto/Dialect/AttrNames.h"

#include "Support/Alloc.h"
#include "Support/Str.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

bool pto_dtype_in_set(const PtoType *e, PtoDtypeSet set) {
  switch (set) {
  case PTO_DTYPES_FLOAT: return pto_elem_is_float(e);
  case PTO_DTYPES_NUMERIC: return pto_elem_is_numeric(e);
  case PTO_DTYPES_MATMUL:
    return pto_elem_is_float(e) ||
           (pto_elem_is_int(e) && pto_type_int_width(e) == 8);
  case PTO_DTYPES_DEQUANT:
    return pto_elem_is_int(e) &&
           (pto_type_int_width(e) == 8 || pto_type_int_width(e) == 32);
  case PTO_DTYPES_INT: return pto_elem_is_int(e);
  case PTO_DTYPES_ANY: break;
  }
  return pto_elem_is_supported(e);
}

const char *pto_dtype_set_text(PtoDtypeSet set) {
  switch (set) {
  case PTO_DTYPES_FLOAT: return "float values (f32, f16, bf16)";
  case PTO_DTYPES_NUMERIC:
    return "numeric values (f32, f16, bf16, i8, i16, i32, i64)";
  case PTO_DTYPES_MATMUL: return "f32, f16, bf16 or i8 values";
  case PTO_DTYPES_DEQUANT: return "i8 or i32 values";
  case PTO_DTYPES_INT: return "integer values (i8, i16, i32, i64)";
  case PTO_DTYPES_ANY: break;
  }
  return "supported values";
}

void pto_opcheck_init(PtoOpCheck *c, PtoContext *ctx, PtoLoc *loc,
                      const char *op_name, PtoType *const *opnd, unsigned n,
                      const PtoNamedAttr *attrs, unsigned nattrs) {
  memset(c, 0, sizeof *c);
  c->ctx = ctx;
  c->op_name = op_name;
  /* "'<op_name>' op " without snprintf: this runs once per verified op. */
  size_t len = strlen(op_name), cap = sizeof c->prefix - sizeof "'' op ";
  if (len > cap) len = cap;
  c->prefix[0] = '\'';
  memcpy(c->prefix + 1, op_name, len);
  memcpy(c->prefix + 1 + len, "' op ", sizeof "' op ");
  c->site.ctx = ctx;
  c->site.loc = loc;
  c->site.prefix = c->prefix;
  c->opnd = opnd;
  c->nopnd = n;
  c->attrs = attrs;
  c->nattrs = nattrs;
}

void pto_opcheck_done(PtoOpCheck *c) {
  for (unsigned i = 0; i < c->nstrs; i++) pto_free(c->strs[i]);
  c->nstrs = 0;
}

const char *pto_opcheck_tstr(PtoOpCheck *c, PtoType *t) {
  if (c->nstrs == PTO_ARRAY_SIZE(c->strs)) {
    pto_free(c->strs[0]);
    memmove(c->strs, c->strs + 1, sizeof c->strs - sizeof c->strs[0]);
    c->nstrs--;
  }
  return c->strs[c->nstrs++] = pto_type_to_string(t);
}

PtoAttr *pto_opcheck_attr(const PtoOpCheck *c, const char *name) {
  for (unsigned i = 0; i < c->nattrs; i++)
    if (strcmp(pto_ident_str(c->attrs[i].name), name) == 0)
      return c->attrs[i].value;
  return NULL;
}

PtoResult pto_opcheck_int(PtoOpCheck *c, const char *name, bool required,
                          int64_t dflt, int64_t *out) {
  PtoAttr *a = pto_opcheck_attr(c, name);
  if (!a) {
    if (required) return PTO_CHECK_ERR(c, "requires attribute '%s'", name);
    *out = dflt;
    return PTO_SUCCESS;
  }
  if (pto_attr_kind(a) != PTO_ATTR_INTEGER || pto_attr_is_bool(a))
    return PTO_CHECK_ERR(c, "attribute '%s' must be an integer", name);
  *out = pto_attr_int_value(a);
  return PTO_SUCCESS;
}

PtoResult pto_opcheck_flag(PtoOpCheck *c, const char *name, bool *out) {
  PtoAttr *a = pto_opcheck_attr(c, name);
  *out = false;
  if (!a) return PTO_SUCCESS;
  if (pto_attr_kind(a) == PTO_ATTR_UNIT)
    *out = true;
  else if (pto_attr_kind(a) == PTO_ATTR_INTEGER && pto_attr_is_bool(a))
    *out = pto_attr_int_value(a) != 0;
  else
    return PTO_CHECK_ERR(c, "attribute '%s' must be a unit or boolean attribute",
                         name);
  return PTO_SUCCESS;
}

PtoResult pto_opcheck_bool(PtoOpCheck *c, const char *name, bool dflt,
                           bool *out) {
  PtoAttr *a = pto_opcheck_attr(c, name);
  *out = dflt;
  if (!a) return PTO_SUCCESS;
  if (pto_attr_kind(a) != PTO_ATTR_INTEGER || !pto_attr_is_bool(a))
    return PTO_CHECK_ERR(c, "attribute '%s' must be a boolean", name);
  *out = pto_attr_int_value(a) != 0;
  return PTO_SUCCESS;
}

PtoResult pto_opcheck_enum(PtoOpCheck *c, const char *name,
                           const char *const *values, const char *msg) {
  PtoAttr *a = pto_opcheck_attr(c, name);
  if (!a) return PTO_SUCCESS;
  if (pto_attr_kind(a) == PTO_ATTR_STRING)
    for (unsigned i = 0; values[i]; i++)
      if (strcmp(pto_attr_str(a), values[i]) == 0) return PTO_SUCCESS;
  return PTO_CHECK_ERR(c, "attribute '%s' must be %s", name, msg);
}

PtoResult pto_opcheck_dim(PtoOpCheck *c, bool required, int64_t dflt,
                          unsigned rank, unsigned *out) {
  int64_t d;
  if (pto_opcheck_int(c, PTO_ATTR_DIM, required, dflt, &d)) return PTO_FAILURE;
  return pto_shape_normalize_dim(&c->site, "attribute 'dim'", d, rank, out);
}

PtoResult pto_opcheck_known_attrs(PtoOpCheck *c, const char *const *known,
                                  bool (*also)(const char *name),
                                  const char *also_text) {
  for (unsigned i = 0; i < c->nattrs; i++) {
    const char *name = pto_ident_str(c->attrs[i].name);
    if (strchr(name, '.') || (also && also(name))) continue;
    bool ok = false;
    for (unsigned k = 0; known[k] && !ok; k++) ok = strcmp(known[k], name) == 0;
    if (ok) continue;
    PtoStr s;
    pto_str_init(&s);
    for (unsigned k = 0; known[k]; k++) pto_str_printf(&s, "%s, ", known[k]);
    pto_str_puts(&s, also_text);
    PTO_CHECK_ERR(c, "unknown attribute '%s'; '%s' accepts %s", name,
                  c->op_name, s.data);
    pto_str_release(&s);
    return PTO_FAILURE;
  }
  return PTO_SUCCESS;
}

PtoResult pto_opcheck_tensor(PtoOpCheck *c, const char *what, unsigned i,
                             PtoType *t, PtoShape *s) {
  if (!pto_type_is_tensor(t))
    return PTO_CHECK_ERR(c, "%s #%u must be a tensor, got '%s'", what, i,
                         pto_opcheck_tstr(c, t));
  PtoType *e = pto_type_tensor_elem(t);
  if (!pto_elem_is_supported(e))
    return PTO_CHECK_ERR(c, "%s #%u has unsupported element type '%s'", what, i,
                         pto_opcheck_tstr(c, e));
  if (pto_shape_from_tensor(t, s))
    return PTO_CHECK_ERR(c, "%s #%u has rank %u; at most %u dims are supported",
                         what, i, pto_type_tensor_rank(t), PTO_MAX_RANK);
  for (unsigned d = 0; d < s->rank; d++)
    if (s->dims[d] == 0)
      return PTO_CHECK_ERR(c, "%s #%u has a zero-sized dim", what, i);
  return PTO_SUCCESS;
}

PtoResult pto_opcheck_index_operands(PtoOpCheck *c, unsigned first) {
  for (unsigned i = first; i < c->nopnd; i++)
    if (pto_type_kind(c->opnd[i]) != PTO_TYPE_INDEX)
      return PTO_CHECK_ERR(c, "operand #%u must be of type 'index', got '%s'", i,
                           pto_opcheck_tstr(c, c->opnd[i]));
  return PTO_SUCCESS;
}

PtoResult pto_opcheck_offsets(PtoOpCheck *c, unsigned first, int64_t *offs,
                              unsigned *n) {
  PtoAttr *a = pto_opcheck_attr(c, PTO_ATTR_STATIC_OFFSETS);
  if (!a) return PTO_CHECK_ERR(c, "requires attribute 'static_offsets'");
  if (pto_attr_kind(a) != PTO_ATTR_ARRAY)
    return PTO_CHECK_ERR(c, "attribute 'static_offsets' must be an array of "
                            "integers");
  unsigned cnt = pto_attr_array_size(a);
  if (cnt > PTO_MAX_RANK)
    return PTO_CHECK_ERR(c, "expected at most %u offsets, got %u", PTO_MAX_RANK,
                         cnt);
  if (!pto_attr_get_i64_array(a, offs, PTO_MAX_RANK, n))
    return PTO_CHECK_ERR(c, "attribute 'static_offsets' must be an array of "
                            "integers");
  unsigned ndyn = 0;
  for (unsigned i = 0; i < *n; i++) ndyn += offs[i] == PTO_DYN;
  if (first > c->nopnd || c->nopnd - first != ndyn)
    return PTO_CHECK_ERR(c, "expected %u dynamic offset operands, got %u", ndyn,
                         first > c->nopnd ? 0 : c->nopnd - first);
  return pto_opcheck_index_operands(c, first);
}

PtoResult pto_opcheck_dyn_sizes(PtoOpCheck *c, const PtoShape *s,
                                unsigned first) {
  unsigned ndyn = 0;
  for (unsigned d = 0; d < s->rank; d++) ndyn += s->dims[d] == PTO_DYN;
  if (first > c->nopnd || c->nopnd - first != ndyn)
    return PTO_CHECK_ERR(c, "expected %u dynamic size operands, got %u", ndyn,
                         first > c->nopnd ? 0 : c->nopnd - first);
  return pto_opcheck_index_operands(c, first);
}

PtoResult pto_opcheck_same_elem(PtoOpCheck *c, PtoType *a, PtoType *b) {
  if (a != b)
    return PTO_CHECK_ERR(c, "operand element types differ: '%s' vs '%s'",
                         pto_opcheck_tstr(c, a), pto_opcheck_tstr(c, b));
  return PTO_SUCCESS;
}

PtoResult pto_opcheck_gelu_attrs(PtoOpCheck *c) {
  static const char *const v[] = {"none", "tanh", NULL};
  return pto_opcheck_enum(c, PTO_ATTR_APPROXIMATE, v, "\"none\" or \"tanh\"");
}

PtoResult pto_opcheck_cast_attrs(PtoOpCheck *c) {
  static const char *const modes[] = {"rint", "round", "floor", "ceil",
                                      "trunc", NULL};
  static const char *const sat[] = {"on", "off", NULL};
  return pto_opcheck_enum(
             c, PTO_ATTR_MODE, modes,
             "one of \"rint\", \"round\", \"floor\", \"ceil\", \"trunc\"") ||
         pto_opcheck_enum(c, PTO_ATTR_SATMODE, sat, "\"on\" or \"off\"");
}

PtoResult pto_opcheck_transpose(PtoOpCheck *c, const PtoShape *s,
                                PtoShape *out) {
  PtoAttr *a = pto_opcheck_attr(c, PTO_ATTR_PERM);
  if (!a) return PTO_CHECK_ERR(c, "requires attribute 'perm'");
  int64_t perm[PTO_MAX_RANK + 1];
  unsigned n = 0;
  if (pto_attr_kind(a) != PTO_ATTR_ARRAY ||
      (pto_attr_array_size(a) <= PTO_MAX_RANK &&
       !pto_attr_get_i64_array(a, perm, PTO_MAX_RANK, &n)))
    return PTO_CHECK_ERR(c, "attribute 'perm' must be an array of integers");
  if (pto_attr_array_size(a) > PTO_MAX_RANK)
    return PTO_CHECK_ERR(c, "attribute 'perm' must be a permutation of [0, %u)",
                         s->rank);
  return pto_shape_transpose(&c->site, s, perm, n, out);
}

PtoResult pto_opcheck_matmul_dtypes(PtoOpCheck *c, const char *what,
                                    PtoType *ea, PtoType **out, PtoType **acc) {
  if (!pto_dtype_in_set(ea, PTO_DTYPES_MATMUL))
    return PTO_CHECK_ERR(c, "operands must be f32, f16, bf16 or i8 %s, got '%s'",
                         what, pto_opcheck_tstr(c, c->opnd[0]));
  bool is_int = pto_elem_is_int(ea);
  bool f16 = pto_type_is_float(ea) && pto_type_float_kind(ea) == PTO_F16;
  PtoType *i32 = pto_type_int(c->ctx, 32), *f32 = pto_type_f32(c->ctx);
  PtoAttr *a = pto_opcheck_attr(c, PTO_ATTR_ACC_DTYPE);
  *acc = is_int ? i32 : f32;
  if (a) {
    if (pto_attr_kind(a) != PTO_ATTR_TYPE)
      return PTO_CHECK_ERR(c, "attribute 'acc_dtype' must be a type");
    PtoType *t = pto_attr_type_value(a);
    bool ok = is_int ? t == i32
                     : t == f32 || (f16 && t == pto_type_float(c->ctx, PTO_F16));
    if (!ok)
      return PTO_CHECK_ERR(c, "attribute 'acc_dtype' must be %s for %s operands",
                           is_int ? "'i32'" : f16 ? "'f32' or 'f16'" : "'f32'",
                           pto_opcheck_tstr(c, ea));
    *acc = t;
  }
  if (!*out) *out = is_int ? i32 : ea;
  if (is_int && *out != i32)
    return PTO_CHECK_ERR(c, "result element type '%s' is not allowed for i8 "
                            "operands; expected 'i32'",
                         pto_opcheck_tstr(c, *out));
  if (!is_int && !pto_elem_is_float(*out))
    return PTO_CHECK_ERR(c, "result element type '%s' is not allowed for %s "
                            "operands; expected 'f32', 'f16' or 'bf16'",
                         pto_opcheck_tstr(c, *out), pto_opcheck_tstr(c, ea));
  return PTO_SUCCESS;
}

PtoResult pto_opcheck_bitcast(PtoOpCheck *c, PtoType *src, PtoType *dst) {
  unsigned ws = pto_type_bitwidth(pto_type_tensor_elem(src));
  unsigned wd = pto_type_bitwidth(pto_type_tensor_elem(dst));
  if (ws == 1 || wd == 1)
    return PTO_CHECK_ERR(c, "cannot reinterpret the bits of i1 elements ('%s' as '%s')",
                         pto_opcheck_tstr(c, src), pto_opcheck_tstr(c, dst));
  unsigned r = pto_type_tensor_rank(src);
  if (pto_type_tensor_rank(dst) != r)
    return PTO_CHECK_ERR(c, "result rank %u differs from the operand rank %u",
                         pto_type_tensor_rank(dst), r);
  if (r == 0 && ws != wd)
    return PTO_CHECK_ERR(c, "a rank-0 tensor cannot change its element width (%u to %u "
                            "bits)", ws, wd);
  for (unsigned d = 0; d < r; d++) {
    int64_t a = pto_type_tensor_dim(src, d), b = pto_type_tensor_dim(dst, d);
    bool last = d + 1 == r;
    if (last && ws != wd) {
      if (a == PTO_DYN || b == PTO_DYN)
        return PTO_CHECK_ERR(c, "the last dim must be static to change the element "
                                "width ('%s' as '%s')",
                             pto_opcheck_tstr(c, src), pto_opcheck_tstr(c, dst));
      if (a * (int64_t)ws != b * (int64_t)wd)
        return PTO_CHECK_ERR(c, "the operand's last dim holds %" PRId64 " bits, the "
                                "result's %" PRId64 " ('%s' as '%s')",
                             a * (int64_t)ws, b * (int64_t)wd, pto_opcheck_tstr(c, src),
                             pto_opcheck_tstr(c, dst));
    } else if (a != b) {
      return PTO_CHECK_ERR(c, "result dim %u differs from the operand's ('%s' as '%s')", d,
                           pto_opcheck_tstr(c, src), pto_opcheck_tstr(c, dst));
    }
  }
  return PTO_SUCCESS;
}

void pto_opcheck_bitcast_shape(PtoShape *s, unsigned from, unsigned to) {
  if (s->rank == 0 || from == to || !to) return;
  int64_t *last = &s->dims[s->rank - 1];
  if (*last != PTO_DYN && (*last * (int64_t)from) % to == 0) *last = *last * (int64_t)from / to;
}
