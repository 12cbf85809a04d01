/* The tuning attributes every Tensor- and Tile-level op may carry
 * (`vec_tile`, `cube_tile`, `label`): one checker for ops, pass options and
 * the Python front end, so that all of them report the same messages. */
#include "pto/Dialect/Common.h"
#include "pto/Dialect/AttrNames.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

PtoResult pto_tuning_check_vec_tile(const PtoErrSite *site, const char *what,
                                    const int64_t *v, unsigned n) {
  if (n < 1 || n > 4)
    return pto_site_error(site, "%s must be an array of 1 to 4 integers", what);
  for (unsigned i = 0; i < n; i++)
    if (v[i] <= 0)
      return pto_site_error(site, "%s entry #%u must be positive, got %" PRId64,
                            what, i, v[i]);
  return PTO_SUCCESS;
}

PtoResult pto_tuning_check_cube_tile(const PtoErrSite *site, const char *what,
                                     const int64_t v[6]) {
  static const char *const names[6] = {"mL0", "mL1", "kL0", "kL1", "nL0", "nL1"};
  for (unsigned i = 0; i < 6; i++)
    if (v[i] <= 0)
      return pto_site_error(site, "%s: %s must be positive, got %" PRId64, what,
                            names[i], v[i]);
  for (unsigned i = 0; i < 6; i += 2) {
    if (v[i] > v[i + 1])
      return pto_site_error(site,
                            "%s: %s (%" PRId64 ") must not exceed %s (%" PRId64 ")",
                            what, names[i], v[i], names[i + 1], v[i + 1]);
    if (v[i + 1] % v[i] != 0)
      return pto_site_error(site,
                            "%s: %s (%" PRId64 ") must be a multiple of %s (%" PRId64
                            ")",
                            what, names[i + 1], v[i + 1], names[i], v[i]);
  }
  return PTO_SUCCESS;
}

/* [[a, b], [c, d], [e, f]] -> {a..f}; false when not of that form. */
static bool read_cube_tile(const PtoAttr *a, int64_t out[6]) {
  if (!a || pto_attr_kind(a) != PTO_ATTR_ARRAY || pto_attr_array_size(a) != 3)
    return false;
  for (unsigned i = 0; i < 3; i++) {
    unsigned n;
    if (!pto_attr_get_i64_array(pto_attr_array_get(a, i), out + 2 * i, 2, &n) ||
        n != 2)
      return false;
  }
  return true;
}

PtoResult pto_tuning_verify_attrs(const PtoErrSite *site,
                                  const PtoNamedAttr *attrs, unsigned n) {
  for (unsigned i = 0; i < n; i++) {
    const char *name = pto_ident_str(attrs[i].name);
    PtoAttr *a = attrs[i].value;
    if (strcmp(name, PTO_ATTR_VEC_TILE) == 0) {
      int64_t v[4];
      unsigned k;
      if (!pto_attr_get_i64_array(a, v, 4, &k))
        return pto_site_error(site,
                              "attribute 'vec_tile' must be an array of 1 to 4 "
                              "integers");
      if (pto_tuning_check_vec_tile(site, "attribute 'vec_tile'", v, k))
        return PTO_FAILURE;
    } else if (strcmp(name, PTO_ATTR_CUBE_TILE) == 0) {
      int64_t v[6];
      if (!read_cube_tile(a, v))
        return pto_site_error(site, "attribute 'cube_tile' must be [[mL0, mL1], "
                                    "[kL0, kL1], [nL0, nL1]]");
      if (pto_tuning_check_cube_tile(site, "attribute 'cube_tile'", v))
        return PTO_FAILURE;
    } else if (strcmp(name, PTO_ATTR_LABEL) == 0) {
      if (pto_attr_kind(a) != PTO_ATTR_STRING)
        return pto_site_error(site, "attribute 'label' must be a string");
    }
  }
  return PTO_SUCCESS;
}

PtoResult pto_tuning_verify_op(PtoOp *op) {
  char prefix[128];
  snprintf(prefix, sizeof prefix, "'%s' op ", pto_op_name_str(op));
  PtoErrSite site = {pto_op_ctx(op), pto_op_loc(op), prefix};
  return pto_tuning_verify_attrs(&site, pto_op_attrs(op), pto_op_num_attrs(op));
}

bool pto_tuning_is_attr_name(const char *name) {
  return strcmp(name, PTO_ATTR_VEC_TILE) == 0 || strcmp(name, PTO_ATTR_CUBE_TILE) == 0 ||
         strcmp(name, PTO_ATTR_LABEL) == 0;
}

bool pto_tuning_vec_tile(const PtoOp *op, int64_t out[4], unsigned *n) {
  return pto_attr_get_i64_array(pto_op_named_attr(op, PTO_ATTR_ID_VEC_TILE), out, 4, n) && *n;
}

bool pto_tuning_cube_tile(const PtoOp *op, int64_t out[6]) {
  return read_cube_tile(pto_op_named_attr(op, PTO_ATTR_ID_CUBE_TILE), out);
}

void pto_tuning_copy(const PtoOp *from, PtoOp *to) {
  static const char *const names[] = {PTO_ATTR_VEC_TILE, PTO_ATTR_CUBE_TILE, PTO_ATTR_LABEL};
  for (unsigned i = 0; i < 3; i++) {
    PtoAttr *a = pto_op_attr(from, names[i]);
    if (a) pto_op_set_attr(to, names[i], a);
  }
}
