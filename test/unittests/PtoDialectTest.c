/* The queries of the pto dialect that the PTO-level passes read
 * (pto/Dialect/PTO.h): each instruction's pipe, how it uses each operand,
 * the result it updates in place, the flags' fields, and the tile type's
 * accessors and builders. */
#include "ParseVerified.h"
#include "Test.h"
#include "pto/Dialect/PTO.h"
#include "pto/Dialects.h"

/* The n-th op (0-based) of the body of the first kernel. */
static PtoOp *nth(PtoOp *module, unsigned n) {
  PtoBlock *mb = pto_region_first_block(pto_op_region(module, 0));
  PtoOp *k = pto_block_first_op(mb);
  PtoOp *op = pto_block_first_op(pto_region_first_block(pto_op_region(k, 0)));
  while (op && n--) op = pto_op_next(op);
  return op;
}

static const char *const cube_kernel =
    "pto.kernel cube @k(%A: tensor<32x32xf16>, %C: tensor<32x32xf32>) {\n"
    "  %a = pto.tload %A[0, 0] : tensor<32x32xf16> -> !pto.tile<32x32xf16, mat, offset = 0>\n"
    "  pto.set_flag MTE2 -> MTE1, 3\n"
    "  pto.wait_flag MTE2 -> MTE1, 3\n"
    "  %l = pto.tmov %a : !pto.tile<32x32xf16, mat, offset = 0> -> !pto.tile<32x32xf16, left, offset = 0>\n"
    "  %r = pto.tmov %a : !pto.tile<32x32xf16, mat, offset = 0> -> !pto.tile<32x32xf16, right, offset = 512>\n"
    "  %c = pto.tmatmul %l, %r : !pto.tile<32x32xf16, left, offset = 0>, !pto.tile<32x32xf16, right, offset = 512> -> !pto.tile<32x32xf32, acc, offset = 0>\n"
    "  %d = pto.tmatmul_acc %c, %l, %r : !pto.tile<32x32xf32, acc, offset = 0>, !pto.tile<32x32xf16, left, offset = 0>, !pto.tile<32x32xf16, right, offset = 512> -> !pto.tile<32x32xf32, acc, offset = 0>\n"
    "  %m = pto.tmov %d : !pto.tile<32x32xf32, acc, offset = 0> -> !pto.tile<32x32xf32, mat, offset = 4096>\n"
    "  pto.tstore %d, %C[0, 0] : !pto.tile<32x32xf32, acc, offset = 0> into tensor<32x32xf32>\n"
    "  pto.pipe_barrier FIX\n"
    "}\n";

