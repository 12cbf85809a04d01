/* Printer for the textual IR: custom forms through op hooks by default,
 * MLIR's generic form on request. SSA names are assigned in program order,
 * per isolated-from-above scope, so output is stable (see scope_counters
 * for how the generic form keeps them readable by mlir-opt). */
#include "IR/IRInternal.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct PtoPrinter {
  PtoContext *ctx;
  PtoStr *out;
  unsigned indent;
  unsigned flags;
  FILE *sink; /* when set, `out` is flushed here between ops */
  unsigned depth;   /* regions being printed */
  bool too_deep;    /* reported already */
};

/* Printing to a stream goes through a buffer of about this size rather than
 * holding the whole text (as large as the input) in memory. */
enum { PRINT_FLUSH_BYTES = 64 * 1024 };

#define ARG_NAME_BIT (UINT32_C(1) << 31)

/* ------------------------------------------------------------------ */
/* Naming                                                               */
/* ------------------------------------------------------------------ */

typedef struct NameCounters {
  uint32_t next_value;
  uint32_t next_arg;
  bool generic;
} NameCounters;

static void number_region(PtoRegion *r, NameCounters *nc, unsigned depth);

static bool is_isolated(const PtoOp *op) {
  return op_def(op) && (op_def(op)->traits & PTO_TRAIT_ISOLATED_FROM_ABOVE);
}

/* The regions of an op isolated from above get their own numbering. In the
 * custom form it restarts from 0; in the generic form it goes on from the
 * enclosing scope's, so that no inner name shadows one visible outside:
 * the generic form's readers (mlir-opt) may not know that the op is
 * isolated. Sibling ops reuse the same numbers either way. */
static NameCounters scope_counters(const NameCounters *outer) {
  NameCounters fresh = {0, 0, outer->generic};
  if (outer->generic) fresh = *outer;
  return fresh;
}

/* Regions deeper than PTO_MAX_NESTING are not printed (see print_region),
 * so they need no names. */
static void number_op_regions(PtoOp *op, NameCounters *nc, unsigned depth) {
  if (depth >= PTO_MAX_NESTING) return;
  if (is_isolated(op)) {
    NameCounters fresh = scope_counters(nc);
    for (unsigned i = 0; i < op->num_regions; i++)
      number_region(&op_regions(op)[i], &fresh, depth + 1);
  } else {
    for (unsigned i = 0; i < op->num_regions; i++)
      number_region(&op_regions(op)[i], nc, depth + 1);
  }
}

static void number_region(PtoRegion *r, NameCounters *nc, unsigned depth) {
  uint32_t bnum = 0;
  PTO_FOR_BLOCKS(r, b) {
    b->scratch = bnum++;
    bool entry = b == pto_region_first_block(r);
    for (uint32_t i = 0; i < b->nargs; i++)
      b->args[i]->v.scratch =
          entry ? (nc->next_arg++ | ARG_NAME_BIT) + 0 : nc->next_value++;
    PTO_FOR_OPS(b, op) {
      if (op->num_results) {
        uint32_t n = nc->next_value++;
        for (unsigned i = 0; i < op->num_results; i++) op->results[i].scratch = n;
      }
    }
  }
  PTO_FOR_BLOCKS(r, b) {
    PTO_FOR_OPS(b, op) number_op_regions(op, nc, depth);
  }
}

/* Numbers every value visible while printing `op`. */
static void number_for_print(PtoOp *op, unsigned flags) {
  NameCounters nc = {0, 0, (flags & PTO_PRINT_GENERIC) != 0};
  PtoOp *root = op;
  if (!(flags & PTO_PRINT_LOCAL_SCOPE)) {
    while (pto_op_parent_op(root) && !(is_isolated(root) && !nc.generic))
      root = pto_op_parent_op(root);
  }
  if (root != op) {
    /* number the enclosing scope so that outer values have names */
    number_op_regions(root, &nc, 0);
    return;
  }
  if (op->num_results)
    for (unsigned i = 0; i < op->num_results; i++) op->results[i].scratch = 0;
  NameCounters top = {op->num_results ? 1u : 0u, 0, nc.generic};
  number_op_regions(op, &top, 0);
}

/* ------------------------------------------------------------------ */
/* Low-level output                                                     */
/* ------------------------------------------------------------------ */

