/* Verifier of the pass-verification debug ops, pypto.pass_verify_print and
 * pypto.pass_verify_save: side effects only, checked here so that the
 * interpreter can trust the format and the file name template. */
#include "PyptoInternal.h"
#include "pto/Dialect/AttrNames.h"

#include <ctype.h>
#include <string.h>

/* The number of `{}` placeholders of a print format ("{{" and "}}" are
 * literal braces), or -1 with *bad at the first stray brace. */
int pto_pypto_format_count(const char *fmt, size_t *bad) {
  int n = 0;
  for (size_t i = 0; fmt[i]; i++) {
    if ((fmt[i] == '{' && fmt[i + 1] == '{') || (fmt[i] == '}' && fmt[i + 1] == '}')) {
      i++;
    } else if (fmt[i] == '{' && fmt[i + 1] == '}') {
      n++;
      i++;
    } else if (fmt[i] == '{' || fmt[i] == '}') {
      *bad = i;
      return -1;
    }
  }
  return n;
}

static PtoResult check_cond(PyInfer *in) {
  if (in->c.nopnd < 1 || in->c.opnd[0] != pto_type_int(in->c.ctx, 1))
    return ERR("operand #0 must be the i1 condition, got '%s'",
               in->c.nopnd ? pto_opcheck_tstr(&in->c, in->c.opnd[0]) : "nothing");
  return PTO_SUCCESS;
}

static const char *str_attr(PyInfer *in, const char *name) {
  PtoAttr *a = pto_opcheck_attr(&in->c, name);
  return a && pto_attr_kind(a) == PTO_ATTR_STRING ? pto_attr_str(a) : NULL;
}

static PtoResult infer_print(PyInfer *in) {
  const char *fmt = str_attr(in, PTO_ATTR_FORMAT);
  if (!fmt) return ERR("requires string attribute 'format'");
  size_t bad = 0;
  int n = pto_pypto_format_count(fmt, &bad);
  if (n < 0) return ERR("'format' has a lone '%c' at character %zu; write it twice", fmt[bad], bad);
  if ((unsigned)n != in->c.nopnd - 1)
    return ERR("'format' has %d '{}' placeholders for %u printed operands", n, in->c.nopnd - 1);
  PtoShape s;
  for (unsigned i = 1; i < in->c.nopnd; i++)
    if (pto_type_is_tensor(in->c.opnd[i]) && pypto_opnd_tensor(in, i, &s, NULL))
      return PTO_FAILURE;
  return PTO_SUCCESS;
}

static PtoResult infer_save(PyInfer *in) {
  PtoShape s;
  if (in->c.nopnd < 2 || !pto_type_is_tensor(in->c.opnd[1]))
    return ERR("operand #1 must be the tensor to save");
  if (pypto_opnd_tensor(in, 1, &s, NULL)) return PTO_FAILURE;
  const char *fname = str_attr(in, PTO_ATTR_FNAME);
  if (!fname || !*fname) return ERR("requires a non-empty string attribute 'fname'");
  if (strchr(fname, '/') || strchr(fname, '\\'))
    return ERR("'fname' \"%s\" must be a file name without a folder", fname);
  PtoAttr *keys = pto_opcheck_attr(&in->c, PTO_ATTR_KEYS);
  unsigned nkeys = keys && pto_attr_kind(keys) == PTO_ATTR_ARRAY ? pto_attr_array_size(keys) : 0;
  if (keys && pto_attr_kind(keys) != PTO_ATTR_ARRAY)
    return ERR("'keys' must be an array of strings");
  if (nkeys != in->c.nopnd - 2)
    return ERR("'keys' names %u operands, the op has %u after the tensor", nkeys,
               in->c.nopnd - 2);
  for (unsigned i = 0; i < nkeys; i++) {
    PtoAttr *k = pto_attr_array_get(keys, i);
    if (pto_attr_kind(k) != PTO_ATTR_STRING || !*pto_attr_str(k))
      return ERR("'keys' must be an array of non-empty strings");
    if (in->c.opnd[2 + i] != pto_type_index(in->c.ctx))
      return ERR("operand #%u ('%s') must be an index, got '%s'", 2 + i, pto_attr_str(k),
                 pto_opcheck_tstr(&in->c, in->c.opnd[2 + i]));
  }
  /* every $NAME must have its operand */
  for (const char *p = strchr(fname, '$'); p; p = strchr(p + 1, '$')) {
    size_t len = 0;
    while (isalnum((unsigned char)p[1 + len]) || p[1 + len] == '_') len++;
    bool found = false;
    for (unsigned i = 0; i < nkeys && !found; i++) {
      const char *k = pto_attr_str(pto_attr_array_get(keys, i));
      found = strlen(k) == len && strncmp(k, p + 1, len) == 0;
    }
    if (!found)
      return ERR("'fname' \"%s\": '$%.*s' names none of 'keys'", fname, (int)len, p + 1);
  }
  return PTO_SUCCESS;
}

PtoResult pypto_infer_debug(PyInfer *in) {
  if (check_cond(in)) return PTO_FAILURE;
  return in->id == PTO_PYPTO_PASS_VERIFY_PRINT ? infer_print(in) : infer_save(in);
}