TEST(pipes_of_a_cube_kernel) {
  PtoContext *ctx = pto_ctx_create();
  pto_register_all_dialects(ctx);
  PtoOp *m = parse(ctx, cube_kernel);
  CHECK(m != NULL);
  if (!m) return;
  static const PtoPipe want[] = {PTO_PIPE_MTE2, PTO_PIPE_MTE2, PTO_PIPE_MTE1,
                                 PTO_PIPE_MTE1, PTO_PIPE_MTE1, PTO_PIPE_M,
                                 PTO_PIPE_M,    PTO_PIPE_FIX,  PTO_PIPE_FIX,
                                 PTO_PIPE_FIX};
  for (unsigned i = 0; i < sizeof want / sizeof *want; i++) {
    PtoPipe got = pto_pto_op_pipe(nth(m, i));
    if (got != want[i])
      fprintf(stderr, "op %u: pipe %s, expected %s\n", i, pto_pipe_name(got),
              pto_pipe_name(want[i]));
    CHECK(got == want[i]);
  }
  /* the kernel itself and its terminator issue on no pipe */
  CHECK(pto_pto_op_pipe(pto_op_parent_op(nth(m, 0))) == PTO_PIPE_NONE);
  CHECK(pto_pto_op_pipe(nth(m, 10)) == PTO_PIPE_NONE);
  CHECK(pto_pto_op_id(nth(m, 10)) == PTO_PTO_RETURN);

  /* operand use: GM read, tile reads, GM write */
  CHECK(pto_pto_operand_access(nth(m, 0), 0) == PTO_PTO_ACCESS_GM_READ);
  CHECK(pto_pto_operand_access(nth(m, 5), 0) == PTO_PTO_ACCESS_TILE_READ);
  CHECK(pto_pto_operand_access(nth(m, 8), 0) == PTO_PTO_ACCESS_TILE_READ);
  CHECK(pto_pto_operand_access(nth(m, 8), 1) == PTO_PTO_ACCESS_GM_WRITE);
  CHECK(pto_pto_operand_access(nth(m, 8), 2) == PTO_PTO_ACCESS_NONE);
  /* in place: tmatmul_acc's accumulator only */
  CHECK(pto_pto_op_tied_operand(nth(m, 6)) == 0);
  CHECK(pto_pto_op_tied_operand(nth(m, 5)) == -1);

  PtoPipe src, dst;
  int ev = -1;
  CHECK(pto_pto_flag(nth(m, 1), &src, &dst, &ev));
  CHECK(src == PTO_PIPE_MTE2 && dst == PTO_PIPE_MTE1 && ev == 3);
  CHECK(pto_pto_op_id(nth(m, 2)) == PTO_PTO_WAIT_FLAG);
  CHECK(!pto_pto_flag(nth(m, 0), &src, &dst, &ev));

  int64_t offs[4];
  PtoValue *dyn[4];
  CHECK(pto_pto_get_offsets(nth(m, 8), offs, dyn) == 2);
  CHECK(offs[0] == 0 && offs[1] == 0 && !dyn[0] && !dyn[1]);
  int64_t sizes[4];
  CHECK(pto_pto_window_sizes(nth(m, 8), sizes) == 2);
  CHECK(sizes[0] == 32 && sizes[1] == 32);
  CHECK(pto_pto_window_sizes(nth(m, 5), sizes) == 0);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

TEST(ids_and_pipes_by_name) {
  CHECK(pto_pto_op_lookup("pto.tadd") == PTO_PTO_TADD);
  CHECK(pto_pto_op_lookup("tmatmul_bias") == PTO_PTO_TMATMUL_BIAS);
  CHECK(pto_pto_op_lookup("pto.nope") == PTO_PTO_NONE);
  CHECK_STR(pto_pto_op_mnemonic(PTO_PTO_TROWEXPANDDIV), "trowexpanddiv");
  CHECK(pto_pto_op_kind(PTO_PTO_TCOLMIN) == PTO_PTO_KIND_COLRED);
  for (int p = 0; p < PTO_PIPE_NUM; p++)
    CHECK(pto_pipe_lookup(pto_pipe_name((PtoPipe)p)) == (PtoPipe)p);
  CHECK(pto_pipe_lookup("VEC") == PTO_PIPE_NONE);
  CHECK(pto_pipe_on_core(PTO_PIPE_V, PTO_BLOCK_CORE_VECTOR));
  CHECK(!pto_pipe_on_core(PTO_PIPE_M, PTO_BLOCK_CORE_VECTOR));
  CHECK(pto_pipe_on_core(PTO_PIPE_FIX, PTO_BLOCK_CORE_CUBE));
  CHECK(!pto_pipe_on_core(PTO_PIPE_MTE3, PTO_BLOCK_CORE_CUBE));
}

TEST(tile_type) {
  PtoContext *ctx = pto_ctx_create();
  pto_register_all_dialects(ctx);
  PtoType *f16 = pto_type_float(ctx, PTO_F16);
  PtoType *t = pto_pto_tile_type(ctx, 16, 32, f16, PTO_BUF_VEC, PTO_PTO_UNPLANNED);
  CHECK(t && pto_type_is_pto_tile(t));
  CHECK(pto_pto_tile_rows(t) == 16 && pto_pto_tile_cols(t) == 32);
  CHECK(pto_pto_tile_elem(t) == f16 && pto_pto_tile_space(t) == PTO_BUF_VEC);
  CHECK(pto_pto_tile_offset(t) == PTO_PTO_UNPLANNED);
  CHECK(pto_pto_tile_bytes(t) == 1024);
  PtoType *p = pto_pto_tile_with_offset(t, 2048);
  CHECK(p && pto_pto_tile_offset(p) == 2048 && p != t);
  /* uniqued: the same parameters give the same type */
  CHECK(pto_pto_tile_with_offset(p, PTO_PTO_UNPLANNED) == t);
  /* alignment per space */
  CHECK(pto_pto_tile_with_offset(t, 48) == NULL);
  CHECK(pto_pto_tile_type(ctx, 16, 32, f16, PTO_BUF_LEFT, 256) == NULL);
  CHECK(pto_pto_tile_type(ctx, 16, 32, f16, PTO_BUF_LEFT, 512) != NULL);
  CHECK(pto_pto_tile_type(ctx, 16, 32, f16, PTO_BUF_ACC, 512) == NULL);
  CHECK(pto_pto_space_alignment(PTO_BUF_ACC) == 1024);
  /* shapes and element types */
  CHECK(pto_pto_tile_type(ctx, 0, 32, f16, PTO_BUF_VEC, PTO_PTO_UNPLANNED) == NULL);
  CHECK(pto_pto_tile_type(ctx, 4, 4, pto_type_float(ctx, PTO_F64), PTO_BUF_VEC,
                          PTO_PTO_UNPLANNED) == NULL);
  PtoType *i64 = pto_pto_tile_type(ctx, 4, 4, pto_type_int(ctx, 64), PTO_BUF_VEC,
                                   PTO_PTO_UNPLANNED);
  CHECK(i64 && pto_pto_tile_bytes(i64) == 128);
  CHECK(pto_pto_elem_bytes(pto_type_int(ctx, 1)) == 1);
  CHECK(pto_pto_elem_bytes(pto_type_f32(ctx)) == 4);
  CHECK(!pto_type_is_pto_tile(pto_type_f32(ctx)));
  CHECK(pto_pto_tile_space(pto_type_f32(ctx)) == PTO_BUF_NONE);
  pto_ctx_destroy(ctx);
}

RUN_TESTS(T(pipes_of_a_cube_kernel), T(ids_and_pipes_by_name), T(tile_type))