PtoContext *pto_printer_ctx(PtoPrinter *p) { return p->ctx; }
void pto_printer_puts(PtoPrinter *p, const char *s) { pto_str_puts(p->out, s); }
void pto_printer_printf(PtoPrinter *p, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  pto_str_vprintf(p->out, fmt, ap);
  va_end(ap);
}
void pto_printer_print_int(PtoPrinter *p, int64_t v) { pto_str_int(p->out, v); }

bool pto_is_bare_identifier(const char *s, size_t n) {
  if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_')) return false;
  for (size_t i = 1; i < n; i++)
    if (!(isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '$' ||
          s[i] == '.'))
      return false;
  return true;
}

static void print_symbol(PtoStr *s, const PtoIdent *id) {
  pto_str_putc(s, '@');
  if (pto_is_bare_identifier(id->str, id->len))
    pto_str_append(s, id->str, id->len);
  else
    pto_str_quoted(s, id->str, id->len);
}

/* ------------------------------------------------------------------ */
/* Types                                                                */
/* ------------------------------------------------------------------ */

static void print_type(PtoPrinter *p, PtoType *t);

/* A type or attribute of an unregistered dialect: `!d.name<body>` as it
 * was written, or MLIR's opaque form `!d<"name<body>">` (escaped) when the
 * name or body would not read back as they are. */
static void print_opaque(PtoStr *s, char sigil, const PtoIdent *dialect,
                         const PtoIdent *name, const char *body, size_t len) {
  pto_str_putc(s, sigil);
  pto_str_append(s, dialect->str, dialect->len);
  if (pto_is_bare_identifier(name->str, name->len) &&
      (!body || pto_dialect_body_is_pretty(body, len))) {
    pto_str_putc(s, '.');
    pto_str_append(s, name->str, name->len);
    if (body) {
      pto_str_putc(s, '<');
      pto_str_append(s, body, len);
      pto_str_putc(s, '>');
    }
    return;
  }
  PtoStr sym;
  pto_str_init(&sym);
  pto_str_append(&sym, name->str, name->len);
  if (body) {
    pto_str_putc(&sym, '<');
    pto_str_append(&sym, body, len);
    pto_str_putc(&sym, '>');
  }
  pto_str_putc(s, '<');
  pto_str_quoted(s, sym.data, sym.len);
  pto_str_putc(s, '>');
  pto_str_release(&sym);
}

static void print_dims(PtoStr *s, const int64_t *dims, unsigned rank) {
  for (unsigned i = 0; i < rank; i++) {
    if (dims[i] == PTO_DYN)
      pto_str_putc(s, '?');
    else
      pto_str_int(s, dims[i]);
    pto_str_putc(s, 'x');
  }
}

void pto_printer_print_dims(PtoPrinter *p, const int64_t *dims, unsigned rank) {
  print_dims(p->out, dims, rank);
}

