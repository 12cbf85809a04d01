/* Shared builders of the instruction-semantics emitters (EmitUtil.h). */
#include "Target/LLVMIR/EmitUtil.h"

#include <assert.h>
#include <llvm-c/DebugInfo.h>
#include <stdio.h>
#include <string.h>

#include "Support/Alloc.h"

unsigned pto_emit_lanes_of(LLVMValueRef v) {
  LLVMTypeRef t = LLVMTypeOf(v);
  return LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMGetVectorSize(t) : 0;
}

LLVMTypeRef pto_emit_vec_type(LLVMTypeRef ty, unsigned lanes) {
  return lanes ? LLVMVectorType(ty, lanes) : ty;
}

static LLVMValueRef splat_const(LLVMValueRef c, unsigned lanes) {
  if (!lanes) return c;
  LLVMValueRef elems[64];
  for (unsigned i = 0; i < lanes; i++) elems[i] = c;
  return LLVMConstVector(elems, lanes);
}

LLVMValueRef pto_emit_fconst(PtoEmit *e, LLVMValueRef like, double v) {
  return splat_const(LLVMConstReal(LLVMFloatTypeInContext(e->ctx), v),
                     pto_emit_lanes_of(like));
}

LLVMValueRef pto_emit_iconst(PtoEmit *e, LLVMValueRef like, int64_t v) {
  return splat_const(
      LLVMConstInt(LLVMInt32TypeInContext(e->ctx), (uint64_t)v, 1),
      pto_emit_lanes_of(like));
}

LLVMValueRef pto_emit_iconst_like(LLVMValueRef like, int64_t v) {
  LLVMTypeRef t = LLVMTypeOf(like);
  unsigned lanes = pto_emit_lanes_of(like);
  return splat_const(LLVMConstInt(lanes ? LLVMGetElementType(t) : t, (uint64_t)v, 1), lanes);
}

LLVMValueRef pto_emit_splat(PtoEmit *e, LLVMValueRef s, unsigned lanes) {
  if (!lanes) return s;
  LLVMTypeRef vt = LLVMVectorType(LLVMTypeOf(s), lanes);
  LLVMValueRef v = LLVMBuildInsertElement(
      e->b, LLVMGetUndef(vt), s,
      LLVMConstInt(LLVMInt32TypeInContext(e->ctx), 0, 0), "");
  LLVMValueRef mask = LLVMConstNull(
      LLVMVectorType(LLVMInt32TypeInContext(e->ctx), lanes));
  return LLVMBuildShuffleVector(e->b, v, LLVMGetUndef(vt), mask, "");
}

LLVMValueRef pto_emit_intrinsic(PtoEmit *e, const char *name,
                                LLVMValueRef *args, unsigned n) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  LLVMTypeRef ty = LLVMTypeOf(args[0]);
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(e->mod, id, &ty, 1);
  LLVMTypeRef fty = LLVMIntrinsicGetType(e->ctx, id, &ty, 1);
  return LLVMBuildCall2(e->b, fty, fn, args, n, "");
}

void pto_emit_prefetch(PtoEmit *e, LLVMValueRef p) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(e->ctx);
  LLVMValueRef args[4] = {
      LLVMBuildBitCast(e->b, p, LLVMPointerType(LLVMInt8TypeInContext(e->ctx), 0), ""),
      LLVMConstInt(i32, 0, 0) /* read */, LLVMConstInt(i32, 3, 0) /* all levels */,
      LLVMConstInt(i32, 1, 0) /* data */};
  pto_emit_intrinsic(e, "llvm.prefetch", args, 4);
}

void pto_emit_loop_begin(PtoEmit *e, PtoEmitLoop *l, LLVMValueRef lo,
                         LLVMValueRef hi, int64_t step, unsigned ncarry,
                         const LLVMValueRef *init) {
  l->pre = LLVMGetInsertBlock(e->b);
  l->body = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "loop");
  l->exit = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "loop.end");
  l->hi = hi;
  l->step = step;
  l->ncarry = ncarry;
  LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntSLT, lo, hi, ""), l->body,
                  l->exit);
  LLVMPositionBuilderAtEnd(e->b, l->body);
  l->iv = LLVMBuildPhi(e->b, LLVMTypeOf(lo), "i");
  LLVMAddIncoming(l->iv, &lo, &l->pre, 1);
  for (unsigned i = 0; i < ncarry; i++) {
    l->init[i] = init[i];
    l->carry[i] = LLVMBuildPhi(e->b, LLVMTypeOf(init[i]), "");
    LLVMAddIncoming(l->carry[i], &l->init[i], &l->pre, 1);
    l->next[i] = l->carry[i];
  }
}

