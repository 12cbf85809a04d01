/* The host program as LLVM code that builds the runtime's task graph
 * through the callbacks of PtoHostEnv (pto/LLVMIR.h): GM buffers for the
 * arguments and workspaces, one task per block.launch with its GM windows
 * as byte regions; scf.for, scf.if and index arithmetic as plain LLVM
 * control flow; and per kernel the task entry the runtime's workers call. */
#include "Target/LLVMIR/HostFunction.h"

#include <string.h>

#include "Support/Alloc.h"
#include "Support/Hash.h"
#include "Target/LLVMIR/EmitUtil.h"
#include "pto/Dialect/AttrNames.h"
#include "pto/Dialect/Block.h"
#include "pto/Dialect/PTO.h"
#include "pto/IRArray.h"
#include "pto/LLVMIR.h"

enum { MAX_RANK = 8, RT_MAX_PARAMS = 6, RT_READ = 1, RT_WRITE = 2 };

/* Fields of the C structs the generated code reads and writes; their LLVM
 * types below follow the C declarations field by field. */
enum { ENV_USER, ENV_ADD_BUFFER, ENV_SUBMIT, ENV_ALLOC, ENV_KERNEL_IDS,
       ENV_KERNEL_CYCLES, ENV_DIMS, ENV_RESULTS, ENV_RESULT_DIMS, ENV_READ_SCALAR,
       ENV_HOST_OP };
enum { DESC_KERNEL, DESC_REGIONS, DESC_NUM_REGIONS, DESC_PREDS,
       DESC_NUM_PREDS, DESC_LABEL, DESC_PARAMS, DESC_USER, DESC_CYCLES,
       DESC_GM_BYTES, DESC_FLOPS };
enum { ARGS_BUFFERS, ARGS_NUM_BUFFERS, ARGS_TASK_ID, ARGS_PARAMS, ARGS_USER };

typedef struct Tensor {
  LLVMValueRef buf; /* i32: its index among the graph's buffers */
  LLVMValueRef dims[MAX_RANK];
  unsigned rank;
  PtoDType dt;
} Tensor;

typedef struct Host {
  PtoEmit *e;
  LLVMTypeRef i8p, i32, i64, env_t, region_t, desc_t, args_t;
  LLVMValueRef env, regions, desc;
  LLVMValueRef scalar_req; /* the request of a tile.load_scalar (PtoHostEnv) */
  LLVMValueRef host_req;   /* the request of a host op, host_req_slots long */
  unsigned host_req_slots;
  PtoOp *func;
  uint64_t max_regions;
  LLVMBasicBlockRef fail, div_fail;
  PtoPtrMap values;  /* PtoValue * -> LLVMValueRef (index, scalars) */
  PtoPtrMap tensors; /* PtoValue * -> Tensor * */
  PtoPtrMap kernels; /* pto.kernel PtoOp * -> its position + 1 */
  unsigned num_workspaces;
} Host;

static LLVMValueRef i32c(Host *h, int64_t v) { return LLVMConstInt(h->i32, (uint64_t)v, 1); }
static LLVMValueRef i64c(Host *h, int64_t v) { return pto_emit_i64(h->e, v); }

static LLVMValueRef value_of(Host *h, PtoValue *v) {
  return pto_ptrmap_get(&h->values, (uint64_t)(uintptr_t)v);
}
static void bind(Host *h, PtoValue *v, LLVMValueRef l) {
  pto_ptrmap_put(&h->values, (uint64_t)(uintptr_t)v, l);
}
static Tensor *tensor_of(Host *h, PtoValue *v) {
  return pto_ptrmap_get(&h->tensors, (uint64_t)(uintptr_t)v);
}

static void make_types(Host *h) {
  LLVMContextRef c = h->e->ctx;
  h->i32 = LLVMInt32TypeInContext(c);
  h->i64 = LLVMInt64TypeInContext(c);
  LLVMTypeRef i8 = LLVMInt8TypeInContext(c);
  h->i8p = LLVMPointerType(i8, 0);
  LLVMTypeRef i64p = LLVMPointerType(h->i64, 0), i32p = LLVMPointerType(h->i32, 0);
  h->env_t = LLVMStructCreateNamed(c, "PtoHostEnv");
  LLVMTypeRef envp = LLVMPointerType(h->env_t, 0);
  LLVMTypeRef add_buffer[] = {envp, h->i64, h->i8p};
  LLVMTypeRef submit[] = {envp, h->i8p};
  LLVMTypeRef alloc[] = {envp, h->i32};
  LLVMTypeRef read_scalar[] = {envp, i64p};
  LLVMTypeRef env[] = {
      h->i8p,
      LLVMPointerType(LLVMFunctionType(h->i32, add_buffer, 3, 0), 0),
      LLVMPointerType(LLVMFunctionType(h->i64, submit, 2, 0), 0),
      LLVMPointerType(LLVMFunctionType(i64p, alloc, 2, 0), 0),
      i32p, i64p, i64p, i32p, i64p,
      LLVMPointerType(LLVMFunctionType(h->i64, read_scalar, 2, 0), 0),
      LLVMPointerType(LLVMFunctionType(h->i64, read_scalar, 2, 0), 0)};
  LLVMStructSetBody(h->env_t, env, PTO_ARRAY_SIZE(env), 0);
  h->region_t = LLVMStructCreateNamed(c, "PtoRtRegion");
  LLVMTypeRef region[] = {h->i32, h->i64, h->i64, h->i32};
  LLVMStructSetBody(h->region_t, region, 4, 0);
  LLVMTypeRef params = LLVMArrayType(h->i64, RT_MAX_PARAMS);
  h->desc_t = LLVMStructCreateNamed(c, "PtoRtTaskDesc");
  LLVMTypeRef desc[] = {h->i32, LLVMPointerType(h->region_t, 0), h->i32,
                        i32p, h->i32, h->i8p, params, h->i8p,
                        h->i64, h->i64, h->i64};
  LLVMStructSetBody(h->desc_t, desc, PTO_ARRAY_SIZE(desc), 0);
  h->args_t = LLVMStructCreateNamed(c, "PtoRtTaskArgs");
  LLVMTypeRef args[] = {LLVMPointerType(h->i8p, 0), h->i32, h->i32, params,
                        h->i8p};
  LLVMStructSetBody(h->args_t, args, PTO_ARRAY_SIZE(args), 0);
}

static LLVMValueRef field_ptr(Host *h, LLVMTypeRef st, LLVMValueRef p, unsigned i) {
  return LLVMBuildStructGEP2(h->e->b, st, p, i, "");
}
static LLVMValueRef load_field(Host *h, LLVMTypeRef st, LLVMValueRef p, unsigned i) {
  return LLVMBuildLoad2(h->e->b, LLVMStructGetTypeAtIndex(st, i),
                        field_ptr(h, st, p, i), "");
}
static void store_field(Host *h, LLVMTypeRef st, LLVMValueRef p, unsigned i,
                        LLVMValueRef v) {
  LLVMBuildStore(h->e->b, v, field_ptr(h, st, p, i));
}
/* element i of the array at p (a pointer to ty) */
static LLVMValueRef elem_ptr(Host *h, LLVMTypeRef ty, LLVMValueRef p, LLVMValueRef i) {
  return LLVMBuildGEP2(h->e->b, ty, p, &i, 1, "");
}

/* Calls the env callback in field `f`; a failure (`bad` true of the
 * result) ends the function with -1. */