static void print_type(PtoPrinter *p, PtoType *t) {
  PtoStr *s = p->out;
  if (!t) {
    pto_str_puts(s, "<<NULL TYPE>>");
    return;
  }
  switch ((PtoTypeKind)t->kind) {
  case PTO_TYPE_INTEGER:
    if (t->signedness == PTO_SIGNED) pto_str_putc(s, 's');
    if (t->signedness == PTO_UNSIGNED) pto_str_putc(s, 'u');
    pto_str_putc(s, 'i');
    pto_str_uint(s, t->sub);
    return;
  case PTO_TYPE_INDEX:
    pto_str_puts(s, "index");
    return;
  case PTO_TYPE_FLOAT: {
    static const char *names[] = {"f16",      "bf16",   "f32",      "f64",
                                  "f8E4M3FN", "f8E5M2", "f8E8M0FNU"};
    pto_str_puts(s, names[t->sub]);
    return;
  }
  case PTO_TYPE_NONE:
    pto_str_puts(s, "none");
    return;
  case PTO_TYPE_TENSOR: {
    if (t->u.tensor.text) {
      pto_str_append(s, t->u.tensor.text, t->u.tensor.text_len);
      return;
    }
    size_t start = s->len;
    pto_str_puts(s, "tensor<");
    print_dims(s, t->u.tensor.shape, t->u.tensor.rank);
    print_type(p, t->u.tensor.elem);
    pto_str_putc(s, '>');
    PtoTypeKind ek = (PtoTypeKind)t->u.tensor.elem->kind;
    if (ek == PTO_TYPE_INTEGER || ek == PTO_TYPE_INDEX || ek == PTO_TYPE_FLOAT) {
      t->u.tensor.text_len = (uint32_t)(s->len - start);
      t->u.tensor.text = pto_arena_strndup(&t->ctx->arena, s->data + start,
                                           t->u.tensor.text_len);
    }
    return;
  }
  case PTO_TYPE_FUNCTION: {
    pto_str_putc(s, '(');
    for (unsigned i = 0; i < t->u.func.nin; i++) {
      if (i) pto_str_puts(s, ", ");
      print_type(p, t->u.func.types[i]);
    }
    pto_str_puts(s, ") -> ");
    unsigned nr = t->u.func.nres;
    PtoType **res = t->u.func.types + t->u.func.nin;
    bool paren = nr != 1 || res[0]->kind == PTO_TYPE_FUNCTION;
    if (paren) pto_str_putc(s, '(');
    for (unsigned i = 0; i < nr; i++) {
      if (i) pto_str_puts(s, ", ");
      print_type(p, res[i]);
    }
    if (paren) pto_str_putc(s, ')');
    return;
  }
  case PTO_TYPE_DIALECT: {
    pto_str_putc(s, '!');
    pto_str_puts(s, t->u.dialect.dialect->str);
    pto_str_putc(s, '.');
    const PtoDialectDef *d = t->u.dialect.dialect->dialect;
    if (d && d->print_type) {
      d->print_type(p, t);
    } else {
      pto_str_puts(s, t->u.dialect.name->str);
    }
    return;
  }
  case PTO_TYPE_OPAQUE:
    print_opaque(s, '!', t->u.dialect.dialect, t->u.dialect.name,
                 t->u.dialect.body, t->u.dialect.body_len);
    return;
  }
}

void pto_printer_print_type(PtoPrinter *p, PtoType *t) { print_type(p, t); }

void pto_printer_print_types(PtoPrinter *p, PtoType *const *t, unsigned n) {
  for (unsigned i = 0; i < n; i++) {
    if (i) pto_str_puts(p->out, ", ");
    print_type(p, t[i]);
  }
}

void pto_printer_print_result_types(PtoPrinter *p, PtoOp *op) {
  if (op->num_results == 1) {
    print_type(p, op->results[0].type);
    return;
  }
  pto_str_putc(p->out, '(');
  for (unsigned i = 0; i < op->num_results; i++) {
    if (i) pto_str_puts(p->out, ", ");
    print_type(p, op->results[i].type);
  }
  pto_str_putc(p->out, ')');
}

/* ------------------------------------------------------------------ */
/* Attributes                                                           */
/* ------------------------------------------------------------------ */

/* Shortest decimal form that reads back to the same value of the type's
 * precision (MLIR's %e style); non-finite values as hex bit patterns. */
static void print_float_value(PtoStr *s, double v, PtoType *t) {
  PtoFloatKind k = t ? pto_type_float_kind(t) : PTO_F64;
  if (!isfinite(v)) {
    uint64_t bits = 0;
    PtoDType f8;
    uint8_t c;
    switch (k) {
    case PTO_F16:
      bits = pto_f32_to_f16_bits((float)v);
      pto_str_printf(s, "0x%04llX", (unsigned long long)bits);
      return;
    case PTO_BF16:
      bits = pto_f32_to_bf16_bits((float)v);
      pto_str_printf(s, "0x%04llX", (unsigned long long)bits);
      return;
    case PTO_F32: {
      float f = (float)v;
      uint32_t b;
      memcpy(&b, &f, 4);
      pto_str_printf(s, "0x%08X", b);
      return;
    }
    case PTO_F64:
      memcpy(&bits, &v, 8);
      pto_str_printf(s, "0x%016llX", (unsigned long long)bits);
      return;
    default:
      if (!pto_float_kind_f8_dtype(k, &f8)) break;
      pto_dtype_store_f64(f8, &c, 0, v);
      pto_str_printf(s, "0x%02X", c);
      return;
    }
  }
  char buf[64];
  for (int prec = 6; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*e", prec, v);
    double back = strtod(buf, NULL);
    if (pto_round_to_float_kind(back, k) == v) break;
  }
  pto_str_puts(s, buf);
}

