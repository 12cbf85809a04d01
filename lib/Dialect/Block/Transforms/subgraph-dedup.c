/* subgraph-dedup: merges structurally identical block.kernel ops into one
 * and re-points their launches at it. A canonical hash of each kernel
 * (independent of SSA names and of the symbol name) finds the candidates;
 * an exact structural comparison decides, so that a hash collision never
 * merges two different kernels. Linear in the size of the module. */
#include "Dialect/Block/Transforms/BlockPasses.h"

#include "pto/Dialect/Block.h"

#include "Support/Alloc.h"
#include "Support/Hash.h"
#include "Support/Vec.h"

#include <string.h>

/* Numbers values in the order a walk defines them, so that two kernels
 * that differ only in SSA names hash alike. */
typedef struct Hasher {
  PtoPtrMap nums;
  uint64_t next;
} Hasher;

static uint64_t define(Hasher *h, PtoValue *v) {
  pto_ptrmap_put(&h->nums, (uint64_t)(uintptr_t)v, (void *)(uintptr_t)++h->next);
  return h->next;
}

static uint64_t number(Hasher *h, PtoValue *v) {
  return (uint64_t)(uintptr_t)pto_ptrmap_get(&h->nums, (uint64_t)(uintptr_t)v);
}

/* The kernel's symbol name is the one attribute that may differ. */
static bool skipped_attr(const PtoOp *op, const PtoNamedAttr *a) {
  return pto_op_is(op, "block.kernel") &&
         strcmp(pto_ident_str(a->name), "sym_name") == 0;
}

static uint64_t hash_region(Hasher *h, PtoRegion *r, uint64_t acc);

static uint64_t hash_op(Hasher *h, PtoOp *op, uint64_t acc) {
  acc = pto_hash_combine(acc, (uint64_t)(uintptr_t)pto_op_name(op));
  unsigned n = pto_op_num_operands(op);
  acc = pto_hash_combine(acc, n);
  for (unsigned i = 0; i < n; i++)
    acc = pto_hash_combine(acc, number(h, pto_op_operand(op, i)));
  const PtoNamedAttr *attrs = pto_op_attrs(op);
  for (unsigned i = 0; i < pto_op_num_attrs(op); i++) {
    if (skipped_attr(op, &attrs[i])) continue;
    acc = pto_hash_combine(acc, (uint64_t)(uintptr_t)attrs[i].name);
    acc = pto_hash_combine(acc, (uint64_t)(uintptr_t)attrs[i].value);
  }
  for (unsigned i = 0; i < pto_op_num_results(op); i++) {
    PtoValue *res = pto_op_result(op, i);
    define(h, res);
    acc = pto_hash_combine(acc, (uint64_t)(uintptr_t)pto_value_type(res));
  }
  acc = pto_hash_combine(acc, pto_op_num_successors(op));
  for (unsigned i = 0; i < pto_op_num_regions(op); i++)
    acc = hash_region(h, pto_op_region(op, i), acc);
  return acc;
}

static uint64_t hash_region(Hasher *h, PtoRegion *r, uint64_t acc) {
  acc = pto_hash_combine(acc, pto_region_num_blocks(r));
  for (PtoBlock *b = pto_region_first_block(r); b; b = pto_block_next(b)) {
    acc = pto_hash_combine(acc, pto_block_num_args(b));
    for (unsigned i = 0; i < pto_block_num_args(b); i++) {
      PtoValue *arg = pto_block_arg(b, i);
      define(h, arg);
      acc = pto_hash_combine(acc, (uint64_t)(uintptr_t)pto_value_type(arg));
    }
    for (PtoOp *op = pto_block_first_op(b); op; op = pto_op_next(op))
      acc = hash_op(h, op, acc);
  }
  return acc;
}

uint64_t pto_block_kernel_hash(PtoOp *kernel) {
  Hasher h = {.next = 0};
  pto_ptrmap_init(&h.nums);
  uint64_t acc = hash_op(&h, kernel, 0x5bd1e995u);
  pto_ptrmap_release(&h.nums);
  return acc;
}

/* ---- exact comparison: values of `a` map to the values of `b` ---- */

static bool eq_region(PtoPtrMap *m, PtoRegion *a, PtoRegion *b);

static void pair(PtoPtrMap *m, PtoValue *a, PtoValue *b) {
  pto_ptrmap_put(m, (uint64_t)(uintptr_t)a, b);
}