void pto_emit_loop_end(PtoEmit *e, PtoEmitLoop *l) {
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(e->b);
  LLVMValueRef next = LLVMBuildNSWAdd(
      e->b, l->iv, LLVMConstInt(LLVMTypeOf(l->iv), (uint64_t)l->step, 1), "");
  LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntSLT, next, l->hi, ""),
                  l->body, l->exit);
  LLVMAddIncoming(l->iv, &next, &latch, 1);
  l->latch = latch;
  LLVMPositionBuilderAtEnd(e->b, l->exit);
  for (unsigned i = 0; i < l->ncarry; i++) {
    LLVMAddIncoming(l->carry[i], &l->next[i], &latch, 1);
    LLVMValueRef out = LLVMBuildPhi(e->b, LLVMTypeOf(l->init[i]), "");
    LLVMValueRef vals[2] = {l->init[i], l->next[i]};
    LLVMBasicBlockRef from[2] = {l->pre, latch};
    LLVMAddIncoming(out, vals, from, 2);
    l->carry[i] = out;
  }
}

static LLVMMetadataRef loop_property(PtoEmit *e, const char *name,
                                     LLVMValueRef v) {
  LLVMMetadataRef ops[2] = {LLVMMDStringInContext2(e->ctx, name, strlen(name)),
                            v ? LLVMValueAsMetadata(v) : NULL};
  return LLVMMDNodeInContext2(e->ctx, ops, v ? 2 : 1);
}

static void set_loop_properties(PtoEmit *e, PtoEmitLoop *l, bool single) {
  /* a loop ID is a distinct node whose first operand is itself */
  LLVMMetadataRef self = LLVMTemporaryMDNode(e->ctx, NULL, 0);
  LLVMMetadataRef ops[3] = {self, loop_property(e, "llvm.loop.unroll.disable", NULL),
                            NULL};
  unsigned n = 2;
  if (single)
    ops[n++] = loop_property(e, "llvm.loop.interleave.count",
                             LLVMConstInt(LLVMInt32TypeInContext(e->ctx), 1, 0));
  LLVMMetadataRef id = LLVMMDNodeInContext2(e->ctx, ops, n);
  LLVMMetadataReplaceAllUsesWith(self, id);
  unsigned kind = LLVMGetMDKindIDInContext(e->ctx, "llvm.loop", 9);
  LLVMSetMetadata(LLVMGetBasicBlockTerminator(l->latch), kind,
                  LLVMMetadataAsValue(e->ctx, id));
}

void pto_emit_loop_keep_single(PtoEmit *e, PtoEmitLoop *l) {
  set_loop_properties(e, l, true);
}

void pto_emit_loop_keep_rolled(PtoEmit *e, PtoEmitLoop *l) {
  set_loop_properties(e, l, false);
}

LLVMTypeRef pto_emit_storage_type(PtoEmit *e, PtoDType dt) {
  switch (dt) {
  case PTO_DT_F32: return LLVMFloatTypeInContext(e->ctx);
  case PTO_DT_F16: return LLVMHalfTypeInContext(e->ctx);
  case PTO_DT_BF16:
  case PTO_DT_I16:
  case PTO_DT_U16: return LLVMInt16TypeInContext(e->ctx);
  case PTO_DT_I32:
  case PTO_DT_U32: return LLVMInt32TypeInContext(e->ctx);
  case PTO_DT_I64:
  case PTO_DT_U64: return LLVMInt64TypeInContext(e->ctx);
  case PTO_DT_I8:
  case PTO_DT_U8:
  case PTO_DT_BOOL: return LLVMInt8TypeInContext(e->ctx); /* 0 or 1 */
  case PTO_DT_F8E4M3:
  case PTO_DT_F8E5M2:
  case PTO_DT_F8E8M0: return LLVMInt8TypeInContext(e->ctx); /* the code */
  default: return NULL;
  }
}

LLVMIntPredicate pto_emit_int_pred(PtoEmitNum num, LLVMIntPredicate p) {
  if (num != PTO_EMIT_NUM_UINT) return p;
  switch (p) {
  case LLVMIntSLT: return LLVMIntULT;
  case LLVMIntSLE: return LLVMIntULE;
  case LLVMIntSGT: return LLVMIntUGT;
  case LLVMIntSGE: return LLVMIntUGE;
  default: return p;
  }
}

LLVMValueRef pto_emit_int_widen(PtoEmit *e, PtoDType dt, LLVMValueRef v, LLVMTypeRef to) {
  return pto_emit_is_uint(dt) ? LLVMBuildZExt(e->b, v, to, "") : LLVMBuildSExt(e->b, v, to, "");
}