static LLVMValueRef call_env(Host *h, unsigned f, LLVMValueRef *args,
                             unsigned n, bool null_fails) {
  LLVMBuilderRef b = h->e->b;
  LLVMTypeRef fnt = LLVMGetElementType(LLVMStructGetTypeAtIndex(h->env_t, f));
  LLVMValueRef fn = load_field(h, h->env_t, h->env, f);
  LLVMValueRef all[4] = {h->env};
  for (unsigned i = 0; i < n; i++) all[i + 1] = args[i];
  LLVMValueRef r = LLVMBuildCall2(b, fnt, fn, all, n + 1, "");
  LLVMValueRef bad = null_fails
                         ? LLVMBuildIsNull(b, r, "")
                         : LLVMBuildICmp(b, LLVMIntSLT, r,
                                         LLVMConstNull(LLVMTypeOf(r)), "");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(h->e->ctx, h->e->fn, "ok");
  LLVMBuildCondBr(b, bad, h->fail, ok);
  LLVMPositionBuilderAtEnd(b, ok);
  return r;
}

static Tensor *new_tensor(Host *h, PtoValue *v) {
  Tensor *t = pto_calloc(1, sizeof *t);
  PtoType *ty = pto_value_type(v);
  t->rank = pto_type_tensor_rank(ty);
  if (!pto_dtype_from_type(pto_type_tensor_elem(ty), &t->dt)) t->dt = PTO_DT_BOOL;
  pto_ptrmap_put(&h->tensors, (uint64_t)(uintptr_t)v, t);
  return t;
}

/* Declares the buffer of tensor t (dims already set): bytes from its dims. */
static void add_buffer(Host *h, Tensor *t, const char *name) {
  LLVMBuilderRef b = h->e->b;
  LLVMValueRef bytes = i64c(h, (int64_t)pto_dtype_size(t->dt));
  for (unsigned d = 0; d < t->rank; d++) bytes = LLVMBuildMul(b, bytes, t->dims[d], "");
  LLVMValueRef args[] = {bytes, LLVMBuildGlobalStringPtr(b, name, "")};
  t->buf = call_env(h, ENV_ADD_BUFFER, args, 2, false);
}

unsigned pto_llvmir_dynamic_dims(PtoType *ty) {
  unsigned n = 0;
  for (unsigned d = 0; d < pto_type_tensor_rank(ty); d++)
    n += pto_type_tensor_dim(ty, d) == PTO_DYN;
  return n;
}

static bool tensor_rank_ok(PtoType *ty) { return pto_type_tensor_rank(ty) <= MAX_RANK; }

static PtoResult emit_workspace(Host *h, PtoOp *op) {
  PtoValue *res = pto_op_result(op, 0);
  PtoType *ty = pto_value_type(res);
  if (!tensor_rank_ok(ty))
    return pto_op_emit_error(op, "has a tensor of rank %u; the host program "
                             "takes ranks 0 to %d", pto_type_tensor_rank(ty), MAX_RANK);
  Tensor *t = new_tensor(h, res);
  unsigned next = 0;
  for (unsigned d = 0; d < t->rank; d++) {
    int64_t n = pto_type_tensor_dim(ty, d);
    if (n != PTO_DYN) {
      t->dims[d] = i64c(h, n);
    } else if (next < pto_op_num_operands(op)) {
      t->dims[d] = value_of(h, pto_op_operand(op, next++));
    } else {
      return pto_op_emit_error(op, "has no size for its dynamic dim #%u", d);
    }
  }
  char name[32];
  snprintf(name, sizeof name, "workspace%u", h->num_workspaces++);
  add_buffer(h, t, name);
  return PTO_SUCCESS;
}

/* Contiguous runs of a window: dims from `k` on are covered whole (or k
 * is the last dim), so each run is sizes[k] * (the whole inner dims) long
 * and there are prod(sizes[0..k-1]) of them. A rank-0 window is its
 * tensor's one element. */
static unsigned window_split(const PtoBlockRegion *r, PtoType *ty,
                             uint64_t *runs, int64_t *run_elems) {
  *runs = 1;
  *run_elems = 1;
  if (r->rank == 0) return 0;
  unsigned k = r->rank - 1;
  while (k > 0 && r->sizes[k] == pto_type_tensor_dim(ty, k)) k--;
  *runs = 1;
  for (unsigned j = 0; j < k; j++) *runs *= (uint64_t)r->sizes[j];
  *run_elems = 1;
  for (unsigned j = k; j < r->rank; j++) *run_elems *= r->sizes[j];
  return k;
}

/* The regions a launch's windows take in the runtime's terms. */
static bool launch_regions(PtoOp *launch, uint64_t *count, uint64_t *bytes) {
  *count = *bytes = 0;
  for (int w = 0; w < 2; w++)
    for (unsigned i = 0; i < pto_block_launch_num_regions(launch, w); i++) {
      PtoBlockRegion r;
      if (!pto_block_launch_region(launch, w, i, &r) ||
          r.operand >= pto_op_num_operands(launch))
        return false;
      PtoType *ty = pto_value_type(pto_op_operand(launch, r.operand));
      PtoDType dt;
      if (!pto_type_is_tensor(ty) || pto_type_tensor_rank(ty) != r.rank ||
          !pto_dtype_from_type(pto_type_tensor_elem(ty), &dt))
        return false;
      uint64_t runs;
      int64_t run;
      window_split(&r, ty, &runs, &run);
      *count += runs;
      *bytes += runs * (uint64_t)run * pto_dtype_size(dt);
    }
  return true;
}

static void max_regions(Host *h, PtoBlock *blk) {
  for (PtoOp *op = pto_block_first_op(blk); op; op = pto_op_next(op)) {
    uint64_t n, bytes;
    if (pto_op_is(op, "block.launch") && launch_regions(op, &n, &bytes) &&
        n > h->max_regions)
      h->max_regions = n;
    for (unsigned r = 0; r < pto_op_num_regions(op); r++)
      for (PtoBlock *b = pto_region_first_block(pto_op_region(op, r)); b;
           b = pto_block_next(b))
        max_regions(h, b);
  }
}

/* Stores the runs of window r of tensor t into the region array from
 * position `at`, with `access`. */
static void emit_window(Host *h, PtoOp *launch, const PtoBlockRegion *r,
                        Tensor *t, uint64_t at, int access) {
  LLVMBuilderRef b = h->e->b;
  PtoType *ty = pto_value_type(pto_op_operand(launch, r->operand));
  uint64_t runs;
  int64_t run;
  unsigned k = window_split(r, ty, &runs, &run);
  LLVMValueRef stride[MAX_RANK];
  if (r->rank) stride[r->rank - 1] = i64c(h, 1);
  for (unsigned j = r->rank ? r->rank - 1 : 0; j > 0; j--)
    stride[j - 1] = LLVMBuildMul(b, stride[j], t->dims[j], "");
  LLVMValueRef base = i64c(h, 0);
  for (unsigned j = 0; j < r->rank; j++) {
    LLVMValueRef off = i64c(h, r->offsets[j]);
    if (r->offset_operand[j] >= 0)
      off = LLVMBuildAdd(b, off, value_of(h, pto_op_operand(launch, (unsigned)r->offset_operand[j])), "");
    base = LLVMBuildAdd(b, base, LLVMBuildMul(b, off, stride[j], ""), "");
  }
  LLVMValueRef es = i64c(h, (int64_t)pto_dtype_size(t->dt));
  PtoEmitLoop l;
  pto_emit_loop_begin(h->e, &l, i64c(h, 0), i64c(h, (int64_t)runs), 1, 0, NULL);
  /* the run's position in the outer dims, last dim fastest */
  LLVMValueRef q = l.iv, elems = base;
  for (unsigned j = k; j-- > 0;) {
    LLVMValueRef n = i64c(h, r->sizes[j]);
    elems = LLVMBuildAdd(b, elems, LLVMBuildMul(b, LLVMBuildSRem(b, q, n, ""), stride[j], ""), "");
    q = LLVMBuildSDiv(b, q, n, "");
  }
  LLVMValueRef idx[] = {i64c(h, 0), LLVMBuildAdd(b, l.iv, i64c(h, (int64_t)at), "")};
  LLVMTypeRef arr = LLVMArrayType(h->region_t, (unsigned)h->max_regions);
  LLVMValueRef p = LLVMBuildGEP2(b, arr, h->regions, idx, 2, "");
  store_field(h, h->region_t, p, 0, t->buf);
  store_field(h, h->region_t, p, 1, LLVMBuildMul(b, elems, es, ""));
  store_field(h, h->region_t, p, 2, i64c(h, run * (int64_t)pto_dtype_size(t->dt)));
  store_field(h, h->region_t, p, 3, i32c(h, access));
  pto_emit_loop_end(h->e, &l);
}

