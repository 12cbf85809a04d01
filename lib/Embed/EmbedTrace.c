/* Tracing support of the embedding API: a front end that writes IR text
 * asks here for the result types and stored attributes of each pypto op,
 * so that it never re-implements shape inference. The op is built for real
 * (pto_pypto_create on a scratch block), so the answer is exactly what the
 * builder and verifier would say. */
#include "Embed/EmbedInternal.h"

#include "pto/Dialect/Pypto.h"

#include <string.h>

/* Appends a NUL-terminated string to the call's string storage. */
static void keep_string(PtoEmbed *e, const char *s) {
  pto_vec_push(&e->trace_offs, e->trace_buf.len);
  pto_str_append(&e->trace_buf, s, strlen(s) + 1);
}

static PtoType *parse_operand_type(PtoEmbed *e, const char *text,
                                   unsigned i, PtoLoc *loc) {
  if (!text)
    return pto_emit_error(e->ctx, loc, "operand #%u has no type", i), NULL;
  PtoType *t = pto_parse_type_str(e->ctx, text);
  if (!t)
    pto_emit_error(e->ctx, loc, "operand #%u: cannot parse type '%s'", i,
                   text);
  return t;
}

PtoResult pto_embed_pypto_infer(PtoEmbed *e, const char *op,
                                const char *const *operand_types,
                                unsigned num_operands, const char *attrs,
                                const char *file, unsigned line, unsigned col,
                                const char **result_types, unsigned cap,
                                unsigned *nresults, const char **op_attrs) {
  PtoContext *ctx = e->ctx;
  e->trace_buf.len = 0;
  pto_vec_clear(&e->trace_offs);
  *nresults = 0;
  *op_attrs = NULL;
  PtoLoc *loc = file ? pto_loc_file(ctx, file, line, col) : pto_loc_unknown(ctx);
  if (pto_pypto_lookup(op) == PTO_PYPTO_NONE)
    return pto_emit_error(ctx, loc, "unknown Tensor-level op '%s'", op);

  PtoAttr *dict = NULL;
  if (attrs && *attrs) {
    dict = pto_parse_attr_str(ctx, attrs);
    if (!dict) return pto_emit_error(ctx, loc, "cannot parse attributes '%s'", attrs);
    if (pto_attr_kind(dict) != PTO_ATTR_DICT)
      return pto_emit_error(ctx, loc,
                            "attributes must be a dictionary '{...}', got '%s'",
                            attrs);
  }

  PtoBlock *scratch = pto_block_create(ctx);
  PtoResult r = PTO_SUCCESS;
  PTO_VEC(PtoValue *) args = {0};
  for (unsigned i = 0; i < num_operands && !r; i++) {
    PtoType *t = parse_operand_type(e, operand_types[i], i, loc);
    if (!t) r = PTO_FAILURE;
    else pto_vec_push(&args, pto_block_add_arg(scratch, t, loc));
  }
  PtoOp *built = NULL;
  if (!r) {
    PtoBuilder b;
    pto_builder_init(&b, ctx);
    pto_builder_set_block_end(&b, scratch);
    b.loc = loc;
    built = pto_pypto_create(&b, op, args.data, args.len,
                             dict ? pto_attr_dict_entries(dict) : NULL,
                             dict ? pto_attr_dict_size(dict) : 0);
    if (!built) r = PTO_FAILURE;
  }
  if (!r && pto_op_num_results(built) > cap)
    r = pto_emit_error(ctx, loc, "'%s' has %u results; room for %u", op,
                       pto_op_num_results(built), cap);
  if (!r) {
    unsigned n = pto_op_num_results(built);
    for (unsigned i = 0; i < n; i++) {
      char *s = pto_type_to_string(pto_value_type(pto_op_result(built, i)));
      keep_string(e, s);
      pto_free(s);
    }
    PtoAttr *kept = pto_attr_dict(ctx, pto_op_attrs(built),
                                  pto_op_num_attrs(built));
    char *s = pto_attr_to_string(kept);
    keep_string(e, s);
    pto_free(s);
    /* the storage is complete: pointers into it no longer move */
    for (unsigned i = 0; i < n; i++)
      result_types[i] = e->trace_buf.data + e->trace_offs.data[i];
    *op_attrs = e->trace_buf.data + e->trace_offs.data[n];
    *nresults = n;
  }
  pto_vec_free(&args);
  pto_block_erase(scratch);
  return r;
}