static bool eq_op(PtoPtrMap *m, PtoOp *a, PtoOp *b) {
  if (pto_op_name(a) != pto_op_name(b) ||
      pto_op_num_operands(a) != pto_op_num_operands(b) ||
      pto_op_num_results(a) != pto_op_num_results(b) ||
      pto_op_num_regions(a) != pto_op_num_regions(b) ||
      pto_op_num_successors(a) != pto_op_num_successors(b))
    return false;
  for (unsigned i = 0; i < pto_op_num_operands(a); i++)
    if (pto_ptrmap_get(m, (uint64_t)(uintptr_t)pto_op_operand(a, i)) !=
        pto_op_operand(b, i))
      return false;
  /* Attributes are sorted by name and uniqued: compare pointers. */
  const PtoNamedAttr *x = pto_op_attrs(a), *y = pto_op_attrs(b);
  unsigned nx = pto_op_num_attrs(a), ny = pto_op_num_attrs(b), i = 0, j = 0;
  for (;;) {
    while (i < nx && skipped_attr(a, &x[i])) i++;
    while (j < ny && skipped_attr(b, &y[j])) j++;
    if (i == nx || j == ny) break;
    if (x[i].name != y[j].name || x[i].value != y[j].value) return false;
    i++, j++;
  }
  if (i != nx || j != ny) return false;
  for (unsigned k = 0; k < pto_op_num_results(a); k++) {
    PtoValue *ra = pto_op_result(a, k), *rb = pto_op_result(b, k);
    if (pto_value_type(ra) != pto_value_type(rb)) return false;
    pair(m, ra, rb);
  }
  /* Kernels have one block; ops with successors are not compared. */
  if (pto_op_num_successors(a)) return false;
  for (unsigned k = 0; k < pto_op_num_regions(a); k++)
    if (!eq_region(m, pto_op_region(a, k), pto_op_region(b, k))) return false;
  return true;
}

static bool eq_region(PtoPtrMap *m, PtoRegion *a, PtoRegion *b) {
  PtoBlock *ba = pto_region_first_block(a), *bb = pto_region_first_block(b);
  for (; ba && bb; ba = pto_block_next(ba), bb = pto_block_next(bb)) {
    if (pto_block_num_args(ba) != pto_block_num_args(bb)) return false;
    for (unsigned i = 0; i < pto_block_num_args(ba); i++) {
      PtoValue *x = pto_block_arg(ba, i), *y = pto_block_arg(bb, i);
      if (pto_value_type(x) != pto_value_type(y)) return false;
      pair(m, x, y);
    }
    PtoOp *oa = pto_block_first_op(ba), *ob = pto_block_first_op(bb);
    for (; oa && ob; oa = pto_op_next(oa), ob = pto_op_next(ob))
      if (!eq_op(m, oa, ob)) return false;
    if (oa || ob) return false;
  }
  return !ba && !bb;
}

bool pto_block_kernels_equal(PtoOp *a, PtoOp *b) {
  PtoPtrMap m;
  pto_ptrmap_init(&m);
  bool eq = eq_op(&m, a, b);
  pto_ptrmap_release(&m);
  return eq;
}

/* ---- the pass ---- */

typedef struct RepointCtx {
  PtoPtrMap to; /* kernel name ident -> callee symref of its replacement */
  int64_t repointed;
} RepointCtx;

/* Launches name their kernel in `callee`; any other op's symbol
 * reference to an erased kernel is re-pointed the same way. */
static PtoWalkResult repoint(PtoOp *op, void *user) {
  RepointCtx *rc = user;
  for (unsigned i = 0; i < pto_op_num_attrs(op); i++) {
    PtoNamedAttr a = pto_op_attrs(op)[i];
    if (pto_attr_kind(a.value) != PTO_ATTR_SYMREF ||
        pto_attr_symref_num_nested(a.value))
      continue;
    PtoAttr *to = pto_ptrmap_get(
        &rc->to, (uint64_t)(uintptr_t)pto_attr_symref_root(a.value));
    if (!to) continue;
    pto_op_set_attr_id(op, a.name, to);
    rc->repointed += pto_op_is(op, "block.launch");
  }
  return PTO_WALK_ADVANCE;
}

