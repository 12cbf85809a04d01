/* Tracing support of the embedding API: a front end that writes IR text
 * asks here for the result types and stored attributes of each pypto op,
 * so that it never re-implements shape inference. The op is built for real
 * (pto_pypto_create on a scratch block), so the answer is exactly what the
 * builder and verifier would say. */
#include "Embed/EmbedInternal.h"

#include "pto/IRArray.h"
#include "pto/Dialect/Pypto.h"

#include <inttypes.h>
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

PtoResult pto_embed_check_tiles(PtoEmbed *e, const int64_t *vec,
                                unsigned nvec, const int64_t *cube,
                                const char *file, unsigned line,
                                unsigned col) {
  PtoLoc *loc =
      file ? pto_loc_file(e->ctx, file, line, col) : pto_loc_unknown(e->ctx);
  PtoErrSite site = {e->ctx, loc, ""};
  if (vec && pto_tuning_check_vec_tile(&site, "vec tile shape", vec, nvec))
    return PTO_FAILURE;
  if (cube && pto_tuning_check_cube_tile(&site, "cube tile shape", cube))
    return PTO_FAILURE;
  return PTO_SUCCESS;
}

static uint64_t align_up(int64_t v, int64_t a) {
  return (uint64_t)((v + a - 1) / a * a);
}

static uint64_t kib(uint64_t bytes) { return (bytes + 1023) / 1024; }

/* The capacity rules of the cube unit for the tile of `mm` on the
 * session's platform: A's L0 tile in L0A, B's in L0B, the accumulator's in
 * L0C, and both L1 tiles together in L1, each dim padded to the fractal
 * (16, or 32 for i8). scaled_mm's cube operands are its scaled f32 rows
 * (decompose), not its 8-bit inputs. */
static PtoResult check_cube_capacity(PtoEmbed *e, PtoOp *mm, PtoLoc *loc) {
  int64_t t[6];
  if (!pto_tuning_cube_tile(mm, t)) return PTO_SUCCESS;
  PtoDType in_dt = PTO_DT_F32;
  PtoType *a = pto_value_type(pto_op_operand(mm, 0));
  if (pto_pypto_op_id(mm) == PTO_PYPTO_MATMUL &&
      !pto_dtype_from_type(pto_type_tensor_elem(a), &in_dt))
    return PTO_SUCCESS;
  const PtoPlatform *pf = &e->platform;
  uint64_t cap_l0a = pf->buffers[PTO_MEM_LEFT].size_bytes;
  uint64_t cap_l0b = pf->buffers[PTO_MEM_RIGHT].size_bytes;
  uint64_t cap_l0c = pf->buffers[PTO_MEM_ACC].size_bytes;
  uint64_t cap_l1 = pf->buffers[PTO_MEM_MAT].size_bytes;
  uint64_t es = pto_dtype_size(in_dt), acc = 4; /* f32 or i32 */
  int64_t al = in_dt == PTO_DT_I8 ? 32 : 16;
  const char *dt = pto_dtype_name(in_dt);
  uint64_t l0a = align_up(t[0], al) * align_up(t[2], al) * es;
  uint64_t l0b = align_up(t[4], al) * align_up(t[2], al) * es;
  uint64_t l0c = align_up(t[0], al) * align_up(t[4], al) * acc;
  uint64_t l1 = (align_up(t[1], al) + align_up(t[5], al)) * align_up(t[3], al) * es;
  char prefix[48];
  snprintf(prefix, sizeof prefix, "'%s' op ", pto_pypto_op_name(pto_pypto_op_id(mm)));
  PtoErrSite site = {e->ctx, loc, prefix};
  if (l0a > cap_l0a)
    return pto_site_error(&site,
        "cube tile mL0 x kL0 = %" PRId64 " x %" PRId64 " of %s needs %" PRIu64
        " KiB of L0A, which holds %" PRIu64 " KiB on %s; reduce mL0 or kL0",
        t[0], t[2], dt, kib(l0a), kib(cap_l0a), pf->name);
  if (l0b > cap_l0b)
    return pto_site_error(&site,
        "cube tile kL0 x nL0 = %" PRId64 " x %" PRId64 " of %s needs %" PRIu64
        " KiB of L0B, which holds %" PRIu64 " KiB on %s; reduce kL0 or nL0",
        t[2], t[4], dt, kib(l0b), kib(cap_l0b), pf->name);
  if (l0c > cap_l0c)
    return pto_site_error(&site,
        "cube tile mL0 x nL0 = %" PRId64 " x %" PRId64 " accumulators need %"
        PRIu64 " KiB of L0C, which holds %" PRIu64 " KiB on %s; reduce mL0 or "
        "nL0",
        t[0], t[4], kib(l0c), kib(cap_l0c), pf->name);
  if (l1 > cap_l1)
    return pto_site_error(&site,
        "cube tile L1 parts (mL1 + nL1) x kL1 = (%" PRId64 " + %" PRId64
        ") x %" PRId64 " of %s need %" PRIu64 " KiB of L1, which holds %"
        PRIu64 " KiB on %s; reduce mL1, nL1 or kL1",
        t[1], t[5], t[3], dt, kib(l1), kib(cap_l1), pf->name);
  return PTO_SUCCESS;
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
    else if (pto_pypto_op_id(built) == PTO_PYPTO_MATMUL ||
             pto_pypto_op_id(built) == PTO_PYPTO_SCALED_MM)
      r = check_cube_capacity(e, built, loc);
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