/* A launch operand as the int64 the task entry unpacks. */
static LLVMValueRef pack(Host *h, PtoValue *v) {
  LLVMBuilderRef b = h->e->b;
  Tensor *t = tensor_of(h, v);
  if (t) return LLVMBuildSExt(b, t->buf, h->i64, "");
  LLVMValueRef x = value_of(h, v);
  LLVMTypeRef ty = LLVMTypeOf(x);
  if (LLVMGetTypeKind(ty) != LLVMIntegerTypeKind) { /* a float's bits */
    LLVMTypeKind k = LLVMGetTypeKind(ty);
    unsigned bits = k == LLVMDoubleTypeKind ? 64 : k == LLVMFloatTypeKind ? 32 : 16;
    x = LLVMBuildBitCast(b, x, LLVMIntTypeInContext(h->e->ctx, bits), "");
    return bits == 64 ? x : LLVMBuildZExt(b, x, h->i64, "");
  }
  unsigned w = LLVMGetIntTypeWidth(ty);
  return w == 64 ? x : w == 1 ? LLVMBuildZExt(b, x, h->i64, "") : LLVMBuildSExt(b, x, h->i64, "");
}

/* Cube FLOPs of one run of a kernel: 2*M*K*N per matmul. */
static uint64_t kernel_flops(PtoOp *k) {
  uint64_t f = 0;
  PtoBlock *body = pto_region_first_block(pto_op_region(k, 0));
  for (PtoOp *op = pto_block_first_op(body); op; op = pto_op_next(op)) {
    PtoPtoOp id = pto_pto_op_id(op);
    /* a kernel also holds arith constants, which are no pto op */
    if (id == PTO_PTO_NONE || pto_pto_op_kind(id) != PTO_PTO_KIND_MATMUL) continue;
    unsigned a = id == PTO_PTO_TMATMUL_ACC ? 1 : 0;
    PtoType *at = pto_value_type(pto_op_operand(op, a));
    PtoType *bt = pto_value_type(pto_op_operand(op, a + 1));
    f += 2 * (uint64_t)pto_pto_tile_rows(at) * (uint64_t)pto_pto_tile_cols(at) *
         (uint64_t)pto_pto_tile_cols(bt);
  }
  return f;
}

static PtoResult emit_launch(Host *h, PtoOp *op) {
  LLVMBuilderRef b = h->e->b;
  PtoOp *k = pto_block_launch_kernel(op);
  uintptr_t pos = k ? (uintptr_t)pto_ptrmap_get(&h->kernels, (uint64_t)(uintptr_t)k) : 0;
  if (!pos)
    return pto_op_emit_error(op, "launches no pto.kernel of this module; lower "
                             "the module to PTO (--pto-lower-to-pto) first");
  unsigned n = pto_op_num_operands(op);
  if (n != pto_block_num_args(pto_region_first_block(pto_op_region(k, 0))))
    return pto_op_emit_error(op, "passes %u operands to a kernel of %u "
                             "arguments", n,
                             pto_block_num_args(pto_region_first_block(pto_op_region(k, 0))));
  uint64_t nregions, bytes;
  if (!launch_regions(op, &nregions, &bytes))
    return pto_op_emit_error(op, "has a malformed 'reads' or 'writes' region");
  for (unsigned i = 0; i < n; i++) {
    PtoValue *v = pto_op_operand(op, i);
    if (!tensor_of(h, v) && !value_of(h, v))
      return pto_op_emit_error(op, "operand #%u is not a tensor, index or "
                               "scalar the host program defines", i);
  }
  /* the operands, then the dims the kernel's tensor arguments leave
   * dynamic, operand after operand */
  PtoBlock *kbody = pto_region_first_block(pto_op_region(k, 0));
  unsigned extra = 0;
  for (unsigned i = 0; i < n; i++) {
    PtoType *kt = pto_value_type(pto_block_arg(kbody, i));
    if (pto_type_is_tensor(kt)) extra += pto_llvmir_dynamic_dims(kt);
  }
  /* and after them, for a kernel that can fail, its fault record */
  unsigned nslots = n + extra + (pto_llvmir_kernel_can_fault(k) ? PTO_LLVMIR_FAULT_SLOTS : 0);
  LLVMValueRef packed = call_env(
      h, ENV_ALLOC, (LLVMValueRef[]){i32c(h, nslots ? nslots : 1)}, 1, true);
  unsigned slot = n;
  for (unsigned i = 0; i < n; i++) {
    LLVMBuildStore(b, pack(h, pto_op_operand(op, i)),
                   elem_ptr(h, h->i64, packed, i64c(h, i)));
    PtoType *kt = pto_value_type(pto_block_arg(kbody, i));
    Tensor *t = tensor_of(h, pto_op_operand(op, i));
    if (!pto_type_is_tensor(kt) || !pto_llvmir_dynamic_dims(kt)) continue;
    if (!t || t->rank != pto_type_tensor_rank(kt))
      return pto_op_emit_error(op, "passes operand #%u to a kernel argument "
                               "of another rank", i);
    for (unsigned d = 0; d < t->rank; d++)
      if (pto_type_tensor_dim(kt, d) == PTO_DYN)
        LLVMBuildStore(b, t->dims[d], elem_ptr(h, h->i64, packed, i64c(h, slot++)));
  }
  uint64_t at = 0;
  for (int w = 0; w < 2; w++)
    for (unsigned i = 0; i < pto_block_launch_num_regions(op, w); i++) {
      PtoBlockRegion r;
      pto_block_launch_region(op, w, i, &r);
      Tensor *t = tensor_of(h, pto_op_operand(op, r.operand));
      if (!t) return pto_op_emit_error(op, "region on operand #%u, which is not a tensor", r.operand);
      emit_window(h, op, &r, t, at, w ? RT_WRITE : RT_READ);
      uint64_t runs;
      int64_t run;
      window_split(&r, pto_value_type(pto_op_operand(op, r.operand)), &runs, &run);
      at += runs;
    }
  LLVMValueRef kidx = i64c(h, (int64_t)pos - 1);
  LLVMValueRef d = h->desc;
  LLVMValueRef ids = load_field(h, h->env_t, h->env, ENV_KERNEL_IDS);
  store_field(h, h->desc_t, d, DESC_KERNEL, LLVMBuildLoad2(b, h->i32, elem_ptr(h, h->i32, ids, kidx), ""));
  LLVMValueRef zero[] = {i64c(h, 0), i64c(h, 0)};
  LLVMTypeRef arr = LLVMArrayType(h->region_t, (unsigned)(h->max_regions ? h->max_regions : 1));
  store_field(h, h->desc_t, d, DESC_REGIONS, LLVMBuildGEP2(b, arr, h->regions, zero, 2, ""));
  store_field(h, h->desc_t, d, DESC_NUM_REGIONS, i32c(h, (int64_t)nregions));
  store_field(h, h->desc_t, d, DESC_PREDS, LLVMConstNull(LLVMStructGetTypeAtIndex(h->desc_t, DESC_PREDS)));
  store_field(h, h->desc_t, d, DESC_NUM_PREDS, i32c(h, 0));
  const char *label = pto_op_attr_str(op, "label");
  store_field(h, h->desc_t, d, DESC_LABEL,
              LLVMBuildGlobalStringPtr(b, label ? label : pto_ident_str(pto_op_symbol_name(k)), ""));
  store_field(h, h->desc_t, d, DESC_PARAMS, LLVMConstNull(LLVMArrayType(h->i64, RT_MAX_PARAMS)));
  store_field(h, h->desc_t, d, DESC_USER, LLVMBuildBitCast(b, packed, h->i8p, ""));
  LLVMValueRef cycles = load_field(h, h->env_t, h->env, ENV_KERNEL_CYCLES);
  store_field(h, h->desc_t, d, DESC_CYCLES, LLVMBuildLoad2(b, h->i64, elem_ptr(h, h->i64, cycles, kidx), ""));
  store_field(h, h->desc_t, d, DESC_GM_BYTES, i64c(h, (int64_t)bytes));
  store_field(h, h->desc_t, d, DESC_FLOPS, i64c(h, (int64_t)kernel_flops(k)));
  call_env(h, ENV_SUBMIT, (LLVMValueRef[]){LLVMBuildBitCast(b, d, h->i8p, "")}, 1, false);
  return PTO_SUCCESS;
}

