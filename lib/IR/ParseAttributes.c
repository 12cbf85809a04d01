/* The parser's attributes (literals, arrays, dictionaries, dense elements,
 * dialect attributes) and locations. */
#include "IR/ParserInternal.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Attributes                                                           */
/* ------------------------------------------------------------------ */

static bool float_kind_fits(PtoType *t, uint64_t bits) {
  unsigned w = pto_type_bitwidth(t);
  return w >= 64 || bits < ((uint64_t)1 << w);
}

static double bits_to_double(PtoType *t, uint64_t bits) {
  switch (pto_type_float_kind(t)) {
  case PTO_F16:
    return pto_f16_bits_to_f32((uint16_t)bits);
  case PTO_BF16:
    return pto_bf16_bits_to_f32((uint16_t)bits);
  case PTO_F32: {
    uint32_t b = (uint32_t)bits;
    float f;
    memcpy(&f, &b, 4);
    return f;
  }
  case PTO_F64: {
    double d;
    memcpy(&d, &bits, 8);
    return d;
  }
  default: {
    PtoDType f8;
    uint8_t c = (uint8_t)bits;
    if (pto_float_kind_f8_dtype(pto_type_float_kind(t), &f8))
      return pto_dtype_load_f64(f8, &c, 0);
    return 0;
  }
  }
}

/* Whether -mag (neg) or mag is a value of integer type `ty`: signless
 * types take any bit pattern of their width (255 : i8 is -1), signed ones
 * the signed range, unsigned ones the unsigned range. */
static bool int_literal_fits(const PtoType *ty, bool neg, uint64_t mag) {
  unsigned w = pto_type_int_width(ty);
  PtoSignedness s = ty->kind == PTO_TYPE_INTEGER ? (PtoSignedness)ty->signedness
                                                 : PTO_SIGNLESS;
  uint64_t half = w >= 64 ? (uint64_t)1 << 63 : (uint64_t)1 << (w - 1);
  if (s == PTO_UNSIGNED) return !neg && (w >= 64 || mag < ((uint64_t)1 << w));
  if (neg) return mag <= half;
  if (s == PTO_SIGNED) return mag < half;
  return w >= 64 || mag < ((uint64_t)1 << w);
}

/* Integer or float literal with optional `: type`. */
static PtoResult parse_number_attr(PtoParser *p, PtoType *hint,
                                   PtoAttr **out) {
  bool neg = consume_if(p, T_MINUS);
  Token t = p->tok;
  if (t.kind != T_INTEGER && t.kind != T_FLOAT)
    return pto_parser_error(p, "expected integer or float literal");
  advance(p);
  PtoType *ty = hint;
  if (consume_if(p, T_COLON)) {
    if (pto_parser_parse_type(p, &ty)) return PTO_FAILURE;
  }
  if (t.kind == T_FLOAT) {
    if (!ty || ty->kind == PTO_TYPE_INTEGER || ty->kind == PTO_TYPE_INDEX) {
      if (ty && hint != ty)
        return pto_parser_error_at(p, tok_loc(p, &t),
                                   "floating point value not valid for "
                                   "specified type");
      ty = p->ctx->t_float[PTO_F64];
    }
    if (ty->kind != PTO_TYPE_FLOAT)
      return pto_parser_error_at(p, tok_loc(p, &t),
                                 "floating point value not valid for "
                                 "specified type");
    double v = pto_tok_double(&t);
    *out = pto_attr_float(p->ctx, ty, neg ? -v : v);
    return PTO_SUCCESS;
  }
  uint64_t mag;
  if (!pto_tok_uint(&t, &mag))
    return pto_parser_error_at(p, tok_loc(p, &t), "integer constant out of range");
  if (!ty) ty = pto_type_int(p->ctx, 64);
  if (ty->kind == PTO_TYPE_FLOAT) {
    if (pto_tok_is_hex(&t)) {
      if (neg)
        return pto_parser_error_at(p, tok_loc(p, &t),
                                   "hexadecimal float literal should not "
                                   "have a leading minus");
      if (!float_kind_fits(ty, mag))
        return pto_parser_error_at(p, tok_loc(p, &t),
                                   "hexadecimal float constant out of range "
                                   "for type");
      *out = pto_attr_float(p->ctx, ty, bits_to_double(ty, mag));
      return PTO_SUCCESS;
    }
    double v = (double)mag;
    *out = pto_attr_float(p->ctx, ty, neg ? -v : v);
    return PTO_SUCCESS;
  }
  if (ty->kind != PTO_TYPE_INTEGER && ty->kind != PTO_TYPE_INDEX)
    return pto_parser_error_at(p, tok_loc(p, &t),
                               "integer literal not valid for specified type");
  bool uns = ty->kind == PTO_TYPE_INTEGER && ty->signedness == PTO_UNSIGNED;
  if (neg && uns)
    return pto_parser_error_at(p, tok_loc(p, &t),
                               "negative integer literal not valid for "
                               "unsigned integer type");
  if (!int_literal_fits(ty, neg, mag))
    return pto_parser_error_at(p, tok_loc(p, &t),
                               "integer constant out of range for attribute");
  *out = pto_attr_int(p->ctx, ty, neg ? (int64_t)(0 - mag) : (int64_t)mag);
  return PTO_SUCCESS;
}

