/* tstore as streaming stores: the rows of a tile copied to GM with
 * non-temporal vector stores, which write whole cache lines without first
 * reading them (a normal store reads each line it writes) and without
 * evicting what the kernel still uses. Worth it only for outputs too large
 * to be read back from the cache, which the translation decides. */
#include "Target/LLVMIR/EmitUtil.h"

#define B (e->b)

static LLVMValueRef byte_ptr(PtoEmit *e, LLVMValueRef p, LLVMValueRef off) {
  LLVMTypeRef i8 = LLVMInt8TypeInContext(e->ctx);
  p = LLVMBuildBitCast(B, p, LLVMPointerType(i8, 0), "");
  return LLVMBuildInBoundsGEP2(B, i8, p, &off, 1, "");
}

/* dst[lo..hi) = src[lo..hi), byte by byte */
static void copy_bytes(PtoEmit *e, LLVMValueRef dst, LLVMValueRef src,
                       LLVMValueRef lo, LLVMValueRef hi) {
  LLVMTypeRef i8 = LLVMInt8TypeInContext(e->ctx);
  PtoEmitLoop l;
  pto_emit_loop_begin(e, &l, lo, hi, 1, 0, NULL);
  LLVMBuildStore(B, LLVMBuildLoad2(B, i8, byte_ptr(e, src, l.iv), ""),
                 byte_ptr(e, dst, l.iv));
  pto_emit_loop_end(e, &l);
}

static LLVMValueRef smin(PtoEmit *e, LLVMValueRef a, LLVMValueRef b) {
  return LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSLT, a, b, ""), a, b, "");
}

void pto_emit_mark_nontemporal(PtoEmit *e, LLVMValueRef store) {
  LLVMValueRef one = LLVMConstInt(LLVMInt32TypeInContext(e->ctx), 1, 0);
  LLVMMetadataRef one_md = LLVMValueAsMetadata(one);
  LLVMSetMetadata(store, LLVMGetMDKindIDInContext(e->ctx, "nontemporal", 11),
                  LLVMMetadataAsValue(e->ctx, LLVMMDNodeInContext2(e->ctx, &one_md, 1)));
}

PtoResult pto_emit_copy_streaming(PtoEmit *e, PtoEmitTile dst, PtoEmitTile src,
                                  LLVMValueRef rows, LLVMValueRef cols,
                                  PtoError *err) {
  if (!pto_emit_storage_type(e, dst.dtype) || dst.dtype != src.dtype)
    return pto_error_set(err, "a streaming copy needs tiles of one element "
                         "type the emitters handle, not %s and %s",
                         pto_dtype_ir_name(dst.dtype), pto_dtype_ir_name(src.dtype));
  unsigned lanes = e->lanes ? e->lanes : 8;
  int64_t w = 4 * (int64_t)lanes; /* bytes per vector store */
  LLVMTypeRef i64 = LLVMInt64TypeInContext(e->ctx);
  LLVMTypeRef vt = LLVMVectorType(LLVMInt32TypeInContext(e->ctx), lanes);
  LLVMValueRef zero = pto_emit_i64(e, 0);
  LLVMValueRef nbytes = LLVMBuildMul(
      B, cols, pto_emit_i64(e, (int64_t)pto_dtype_size(dst.dtype)), "");
  LLVMValueRef hi_r = LLVMBuildSelect(
      B, LLVMBuildICmp(B, LLVMIntSGT, cols, zero, ""), rows, zero, "");
  PtoEmitLoop lr, lv;
  pto_emit_loop_begin(e, &lr, zero, hi_r, 1, 0, NULL);
  LLVMValueRef dp = pto_emit_elem_ptr(e, dst, lr.iv, zero);
  LLVMValueRef sp = pto_emit_elem_ptr(e, src, lr.iv, zero);
  /* the bytes before dst's first vector-aligned address, the aligned
   * vectors, the bytes after them */
  LLVMValueRef mis = LLVMBuildAnd(B, LLVMBuildPtrToInt(B, dp, i64, ""),
                                  pto_emit_i64(e, w - 1), "");
  LLVMValueRef head = smin(
      e, LLVMBuildAnd(B, LLVMBuildSub(B, pto_emit_i64(e, w), mis, ""),
                      pto_emit_i64(e, w - 1), ""),
      nbytes);
  LLVMValueRef body_end = LLVMBuildAdd(
      B, head,
      LLVMBuildAnd(B, LLVMBuildSub(B, nbytes, head, ""), pto_emit_i64(e, -w), ""),
      "");
  copy_bytes(e, dp, sp, zero, head);
  pto_emit_loop_begin(e, &lv, head, body_end, w, 0, NULL);
  LLVMValueRef v = LLVMBuildLoad2(
      B, vt, LLVMBuildBitCast(B, byte_ptr(e, sp, lv.iv), LLVMPointerType(vt, 0), ""),
      "");
  LLVMSetAlignment(v, 1);
  LLVMValueRef st = LLVMBuildStore(
      B, v, LLVMBuildBitCast(B, byte_ptr(e, dp, lv.iv), LLVMPointerType(vt, 0), ""));
  LLVMSetAlignment(st, (unsigned)w);
  pto_emit_mark_nontemporal(e, st);
  pto_emit_loop_end(e, &lv);
  copy_bytes(e, dp, sp, body_end, nbytes);
  pto_emit_loop_end(e, &lr);
  pto_emit_loop_keep_rolled(e, &lr);
  pto_emit_streaming_fence(e);
  return PTO_SUCCESS;
}

void pto_emit_streaming_fence(PtoEmit *e) {
  if (!e->x86) {
    LLVMBuildFence(B, LLVMAtomicOrderingSequentiallyConsistent, 0, "");
    return;
  }
  unsigned id = LLVMLookupIntrinsicID("llvm.x86.sse.sfence", 19);
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(e->mod, id, NULL, 0);
  LLVMBuildCall2(B, LLVMIntrinsicGetType(e->ctx, id, NULL, 0), fn, NULL, 0, "");
}