static void print_attr(PtoPrinter *p, PtoAttr *a, bool with_type);

static void print_dense(PtoPrinter *p, PtoAttr *a) {
  PtoStr *s = p->out;
  PtoType *t = a->type, *et = pto_type_tensor_elem(t);
  pto_str_puts(s, "dense<");
  bool is_float = et->kind == PTO_TYPE_FLOAT;
  bool is_bool = pto_type_bitwidth(et) == 1;
  int64_t numel = pto_type_tensor_numel(t);
#define ELEM(i)                                                             \
  do {                                                                      \
    if (is_float)                                                           \
      print_float_value(s, pto_attr_dense_get_f64(a, (i)), et);             \
    else if (is_bool)                                                       \
      pto_str_puts(s, pto_attr_dense_get_i64(a, (i)) ? "true" : "false");   \
    else if (et->kind == PTO_TYPE_INTEGER && et->signedness == PTO_UNSIGNED) \
      pto_str_uint(s, (uint64_t)pto_attr_dense_get_i64(a, (i)));            \
    else                                                                    \
      pto_str_int(s, pto_attr_dense_get_i64(a, (i)));                       \
  } while (0)
  if (a->u.dense.splat && numel != 0) {
    ELEM(0);
  } else if (numel > 0) {
    unsigned rank = pto_type_tensor_rank(t);
    const int64_t *shape = pto_type_tensor_shape(t);
    if (rank == 0) {
      ELEM(0);
    } else {
      int64_t idx[64] = {0};
      for (unsigned d = 0; d < rank; d++) pto_str_putc(s, '[');
      for (int64_t i = 0; i < numel; i++) {
        ELEM(i);
        /* advance the multi-index, closing/opening brackets */
        unsigned d = rank;
        while (d-- > 0) {
          if (++idx[d] < shape[d]) break;
          idx[d] = 0;
        }
        if (i + 1 == numel) break;
        unsigned closed = rank - 1 - (d == (unsigned)-1 ? 0 : d);
        for (unsigned c = 0; c < closed; c++) pto_str_putc(s, ']');
        pto_str_puts(s, ", ");
        for (unsigned c = 0; c < closed; c++) pto_str_putc(s, '[');
      }
      for (unsigned d = 0; d < rank; d++) pto_str_putc(s, ']');
    }
  }
#undef ELEM
  pto_str_puts(s, "> : ");
  print_type(p, t);
}

/* `name = value` in a dictionary (`name` alone for a unit attribute). */
static void print_named_attr(PtoPrinter *p, const PtoNamedAttr *e) {
  PtoStr *s = p->out;
  if (pto_is_bare_identifier(e->name->str, e->name->len))
    pto_str_append(s, e->name->str, e->name->len);
  else
    pto_str_quoted(s, e->name->str, e->name->len);
  if (e->value->kind != PTO_ATTR_UNIT) {
    pto_str_puts(s, " = ");
    print_attr(p, e->value, true);
  }
}