/* Dense literal elements, collected before the type is known. */
typedef struct DenseLit {
  double f;
  uint64_t mag;
  bool neg, is_float, is_bool;
  bool is_hex; /* for float elements: the bit pattern */
  uint32_t line, col;
} DenseLit;

typedef struct DenseParse {
  PTO_VEC(DenseLit) elems;
  int64_t shape[MAX_RANK];
  unsigned rank;
  bool shape_set;
} DenseParse;

static PtoResult parse_dense_elem(PtoParser *p, DenseParse *dp) {
  DenseLit l;
  memset(&l, 0, sizeof l);
  l.line = p->tok.line;
  l.col = p->tok.col;
  if (tok_is_kw(p, "true") || tok_is_kw(p, "false")) {
    l.is_bool = true;
    l.mag = tok_is_kw(p, "true");
    advance(p);
  } else {
    l.neg = consume_if(p, T_MINUS);
    if (tok_is(p, T_FLOAT)) {
      l.is_float = true;
      l.f = pto_tok_double(&p->tok);
    } else if (tok_is(p, T_INTEGER)) {
      if (!pto_tok_uint(&p->tok, &l.mag))
        return pto_parser_error(p, "integer constant out of range");
      l.f = (double)l.mag;
      l.is_hex = pto_tok_is_hex(&p->tok);
    } else {
      return pto_parser_error(p, "expected element literal of primitive type");
    }
    if (l.neg) l.f = -l.f;
    advance(p);
  }
  pto_vec_push(&dp->elems, l);
  return PTO_SUCCESS;
}

/* `[[1, 2], [3, 4]]`: records the shape, checks it is rectangular. */
static PtoResult parse_dense_list(PtoParser *p, DenseParse *dp, unsigned dim) {
  if (dim >= MAX_RANK)
    return pto_parser_error(p, "tensor literal has too many dimensions (at "
                               "most %d)", MAX_RANK);
  if (expect(p, T_LSQUARE, NULL)) return PTO_FAILURE;
  int64_t count = 0;
  bool nested = false, first = true;
  if (!tok_is(p, T_RSQUARE)) {
    do {
      bool is_list = tok_is(p, T_LSQUARE);
      if (!first && is_list != nested)
        return pto_parser_error(p, "tensor literal is invalid; ranks are not "
                                   "consistent between elements");
      nested = is_list;
      first = false;
      PtoResult r = is_list ? parse_dense_list(p, dp, dim + 1)
                            : parse_dense_elem(p, dp);
      if (r) return r;
      count++;
    } while (consume_if(p, T_COMMA));
  }
  if (expect(p, T_RSQUARE, NULL)) return PTO_FAILURE;
  /* the innermost list fixes rank */
  if (!nested && !dp->shape_set) {
    dp->rank = dim + 1;
    dp->shape_set = true;
  }
  if (dp->shape_set && (nested ? dim >= dp->rank : dim + 1 != dp->rank))
    return pto_parser_error(p, "tensor literal is invalid; ranks are not "
                               "consistent between elements");
  if (dp->shape[dim] == -1)
    dp->shape[dim] = count;
  else if (dp->shape[dim] != count)
    return pto_parser_error(p, "tensor literal is invalid; shape is not "
                               "consistent between elements");
  return PTO_SUCCESS;
}

