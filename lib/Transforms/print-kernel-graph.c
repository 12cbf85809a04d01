/* print-kernel-graph: writes the Block level's kernel graph as Graphviz
 * DOT: a node per block.kernel (its core, how many launches name it and
 * their labels) and an edge from kernel A to kernel B when a launch of B
 * depends on an earlier launch of A through the GM regions they record
 * (RAW, WAR or WAW on overlapping windows of one tensor), labelled with
 * how many launch pairs depend so. */
#include "Transforms/DotOutput.h"
#include "Transforms/Passes.h"

#include "pto/Dialect/Block.h"

#include "Support/Alloc.h"
#include "Support/Hash.h"
#include "Support/Vec.h"

#include <stdlib.h>
#include <string.h>

typedef struct Kernel {
  PtoOp *op;
  unsigned launches;
  bool in_loop;
  PTO_VEC(const char *) labels; /* distinct, in order of appearance */
} Kernel;

/* A GM window one launch touches; a dim whose offset is a run-time value
 * spans the whole dim. */
typedef struct Access {
  uint32_t launch, kernel;
  bool write;
  unsigned rank;
  int64_t lo[8], hi[8];
} Access;

typedef PTO_VEC(Access) AccessVec;

typedef struct KGraph {
  PtoPass *pass;
  PTO_VEC(Kernel) kernels;
  PtoPtrMap kernel_of; /* block.kernel op -> index + 1 */
  PtoPtrMap tensors;   /* host tensor value -> AccessVec* */
  PtoPtrMap edges;     /* (from << 32 | to) + 1 -> count */
  uint32_t nlaunches;
} KGraph;

static uint32_t kernel_index(KGraph *g, PtoOp *k) {
  uintptr_t i = (uintptr_t)pto_ptrmap_get(&g->kernel_of, (uintptr_t)k);
  if (i) return (uint32_t)(i - 1);
  Kernel n;
  memset(&n, 0, sizeof n);
  n.op = k;
  pto_vec_push(&g->kernels, n);
  pto_ptrmap_put(&g->kernel_of, (uintptr_t)k, (void *)(uintptr_t)g->kernels.len);
  return g->kernels.len - 1;
}

static bool overlap(const Access *a, const Access *b) {
  if (a->rank != b->rank) return true;
  for (unsigned d = 0; d < a->rank; d++)
    if (a->hi[d] <= b->lo[d] || b->hi[d] <= a->lo[d]) return false;
  return true;
}

/* Records a launch's regions; each conflicts with the earlier accesses to
 * the same tensor that overlap it, one of them writing. */
static void add_launch(KGraph *g, PtoOp *launch, bool in_loop) {
  PtoOp *kop = pto_block_launch_kernel(launch);
  if (!kop) return;
  uint32_t k = kernel_index(g, kop);
  Kernel *kn = &g->kernels.data[k];
  kn->launches++;
  kn->in_loop |= in_loop;
  const char *label = pto_op_attr_str(launch, "label");
  bool seen = !label;
  for (uint32_t i = 0; i < kn->labels.len && !seen; i++)
    seen = strcmp(kn->labels.data[i], label) == 0;
  if (!seen) pto_vec_push(&kn->labels, label);
  uint32_t id = g->nlaunches++;
  for (int w = 0; w < 2; w++)
    for (unsigned i = 0; i < pto_block_launch_num_regions(launch, w); i++) {
      PtoBlockRegion r;
      if (!pto_block_launch_region(launch, w, i, &r) ||
          r.operand >= pto_op_num_operands(launch))
        continue;
      Access a;
      memset(&a, 0, sizeof a);
      a.launch = id;
      a.kernel = k;
      a.write = w;
      a.rank = r.rank < 8 ? r.rank : 8;
      for (unsigned d = 0; d < a.rank; d++) {
        bool dyn = r.offset_operand[d] >= 0;
        a.lo[d] = dyn ? INT64_MIN : r.offsets[d];
        a.hi[d] = dyn ? INT64_MAX : r.offsets[d] + r.sizes[d];
      }
      PtoValue *t = pto_op_operand(launch, r.operand);
      AccessVec *v = pto_ptrmap_get(&g->tensors, (uintptr_t)t);
      if (!v) {
        v = pto_calloc(1, sizeof *v);
        pto_ptrmap_put(&g->tensors, (uintptr_t)t, v);
      }
      for (uint32_t j = 0; j < v->len; j++) {
        Access *b = &v->data[j];
        if (b->launch == id || (!b->write && !a.write) || !overlap(&a, b))
          continue;
        uint64_t key = ((uint64_t)b->kernel << 32 | k) + 1;
        void **slot = pto_ptrmap_find(&g->edges, key);
        if (slot) *slot = (void *)((uintptr_t)*slot + 1);
        else pto_ptrmap_put(&g->edges, key, (void *)(uintptr_t)1);
      }
      pto_vec_push(v, a);
    }
}

