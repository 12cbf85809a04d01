/* Attribute, operand and dtype rules shared by the op verifiers of the
 * Tensor and Tile levels (see OpCheck.h). */
#include "Dialect/Common/OpCheck.h"

#include "pto/DType.h"

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
  case PTO_DTYPES_ANY: break;
  }
  return pto_elem_is_supported(e);
}

const char *pto_dtype_set_text(PtoDtypeSet set) {
  switch (set) {
  case PTO_DTYPES_FLOAT: return "float values (f32, f16, bf16)";
  case PTO_DTYPES_NUMERIC:
    return "numeric values (f32, f16, bf16, i8, i16, i32, i64)";
  case PTO_DTYPES_DEQUANT: return "i8 or i32 values";
  case PTO_DTYPES_MATMUL:
  case PTO_DTYPES_ANY: break;
  }
  return "supported values";
}

const char *pto_check_tstr(PtoCheckStrs *strs, PtoType *t) {
  char *s = pto_type_to_string(t);
  pto_vec_push(strs, s);
  return s;
}

void pto_check_strs_release(PtoCheckStrs *strs) {
  pto_vec_foreach(strs, s) pto_free(*s);
  pto_vec_free(strs);
}

#define ERR(...) pto_site_error(site, __VA_ARGS__)

/* ------------------------------------------------------------------ */
/* Attributes                                                           */
/* ------------------------------------------------------------------ */

PtoAttr *pto_check_find_attr(const PtoNamedAttr *attrs, unsigned n,
                             const char *name) {
  for (unsigned i = 0; i < n; i++)
    if (strcmp(pto_ident_str(attrs[i].name), name) == 0) return attrs[i].value;
  return NULL;
}

PtoResult pto_check_attr_int(const PtoErrSite *site, const PtoNamedAttr *attrs,
                             unsigned n, const char *name, bool required,
                             int64_t dflt, int64_t *out) {
  PtoAttr *a = pto_check_find_attr(attrs, n, name);
  *out = dflt;
  if (!a) {
    if (required) return ERR("requires attribute '%s'", name);
    return PTO_SUCCESS;
  }
  if (pto_attr_kind(a) != PTO_ATTR_INTEGER || pto_attr_is_bool(a))
    return ERR("attribute '%s' must be an integer", name);
  *out = pto_attr_int_value(a);
  return PTO_SUCCESS;
}

PtoResult pto_check_attr_flag(const PtoErrSite *site,
                              const PtoNamedAttr *attrs, unsigned n,
                              const char *name, bool *out) {
  PtoAttr *a = pto_check_find_attr(attrs, n, name);
  *out = false;
  if (!a) return PTO_SUCCESS;
  if (pto_attr_kind(a) == PTO_ATTR_UNIT)
    *out = true;
  else if (pto_attr_kind(a) == PTO_ATTR_INTEGER && pto_attr_is_bool(a))
    *out = pto_attr_int_value(a) != 0;
  else
    return ERR("attribute '%s' must be a unit or boolean attribute", name);
  return PTO_SUCCESS;
}

PtoResult pto_check_attr_bool(const PtoErrSite *site,
                              const PtoNamedAttr *attrs, unsigned n,
                              const char *name, bool dflt, bool *out) {
  PtoAttr *a = pto_check_find_attr(attrs, n, name);
  *out = dflt;
  if (!a) return PTO_SUCCESS;
  if (pto_attr_kind(a) != PTO_ATTR_INTEGER || !pto_attr_is_bool(a))
    return ERR("attribute '%s' must be a boolean", name);
  *out = pto_attr_int_value(a) != 0;
  return PTO_SUCCESS;
}

PtoResult pto_check_attr_enum(const PtoErrSite *site,
                              const PtoNamedAttr *attrs, unsigned n,
                              const char *name, const char *const *values,
                              const char *msg) {
  PtoAttr *a = pto_check_find_attr(attrs, n, name);
  if (!a) return PTO_SUCCESS;
  if (pto_attr_kind(a) == PTO_ATTR_STRING)
    for (unsigned i = 0; values[i]; i++)
      if (strcmp(pto_attr_str(a), values[i]) == 0) return PTO_SUCCESS;
  return ERR("attribute '%s' must be %s", name, msg);
}

PtoResult pto_check_attr_dim(const PtoErrSite *site, const PtoNamedAttr *attrs,
                             unsigned n, bool required, int64_t dflt,
                             unsigned rank, unsigned *out) {
  int64_t d;
  if (pto_check_attr_int(site, attrs, n, "dim", required, dflt, &d))
    return PTO_FAILURE;
  return pto_shape_normalize_dim(site, "attribute 'dim'", d, rank, out);
}