LLVMTypeRef pto_emit_compute_type(PtoEmit *e, PtoDType dt) {
  if (dt == PTO_DT_F16 || dt == PTO_DT_BF16)
    return LLVMFloatTypeInContext(e->ctx);
  return pto_emit_storage_type(e, dt);
}

LLVMValueRef pto_emit_elem_ptr(PtoEmit *e, PtoEmitTile t, LLVMValueRef r,
                               LLVMValueRef c) {
  LLVMTypeRef st = pto_emit_storage_type(e, t.dtype);
  LLVMValueRef p = LLVMBuildBitCast(e->b, t.ptr, LLVMPointerType(st, 0), "");
  LLVMValueRef idx =
      LLVMBuildNSWAdd(e->b, LLVMBuildNSWMul(e->b, r, t.row_stride, ""), c, "");
  return LLVMBuildInBoundsGEP2(e->b, st, p, &idx, 1, "");
}

LLVMValueRef pto_emit_from_storage(PtoEmit *e, PtoDType dt, LLVMValueRef v) {
  unsigned lanes = pto_emit_lanes_of(v);
  LLVMTypeRef f32 = pto_emit_vec_type(LLVMFloatTypeInContext(e->ctx), lanes);
  if (dt == PTO_DT_F16) return LLVMBuildFPExt(e->b, v, f32, "");
  if (dt == PTO_DT_BF16) {
    /* a bf16 is the top half of an f32 */
    LLVMTypeRef i32 = pto_emit_vec_type(LLVMInt32TypeInContext(e->ctx), lanes);
    LLVMValueRef w = LLVMBuildZExt(e->b, v, i32, "");
    w = LLVMBuildShl(e->b, w, pto_emit_iconst(e, w, 16), "");
    return LLVMBuildBitCast(e->b, w, f32, "");
  }
  return v;
}

LLVMValueRef pto_emit_to_storage(PtoEmit *e, PtoDType dt, LLVMValueRef v) {
  unsigned lanes = pto_emit_lanes_of(v);
  LLVMTypeRef st = pto_emit_vec_type(pto_emit_storage_type(e, dt), lanes);
  if (dt == PTO_DT_F16) return LLVMBuildFPTrunc(e->b, v, st, "");
  if (dt == PTO_DT_BF16) {
    /* round to nearest even on the dropped half; NaN stays a (quiet) NaN */
    LLVMTypeRef i32 = pto_emit_vec_type(LLVMInt32TypeInContext(e->ctx), lanes);
    LLVMValueRef w = LLVMBuildBitCast(e->b, v, i32, "");
    LLVMValueRef odd = LLVMBuildAnd(
        e->b, LLVMBuildLShr(e->b, w, pto_emit_iconst(e, w, 16), ""),
        pto_emit_iconst(e, w, 1), "");
    LLVMValueRef r = LLVMBuildAdd(
        e->b, w, LLVMBuildAdd(e->b, odd, pto_emit_iconst(e, w, 0x7fff), ""),
        "");
    LLVMValueRef nan = LLVMBuildFCmp(e->b, LLVMRealUNO, v, v, "");
    LLVMValueRef qnan = LLVMBuildOr(e->b, w, pto_emit_iconst(e, w, 0x400000), "");
    r = LLVMBuildSelect(e->b, nan, qnan, r, "");
    r = LLVMBuildLShr(e->b, r, pto_emit_iconst(e, w, 16), "");
    return LLVMBuildTrunc(e->b, r, st, "");
  }
  return v;
}

LLVMValueRef pto_emit_load(PtoEmit *e, PtoDType dt, LLVMValueRef p,
                           unsigned lanes) {
  LLVMTypeRef st = pto_emit_storage_type(e, dt);
  LLVMTypeRef vt = pto_emit_vec_type(st, lanes);
  if (lanes) p = LLVMBuildBitCast(e->b, p, LLVMPointerType(vt, 0), "");
  LLVMValueRef v = LLVMBuildLoad2(e->b, vt, p, "");
  /* tiles are element-aligned only */
  LLVMSetAlignment(v, (unsigned)pto_dtype_size(dt));
  return pto_emit_from_storage(e, dt, v);
}

void pto_emit_store(PtoEmit *e, PtoDType dt, LLVMValueRef p, LLVMValueRef v) {
  unsigned lanes = pto_emit_lanes_of(v);
  LLVMTypeRef st = pto_emit_vec_type(pto_emit_storage_type(e, dt), lanes);
  v = pto_emit_to_storage(e, dt, v);
  if (lanes) p = LLVMBuildBitCast(e->b, p, LLVMPointerType(st, 0), "");
  LLVMValueRef s = LLVMBuildStore(e->b, v, p);
  LLVMSetAlignment(s, (unsigned)pto_dtype_size(dt));
}