static void walk_block(KGraph *g, PtoBlock *b, bool in_loop) {
  for (PtoOp *op = pto_block_first_op(b); op; op = pto_op_next(op)) {
    if (pto_op_is(op, "block.launch")) add_launch(g, op, in_loop);
    for (unsigned r = 0; r < pto_op_num_regions(op); r++)
      for (PtoBlock *in = pto_region_first_block(pto_op_region(op, r)); in;
           in = pto_block_next(in))
        walk_block(g, in, in_loop || pto_op_is(op, "scf.for"));
  }
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static PtoResult run(PtoPass *pass, PtoOp *module) {
  KGraph g;
  memset(&g, 0, sizeof g);
  g.pass = pass;
  pto_ptrmap_init(&g.kernel_of);
  pto_ptrmap_init(&g.tensors);
  pto_ptrmap_init(&g.edges);
  /* kernels in module order, then the launches of every host function */
  for (PtoBlock *b = pto_region_first_block(pto_op_region(module, 0)); b;
       b = pto_block_next(b))
    for (PtoOp *op = pto_block_first_op(b); op; op = pto_op_next(op))
      if (pto_op_is(op, "block.kernel")) kernel_index(&g, op);
  for (PtoBlock *b = pto_region_first_block(pto_op_region(module, 0)); b;
       b = pto_block_next(b))
    for (PtoOp *op = pto_block_first_op(b); op; op = pto_op_next(op))
      if (pto_op_is(op, "func.func"))
        for (PtoBlock *in = pto_region_first_block(pto_op_region(op, 0)); in;
             in = pto_block_next(in))
          walk_block(&g, in, false);

  PtoStr out;
  pto_str_init(&out);
  pto_str_puts(&out, "digraph \"kernels\" {\n"
                     "  node [shape=box, fontname=\"monospace\"];\n");
  for (uint32_t i = 0; i < g.kernels.len; i++) {
    Kernel *k = &g.kernels.data[i];
    PtoIdent *name = pto_op_symbol_name(k->op);
    const char *core = pto_op_attr_str(k->op, "core");
    pto_str_printf(&out, "  k%u [label=\"@", i);
    if (name) pto_dot_escape(&out, pto_ident_str(name), pto_ident_len(name));
    pto_str_printf(&out, "\\n%s\\n%u launch%s%s", core ? core : "?", k->launches,
                   k->launches == 1 ? "" : "es",
                   k->in_loop ? " (in loops)" : "");
    for (uint32_t j = 0; j < k->labels.len; j++) {
      pto_str_puts(&out, j ? ", " : "\\n");
      pto_dot_escape(&out, k->labels.data[j], strlen(k->labels.data[j]));
    }
    pto_str_puts(&out, "\"];\n");
  }
  /* edges in a fixed order */
  PTO_VEC(uint64_t) keys = {0};
  uint32_t it = 0;
  uint64_t key;
  void *val;
  while (pto_ptrmap_next(&g.edges, &it, &key, &val)) pto_vec_push(&keys, key);
  if (keys.len) qsort(keys.data, keys.len, sizeof *keys.data, cmp_u64);
  for (uint32_t i = 0; i < keys.len; i++) {
    uint64_t e = keys.data[i] - 1;
    uintptr_t n = (uintptr_t)pto_ptrmap_get(&g.edges, keys.data[i]);
    pto_str_printf(&out, "  k%u -> k%u [label=\"%u\"];\n", (unsigned)(e >> 32),
                   (unsigned)(uint32_t)e, (unsigned)n);
  }
  pto_str_puts(&out, "}\n");
  PtoResult r = pto_dot_write(pass, module, &out);
  pto_pass_stat_add(pass, "kernels", g.kernels.len);
  pto_pass_stat_add(pass, "launches", g.nlaunches);
  pto_pass_stat_add(pass, "edges", keys.len);

  pto_vec_free(&keys);
  pto_str_release(&out);
  for (uint32_t i = 0; i < g.kernels.len; i++) pto_vec_free(&g.kernels.data[i].labels);
  pto_vec_free(&g.kernels);
  it = 0;
  while (pto_ptrmap_next(&g.tensors, &it, &key, &val)) {
    AccessVec *v = val;
    pto_vec_free(v);
    pto_free(v);
  }
  pto_ptrmap_release(&g.tensors);
  pto_ptrmap_release(&g.kernel_of);
  pto_ptrmap_release(&g.edges);
  return r;
}

static const PtoPassOptionDef options[] = {
    {"output", PTO_OPT_STRING, "-",
     "File to write the graph to ('-': standard error)", 0, 0, NULL},
};

static const PtoPassStatDef statistics[] = {
    {"kernels", "kernels in the graph"},
    {"launches", "launches counted"},
    {"edges", "kernel-to-kernel dependencies"},
};

const PtoPassDef pto_print_kernel_graph_pass = {
    .argument = "print-kernel-graph",
    .summary = "Write the Block level's kernel graph (kernels, launches, "
               "dependencies) as Graphviz DOT",
    .anchor = "builtin.module",
    .options = options,
    .num_options = PTO_ARRAY_SIZE(options),
    .statistics = statistics,
    .num_statistics = PTO_ARRAY_SIZE(statistics),
    .run = run,
    .description =
        "Writes one Graphviz `digraph` of the Block level: a box per\n"
        "`block.kernel` with its name, its core type, how many `block.launch`\n"
        "ops name it (\"in loops\" when some are inside an `scf.for`, each\n"
        "counted once) and the labels of those launches; an edge from kernel\n"
        "A to kernel B when a launch of B depends on an earlier launch of A\n"
        "through the GM regions the launches record (`reads` / `writes`:\n"
        "overlapping windows of the same tensor, one of them written; an\n"
        "offset given by a launch operand spans its whole dim), labelled with\n"
        "the number of such launch pairs. Every pair of accesses to one tensor\n"
        "is compared, so the cost grows with the square of the launches per\n"
        "tensor: a view for people, not for the largest graphs. The IR is\n"
        "unchanged. The graph goes to standard error unless `output=FILE` is\n"
        "given: `pto-opt k.pto --pto-lower-to-block --print-kernel-graph\n"
        "2>&1 >/dev/null | dot -Tsvg > kernels.svg`.",
};