PtoResult pto_check_known_attrs(const PtoErrSite *site,
                                const PtoNamedAttr *attrs, unsigned n,
                                const char *op_name, const char *const *known,
                                bool (*also)(const char *name),
                                const char *also_text) {
  for (unsigned i = 0; i < n; i++) {
    const char *name = pto_ident_str(attrs[i].name);
    if (strchr(name, '.') || (also && also(name))) continue;
    bool ok = false;
    for (unsigned k = 0; known[k] && !ok; k++) ok = strcmp(known[k], name) == 0;
    if (ok) continue;
    PtoStr s;
    pto_str_init(&s);
    for (unsigned k = 0; known[k]; k++) pto_str_printf(&s, "%s, ", known[k]);
    pto_str_puts(&s, also_text);
    ERR("unknown attribute '%s'; '%s' accepts %s", name, op_name, s.data);
    pto_str_release(&s);
    return PTO_FAILURE;
  }
  return PTO_SUCCESS;
}

PtoResult pto_check_gelu_attrs(const PtoErrSite *site,
                               const PtoNamedAttr *attrs, unsigned n) {
  static const char *const v[] = {"none", "tanh", NULL};
  return pto_check_attr_enum(site, attrs, n, "approximate", v,
                             "\"none\" or \"tanh\"");
}

/* A string attribute naming a mode: name_of(i) for i = 0, 1, ... until
 * "?" lists the accepted names. */
static PtoResult check_mode(const PtoErrSite *site, const PtoNamedAttr *attrs,
                            unsigned n, const char *attr,
                            const char *(*name_of)(int),
                            bool (*valid)(const char *)) {
  PtoAttr *a = pto_check_find_attr(attrs, n, attr);
  if (!a || (pto_attr_kind(a) == PTO_ATTR_STRING && valid(pto_attr_str(a))))
    return PTO_SUCCESS;
  PtoStr s;
  pto_str_init(&s);
  for (int i = 0; strcmp(name_of(i), "?") != 0; i++)
    pto_str_printf(&s, "%s\"%s\"", i ? ", " : "", name_of(i));
  ERR("attribute '%s' must be one of %s", attr, s.data);
  pto_str_release(&s);
  return PTO_FAILURE;
}

static const char *round_name(int i) { return pto_round_mode_name((PtoRoundMode)i); }
static const char *sat_name(int i) { return pto_sat_mode_name((PtoSatMode)i); }
static bool round_valid(const char *n) {
  PtoRoundMode m;
  return pto_round_mode_from_name(n, &m);
}
static bool sat_valid(const char *n) {
  PtoSatMode m;
  return pto_sat_mode_from_name(n, &m);
}

PtoResult pto_check_cast_attrs(const PtoErrSite *site,
                               const PtoNamedAttr *attrs, unsigned n) {
  return check_mode(site, attrs, n, "mode", round_name, round_valid) ||
         check_mode(site, attrs, n, "satmode", sat_name, sat_valid);
}