static void store_elem(void *dst, PtoType *et, const DenseLit *l) {
  if (et->kind == PTO_TYPE_FLOAT && l->is_hex) {
    pto_dense_store_int(dst, pto_dense_elem_bytes(et), (int64_t)l->mag);
    return;
  }
  if (et->kind == PTO_TYPE_FLOAT) {
    double v = l->is_float ? l->f : (l->neg ? -(double)l->mag : (double)l->mag);
    PtoDType f8;
    switch (pto_type_float_kind(et)) {
    case PTO_F16: {
      uint16_t h = pto_f32_to_f16_bits((float)pto_round_to_float_kind(v, PTO_F16));
      memcpy(dst, &h, 2);
      break;
    }
    case PTO_BF16: {
      uint16_t h = pto_f32_to_bf16_bits((float)pto_round_to_float_kind(v, PTO_BF16));
      memcpy(dst, &h, 2);
      break;
    }
    case PTO_F32: {
      float f = (float)v;
      memcpy(dst, &f, 4);
      break;
    }
    case PTO_F64:
      memcpy(dst, &v, 8);
      break;
    default:
      if (pto_float_kind_f8_dtype(pto_type_float_kind(et), &f8))
        pto_dtype_store_f64(f8, dst, 0, v);
      break;
    }
    return;
  }
  pto_dense_store_int(dst, pto_dense_elem_bytes(et),
                      l->neg ? (int64_t)(0 - l->mag) : (int64_t)l->mag);
}

static PtoResult lit_error(PtoParser *p, const DenseLit *l, const char *msg) {
  return pto_parser_error_at(p, pos_loc(p, l->line, l->col), "%s", msg);
}