static LLVMTypeRef bits_type(PtoEmit *e, PtoDType dt) {
  return LLVMIntTypeInContext(e->ctx, (unsigned)(8 * pto_dtype_size(dt)));
}

LLVMValueRef pto_emit_load_bits(PtoEmit *e, PtoDType dt, LLVMValueRef p) {
  LLVMTypeRef it = bits_type(e, dt);
  LLVMValueRef v =
      LLVMBuildLoad2(e->b, it, LLVMBuildBitCast(e->b, p, LLVMPointerType(it, 0), ""), "");
  LLVMSetAlignment(v, (unsigned)pto_dtype_size(dt));
  return v;
}

void pto_emit_store_bits(PtoEmit *e, PtoDType dt, LLVMValueRef p, LLVMValueRef v) {
  LLVMTypeRef it = bits_type(e, dt);
  LLVMValueRef s =
      LLVMBuildStore(e->b, v, LLVMBuildBitCast(e->b, p, LLVMPointerType(it, 0), ""));
  LLVMSetAlignment(s, (unsigned)pto_dtype_size(dt));
}

void pto_emit_each(PtoEmit *e, LLVMValueRef rows, LLVMValueRef cols,
                   PtoEmitElemFn fn, const void *user) {
  LLVMValueRef zero = pto_emit_i64(e, 0);
  PtoEmitLoop lr, lc;
  LLVMValueRef hi_r = LLVMBuildSelect(
      e->b, LLVMBuildICmp(e->b, LLVMIntSGT, cols, zero, ""), rows, zero, "");
  pto_emit_loop_begin(e, &lr, zero, hi_r, 1, 0, NULL);
  pto_emit_loop_begin(e, &lc, zero, cols, 1, 0, NULL);
  fn(e, lr.iv, lc.iv, user);
  pto_emit_loop_end(e, &lc);
  pto_emit_loop_end(e, &lr);
  pto_emit_loop_keep_rolled(e, &lr);
}

typedef struct TilesEach {
  const PtoEmitTiles *t;
  PtoEmitTilesFn fn;
} TilesEach;

static void tiles_elem(PtoEmit *e, LLVMValueRef r, LLVMValueRef c, const void *user) {
  const TilesEach *k = user;
  k->fn(e, k->t, r, c);
}

PtoResult pto_emit_tiles_each(PtoEmit *e, const PtoEmitTiles *t, unsigned nsrc,
                              bool ok, const char *needs, LLVMValueRef rows,
                              LLVMValueRef cols, PtoEmitTilesFn fn,
                              PtoError *err) {
  assert(nsrc >= 1 && nsrc <= 3);
  if (!ok || !pto_emit_storage_type(e, t->dst.dtype)) {
    char list[96] = "";
    size_t n = 0;
    for (unsigned i = 0; i < nsrc; i++)
      n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "",
                            pto_dtype_ir_name(t->src[i].dtype));
    return pto_error_set(err, "%s, not %s -> %s", needs, list,
                         pto_dtype_ir_name(t->dst.dtype));
  }
  TilesEach k = {t, fn};
  pto_emit_each(e, rows, cols, tiles_elem, &k);
  return PTO_SUCCESS;
}

LLVMValueRef pto_emit_index_at(PtoEmit *e, PtoEmitTile index, LLVMValueRef r,
                               LLVMValueRef c) {
  LLVMValueRef v = pto_emit_load_bits(e, index.dtype, pto_emit_elem_ptr(e, index, r, c));
  return index.dtype == PTO_DT_I64 ? v : LLVMBuildSExt(e->b, v, LLVMInt64TypeInContext(e->ctx), "");
}

LLVMValueRef pto_emit_load_index(PtoEmit *e, PtoEmitTile index, LLVMValueRef r,
                                 LLVMValueRef c, LLVMValueRef extent,
                                 LLVMValueRef *in) {
  LLVMValueRef zero = pto_emit_i64(e, 0);
  LLVMValueRef ix = pto_emit_index_at(e, index, r, c);
  *in = LLVMBuildAnd(e->b, LLVMBuildICmp(e->b, LLVMIntSGE, ix, zero, ""),
                     LLVMBuildICmp(e->b, LLVMIntSLT, ix, extent, ""), "");
  return LLVMBuildSelect(e->b, *in, ix, zero, "");
}