static PtoResult run(PtoPass *pass, PtoOp *module) {
  PtoContext *ctx = pto_pass_ctx(pass);
  int64_t bits = pto_pass_option_int(pass, "hash-bits");
  uint64_t mask = bits >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1);
  PTO_VEC(PtoOp *) kernels = {0};
  PtoBlock *body = pto_region_first_block(pto_op_region(module, 0));
  for (PtoOp *op = body ? pto_block_first_op(body) : NULL; op; op = pto_op_next(op))
    if (pto_op_is(op, "block.kernel")) pto_vec_push(&kernels, op);

  /* Kernels with one hash form a chain of distinct representatives; the
   * map holds the chain's head (index + 1). */
  uint32_t n = kernels.len;
  int32_t *next = pto_malloc((n ? n : 1) * sizeof *next);
  PtoOp **rep = pto_malloc((n ? n : 1) * sizeof *rep);
  PtoPtrMap heads;
  pto_ptrmap_init(&heads);
  RepointCtx rc = {.repointed = 0};
  pto_ptrmap_init(&rc.to);
  int64_t collisions = 0, erased = 0;
  for (uint32_t i = 0; i < n; i++) {
    PtoOp *k = kernels.data[i];
    /* Key 0 is the map's empty slot: shift the hash into [1, 2^64). */
    uint64_t key = (pto_block_kernel_hash(k) & mask) | ((uint64_t)1 << 63);
    rep[i] = NULL;
    int32_t head = (int32_t)(intptr_t)pto_ptrmap_get(&heads, key) - 1;
    for (int32_t j = head; j >= 0; j = next[j]) {
      if (pto_block_kernels_equal(kernels.data[j], k)) {
        rep[i] = kernels.data[j];
        break;
      }
      collisions++;
    }
    if (rep[i]) {
      PtoIdent *from = pto_op_symbol_name(k), *to = pto_op_symbol_name(rep[i]);
      pto_ptrmap_put(&rc.to, (uint64_t)(uintptr_t)from,
                     pto_attr_symref(ctx, to, NULL, 0));
      erased++;
    } else {
      next[i] = head;
      pto_ptrmap_put(&heads, key, (void *)(intptr_t)(i + 1));
    }
  }
  if (erased) {
    pto_op_walk(module, PTO_WALK_PRE, repoint, &rc);
    for (uint32_t i = 0; i < n; i++)
      if (rep[i]) pto_op_erase(kernels.data[i]);
  } else {
    pto_pass_mark_unchanged(pass);
  }
  pto_pass_stat_add(pass, "kernels-before", n);
  pto_pass_stat_add(pass, "kernels-after", n - erased);
  pto_pass_stat_add(pass, "launches-repointed", rc.repointed);
  pto_pass_stat_add(pass, "hash-collisions", collisions);
  pto_ptrmap_release(&rc.to);
  pto_ptrmap_release(&heads);
  pto_free(rep);
  pto_free(next);
  pto_vec_free(&kernels);
  return PTO_SUCCESS;
}

static const PtoPassOptionDef options[] = {
    {"hash-bits", PTO_OPT_INT, "64",
     "bits of the structural hash that are kept (fewer bits force hash "
     "collisions, which the exact comparison resolves: for testing)",
     0, 64, NULL},
};

static const PtoPassStatDef statistics[] = {
    {"kernels-before", "block.kernel ops before the pass"},
    {"kernels-after", "block.kernel ops after the pass"},
    {"launches-repointed", "block.launch ops re-pointed to the kernel kept"},
    {"hash-collisions", "equal hashes whose kernels the exact comparison told apart"},
};

const PtoPassDef pto_subgraph_dedup_pass = {
    .argument = "subgraph-dedup",
    .summary = "Merge structurally identical block.kernel ops into one kernel",
    .anchor = "builtin.module",
    .options = options,
    .num_options = PTO_ARRAY_SIZE(options),
    .statistics = statistics,
    .num_statistics = PTO_ARRAY_SIZE(statistics),
    .run = run,
    .description =
        "Runs on the `block.kernel` ops of the module and on the\n"
        "`block.launch` ops that name them (docs/dialects/block.md). Two\n"
        "kernels are identical when they have the same core type, argument\n"
        "types, attributes and body: the same ops in the same order with\n"
        "the same attributes, result types and operands, up to the names\n"
        "of their SSA values. The kernel's symbol name may differ; locations\n"
        "are not compared. Of each set of identical kernels the first in\n"
        "the module is kept, every launch of the others is re-pointed to\n"
        "it, and the others are erased. Kernels differing in anything else\n"
        "(one attribute, one type, one constant, the order of two ops, the\n"
        "core type) are left apart.\n"
        "\n"
        "A canonical structural hash of each kernel (its values numbered in\n"
        "the order they are defined) finds candidates in one pass over the\n"
        "module; an exact comparison of the candidates decides, so that a\n"
        "collision of hashes never merges different kernels (`hash-bits`\n"
        "truncates the hash to exercise this). Other symbol references to an\n"
        "erased kernel are re-pointed as launches are. See\n"
        "docs/block-passes.md.",
};