static PtoResult check_dense_lit(PtoParser *p, PtoType *et, const DenseLit *l) {
  if (et->kind == PTO_TYPE_FLOAT) {
    if (l->is_bool)
      return lit_error(p, l, "expected floating point elements, but parsed "
                             "boolean");
    if (l->is_hex && l->neg)
      return lit_error(p, l, "hexadecimal float literal should not have a "
                             "leading minus");
    if (l->is_hex && !float_kind_fits(et, l->mag))
      return lit_error(p, l, "hexadecimal float constant out of range for "
                             "type");
    return PTO_SUCCESS;
  }
  if (l->is_float)
    return lit_error(p, l, "expected integer elements, but parsed "
                           "floating-point");
  unsigned w = pto_type_bitwidth(et);
  if (w == 1) {
    if (l->neg || l->mag > 1)
      return lit_error(p, l, "integer constant out of range for i1");
    return PTO_SUCCESS;
  }
  if (l->is_bool)
    return lit_error(p, l, "expected integer elements, but parsed "
                           "boolean");
  if (!int_literal_fits(et, l->neg, l->mag))
    return lit_error(p, l, "integer constant out of range for "
                           "element type");
  return PTO_SUCCESS;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = (char)tolower(c);
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

static PtoResult parse_dense_attr(PtoParser *p, PtoAttr **out) {
  Token dense_tok = p->tok;
  advance(p); /* 'dense' */
  if (expect(p, T_LESS, "'<' after 'dense'")) return PTO_FAILURE;
  DenseParse dp;
  memset(&dp, 0, sizeof dp);
  for (unsigned i = 0; i < MAX_RANK; i++) dp.shape[i] = -1;
  PtoResult r = PTO_SUCCESS;
  bool splat = false, hex = false, empty = false;
  Token hex_tok = p->tok;
  if (tok_is(p, T_GREATER)) {
    empty = true;
  } else if (tok_is(p, T_STRING)) {
    hex = true;
    advance(p);
  } else if (tok_is(p, T_LSQUARE)) {
    r = parse_dense_list(p, &dp, 0);
  } else {
    splat = true;
    r = parse_dense_elem(p, &dp);
  }
  if (!r) r = expect(p, T_GREATER, "'>'");
  PtoType *ty = NULL;
  if (!r) r = expect(p, T_COLON, "':' after dense elements literal");
  Token type_tok = p->tok;
  if (!r) r = pto_parser_parse_type(p, &ty);
  if (!r && (ty->kind != PTO_TYPE_TENSOR || !pto_type_tensor_is_static(ty)))
    r = pto_parser_error_at(p, tok_loc(p, &type_tok),
                            "elements literal must be a static "
                                     "tensor type");
  PtoType *et = r ? NULL : pto_type_tensor_elem(ty);
  if (!r && et->kind != PTO_TYPE_INTEGER && et->kind != PTO_TYPE_INDEX &&
      et->kind != PTO_TYPE_FLOAT)
    r = pto_parser_error_at(p, tok_loc(p, &type_tok),
                            "dense elements need an integer, index "
                                     "or float element type");
  if (r) {
    pto_vec_free(&dp.elems);
    return PTO_FAILURE;
  }
  int64_t numel = pto_type_tensor_numel(ty);
  size_t eb = pto_dense_elem_bytes(et);
  if (numel < 0 || (uint64_t)numel > ((uint64_t)1 << 32)) {
    pto_vec_free(&dp.elems);
    return pto_parser_error_at(p, tok_loc(p, &type_tok),
                               "elements literal type is too large");
  }
  if (hex) {
    pto_tok_decode_string(p, &hex_tok, &p->scratch);
    const char *s = p->scratch.data;
    size_t n = p->scratch.len;
    if (n < 2 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || (n - 2) % 2) {
      pto_vec_free(&dp.elems);
      return pto_parser_error_at(p, tok_loc(p, &hex_tok),
                                 "expected hex string of the form \"0x...\"");
    }
    size_t nb = (n - 2) / 2;
    unsigned char *buf = pto_malloc(nb ? nb : 1);
    for (size_t i = 0; i < nb; i++) {
      int hi = hexval(s[2 + 2 * i]), lo = hexval(s[3 + 2 * i]);
      if (hi < 0 || lo < 0) {
        pto_free(buf);
        return pto_parser_error_at(p, tok_loc(p, &hex_tok),
                                   "expected hex string of the form \"0x...\"");
      }
      buf[i] = (unsigned char)(hi * 16 + lo);
    }
    bool is_splat = nb == eb && numel != 1;
    if (nb != (size_t)numel * eb && !is_splat) {
      pto_free(buf);
      return pto_parser_error_at(p, tok_loc(p, &hex_tok),
                                 "elements hex data size is invalid for "
                                 "provided type");
    }
    *out = pto_attr_dense(p->ctx, ty, buf, nb, is_splat);
    pto_free(buf);
    return PTO_SUCCESS;
  }
  for (uint32_t i = 0; i < dp.elems.len; i++)
    if (check_dense_lit(p, et, &dp.elems.data[i])) {
      pto_vec_free(&dp.elems);
      return PTO_FAILURE;
    }
  if (empty) {
    if (numel != 0) {
      pto_vec_free(&dp.elems);
      return pto_parser_error_at(p, tok_loc(p, &dense_tok),
                                 "expected %lld elements in literal "
                                         "but found none",
                                 (long long)numel);
    }
    *out = pto_attr_dense(p->ctx, ty, NULL, 0, false);
    return PTO_SUCCESS;
  }
  if (splat) {
    unsigned char buf[8];
    store_elem(buf, et, &dp.elems.data[0]);
    pto_vec_free(&dp.elems);
    *out = pto_attr_dense(p->ctx, ty, buf, eb, true);
    return PTO_SUCCESS;
  }
  /* shape check */
  unsigned rank = pto_type_tensor_rank(ty);
  bool shape_ok = dp.rank == rank ||
                  (rank == 0 && dp.rank == 1 && dp.shape[0] == 1);
  for (unsigned i = 0; shape_ok && i < rank && i < dp.rank; i++)
    shape_ok = dp.shape[i] == pto_type_tensor_dim(ty, i);
  if (!shape_ok) {
    PtoStr s;
    pto_str_init(&s);
    pto_str_putc(&s, '[');
    for (unsigned i = 0; i < dp.rank; i++)
      pto_str_printf(&s, "%s%lld", i ? ", " : "", (long long)dp.shape[i]);
    pto_str_puts(&s, "]) does not match type ([");
    for (unsigned i = 0; i < rank; i++)
      pto_str_printf(&s, "%s%lld", i ? ", " : "",
                     (long long)pto_type_tensor_dim(ty, i));
    pto_str_putc(&s, ']');
    pto_parser_error_at(p, tok_loc(p, &dense_tok),
                        "inferred shape of elements literal (%s)",
                        s.data);
    pto_str_release(&s);
    pto_vec_free(&dp.elems);
    return PTO_FAILURE;
  }
  size_t bytes = dp.elems.len * eb;
  unsigned char *buf = pto_malloc(bytes ? bytes : 1);
  for (uint32_t i = 0; i < dp.elems.len; i++)
    store_elem(buf + i * eb, et, &dp.elems.data[i]);
  *out = pto_attr_dense(p->ctx, ty, buf, bytes, false);
  pto_free(buf);
  pto_vec_free(&dp.elems);
  return PTO_SUCCESS;
}

/* `#alias`, `#d.name<...>` */
static PtoResult parse_hash_attr(PtoParser *p, PtoAttr **out) {
  Token t = p->tok;
  const char *s = t.p + 1;
  size_t n = t.len - 1;
  PtoAttr *alias = pto_strmap_get(&p->attr_aliases, s, n);
  if (alias) {
    advance(p);
    *out = alias;
    return PTO_SUCCESS;
  }
  const char *dot = memchr(s, '.', n);
  if (!dot) {
    advance(p);
    if (!tok_is(p, T_LESS))
      return pto_parser_error_at(p, tok_loc(p, &t),
                                 "undefined symbol alias id '%.*s'", (int)n, s);
    return pto_parser_opaque_symbol(p, &t, false, (void **)out);
  }
  PtoIdent *dialect, *mnem;
  if (pto_parser_split_dialect_symbol(p, &t, dot, "attribute", &dialect, &mnem))
    return PTO_FAILURE;
  advance(p);
  const PtoDialectDef *d = dialect->dialect;
  if (d && d->parse_attr) {
    if (enter_nested(p)) return PTO_FAILURE;
    PtoAttr *a = d->parse_attr(p, mnem->str);
    leave_nested(p);
    if (!a) {
      if (!p->failed)
        pto_parser_error_at(p, tok_loc(p, &t), "invalid '%s' attribute",
                            mnem->str);
      return PTO_FAILURE;
    }
    *out = a;
    return PTO_SUCCESS;
  }
  if (d)
    return pto_parser_error_at(p, tok_loc(p, &t),
                               "dialect '%s' provides no attribute '%s'",
                               dialect->str, mnem->str);
  if (pto_parser_check_unregistered(p, &t, dialect, "attribute"))
    return PTO_FAILURE;
  const char *body = NULL;
  size_t blen = 0;
  if (tok_is(p, T_LESS) && pto_parser_capture_angle_body(p, &body, &blen))
    return PTO_FAILURE;
  *out = pto_attr_opaque(p->ctx, dialect->str, mnem->str, body, blen);
  return PTO_SUCCESS;
}

static PtoResult parse_attr_name(PtoParser *p, PtoIdent **out) {
  if (tok_is(p, T_BARE_ID)) {
    *out = pto_ident(p->ctx, p->tok.p, p->tok.len);
  } else if (tok_is(p, T_STRING)) {
    pto_tok_decode_string(p, &p->tok, &p->scratch);
    if (p->scratch.len == 0)
      return pto_parser_error(p, "expected valid attribute name");
    *out = pto_ident(p->ctx, p->scratch.data, p->scratch.len);
  } else {
    return pto_parser_error(p, "expected attribute name");
  }
  advance(p);
  return PTO_SUCCESS;
}

/* `{a = 1, b}` into a vector of named attributes (later duplicates are an
 * error, as in MLIR). */
static PtoResult parse_attr_dict_entries(PtoParser *p, PtoNamedAttr **out,
                                         unsigned *n) {
  PTO_SMALL_VEC(PtoNamedAttr, 8) v;
  pto_small_vec_init(&v);
  if (expect(p, T_LBRACE, NULL)) return PTO_FAILURE;
  PtoResult r = PTO_SUCCESS;
  if (!tok_is(p, T_RBRACE)) {
    do {
      Token nt = p->tok;
      PtoNamedAttr na;
      if ((r = parse_attr_name(p, &na.name))) break;
      for (uint32_t i = 0; i < v.len; i++)
        if (v.data[i].name == na.name) {
          r = pto_parser_error_at(p, tok_loc(p, &nt),
                                  "duplicate key '%s' in dictionary attribute",
                                  na.name->str);
          break;
        }
      if (r) break;
      if (consume_if(p, T_EQUAL)) {
        if ((r = pto_parser_attr_nested(p, NULL, &na.value))) break;
      } else {
        na.value = p->ctx->a_unit;
      }
      pto_small_vec_push(&v, na);
    } while (consume_if(p, T_COMMA));
  }
  if (!r) r = expect(p, T_RBRACE, NULL);
  if (!r) {
    *out = pto_arena_memdup(&p->tmp, v.data, v.len * sizeof *v.data);
    *n = v.len;
  }
  pto_small_vec_free(&v);
  return r;
}

static PtoResult parse_attr_impl(PtoParser *p, PtoType *hint, PtoAttr **out) {
  PtoContext *ctx = p->ctx;
  switch (p->tok.kind) {
  case T_INTEGER:
  case T_FLOAT:
  case T_MINUS:
    return parse_number_attr(p, hint, out);
  case T_STRING: {
    pto_tok_decode_string(p, &p->tok, &p->scratch);
    *out = pto_attr_string(ctx, p->scratch.data, p->scratch.len);
    advance(p);
    if (consume_if(p, T_COLON)) { /* typed strings: type is ignored */
      PtoType *t;
      return pto_parser_parse_type(p, &t);
    }
    return PTO_SUCCESS;
  }
  case T_LSQUARE: {
    advance(p);
    PTO_SMALL_VEC(PtoAttr *, 8) v;
    pto_small_vec_init(&v);
    PtoResult r = PTO_SUCCESS;
    if (!tok_is(p, T_RSQUARE)) {
      do {
        PtoAttr *e;
        r = pto_parser_attr_nested(p, NULL, &e);
        if (r) break;
        pto_small_vec_push(&v, e);
      } while (consume_if(p, T_COMMA));
    }
    if (!r) r = expect(p, T_RSQUARE, NULL);
    if (!r) *out = pto_attr_array(ctx, v.data, v.len);
    pto_small_vec_free(&v);
    return r;
  }
  case T_LBRACE: {
    PtoNamedAttr *e;
    unsigned n;
    PtoArenaMark m = pto_arena_mark(&p->tmp);
    PtoResult r = parse_attr_dict_entries(p, &e, &n);
    if (!r) *out = pto_attr_dict(ctx, e, n);
    pto_arena_reset(&p->tmp, m);
    return r;
  }
  case T_AT_ID: {
    PtoIdent *root = pto_tok_symbol_ident(p, &p->tok);
    advance(p);
    PTO_VEC(PtoIdent *) nested = {0};
    while (tok_is(p, T_COLON)) {
      /* `::` lexes as two colons */
      Lexer save = p->lex;
      Token t2 = lexer_next(&p->lex);
      if (t2.kind != T_COLON || t2.p != p->tok.p + 1) {
        p->lex = save;
        break;
      }
      advance(p);
      if (!tok_is(p, T_AT_ID)) {
        pto_vec_free(&nested);
        return pto_parser_error(p, "expected nested symbol reference identifier");
      }
      pto_vec_push(&nested, pto_tok_symbol_ident(p, &p->tok));
      advance(p);
    }
    *out = pto_attr_symref(ctx, root, nested.data, nested.len);
    pto_vec_free(&nested);
    return PTO_SUCCESS;
  }
  case T_HASH_ID:
    return parse_hash_attr(p, out);
  case T_BARE_ID:
    if (tok_is_kw(p, "true") || tok_is_kw(p, "false")) {
      *out = tok_is_kw(p, "true") ? ctx->a_true : ctx->a_false;
      advance(p);
      return PTO_SUCCESS;
    }
    if (tok_is_kw(p, "unit")) {
      *out = ctx->a_unit;
      advance(p);
      return PTO_SUCCESS;
    }
    if (tok_is_kw(p, "dense")) return parse_dense_attr(p, out);
    goto as_type;
  default:
  as_type: {
    PtoType *t;
    if (p->tok.kind != T_BARE_ID && p->tok.kind != T_LPAREN &&
        p->tok.kind != T_EXCL_ID)
      return pto_parser_error(p, "expected attribute value");
    if (pto_parser_parse_type(p, &t)) return PTO_FAILURE;
    *out = pto_attr_type(ctx, t);
    return PTO_SUCCESS;
  }
  }
}

PtoResult pto_parser_attr_nested(PtoParser *p, PtoType *hint, PtoAttr **out) {
  if (enter_nested(p)) return PTO_FAILURE;
  PtoResult r = parse_attr_impl(p, hint, out);
  leave_nested(p);
  return r;
}

PtoResult pto_parser_parse_attr(PtoParser *p, PtoType *type_hint,
                                PtoAttr **out) {
  return pto_parser_attr_nested(p, type_hint, out);
}

PtoResult pto_parser_parse_optional_attr_dict(PtoParser *p, PtoOpState *st) {
  if (!tok_is(p, T_LBRACE)) return PTO_SUCCESS;
  PtoNamedAttr *e;
  unsigned n;
  PtoArenaMark m = pto_arena_mark(&p->tmp);
  PtoResult r = parse_attr_dict_entries(p, &e, &n);
  if (!r)
    for (unsigned i = 0; i < n; i++) pto_op_state_set_attr(st, e[i].name, e[i].value);
  pto_arena_reset(&p->tmp, m);
  return r;
}

PtoResult pto_parser_parse_optional_attr_dict_with_keyword(PtoParser *p,
                                                           PtoOpState *st) {
  if (!pto_parser_optional_keyword(p, "attributes")) return PTO_SUCCESS;
  if (!tok_is(p, T_LBRACE)) return pto_parser_error(p, "expected '{'");
  return pto_parser_parse_optional_attr_dict(p, st);
}

/* ------------------------------------------------------------------ */
/* Locations                                                            */
/* ------------------------------------------------------------------ */

static PtoResult parse_loc_inner(PtoParser *p, PtoLoc **out);

static PtoResult parse_loc_inner(PtoParser *p, PtoLoc **out) {
  if (enter_nested(p)) return PTO_FAILURE;
  PtoResult r = PTO_SUCCESS;
  PtoContext *ctx = p->ctx;
  if (tok_is_kw(p, "unknown")) {
    advance(p);
    *out = ctx->l_unknown;
  } else if (tok_is(p, T_STRING)) {
    pto_tok_decode_string(p, &p->tok, &p->scratch);
    PtoIdent *s = pto_ident(ctx, p->scratch.data, p->scratch.len);
    advance(p);
    if (consume_if(p, T_COLON)) {
      int64_t line, col = 0;
      if ((r = pto_parser_parse_integer(p, &line))) goto done;
      if ((r = expect(p, T_COLON, "':' in file location"))) goto done;
      if ((r = pto_parser_parse_integer(p, &col))) goto done;
      if (line < 0 || col < 0 || line > UINT32_MAX || col > UINT32_MAX) {
        r = pto_parser_error(p, "invalid line or column in location");
        goto done;
      }
      *out = pto_loc_file_id(ctx, s, (unsigned)line, (unsigned)col);
    } else if (consume_if(p, T_LPAREN)) {
      PtoLoc *child;
      if ((r = parse_loc_inner(p, &child))) goto done;
      if ((r = expect(p, T_RPAREN, "')' after child location"))) goto done;
      *out = pto_loc_name_id(ctx, s, child);
    } else {
      *out = pto_loc_name_id(ctx, s, NULL);
    }
  } else if (tok_is_kw(p, "callsite")) {
    advance(p);
    PtoLoc *callee, *caller;
    if ((r = expect(p, T_LPAREN, "'(' in callsite location"))) goto done;
    if ((r = parse_loc_inner(p, &callee))) goto done;
    if ((r = pto_parser_parse_keyword(p, "at"))) goto done;
    if ((r = parse_loc_inner(p, &caller))) goto done;
    if ((r = expect(p, T_RPAREN, "')' in callsite location"))) goto done;
    *out = pto_loc_callsite(ctx, callee, caller);
  } else if (tok_is_kw(p, "fused")) {
    advance(p);
    if (consume_if(p, T_LESS)) { /* metadata is accepted and dropped */
      PtoAttr *meta;
      if ((r = pto_parser_attr_nested(p, NULL, &meta))) goto done;
      if ((r = expect(p, T_GREATER, NULL))) goto done;
    }
    if ((r = expect(p, T_LSQUARE, "'[' in fused location"))) goto done;
    PTO_VEC(PtoLoc *) v = {0};
    if (!tok_is(p, T_RSQUARE)) {
      do {
        PtoLoc *l;
        if ((r = parse_loc_inner(p, &l))) break;
        pto_vec_push(&v, l);
      } while (consume_if(p, T_COMMA));
    }
    if (!r) r = expect(p, T_RSQUARE, NULL);
    if (!r) *out = pto_loc_fused(ctx, v.data, v.len);
    pto_vec_free(&v);
  } else if (tok_is(p, T_HASH_ID)) {
    PtoLoc *l = pto_strmap_get(&p->loc_aliases, p->tok.p + 1, p->tok.len - 1);
    if (!l) {
      bool attr = pto_strmap_get(&p->attr_aliases, p->tok.p + 1, p->tok.len - 1);
      r = pto_parser_error(p, attr ? "expected location, but '#%.*s' is an "
                                     "attribute alias"
                                   : "undefined location alias '#%.*s'",
                           (int)p->tok.len - 1, p->tok.p + 1);
      goto done;
    }
    advance(p);
    *out = l;
  } else {
    r = pto_parser_error(p, "expected location instance");
  }
done:
  leave_nested(p);
  return r;
}

/* `loc(...)` */
PtoResult pto_parser_location(PtoParser *p, PtoLoc **out) {
  if (pto_parser_parse_keyword(p, "loc")) return PTO_FAILURE;
  if (expect(p, T_LPAREN, "'(' in location")) return PTO_FAILURE;
  if (parse_loc_inner(p, out)) return PTO_FAILURE;
  return expect(p, T_RPAREN, "')' in location");
}

/* The `loc(...)` after an op or block argument. `loc(#alias)` of an alias
 * not defined yet leaves *out unchanged and the alias token in *deferred
 * (kind T_HASH_ID) for pto_parser_resolve_deferred_locs. */
PtoResult pto_parser_trailing_loc(PtoParser *p, PtoLoc **out,
                                    Token *deferred) {
  deferred->kind = T_EOF;
  if (!tok_is_kw(p, "loc")) return PTO_SUCCESS;
  Lexer save = p->lex;
  Token loc_kw = p->tok, before = p->prev;
  advance(p);
  if (tok_is(p, T_LPAREN)) {
    advance(p);
    Token a = p->tok;
    if (a.kind == T_HASH_ID &&
        !pto_strmap_get(&p->loc_aliases, a.p + 1, a.len - 1) &&
        !pto_strmap_get(&p->attr_aliases, a.p + 1, a.len - 1)) {
      advance(p);
      *deferred = a;
      return expect(p, T_RPAREN, "')' in location");
    }
  }
  p->lex = save;
  p->tok = loc_kw;
  p->prev = before;
  return pto_parser_location(p, out);
}

void pto_parser_defer_loc(PtoParser *p, PtoOp *op, PtoValue *arg,
                      const Token *alias) {
  if (alias->kind != T_HASH_ID) return;
  DeferredLoc d = {op, arg, *alias};
  pto_vec_push(&p->deferred_locs, d);
}

/* At the end of the input every deferred alias must have been defined. */
PtoResult pto_parser_resolve_deferred_locs(PtoParser *p) {
  for (uint32_t i = 0; i < p->deferred_locs.len; i++) {
    DeferredLoc *d = &p->deferred_locs.data[i];
    PtoLoc *l = pto_strmap_get(&p->loc_aliases, d->alias.p + 1, d->alias.len - 1);
    if (!l) {
      bool attr =
          pto_strmap_get(&p->attr_aliases, d->alias.p + 1, d->alias.len - 1);
      return pto_parser_error_at(
          p, tok_loc(p, &d->alias),
          attr ? "expected location, but '#%.*s' is an attribute alias"
               : "location alias '#%.*s' is never defined",
          (int)d->alias.len - 1, d->alias.p + 1);
    }
    if (d->op)
      pto_op_set_loc(d->op, l);
    else
      ((PtoBlockArg *)d->arg)->loc = l;
  }
  return PTO_SUCCESS;
}