static void print_attr(PtoPrinter *p, PtoAttr *a, bool with_type) {
  PtoStr *s = p->out;
  if (!a) {
    pto_str_puts(s, "<<NULL ATTRIBUTE>>");
    return;
  }
  switch ((PtoAttrKind)a->kind) {
  case PTO_ATTR_INTEGER:
    if (a->is_bool) {
      pto_str_puts(s, a->u.i ? "true" : "false");
      return;
    }
    if (a->type->kind == PTO_TYPE_INTEGER && a->type->signedness == PTO_UNSIGNED)
      pto_str_uint(s, (uint64_t)a->u.i);
    else
      pto_str_int(s, a->u.i);
    if (with_type && !(a->type->kind == PTO_TYPE_INTEGER && a->type->sub == 64 &&
                       a->type->signedness == PTO_SIGNLESS)) {
      pto_str_puts(s, " : ");
      print_type(p, a->type);
    }
    return;
  case PTO_ATTR_FLOAT:
    print_float_value(s, a->u.f, a->type);
    /* f64 is the default of a float literal, but a hex bit pattern
     * without a type would read back as an integer */
    if (with_type &&
        (pto_type_float_kind(a->type) != PTO_F64 || !isfinite(a->u.f))) {
      pto_str_puts(s, " : ");
      print_type(p, a->type);
    }
    return;
  case PTO_ATTR_UNIT:
    pto_str_puts(s, "unit");
    return;
  case PTO_ATTR_STRING:
    pto_str_quoted(s, a->u.str.s, a->u.str.len);
    return;
  case PTO_ATTR_TYPE:
    print_type(p, a->u.type);
    return;
  case PTO_ATTR_ARRAY:
    pto_str_putc(s, '[');
    for (unsigned i = 0; i < a->u.array.n; i++) {
      if (i) pto_str_puts(s, ", ");
      print_attr(p, a->u.array.elems[i], true);
    }
    pto_str_putc(s, ']');
    return;
  case PTO_ATTR_DICT:
    pto_str_putc(s, '{');
    for (unsigned i = 0; i < a->u.dict.n; i++) {
      if (i) pto_str_puts(s, ", ");
      print_named_attr(p, &a->u.dict.entries[i]);
    }
    pto_str_putc(s, '}');
    return;
  case PTO_ATTR_SYMREF:
    print_symbol(s, a->u.sym.root);
    for (unsigned i = 0; i < a->u.sym.n; i++) {
      pto_str_puts(s, "::");
      print_symbol(s, a->u.sym.nested[i]);
    }
    return;
  case PTO_ATTR_DENSE:
    print_dense(p, a);
    return;
  case PTO_ATTR_DIALECT: {
    pto_str_putc(s, '#');
    pto_str_puts(s, a->u.dialect.dialect->str);
    pto_str_putc(s, '.');
    const PtoDialectDef *d = a->u.dialect.dialect->dialect;
    if (d && d->print_attr)
      d->print_attr(p, a);
    else
      pto_str_puts(s, a->u.dialect.name->str);
    return;
  }
  case PTO_ATTR_OPAQUE:
    print_opaque(s, '#', a->u.dialect.dialect, a->u.dialect.name,
                 a->u.dialect.body, a->u.dialect.body_len);
    return;
  }
}

void pto_printer_print_attr(PtoPrinter *p, PtoAttr *a) { print_attr(p, a, true); }
void pto_printer_print_attr_no_type(PtoPrinter *p, PtoAttr *a) {
  print_attr(p, a, false);
}
void pto_printer_print_symbol_name(PtoPrinter *p, PtoIdent *name) {
  print_symbol(p->out, name);
}
void pto_printer_print_string(PtoPrinter *p, const char *s, size_t len) {
  pto_str_quoted(p->out, s, len);
}

/* ------------------------------------------------------------------ */
/* Locations                                                            */
/* ------------------------------------------------------------------ */

static void print_loc_inner(PtoStr *s, PtoLoc *l, unsigned depth) {
  if (!l || depth > PTO_MAX_NESTING) {
    pto_str_puts(s, "unknown");
    return;
  }
  switch ((PtoLocKind)l->kind) {
  case PTO_LOC_UNKNOWN:
    pto_str_puts(s, "unknown");
    return;
  case PTO_LOC_FILE:
    pto_str_quoted(s, l->u.file.file->str, l->u.file.file->len);
    pto_str_printf(s, ":%u:%u", l->u.file.line, l->u.file.col);
    return;
  case PTO_LOC_NAME:
    pto_str_quoted(s, l->u.name.name->str, l->u.name.name->len);
    if (l->u.name.child) {
      pto_str_putc(s, '(');
      print_loc_inner(s, l->u.name.child, depth + 1);
      pto_str_putc(s, ')');
    }
    return;
  case PTO_LOC_CALLSITE:
    pto_str_puts(s, "callsite(");
    print_loc_inner(s, l->u.cs.callee, depth + 1);
    pto_str_puts(s, " at ");
    print_loc_inner(s, l->u.cs.caller, depth + 1);
    pto_str_putc(s, ')');
    return;
  case PTO_LOC_FUSED:
    pto_str_puts(s, "fused[");
    for (unsigned i = 0; i < l->u.fused.n; i++) {
      if (i) pto_str_puts(s, ", ");
      print_loc_inner(s, l->u.fused.locs[i], depth + 1);
    }
    pto_str_putc(s, ']');
    return;
  }
}

void pto_print_loc_to(PtoStr *s, PtoLoc *l) {
  pto_str_puts(s, "loc(");
  print_loc_inner(s, l, 0);
  pto_str_putc(s, ')');
}