/* Scalar arithmetic of the host program. A division by a value the
 * program computes is checked first: by zero (or INT_MIN by -1) it ends
 * the build with -2 instead of trapping in the caller's process. */
static PtoResult emit_arith(Host *h, PtoOp *op) {
  LLVMBuilderRef b = h->e->b;
  LLVMValueRef in[3] = {NULL, NULL, NULL};
  unsigned n = pto_op_num_operands(op);
  for (unsigned i = 0; i < n && i < 3; i++) in[i] = value_of(h, pto_op_operand(op, i));
  static const char *const divs[] = {"arith.divsi", "arith.divui", "arith.remsi", "arith.remui",
                                     "arith.floordivsi", "arith.ceildivsi"};
  bool div = false;
  for (size_t i = 0; i < PTO_ARRAY_SIZE(divs); i++) div |= pto_op_is(op, divs[i]);
  if (div && n == 2 && in[0] && in[1] && !LLVMIsAConstantInt(in[1])) {
    LLVMTypeRef ty = LLVMTypeOf(in[1]);
    LLVMValueRef bad = LLVMBuildICmp(b, LLVMIntEQ, in[1], LLVMConstNull(ty), "");
    if (!pto_op_is(op, "arith.divui") && !pto_op_is(op, "arith.remui")) {
      unsigned w = LLVMGetIntTypeWidth(ty);
      LLVMValueRef min = LLVMConstShl(LLVMConstInt(ty, 1, 0), LLVMConstInt(ty, w - 1, 0));
      LLVMValueRef ovf = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntEQ, in[0], min, ""),
                                      LLVMBuildICmp(b, LLVMIntEQ, in[1], LLVMConstAllOnes(ty), ""), "");
      bad = LLVMBuildOr(b, bad, ovf, "");
    }
    LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(h->e->ctx, h->e->fn, "div.ok");
    LLVMBuildCondBr(b, bad, h->div_fail, ok);
    LLVMPositionBuilderAtEnd(b, ok);
  }
  LLVMValueRef r = n <= 3 ? pto_llvmir_emit_scalar(h->e->ctx, b, op, in) : NULL;
  bool bf16 = false;
  for (unsigned i = 0; i < n; i++) {
    PtoType *ty = pto_value_type(pto_op_operand(op, i));
    bf16 |= pto_type_is_float(ty) && pto_type_float_kind(ty) == PTO_BF16;
  }
  if (!r && bf16 && !strncmp(pto_op_name_str(op), "arith.", 6))
    return pto_op_emit_error(op, "computes on bf16 scalars, which a host program holds as "
                             "their 16 bits only; compute in f32 and pass bf16 values through");
  if (!r)
    return pto_op_emit_error(op, "cannot be translated in a host program: it "
                             "takes block.workspace, block.launch, scf.for, "
                             "scf.if, tile.dim, tile.load_scalar, tensor reshapes and "
                             "bitcasts, and scalar arithmetic");
  bind(h, pto_op_result(op, 0), r);
  return PTO_SUCCESS;
}

static PtoResult emit_block(Host *h, PtoBlock *blk);

/* A value carried from one iteration to the next, as phis of the loop's
 * head: a tensor's buffer index and dims (a tensor the loop updates is a
 * buffer, the same one in place or another per iteration), or a scalar. */
typedef struct Carried {
  Tensor *t;        /* the block argument's, for a tensor */
  LLVMValueRef phi; /* for a scalar */
} Carried;

static PtoResult carry_begin(Host *h, PtoOp *op, PtoValue *arg, PtoValue *init, Carried *c) {
  LLVMBuilderRef b = h->e->b;
  Tensor *t0 = tensor_of(h, init);
  if (t0) {
    PtoType *ty = pto_value_type(arg);
    if (!pto_type_is_tensor(ty) || pto_type_tensor_rank(ty) != t0->rank)
      return pto_op_emit_error(op, "carries a tensor into an argument of another rank");
    c->t = new_tensor(h, arg);
    c->t->buf = LLVMBuildPhi(b, h->i32, "buf");
    for (unsigned d = 0; d < t0->rank; d++) c->t->dims[d] = LLVMBuildPhi(b, h->i64, "dim");
    return PTO_SUCCESS;
  }
  LLVMValueRef v = value_of(h, init);
  if (!v) return pto_op_emit_error(op, "carries a value the host program does not define");
  c->phi = LLVMBuildPhi(b, LLVMTypeOf(v), "carried");
  bind(h, arg, c->phi);
  return PTO_SUCCESS;
}

/* Adds the value from `from` to the phis of c. */
static PtoResult carry_incoming(Host *h, PtoOp *op, Carried *c, PtoValue *v,
                                LLVMBasicBlockRef from) {
  if (c->t) {
    Tensor *t = tensor_of(h, v);
    if (!t || t->rank != c->t->rank)
      return pto_op_emit_error(op, "yields a value that is not a tensor of the carried rank");
    LLVMAddIncoming(c->t->buf, &t->buf, &from, 1);
    for (unsigned d = 0; d < t->rank; d++) LLVMAddIncoming(c->t->dims[d], &t->dims[d], &from, 1);
    return PTO_SUCCESS;
  }
  LLVMValueRef x = value_of(h, v);
  if (!x || LLVMTypeOf(x) != LLVMTypeOf(c->phi))
    return pto_op_emit_error(op, "yields a value the host program does not define");
  LLVMAddIncoming(c->phi, &x, &from, 1);
  return PTO_SUCCESS;
}

/* scf.for: a counted loop with the step the program computes; its
 * iter_args are phis of the loop's head, which its results read too
 * (the exit is reached from the head only). */
