/* The block dialect's definition: the !block.buf type, the op table from
 * BlockOps.def, accessors and registration. */
#include "Dialect/Block/BlockInternal.h"

#include "pto/Dialect/Tile.h"

#include <string.h>

static const char *const space_names[PTO_BUF_NUM_SPACES] = {
    "vec", "mat", "left", "right", "acc"};

const char *pto_buf_space_name(PtoBufSpace s) {
  return (unsigned)s < PTO_BUF_NUM_SPACES ? space_names[s] : "?";
}

PtoBufSpace pto_buf_space_lookup(const char *name) {
  for (unsigned i = 0; name && i < PTO_BUF_NUM_SPACES; i++)
    if (strcmp(space_names[i], name) == 0) return (PtoBufSpace)i;
  return PTO_BUF_NONE;
}

/* ------------------------------------------------------------------ */
/* !block.buf<32x32xf32, vec>                                           */
/* ------------------------------------------------------------------ */

PtoType *pto_block_buf_type(PtoContext *ctx, const int64_t *shape,
                            unsigned rank, PtoType *elem, PtoBufSpace space) {
  if ((unsigned)space >= PTO_BUF_NUM_SPACES ||
      pto_tile_type_check(NULL, shape, rank, elem))
    return NULL;
  PtoAttr *s = pto_attr_cstr(ctx, space_names[space]);
  return pto_type_dialect(ctx, "block", "buf", shape, rank, &elem, 1, &s, 1);
}

PtoBufSpace pto_block_buf_space(const PtoType *t) {
  if (!t || !pto_type_isa(t, "block", "buf") || pto_type_num_attrs(t) != 1)
    return PTO_BUF_NONE;
  return pto_buf_space_lookup(pto_attr_str(pto_type_attr_param(t, 0)));
}

bool pto_type_is_block_buf(const PtoType *t) {
  return pto_block_buf_space(t) != PTO_BUF_NONE && pto_type_is_tile(t);
}

static PtoType *parse_type(PtoParser *p, const char *mnemonic) {
  if (strcmp(mnemonic, "buf") != 0) {
    pto_parser_error(p, "unknown block type '%s'; the block dialect has "
                        "'!block.buf<...>'", mnemonic);
    return NULL;
  }
  int64_t dims[PTO_MAX_RANK + 1];
  unsigned rank;
  PtoType *elem;
  if (pto_tile_parse_shape(p, dims, &rank, &elem)) return NULL;
  PtoBufSpace s;
  if (pto_dialect_parse_space(p, &s)) return NULL;
  if (pto_parser_parse_punct(p, PTO_P_GREATER)) return NULL;
  return pto_block_buf_type(pto_parser_ctx(p), dims, rank, elem, s);
}

static void print_type(PtoPrinter *p, PtoType *t) {
  pto_printer_puts(p, "buf<");
  pto_dialect_print_buf_params(p, t);
  pto_printer_puts(p, ">");
}

/* ------------------------------------------------------------------ */
/* Accessors                                                            */
/* ------------------------------------------------------------------ */

PtoBlockCore pto_block_kernel_core(const PtoOp *kernel) {
  const char *c = pto_op_attr_str(kernel, "core");
  if (!c) return PTO_BLOCK_CORE_NONE;
  if (strcmp(c, "vector") == 0) return PTO_BLOCK_CORE_VECTOR;
  if (strcmp(c, "cube") == 0) return PTO_BLOCK_CORE_CUBE;
  return PTO_BLOCK_CORE_NONE;
}

PtoOp *block_enclosing_kernel(PtoOp *op) {
  for (PtoOp *p = pto_op_parent_op(op); p; p = pto_op_parent_op(p))
    if (pto_op_is(p, "block.kernel")) return p;
  return NULL;
}

/* Attribute names the accessors below read for every launch, each time
 * the verifier or a pass looks at one: interned once per context (the
 * dialect's attr_names) and compared by pointer. */
enum {
  NAME_CALLEE, NAME_READS, NAME_WRITES, NAME_OPERAND, NAME_OFFSETS,
  NAME_SIZES, NAME_OFFSET_OPERANDS, NUM_NAMES
};
static const char *const attr_names[NUM_NAMES] = {
    "callee", "reads", "writes", "operand", "offsets", "sizes",
    "offset_operands"};

static const PtoOpDef block_ops[BLOCK_NUM_OPS];