/* ------------------------------------------------------------------ */
/* Values, blocks, regions, operations                                  */
/* ------------------------------------------------------------------ */

static void print_value(PtoPrinter *p, PtoValue *v) {
  PtoStr *s = p->out;
  if (!v) {
    pto_str_puts(s, "<<NULL VALUE>>");
    return;
  }
  if (v->is_arg && !arg_block(v)) {
    pto_str_puts(s, "<<UNKNOWN SSA VALUE>>"); /* parser placeholder */
    return;
  }
  if (v->is_arg) {
    if (v->scratch & ARG_NAME_BIT) {
      pto_str_puts(s, "%arg");
      pto_str_uint(s, v->scratch & ~ARG_NAME_BIT);
    } else {
      pto_str_putc(s, '%');
      pto_str_uint(s, v->scratch);
    }
    return;
  }
  pto_str_putc(s, '%');
  pto_str_uint(s, v->scratch);
  if (result_op(v)->num_results > 1) {
    pto_str_putc(s, '#');
    pto_str_uint(s, v->index);
  }
}

void pto_printer_print_operand(PtoPrinter *p, PtoValue *v) { print_value(p, v); }

void pto_printer_print_operands(PtoPrinter *p, PtoOp *op, unsigned start,
                                unsigned n) {
  for (unsigned i = 0; i < n; i++) {
    if (i) pto_str_puts(p->out, ", ");
    print_value(p, op->operands[start + i].value);
  }
}

void pto_printer_print_values(PtoPrinter *p, PtoValue *const *v, unsigned n) {
  for (unsigned i = 0; i < n; i++) {
    if (i) pto_str_puts(p->out, ", ");
    print_value(p, v[i]);
  }
}

void pto_printer_print_successor(PtoPrinter *p, PtoBlock *b) {
  pto_str_puts(p->out, "^bb");
  pto_str_uint(p->out, b->scratch);
}

void pto_printer_print_block_arg_decl(PtoPrinter *p, PtoValue *arg) {
  print_value(p, arg);
  pto_str_puts(p->out, ": ");
  print_type(p, arg->type);
  if (p->flags & PTO_PRINT_DEBUGINFO) {
    pto_str_putc(p->out, ' ');
    pto_print_loc_to(p->out, ((PtoBlockArg *)arg)->loc);
  }
}

static void print_op(PtoPrinter *p, PtoOp *op);

static void print_block(PtoPrinter *p, PtoBlock *b, bool label,
                        bool print_empty_terminator) {
  PtoStr *s = p->out;
  if (label) {
    pto_str_indent(s, p->indent - 2);
    pto_printer_print_successor(p, b);
    if (b->nargs) {
      pto_str_putc(s, '(');
      for (uint32_t i = 0; i < b->nargs; i++) {
        if (i) pto_str_puts(s, ", ");
        pto_printer_print_block_arg_decl(p, &b->args[i]->v);
      }
      pto_str_putc(s, ')');
    }
    pto_str_puts(s, ":\n");
  }
  PTO_FOR_OPS(b, op) {
    if (!print_empty_terminator && !pto_op_next(op) && op_def(op) &&
        (op_def(op)->traits & PTO_TRAIT_TERMINATOR) && !op->num_operands &&
        !op->num_results && !op->num_attrs && !op->num_successors &&
        !op->num_regions && !(p->flags & PTO_PRINT_GENERIC))
      continue;
    print_op(p, op);
  }
}

/* `print_empty_block`: label an empty entry block even when it is the only
 * block, so that it does not read back as a region without blocks (the
 * generic form, as MLIR prints it). */