static PtoResult emit_for(Host *h, PtoOp *op) {
  unsigned ncarried = pto_op_num_results(op);
  if (pto_op_num_operands(op) != 3 + ncarried)
    return pto_op_emit_error(op, "has %u operands for %u results; expected the bounds, "
                             "the step and one initial value per result",
                             pto_op_num_operands(op), ncarried);
  LLVMBuilderRef b = h->e->b;
  LLVMContextRef c = h->e->ctx;
  LLVMValueRef lo = value_of(h, pto_op_operand(op, 0)),
               hi = value_of(h, pto_op_operand(op, 1)),
               step = value_of(h, pto_op_operand(op, 2));
  if (!lo || !hi || !step) return pto_op_emit_error(op, "has bounds the host program does not define");
  PtoBlock *blk = pto_region_first_block(pto_op_region(op, 0));
  PtoOp *yield = blk ? pto_block_last_op(blk) : NULL;
  if (!blk || pto_block_num_args(blk) != 1 + ncarried || !yield ||
      !pto_op_is(yield, "scf.yield") || pto_op_num_operands(yield) != ncarried)
    return pto_op_emit_error(op, "has a body without one argument and one yielded "
                             "value per carried value");
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(c, h->e->fn, "for.head");
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(c, h->e->fn, "for.body");
  LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(c, h->e->fn, "for.exit");
  LLVMBuildBr(b, head);
  LLVMPositionBuilderAtEnd(b, head);
  LLVMValueRef iv = LLVMBuildPhi(b, LLVMTypeOf(lo), "iv");
  Carried *cs = pto_calloc(ncarried ? ncarried : 1, sizeof *cs);
  PtoResult r = PTO_SUCCESS;
  for (unsigned i = 0; i < ncarried && pto_succeeded(r); i++) {
    r = carry_begin(h, op, pto_block_arg(blk, 1 + i), pto_op_operand(op, 3 + i), &cs[i]);
    if (pto_succeeded(r)) r = carry_incoming(h, op, &cs[i], pto_op_operand(op, 3 + i), pre);
  }
  if (pto_succeeded(r)) {
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, iv, hi, ""), body, exit);
    LLVMPositionBuilderAtEnd(b, body);
    bind(h, pto_block_arg(blk, 0), iv);
    r = emit_block(h, blk);
  }
  if (pto_succeeded(r)) {
    LLVMValueRef next = LLVMBuildAdd(b, iv, step, "");
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(b);
    for (unsigned i = 0; i < ncarried && pto_succeeded(r); i++)
      r = carry_incoming(h, yield, &cs[i], pto_op_operand(yield, i), latch);
    LLVMBuildBr(b, head);
    /* the code after the loop reads best after the loop's */
    LLVMMoveBasicBlockAfter(exit, LLVMGetLastBasicBlock(h->e->fn));
    LLVMValueRef in[] = {lo, next};
    LLVMBasicBlockRef from[] = {pre, latch};
    LLVMAddIncoming(iv, in, from, 2);
    LLVMPositionBuilderAtEnd(b, exit);
  }
  for (unsigned i = 0; i < ncarried && pto_succeeded(r); i++) {
    PtoValue *res = pto_op_result(op, i);
    if (cs[i].t) {
      Tensor *t = new_tensor(h, res);
      *t = *cs[i].t;
    } else {
      bind(h, res, cs[i].phi);
    }
  }
  pto_free(cs);
  return r;
}

/* The values yielded at the end of branch `r` of scf.if `op`, emitted at
 * the builder's place; *end is the block the branch ends in. */
static PtoResult emit_branch(Host *h, PtoOp *op, unsigned r, LLVMBasicBlockRef join,
                             PtoOp **yield, LLVMBasicBlockRef *end) {
  PtoBlock *blk = r < pto_op_num_regions(op) ? pto_region_first_block(pto_op_region(op, r)) : NULL;
  *yield = blk ? pto_block_last_op(blk) : NULL;
  if (blk && (!*yield || !pto_op_is(*yield, "scf.yield") ||
              pto_op_num_operands(*yield) != pto_op_num_results(op)))
    return pto_op_emit_error(op, "has a branch that does not end in a yield of one value "
                             "per result");
  if (!blk && pto_op_num_results(op))
    return pto_op_emit_error(op, "has results but no else branch");
  PtoResult r2 = blk ? emit_block(h, blk) : PTO_SUCCESS;
  *end = LLVMGetInsertBlock(h->e->b);
  if (pto_succeeded(r2)) LLVMBuildBr(h->e->b, join);
  return r2;
}

/* scf.if on a host-side i1 (index arithmetic, scalars read from tensors):
 * the launches of a branch are submitted only when it is taken. Its
 * results are phis of the join: a tensor's buffer index and dims (the
 * same buffer when the branches update it in place), or a scalar. */
static PtoResult emit_if(Host *h, PtoOp *op) {
  LLVMBuilderRef b = h->e->b;
  LLVMContextRef c = h->e->ctx;
  LLVMValueRef cond = value_of(h, pto_op_operand(op, 0));
  if (!cond || LLVMTypeOf(cond) != LLVMInt1TypeInContext(c))
    return pto_op_emit_error(op, "has a condition the host program does not define");
  LLVMBasicBlockRef then = LLVMAppendBasicBlockInContext(c, h->e->fn, "if.then");
  LLVMBasicBlockRef other = LLVMAppendBasicBlockInContext(c, h->e->fn, "if.else");
  LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(c, h->e->fn, "if.end");
  LLVMBuildCondBr(b, cond, then, other);
  PtoOp *y[2];
  LLVMBasicBlockRef from[2];
  LLVMPositionBuilderAtEnd(b, then);
  PtoResult r = emit_branch(h, op, 0, join, &y[0], &from[0]);
  if (pto_succeeded(r)) {
    LLVMPositionBuilderAtEnd(b, other);
    r = emit_branch(h, op, 1, join, &y[1], &from[1]);
  }
  if (pto_failed(r)) return r;
  LLVMMoveBasicBlockAfter(join, LLVMGetLastBasicBlock(h->e->fn));
  LLVMPositionBuilderAtEnd(b, join);
  for (unsigned i = 0; i < pto_op_num_results(op); i++) {
    PtoValue *v0 = pto_op_operand(y[0], i), *v1 = pto_op_operand(y[1], i);
    Tensor *t0 = tensor_of(h, v0), *t1 = tensor_of(h, v1);
    if (t0 || t1) {
      if (!t0 || !t1 || t0->rank != t1->rank)
        return pto_op_emit_error(op, "yields tensors of different ranks or not a tensor "
                                 "the host program defines from its branches (result #%u)", i);
      Tensor *t = new_tensor(h, pto_op_result(op, i));
      t->buf = LLVMBuildPhi(b, h->i32, "buf");
      LLVMValueRef bufs[] = {t0->buf, t1->buf};
      LLVMAddIncoming(t->buf, bufs, from, 2);
      for (unsigned d = 0; d < t->rank; d++) {
        t->dims[d] = LLVMBuildPhi(b, h->i64, "dim");
        LLVMValueRef dims[] = {t0->dims[d], t1->dims[d]};
        LLVMAddIncoming(t->dims[d], dims, from, 2);
      }
      continue;
    }
    LLVMValueRef x[] = {value_of(h, v0), value_of(h, v1)};
    if (!x[0] || !x[1] || LLVMTypeOf(x[0]) != LLVMTypeOf(x[1]))
      return pto_op_emit_error(op, "yields a value the host program does not define "
                               "(result #%u)", i);
    LLVMValueRef phi = LLVMBuildPhi(b, LLVMTypeOf(x[0]), "if.result");
    LLVMAddIncoming(phi, x, from, 2);
    bind(h, pto_op_result(op, i), phi);
  }
  return PTO_SUCCESS;
}

/* tile.tensor_reshape and tile.tensor_bitcast of a GM tensor: the same
 * buffer (a tensor here is always contiguous) under the result's dims. A
 * dynamic dim of the result is the source's (a bitcast keeps every dim
 * but the last) or, for one dim, what the bytes leave for it. */
static PtoResult emit_view(Host *h, PtoOp *op) {
  LLVMBuilderRef b = h->e->b;
  Tensor *src = tensor_of(h, pto_op_operand(op, 0));
  PtoType *ty = pto_value_type(pto_op_result(op, 0));
  if (!src) return pto_op_emit_error(op, "views no tensor of the host program");
  if (!pto_type_is_tensor(ty) || !tensor_rank_ok(ty))
    return pto_op_emit_error(op, "has a result of rank %u; the host program takes ranks "
                             "0 to %d", pto_type_tensor_rank(ty), MAX_RANK);
  Tensor v = {src->buf, {0}, pto_type_tensor_rank(ty), PTO_DT_BOOL};
  if (!pto_dtype_from_type(pto_type_tensor_elem(ty), &v.dt)) v.dt = PTO_DT_BOOL;
  bool bitcast = pto_op_is(op, "tile.tensor_bitcast");
  LLVMValueRef bytes = i64c(h, (int64_t)pto_dtype_size(src->dt));
  for (unsigned d = 0; d < src->rank; d++) bytes = LLVMBuildMul(b, bytes, src->dims[d], "");
  LLVMValueRef known = i64c(h, (int64_t)pto_dtype_size(v.dt));
  int unknown = -1;
  for (unsigned d = 0; d < v.rank; d++) {
    int64_t n = pto_type_tensor_dim(ty, d);
    if (n != PTO_DYN) v.dims[d] = i64c(h, n);
    else if (bitcast && v.rank == src->rank && d + 1 < v.rank) v.dims[d] = src->dims[d];
    else if (unknown < 0) {
      unknown = (int)d;
      continue;
    } else
      return pto_op_emit_error(op, "has more than one dynamic dim the host program cannot "
                               "derive from its operand's");
    known = LLVMBuildMul(b, known, v.dims[d], "");
  }
  if (unknown >= 0) v.dims[unknown] = LLVMBuildUDiv(b, bytes, known, "");
  *new_tensor(h, pto_op_result(op, 0)) = v;
  return PTO_SUCCESS;
}