/* The interned names, from a block op; NULL from any other op. */
static PtoIdent *const *block_names(const PtoOp *op) {
  return pto_op_def(op) == &block_ops[BLOCK_LAUNCH]
             ? pto_op_dialect_attr_names(op)
             : NULL;
}

static PtoAttr *launch_attr(const PtoOp *launch, unsigned which) {
  PtoIdent *const *names = block_names(launch);
  return names ? pto_op_attr_id(launch, names[which])
               : pto_op_attr(launch, attr_names[which]);
}

PtoOp *pto_block_launch_kernel(PtoOp *launch) {
  PtoAttr *callee = launch_attr(launch, NAME_CALLEE);
  if (!callee || pto_attr_kind(callee) != PTO_ATTR_SYMREF) return NULL;
  PtoOp *k = pto_symbol_lookup_from(launch, callee);
  /* The host function stays as it is when lower-to-pto turns its kernels
   * into pto.kernels, which have the same signature and core. */
  return k && (pto_op_is(k, "block.kernel") || pto_op_is(k, "pto.kernel"))
             ? k
             : NULL;
}

static PtoAttr *regions_attr(const PtoOp *launch, bool writes) {
  PtoAttr *a = launch_attr(launch, writes ? NAME_WRITES : NAME_READS);
  return a && pto_attr_kind(a) == PTO_ATTR_ARRAY ? a : NULL;
}

unsigned pto_block_launch_num_regions(const PtoOp *launch, bool writes) {
  PtoAttr *a = regions_attr(launch, writes);
  return a ? pto_attr_array_size(a) : 0;
}

/* Entry `which` of dictionary d: one pass over its few entries, by
 * pointer when the names are interned. */
static PtoAttr *entry(const PtoAttr *d, PtoIdent *const *names,
                      unsigned which) {
  if (!names) return pto_attr_dict_get(d, attr_names[which]);
  const PtoNamedAttr *e = pto_attr_dict_entries(d);
  for (unsigned i = 0, n = pto_attr_dict_size(d); i < n; i++)
    if (e[i].name == names[which]) return e[i].value;
  return NULL;
}

bool pto_block_launch_region(const PtoOp *launch, bool writes, unsigned i,
                             PtoBlockRegion *out) {
  PtoAttr *a = regions_attr(launch, writes);
  if (!a || i >= pto_attr_array_size(a)) return false;
  PtoAttr *d = pto_attr_array_get(a, i);
  if (pto_attr_kind(d) != PTO_ATTR_DICT) return false;
  PtoIdent *const *names = block_names(launch);
  PtoAttr *opnd = entry(d, names, NAME_OPERAND);
  if (!opnd || pto_attr_kind(opnd) != PTO_ATTR_INTEGER ||
      pto_attr_int_value(opnd) < 0)
    return false;
  memset(out, 0, sizeof *out);
  out->operand = (unsigned)pto_attr_int_value(opnd);
  unsigned n1 = 0, n2 = 0, n3 = 0;
  if (!pto_attr_get_i64_array(entry(d, names, NAME_OFFSETS), out->offsets, 8,
                              &n1) ||
      !pto_attr_get_i64_array(entry(d, names, NAME_SIZES), out->sizes, 8,
                              &n2) ||
      n1 != n2)
    return false;
  out->rank = n1;
  PtoAttr *oo = entry(d, names, NAME_OFFSET_OPERANDS);
  if (oo) {
    if (!pto_attr_get_i64_array(oo, out->offset_operand, 8, &n3) || n3 != n1)
      return false;
  } else {
    for (unsigned k = 0; k < n1; k++) out->offset_operand[k] = -1;
  }
  return true;
}

/* ------------------------------------------------------------------ */
/* Registration                                                         */
/* ------------------------------------------------------------------ */

#define PTO_OP PTO_OPDEF_ROW
static const PtoOpDef block_ops[BLOCK_NUM_OPS] = {
#include "Dialect/Block/BlockOps.def"
};
#undef PTO_OP

static const PtoDialectDef block_dialect = {
    "block", block_ops, BLOCK_NUM_OPS, parse_type, print_type, NULL, NULL,
    NULL,
    "Block level: kernels on one core type, on-chip buffers, GM workspaces "
    "and the launches of the execution graph",
    attr_names, NUM_NAMES};

void pto_register_block_dialect(PtoContext *ctx) {
  pto_ctx_register_dialect(ctx, &block_dialect);
}