static void print_region(PtoPrinter *p, PtoRegion *r, bool print_entry_args,
                         bool print_empty_terminator, bool print_empty_block) {
  PtoStr *s = p->out;
  if (p->depth >= PTO_MAX_NESTING) {
    /* reported once; the marker keeps the output from parsing */
    if (!p->too_deep) {
      PtoOp *op = pto_region_parent_op(r);
      pto_emit_error(p->ctx, op ? op_loc(op) : NULL,
                     "regions nested too deeply to print (at most %d levels)",
                     PTO_MAX_NESTING);
      p->too_deep = true;
    }
    pto_str_puts(s, "{ <<regions nested too deeply>> }");
    return;
  }
  p->depth++;
  pto_str_puts(s, "{\n");
  p->indent += 2;
  PTO_FOR_BLOCKS(r, b) {
    bool entry = b == pto_region_first_block(r);
    /* The entry block's label is needed for its arguments, and when it is
     * empty and the next block would read as the entry block. */
    bool empty_entry = pto_block_empty(b) &&
                       (pto_block_next(b) || print_empty_block);
    bool label = !entry || (print_entry_args && (b->nargs || empty_entry));
    print_block(p, b, label, print_empty_terminator || pto_block_next(b) ||
                                 !entry);
  }
  p->depth--;
  p->indent -= 2;
  pto_str_indent(s, p->indent);
  pto_str_putc(s, '}');
}

void pto_printer_print_region(PtoPrinter *p, PtoRegion *r,
                              bool print_entry_args,
                              bool print_empty_terminator) {
  print_region(p, r, print_entry_args, print_empty_terminator, false);
}

static bool attr_elided(const PtoIdent *name, const char *const *elided,
                        unsigned n) {
  for (unsigned i = 0; i < n; i++)
    if (strcmp(name->str, elided[i]) == 0) return true;
  return false;
}

static void print_attr_dict(PtoPrinter *p, PtoOp *op, const char *const *elided,
                            unsigned n, bool keyword) {
  unsigned shown = 0;
  for (unsigned i = 0; i < op->num_attrs; i++)
    if (!attr_elided(op->attrs[i].name, elided, n)) shown++;
  if (!shown) return;
  PtoStr *s = p->out;
  pto_str_puts(s, keyword ? " attributes {" : " {");
  bool first = true;
  for (unsigned i = 0; i < op->num_attrs; i++) {
    const PtoNamedAttr *e = &op->attrs[i];
    if (attr_elided(e->name, elided, n)) continue;
    if (!first) pto_str_puts(s, ", ");
    first = false;
    print_named_attr(p, e);
  }
  pto_str_putc(s, '}');
}

void pto_printer_print_attr_dict(PtoPrinter *p, PtoOp *op,
                                 const char *const *elided, unsigned n) {
  print_attr_dict(p, op, elided, n, false);
}
void pto_printer_print_attr_dict_with_keyword(PtoPrinter *p, PtoOp *op,
                                              const char *const *elided,
                                              unsigned n) {
  print_attr_dict(p, op, elided, n, true);
}

static void print_generic(PtoPrinter *p, PtoOp *op) {
  PtoStr *s = p->out;
  pto_str_quoted(s, op->name->str, op->name->len);
  pto_str_putc(s, '(');
  pto_printer_print_operands(p, op, 0, op->num_operands);
  pto_str_putc(s, ')');
  if (op->num_successors) {
    pto_str_putc(s, '[');
    for (unsigned i = 0; i < op->num_successors; i++) {
      if (i) pto_str_puts(s, ", ");
      pto_printer_print_successor(p, op_successors(op)[i]);
    }
    pto_str_putc(s, ']');
  }
  if (op->num_regions) {
    pto_str_puts(s, " (");
    for (unsigned i = 0; i < op->num_regions; i++) {
      if (i) pto_str_puts(s, ", ");
      print_region(p, &op_regions(op)[i], true, true, true);
    }
    pto_str_putc(s, ')');
  }
  print_attr_dict(p, op, NULL, 0, false);
  pto_str_puts(s, " : (");
  for (unsigned i = 0; i < op->num_operands; i++) {
    if (i) pto_str_puts(s, ", ");
    print_type(p, op->operands[i].value ? op->operands[i].value->type : NULL);
  }
  pto_str_puts(s, ") -> ");
  bool paren = op->num_results != 1 ||
               op->results[0].type->kind == PTO_TYPE_FUNCTION;
  if (paren) pto_str_putc(s, '(');
  for (unsigned i = 0; i < op->num_results; i++) {
    if (i) pto_str_puts(s, ", ");
    print_type(p, op->results[i].type);
  }
  if (paren) pto_str_putc(s, ')');
}