static PtoResult emit_return(Host *h, PtoOp *op) {
  LLVMValueRef results = load_field(h, h->env_t, h->env, ENV_RESULTS);
  LLVMValueRef dims = load_field(h, h->env_t, h->env, ENV_RESULT_DIMS);
  for (unsigned i = 0; i < pto_op_num_operands(op); i++) {
    PtoValue *v = pto_op_operand(op, i);
    Tensor *t = tensor_of(h, v);
    LLVMValueRef slot = elem_ptr(h, h->i32, results, i64c(h, i));
    if (!t) { /* a scalar: its bits where a tensor's first dim goes */
      if (!value_of(h, v))
        return pto_op_emit_error(op, "returns operand #%u, which the host program does "
                                 "not define", i);
      LLVMBuildStore(h->e->b, i32c(h, -1), slot);
      LLVMBuildStore(h->e->b, pack(h, v),
                     elem_ptr(h, h->i64, dims, i64c(h, (int64_t)i * MAX_RANK)));
      continue;
    }
    LLVMBuildStore(h->e->b, t->buf, slot);
    /* every dim, so that the caller knows the shape of any result */
    for (unsigned d = 0; d < t->rank; d++)
      LLVMBuildStore(h->e->b, t->dims[d],
                     elem_ptr(h, h->i64, dims, i64c(h, (int64_t)i * MAX_RANK + d)));
  }
  LLVMBuildRet(h->e->b, i32c(h, 0));
  return PTO_SUCCESS;
}

/* tile.load_scalar: the element is read at run time of the host program
 * through PtoHostEnv.read_scalar, which checks the indices and waits for
 * the tasks that write the tensor before it reads. */
static PtoResult emit_load_scalar(Host *h, PtoOp *op) {
  LLVMBuilderRef b = h->e->b;
  Tensor *t = pto_op_num_operands(op) ? tensor_of(h, pto_op_operand(op, 0)) : NULL;
  int64_t idx[MAX_RANK];
  unsigned n = 0;
  if (!t || !pto_attr_get_i64_array(pto_op_attr(op, PTO_ATTR_STATIC_OFFSETS), idx, MAX_RANK, &n) ||
      n != t->rank)
    return pto_op_emit_error(op, "reads no tensor of the host program at one index per dim");
  if (pto_dtype_is_float(t->dt))
    return pto_op_emit_error(op, "reads a float tensor; load_scalar reads integers");
  LLVMValueRef req = h->scalar_req;
  unsigned next = 1;
  LLVMValueRef head[] = {LLVMBuildSExt(b, t->buf, h->i64, ""), i64c(h, (int64_t)t->dt),
                         i64c(h, (int64_t)pto_llvmir_load_scalar_site(h->func, op)),
                         i64c(h, (int64_t)n)};
  for (unsigned i = 0; i < 4; i++) LLVMBuildStore(b, head[i], elem_ptr(h, h->i64, req, i64c(h, i)));
  for (unsigned d = 0; d < n; d++) {
    LLVMValueRef v;
    if (idx[d] != PTO_DYN) v = i64c(h, idx[d]);
    else if (next < pto_op_num_operands(op) && (v = value_of(h, pto_op_operand(op, next++))))
      v = LLVMGetIntTypeWidth(LLVMTypeOf(v)) == 64 ? v : LLVMBuildSExt(b, v, h->i64, "");
    else return pto_op_emit_error(op, "has an index the host program does not define");
    LLVMBuildStore(b, v, elem_ptr(h, h->i64, req, i64c(h, 4 + d)));
    LLVMBuildStore(b, t->dims[d], elem_ptr(h, h->i64, req, i64c(h, 4 + n + d)));
  }
  call_env(h, ENV_READ_SCALAR, &req, 1, false);
  LLVMValueRef v = LLVMBuildLoad2(b, h->i64, elem_ptr(h, h->i64, req, i64c(h, 4 + 2 * n)), "");
  PtoType *rty = pto_value_type(pto_op_result(op, 0));
  unsigned w = pto_type_is_integer(rty) ? pto_type_bitwidth(rty) : 64;
  if (w && w < 64) v = LLVMBuildTrunc(b, v, LLVMIntTypeInContext(h->e->ctx, w), "");
  bind(h, pto_op_result(op, 0), v);
  return PTO_SUCCESS;
}

/* The sites of a kind of op (tile.load_scalar, host ops) in a host
 * function: their positions in walk order. */
typedef struct SiteFind {
  bool (*is)(PtoOp *op);
  PtoOp *op;
  unsigned n;
  bool found;
} SiteFind;

static bool is_load_scalar(PtoOp *op) { return pto_op_is(op, "tile.load_scalar"); }

static PtoWalkResult count_sites(PtoOp *op, void *user) {
  SiteFind *f = user;
  if (!f->is(op)) return PTO_WALK_ADVANCE;
  if (op == f->op) {
    f->found = true;
    return PTO_WALK_INTERRUPT;
  }
  f->n++;
  return PTO_WALK_ADVANCE;
}

static PtoWalkResult find_site(PtoOp *op, void *user) {
  SiteFind *f = user;
  if (!f->is(op)) return PTO_WALK_ADVANCE;
  if (f->n-- == 0) {
    f->op = op;
    return PTO_WALK_INTERRUPT;
  }
  return PTO_WALK_ADVANCE;
}

static unsigned site_of(PtoOp *func, PtoOp *op, bool (*is)(PtoOp *)) {
  SiteFind f = {is, op, 0, false};
  pto_op_walk(func, PTO_WALK_PRE, count_sites, &f);
  return f.n;
}

static PtoOp *op_of_site(PtoOp *func, unsigned site, bool (*is)(PtoOp *)) {
  SiteFind f = {is, NULL, site, false};
  pto_op_walk(func, PTO_WALK_PRE, find_site, &f);
  return f.op;
}

unsigned pto_llvmir_load_scalar_site(PtoOp *func, PtoOp *op) {
  return site_of(func, op, is_load_scalar);
}
PtoOp *pto_llvmir_load_scalar_op(PtoOp *func, unsigned site) {
  return op_of_site(func, site, is_load_scalar);
}

/* The compiler's own dialects: their ops in a host function are either
 * translated here or an error, never a host op. */
static const char *const own_dialects[] = {"arith.", "scf.",  "func.", "builtin.",
                                           "tile.",  "block.", "pto.", "pypto."};

bool pto_llvmir_is_host_op(PtoOp *op) {
  const char *name = pto_op_name_str(op);
  for (size_t i = 0; i < PTO_ARRAY_SIZE(own_dialects); i++)
    if (!strncmp(name, own_dialects[i], strlen(own_dialects[i]))) return false;
  if (pto_op_num_regions(op) || pto_op_num_results(op) != 1 ||
      pto_op_num_operands(op) == 0)
    return false;
  for (unsigned i = 0; i < pto_op_num_operands(op); i++)
    if (!pto_type_is_tensor(pto_value_type(pto_op_operand(op, i)))) return false;
  PtoType *rt = pto_value_type(pto_op_result(op, 0));
  return pto_type_is_tensor(rt);
}