PtoResult pto_check_perm_attr(const PtoErrSite *site, const PtoNamedAttr *attrs,
                              unsigned n, unsigned rank,
                              int64_t perm[PTO_MAX_RANK], unsigned *nperm) {
  PtoAttr *a = pto_check_find_attr(attrs, n, "perm");
  if (!a) return ERR("requires attribute 'perm'");
  if (pto_attr_kind(a) != PTO_ATTR_ARRAY ||
      (pto_attr_array_size(a) <= PTO_MAX_RANK &&
       !pto_attr_get_i64_array(a, perm, PTO_MAX_RANK, nperm)))
    return ERR("attribute 'perm' must be an array of integers");
  if (pto_attr_array_size(a) > PTO_MAX_RANK)
    return ERR("attribute 'perm' must be a permutation of [0, %u)", rank);
  return PTO_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Operands                                                             */
/* ------------------------------------------------------------------ */

PtoResult pto_check_tensor(const PtoErrSite *site, PtoCheckStrs *strs,
                           const char *what, unsigned i, PtoType *t,
                           PtoShape *s) {
  if (!pto_type_is_tensor(t))
    return ERR("%s #%u must be a tensor, got '%s'", what, i,
               pto_check_tstr(strs, t));
  PtoType *e = pto_type_tensor_elem(t);
  if (!pto_elem_is_supported(e))
    return ERR("%s #%u has unsupported element type '%s'", what, i,
               pto_check_tstr(strs, e));
  if (pto_shape_from_tensor(t, s))
    return ERR("%s #%u has rank %u; at most %u dims are supported", what, i,
               pto_type_tensor_rank(t), PTO_MAX_RANK);
  for (unsigned d = 0; d < s->rank; d++)
    if (s->dims[d] == 0) return ERR("%s #%u has a zero-sized dim", what, i);
  return PTO_SUCCESS;
}

PtoResult pto_check_index_operands(const PtoErrSite *site, PtoCheckStrs *strs,
                                   PtoType *const *types, unsigned n,
                                   unsigned first) {
  for (unsigned i = first; i < n; i++)
    if (pto_type_kind(types[i]) != PTO_TYPE_INDEX)
      return ERR("operand #%u must be of type 'index', got '%s'", i,
                 pto_check_tstr(strs, types[i]));
  return PTO_SUCCESS;
}

PtoResult pto_check_offsets(const PtoErrSite *site, PtoCheckStrs *strs,
                            PtoType *const *types, unsigned n, unsigned first,
                            const PtoNamedAttr *attrs, unsigned nattrs,
                            int64_t *offs, unsigned *noffs) {
  PtoAttr *a = pto_check_find_attr(attrs, nattrs, "static_offsets");
  if (!a) return ERR("requires attribute 'static_offsets'");
  if (pto_attr_kind(a) != PTO_ATTR_ARRAY)
    return ERR("attribute 'static_offsets' must be an array of integers");
  unsigned cnt = pto_attr_array_size(a);
  if (cnt > PTO_MAX_RANK)
    return ERR("expected at most %u offsets, got %u", PTO_MAX_RANK, cnt);
  if (!pto_attr_get_i64_array(a, offs, PTO_MAX_RANK, noffs))
    return ERR("attribute 'static_offsets' must be an array of integers");
  unsigned ndyn = 0;
  for (unsigned i = 0; i < *noffs; i++) ndyn += offs[i] == PTO_DYN;
  unsigned have = first > n ? 0 : n - first;
  if (have != ndyn)
    return ERR("expected %u dynamic offset operands, got %u", ndyn, have);
  return pto_check_index_operands(site, strs, types, n, first);
}

PtoResult pto_check_dyn_sizes(const PtoErrSite *site, PtoCheckStrs *strs,
                              PtoType *const *types, unsigned n,
                              const PtoShape *s, unsigned first) {
  unsigned ndyn = 0;
  for (unsigned d = 0; d < s->rank; d++) ndyn += s->dims[d] == PTO_DYN;
  unsigned have = first > n ? 0 : n - first;
  if (have != ndyn)
    return ERR("expected %u dynamic size operands, got %u", ndyn, have);
  return pto_check_index_operands(site, strs, types, n, first);
}

PtoResult pto_check_same_elem(const PtoErrSite *site, PtoCheckStrs *strs,
                              PtoType *a, PtoType *b) {
  if (a != b)
    return ERR("operand element types differ: '%s' vs '%s'",
               pto_check_tstr(strs, a), pto_check_tstr(strs, b));
  return PTO_SUCCESS;
}

PtoResult pto_check_matmul_operands(const PtoErrSite *site, PtoCheckStrs *strs,
                                    const char *what, PtoType *operand0,
                                    PtoType *ea) {
  if (!pto_dtype_in_set(ea, PTO_DTYPES_MATMUL))
    return ERR("operands must be f32, f16, bf16 or i8 %s, got '%s'", what,
               pto_check_tstr(strs, operand0));
  return PTO_SUCCESS;
}

PtoResult pto_check_matmul_elems(const PtoErrSite *site, PtoCheckStrs *strs,
                                 const PtoNamedAttr *attrs, unsigned n,
                                 PtoType *ea, PtoType *out, PtoType **acc) {
  PtoContext *ctx = pto_type_ctx(ea);
  bool is_int = pto_elem_is_int(ea);
  bool f16 = pto_type_is_float(ea) && pto_type_float_kind(ea) == PTO_F16;
  PtoType *i32 = pto_type_int(ctx, 32), *f32 = pto_type_f32(ctx);
  PtoAttr *a = pto_check_find_attr(attrs, n, "acc_dtype");
  *acc = is_int ? i32 : f32;
  if (a) {
    if (pto_attr_kind(a) != PTO_ATTR_TYPE)
      return ERR("attribute 'acc_dtype' must be a type");
    PtoType *t = pto_attr_type_value(a);
    bool ok = is_int ? t == i32
                     : t == f32 || (f16 && t == pto_type_float(ctx, PTO_F16));
    if (!ok)
      return ERR("attribute 'acc_dtype' must be %s for %s operands",
                 is_int ? "'i32'" : f16 ? "'f32' or 'f16'" : "'f32'",
                 pto_check_tstr(strs, ea));
    *acc = t;
  }
  if (is_int && out != i32)
    return ERR("result element type '%s' is not allowed for i8 operands; "
               "expected 'i32'",
               pto_check_tstr(strs, out));
  if (!is_int && !pto_elem_is_float(out))
    return ERR("result element type '%s' is not allowed for %s operands; "
               "expected 'f32', 'f16' or 'bf16'",
               pto_check_tstr(strs, out), pto_check_tstr(strs, ea));
  return PTO_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* PtoOpCheck                                                           */
/* ------------------------------------------------------------------ */

void pto_opcheck_init(PtoOpCheck *c, PtoContext *ctx, PtoLoc *loc,
                      const char *op_name, const char *prefix,
                      PtoType *const *opnd, unsigned n,
                      const PtoNamedAttr *attrs, unsigned nattrs) {
  c->ctx = ctx;
  c->op_name = op_name;
  c->site.ctx = ctx;
  c->site.loc = loc;
  c->site.prefix = prefix;
  c->opnd = opnd;
  c->nopnd = n;
  c->attrs = attrs;
  c->nattrs = nattrs;
  c->strs.data = NULL;
  c->strs.len = c->strs.cap = 0;
}

void pto_opcheck_done(PtoOpCheck *c) { pto_check_strs_release(&c->strs); }