static void print_op_body(PtoPrinter *p, PtoOp *op) {
  PtoStr *s = p->out;
  if (op->num_results) {
    pto_str_putc(s, '%');
    pto_str_uint(s, op->results[0].scratch);
    if (op->num_results > 1) {
      pto_str_putc(s, ':');
      pto_str_uint(s, op->num_results);
    }
    pto_str_puts(s, " = ");
  }
  if ((p->flags & PTO_PRINT_GENERIC) || !op_def(op) || !op_def(op)->print) {
    print_generic(p, op);
  } else {
    /* builtin ops are printed without their dialect prefix, as in MLIR */
    const char *nm = op->name->str;
    if (strncmp(nm, "builtin.", 8) == 0) nm += 8;
    pto_str_puts(s, nm);
    op_def(op)->print(p, op);
  }
  if (p->flags & PTO_PRINT_DEBUGINFO) {
    pto_str_putc(s, ' ');
    pto_print_loc_to(s, op_loc(op));
  }
}

static void print_op(PtoPrinter *p, PtoOp *op) {
  pto_str_indent(p->out, p->indent);
  print_op_body(p, op);
  pto_str_putc(p->out, '\n');
  if (p->sink && p->out->len >= PRINT_FLUSH_BYTES) {
    fwrite(p->out->data, 1, p->out->len, p->sink);
    p->out->len = 0;
  }
}

/* ------------------------------------------------------------------ */
/* Entry points                                                         */
/* ------------------------------------------------------------------ */

static bool swallow_diag(const PtoDiagInfo *d, void *user) {
  (void)d;
  (void)user;
  return true;
}

/* Whether `op` verifies, without reporting anything. */
static bool verifies_quietly(PtoOp *op) {
  PtoContext *ctx = op_ctx(op);
  unsigned errors = ctx->num_errors;
  pto_ctx_push_diag_handler(ctx, swallow_diag, NULL);
  bool ok = pto_op_verify(op) == PTO_SUCCESS;
  pto_ctx_pop_diag_handler(ctx);
  ctx->num_errors = errors;
  return ok;
}

static void print_top(PtoOp *op, PtoStr *out, FILE *sink, unsigned flags) {
  /* Custom printers may rely on the op's invariants: IR that does not
   * verify is printed in the generic form, as MLIR does. */
  if (!(flags & (PTO_PRINT_GENERIC | PTO_PRINT_ASSUME_VERIFIED)) &&
      !verifies_quietly(op))
    flags |= PTO_PRINT_GENERIC;
  PtoPrinter p = {op_ctx(op), out, 0, flags, sink, 0, false};
  number_for_print(op, flags);
  print_op(&p, op);
}

char *pto_op_print_to_string(PtoOp *op, unsigned flags) {
  PtoStr s;
  pto_str_init(&s);
  print_top(op, &s, NULL, flags);
  return pto_str_take(&s);
}

void pto_op_print(PtoOp *op, FILE *out, unsigned flags) {
  PtoStr s;
  pto_str_init(&s);
  pto_str_reserve_(&s, PRINT_FLUSH_BYTES + 4096);
  print_top(op, &s, out, flags);
  fwrite(s.data, 1, s.len, out);
  pto_str_release(&s);
}

void pto_print_type_to(PtoStr *s, PtoType *t) {
  PtoPrinter p = {t ? t->ctx : NULL, s, 0, 0, NULL, 0, false};
  print_type(&p, t);
}

void pto_print_attr_to(PtoStr *s, PtoAttr *a) {
  PtoPrinter p = {a ? a->ctx : NULL, s, 0, 0, NULL, 0, false};
  print_attr(&p, a, true);
}

char *pto_type_to_string(PtoType *t) {
  PtoStr s;
  pto_str_init(&s);
  pto_print_type_to(&s, t);
  return pto_str_take(&s);
}

char *pto_attr_to_string(PtoAttr *a) {
  PtoStr s;
  pto_str_init(&s);
  pto_print_attr_to(&s, a);
  return pto_str_take(&s);
}

char *pto_loc_to_string(PtoLoc *l) {
  PtoStr s;
  pto_str_init(&s);
  pto_print_loc_to(&s, l);
  return pto_str_take(&s);
}

void pto_type_dump(PtoType *t, FILE *out) {
  char *s = pto_type_to_string(t);
  fputs(s, out);
  pto_free(s);
}

void pto_attr_dump(PtoAttr *a, FILE *out) {
  char *s = pto_attr_to_string(a);
  fputs(s, out);
  pto_free(s);
}