unsigned pto_llvmir_host_op_site(PtoOp *func, PtoOp *op) {
  return site_of(func, op, pto_llvmir_is_host_op);
}
PtoOp *pto_llvmir_host_op_op(PtoOp *func, unsigned site) {
  return op_of_site(func, site, pto_llvmir_is_host_op);
}

/* Request slots of a host op with n operands (PtoHostEnv.host_op). */
static unsigned host_req_slots(unsigned n) { return 2 + n * (2 + PTO_LLVMIR_HOST_OP_DIMS); }

static void max_host_req(Host *h, PtoBlock *blk) {
  for (PtoOp *op = pto_block_first_op(blk); op; op = pto_op_next(op)) {
    if (pto_llvmir_is_host_op(op) && host_req_slots(pto_op_num_operands(op)) > h->host_req_slots)
      h->host_req_slots = host_req_slots(pto_op_num_operands(op));
    for (unsigned r = 0; r < pto_op_num_regions(op); r++)
      for (PtoBlock *b = pto_region_first_block(pto_op_region(op, r)); b;
           b = pto_block_next(b))
        max_host_req(h, b);
  }
}

/* A host op: its operands' buffers and dims go to PtoHostEnv.host_op,
 * which submits its task and gives back the buffer of its result. */
static PtoResult emit_host_op(Host *h, PtoOp *op) {
  LLVMBuilderRef b = h->e->b;
  PtoType *rty = pto_value_type(pto_op_result(op, 0));
  if (!tensor_rank_ok(rty) || pto_llvmir_dynamic_dims(rty))
    return pto_op_emit_error(op, "has a result of dynamic shape or of rank above %d; a host "
                             "op's result needs a static shape", MAX_RANK);
  unsigned n = pto_op_num_operands(op);
  LLVMValueRef req = h->host_req;
  LLVMBuildStore(b, i64c(h, (int64_t)pto_llvmir_host_op_site(h->func, op)),
                 elem_ptr(h, h->i64, req, i64c(h, 0)));
  LLVMBuildStore(b, i64c(h, n), elem_ptr(h, h->i64, req, i64c(h, 1)));
  for (unsigned i = 0; i < n; i++) {
    Tensor *t = tensor_of(h, pto_op_operand(op, i));
    if (!t) return pto_op_emit_error(op, "operand #%u is not a tensor the host program defines", i);
    int64_t at = 2 + (int64_t)i * (2 + PTO_LLVMIR_HOST_OP_DIMS);
    LLVMBuildStore(b, LLVMBuildSExt(b, t->buf, h->i64, ""), elem_ptr(h, h->i64, req, i64c(h, at)));
    LLVMBuildStore(b, i64c(h, t->rank), elem_ptr(h, h->i64, req, i64c(h, at + 1)));
    for (unsigned d = 0; d < t->rank; d++)
      LLVMBuildStore(b, t->dims[d], elem_ptr(h, h->i64, req, i64c(h, at + 2 + d)));
  }
  LLVMValueRef buf = call_env(h, ENV_HOST_OP, &req, 1, false);
  Tensor *t = new_tensor(h, pto_op_result(op, 0));
  for (unsigned d = 0; d < t->rank; d++) t->dims[d] = i64c(h, pto_type_tensor_dim(rty, d));
  t->buf = LLVMBuildTrunc(b, buf, h->i32, "");
  return PTO_SUCCESS;
}

static PtoResult emit_block(Host *h, PtoBlock *blk) {
  for (PtoOp *op = pto_block_first_op(blk); op; op = pto_op_next(op)) {
    PtoResult r;
    if (pto_op_is(op, "block.launch")) r = emit_launch(h, op);
    else if (pto_op_is(op, "block.workspace")) r = emit_workspace(h, op);
    else if (pto_op_is(op, "scf.for")) r = emit_for(h, op);
    else if (pto_op_is(op, "scf.if")) r = emit_if(h, op);
    else if (pto_op_is(op, "tile.tensor_reshape") || pto_op_is(op, "tile.tensor_bitcast"))
      r = emit_view(h, op);
    else if (pto_op_is(op, "tile.load_scalar")) r = emit_load_scalar(h, op);
    else if (pto_llvmir_is_host_op(op)) r = emit_host_op(h, op);
    else if (pto_op_is(op, "scf.yield")) r = PTO_SUCCESS;
    else if (pto_op_is(op, "func.return")) r = emit_return(h, op);
    else if (pto_op_is(op, "tile.dim")) {
      Tensor *t = tensor_of(h, pto_op_operand(op, 0));
      int64_t d = pto_op_attr_int(op, "dim", -1);
      if (!t || d < 0 || (unsigned)d >= t->rank)
        return pto_op_emit_error(op, "asks for a dim of no tensor of the host program");
      bind(h, pto_op_result(op, 0), t->dims[d]);
      r = PTO_SUCCESS;
    } else r = emit_arith(h, op);
    if (pto_failed(r)) return r;
  }
  return PTO_SUCCESS;
}

/* The task entry of kernel k: the kernel over a buffer image as large as
 * its planned tiles reach in each memory space, on this worker's stack
 * (memory-plan has checked that this fits the core's buffers). */
static void emit_task_entry(Host *h, PtoOp *k) {
  LLVMBuilderRef b = h->e->b;
  LLVMContextRef c = h->e->ctx;
  const char *name = pto_ident_str(pto_op_symbol_name(k));
  LLVMValueRef kfn = LLVMGetNamedFunction(h->e->mod, name);
  LLVMTypeRef kty = LLVMGlobalGetValueType(kfn);
  char *ename = pto_malloc(strlen(name) + 8);
  sprintf(ename, "%s__task", name);
  LLVMTypeRef argsp = LLVMPointerType(h->args_t, 0);
  LLVMValueRef fn = LLVMAddFunction(h->e->mod, ename, LLVMFunctionType(h->i32, &argsp, 1, 0));
  pto_free(ename);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, fn, "entry"));
  LLVMValueRef a = LLVMGetParam(fn, 0);
  int64_t reach[PTO_BUF_NUM_SPACES] = {0};
  PtoBlock *body = pto_region_first_block(pto_op_region(k, 0));
  for (PtoOp *op = pto_block_first_op(body); op; op = pto_op_next(op))
    for (unsigned i = 0; i < pto_op_num_results(op); i++) {
      PtoType *ty = pto_value_type(pto_op_result(op, i));
      if (!pto_type_is_pto_tile(ty) || pto_pto_tile_offset(ty) < 0) continue;
      int64_t end = pto_pto_tile_offset(ty) + pto_pto_tile_bytes(ty);
      PtoBufSpace s = pto_pto_tile_space(ty);
      if (s >= 0 && s < PTO_BUF_NUM_SPACES && end > reach[s]) reach[s] = end;
    }
  bool cube = pto_block_kernel_core(k) == PTO_BLOCK_CORE_CUBE;
  static const PtoBufSpace vector_spaces[] = {PTO_BUF_VEC};
  static const PtoBufSpace cube_spaces[] = {PTO_BUF_MAT, PTO_BUF_LEFT, PTO_BUF_RIGHT, PTO_BUF_ACC};
  const PtoBufSpace *spaces = cube ? cube_spaces : vector_spaces;
  unsigned nspaces = cube ? 4 : 1, nargs = pto_block_num_args(body);
  LLVMValueRef *args = pto_malloc((LLVMCountParamTypes(kty) + 2) * sizeof *args);
  for (unsigned i = 0; i < nspaces; i++) {
    LLVMTypeRef img = LLVMArrayType(LLVMInt8TypeInContext(c),
                                    (unsigned)(reach[spaces[i]] ? reach[spaces[i]] : 1));
    LLVMValueRef p = LLVMBuildAlloca(b, img, pto_buf_space_name(spaces[i]));
    LLVMSetAlignment(p, 64);
    args[i] = LLVMBuildBitCast(b, p, h->i8p, "");
  }
  LLVMValueRef bufs = load_field(h, h->args_t, a, ARGS_BUFFERS);
  LLVMValueRef packed = LLVMBuildBitCast(b, load_field(h, h->args_t, a, ARGS_USER),
                                         LLVMPointerType(h->i64, 0), "");
  LLVMTypeRef *ptys = pto_malloc((LLVMCountParamTypes(kty) + 1) * sizeof *ptys);
  LLVMGetParamTypes(kty, ptys);
  unsigned np = nspaces, slot = nargs;
  for (unsigned i = 0; i < nargs; i++) {
    LLVMValueRef v = LLVMBuildLoad2(b, h->i64, elem_ptr(h, h->i64, packed, i64c(h, i)), "");
    LLVMTypeRef pt = ptys[np];
    LLVMTypeKind kind = LLVMGetTypeKind(pt);
    if (kind == LLVMPointerTypeKind) {
      v = LLVMBuildLoad2(b, h->i8p, elem_ptr(h, h->i8p, bufs, v), "");
    } else if (kind == LLVMIntegerTypeKind) {
      if (LLVMGetIntTypeWidth(pt) != 64) v = LLVMBuildTrunc(b, v, pt, "");
    } else {
      unsigned bits = kind == LLVMDoubleTypeKind ? 64 : kind == LLVMFloatTypeKind ? 32 : 16;
      if (bits != 64) v = LLVMBuildTrunc(b, v, LLVMIntTypeInContext(c, bits), "");
      v = LLVMBuildBitCast(b, v, pt, "");
    }
    args[np++] = v;
    PtoType *ty = pto_value_type(pto_block_arg(body, i));
    for (unsigned d = 0, n = pto_type_is_tensor(ty) ? pto_llvmir_dynamic_dims(ty) : 0; d < n; d++)
      args[np++] = LLVMBuildLoad2(b, h->i64, elem_ptr(h, h->i64, packed, i64c(h, slot++)), "");
  }
  /* a kernel that can fail writes its fault record into the task's own
   * slots after its operands (pto_llvmir_kernel_fault_slot), and its
   * status is the task's */
  bool can_fault = LLVMGetTypeKind(LLVMGetReturnType(kty)) != LLVMVoidTypeKind;
  if (can_fault) args[np++] = elem_ptr(h, h->i64, packed, i64c(h, slot));
  LLVMValueRef st = LLVMBuildCall2(b, kty, kfn, args, np, "");
  LLVMBuildRet(b, can_fault ? st : i32c(h, 0));
  pto_free(ptys);
  pto_free(args);
}

PtoResult pto_llvmir_emit_host(PtoEmit *e, PtoOp *module, PtoOp *func) {
  Host h;
  memset(&h, 0, sizeof h);
  h.e = e;
  pto_ptrmap_init(&h.values);
  pto_ptrmap_init(&h.tensors);
  pto_ptrmap_init(&h.kernels);
  make_types(&h);
  PtoBlock *top = pto_region_first_block(pto_op_region(module, 0));
  uintptr_t nk = 0;
  for (PtoOp *op = pto_block_first_op(top); op; op = pto_op_next(op))
    if (pto_pto_op_id(op) == PTO_PTO_KERNEL) {
      pto_ptrmap_put(&h.kernels, (uint64_t)(uintptr_t)op, (void *)++nk);
      emit_task_entry(&h, op);
    }

  PtoResult r = PTO_SUCCESS;
  PtoBlock *body = pto_region_first_block(pto_op_region(func, 0));
  LLVMTypeRef envp = LLVMPointerType(h.env_t, 0);
  const char *name = pto_ident_str(pto_op_symbol_name(func));
  LLVMValueRef fn = LLVMAddFunction(e->mod, name, LLVMFunctionType(h.i32, &envp, 1, 0));
  e->fn = fn;
  h.env = LLVMGetParam(fn, 0);
  LLVMSetValueName2(h.env, "env", 3);
  LLVMContextRef c = e->ctx;
  LLVMBuilderRef b = e->b;
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(c, fn, "entry");
  h.fail = LLVMAppendBasicBlockInContext(c, fn, "fail");
  LLVMPositionBuilderAtEnd(b, h.fail);
  LLVMBuildRet(b, i32c(&h, -1));
  h.div_fail = LLVMAppendBasicBlockInContext(c, fn, "div.fail");
  LLVMPositionBuilderAtEnd(b, h.div_fail);
  LLVMBuildRet(b, i32c(&h, PTO_HOST_DIVISION_BY_ZERO));
  LLVMPositionBuilderAtEnd(b, entry);
  max_regions(&h, body);
  h.regions = LLVMBuildAlloca(b, LLVMArrayType(h.region_t, (unsigned)(h.max_regions ? h.max_regions : 1)), "regions");
  h.desc = LLVMBuildAlloca(b, h.desc_t, "task");
  h.scalar_req = LLVMBuildAlloca(b, LLVMArrayType(h.i64, 5 + 2 * MAX_RANK), "scalar.req");
  h.scalar_req = LLVMBuildBitCast(b, h.scalar_req, LLVMPointerType(h.i64, 0), "");
  max_host_req(&h, body);
  if (h.host_req_slots) {
    h.host_req = LLVMBuildAlloca(b, LLVMArrayType(h.i64, h.host_req_slots), "host.req");
    h.host_req = LLVMBuildBitCast(b, h.host_req, LLVMPointerType(h.i64, 0), "");
  }
  h.func = func;

  LLVMValueRef dims = load_field(&h, h.env_t, h.env, ENV_DIMS);
  int64_t at = 0;
  for (unsigned i = 0; i < pto_block_num_args(body) && pto_succeeded(r); i++) {
    PtoValue *v = pto_block_arg(body, i);
    PtoType *ty = pto_value_type(v);
    LLVMTypeRef st = pto_llvmir_scalar_type(c, ty);
    if (st) { /* its bits, in `dims` */
      LLVMValueRef x = LLVMBuildLoad2(b, h.i64, elem_ptr(&h, h.i64, dims, i64c(&h, at++)), "");
      unsigned bits = pto_type_bitwidth(ty);
      if (bits != 64) x = LLVMBuildTrunc(b, x, LLVMIntTypeInContext(c, bits), "");
      bind(&h, v, LLVMBuildBitCast(b, x, st, ""));
      continue;
    }
    if (!pto_type_is_tensor(ty) || !tensor_rank_ok(ty)) {
      r = pto_op_emit_error(func, "argument #%u is neither a scalar nor a "
                            "tensor of rank 0 to %d", i, MAX_RANK);
      break;
    }
    Tensor *t = new_tensor(&h, v);
    for (unsigned d = 0; d < t->rank; d++, at++) {
      int64_t n = pto_type_tensor_dim(ty, d);
      t->dims[d] = n != PTO_DYN ? i64c(&h, n)
                                : LLVMBuildLoad2(b, h.i64, elem_ptr(&h, h.i64, dims, i64c(&h, at)), "");
    }
    char bname[32];
    snprintf(bname, sizeof bname, "arg%u", i);
    add_buffer(&h, t, bname);
  }
  if (pto_succeeded(r)) r = emit_block(&h, body);
  if (pto_succeeded(r) && !LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(b)))
    LLVMBuildRet(b, i32c(&h, 0));
  uint32_t it = 0;
  uint64_t key;
  void *val;
  while (pto_ptrmap_next(&h.tensors, &it, &key, &val)) pto_free(val);
  pto_ptrmap_release(&h.values);
  pto_ptrmap_release(&h.tensors);
  pto_ptrmap_release(&h.kernels);
  return r;
}
