/* print-op-graph: writes the def-use graph of every function-like op (each
 * op with regions directly inside the module) as one Graphviz DOT digraph:
 * a cluster per function and per nested region op, a node per op and
 * block argument, an edge from each value's producer to each user. */
#include "Transforms/Passes.h"
#include "Transforms/DotOutput.h"

#include "pto/DialectImplementation.h"

#include "Support/Alloc.h"
#include "Support/Hash.h"
#include "Support/Str.h"

#include <string.h>

typedef struct Graph {
  PtoStr out;
  PtoPtrMap ids;      /* PtoOp* or block-argument PtoValue* -> id + 1 */
  unsigned next_id, next_cluster;
  PtoStr edges;
} Graph;

static void escape(PtoStr *out, const char *s, size_t n) {
  pto_dot_escape(out, s, n);
}

static void escape_cstr(PtoStr *out, const char *s) { escape(out, s, strlen(s)); }

static unsigned node_id(Graph *g, const void *key) {
  uintptr_t id = (uintptr_t)pto_ptrmap_get(&g->ids, (uintptr_t)key);
  if (!id) {
    id = ++g->next_id;
    pto_ptrmap_put(&g->ids, (uintptr_t)key, (void *)id);
  }
  return (unsigned)id - 1;
}

static void type_text(PtoStr *out, PtoType *t) {
  char *s = pto_type_to_string(t);
  escape_cstr(out, s);
  pto_free(s);
}

static const char *affinity_name(PtoAffinity a) {
  return a == PTO_AFFINITY_CUBE ? "cube" : "vector";
}

static void indent(Graph *g, unsigned depth) { pto_str_indent(&g->out, 2 * depth); }

static void op_node(Graph *g, PtoOp *op, unsigned depth) {
  indent(g, depth);
  pto_str_printf(&g->out, "n%u [label=\"", node_id(g, op));
  escape_cstr(&g->out, pto_op_name_str(op));
  unsigned nres = pto_op_num_results(op);
  for (unsigned i = 0; i < nres; i++) {
    pto_str_puts(&g->out, i ? ", " : " : ");
    type_text(&g->out, pto_value_type(pto_op_result(op, i)));
  }
  PtoAttr *label = pto_op_attr(op, "label");
  if (label && pto_attr_kind(label) == PTO_ATTR_STRING) {
    pto_str_puts(&g->out, "\\n");
    escape(&g->out, pto_attr_str(label), pto_attr_str_len(label));
  }
  const PtoOpDef *def = pto_op_def(op);
  if (def && def->affinity != PTO_AFFINITY_NONE)
    pto_str_printf(&g->out, "\\n[%s]", affinity_name(def->affinity));
  pto_str_puts(&g->out, "\"];\n");
  for (unsigned i = 0; i < pto_op_num_operands(op); i++) {
    PtoValue *v = pto_op_operand(op, i);
    if (!v) continue;
    PtoOp *d = pto_value_def_op(v);
    pto_str_printf(&g->edges, "  n%u -> n%u", d ? node_id(g, d) : node_id(g, v),
                   node_id(g, op));
    if (d && pto_op_num_results(d) > 1)
      pto_str_printf(&g->edges, " [label=\"#%u\"]", pto_value_index(v));
    pto_str_puts(&g->edges, ";\n");
  }
}

static void region_nodes(Graph *g, PtoRegion *r, unsigned depth);

static void op_with_regions(Graph *g, PtoOp *op, unsigned depth) {
  indent(g, depth);
  pto_str_printf(&g->out, "subgraph cluster_%u {\n", g->next_cluster++);
  indent(g, depth + 1);
  pto_str_puts(&g->out, "label = \"");
  escape_cstr(&g->out, pto_op_name_str(op));
  PtoIdent *sym = pto_op_symbol_name(op);
  if (sym) {
    pto_str_puts(&g->out, " @");
    escape_cstr(&g->out, pto_ident_str(sym));
  }
  pto_str_puts(&g->out, "\";\n");
  /* a node for the op itself only when values flow in or out of it */
  if (pto_op_num_operands(op) || pto_op_num_results(op))
    op_node(g, op, depth + 1);
  for (unsigned i = 0; i < pto_op_num_regions(op); i++)
    region_nodes(g, pto_op_region(op, i), depth + 1);
  indent(g, depth);
  pto_str_puts(&g->out, "}\n");
}

static void region_nodes(Graph *g, PtoRegion *r, unsigned depth) {
  for (PtoBlock *b = pto_region_first_block(r); b; b = pto_block_next(b)) {
    for (unsigned i = 0; i < pto_block_num_args(b); i++) {
      PtoValue *a = pto_block_arg(b, i);
      indent(g, depth);
      pto_str_printf(&g->out, "n%u [shape=ellipse, label=\"arg%u : ",
                     node_id(g, a), i);
      type_text(&g->out, pto_value_type(a));
      pto_str_puts(&g->out, "\"];\n");
    }
    for (PtoOp *op = pto_block_first_op(b); op; op = pto_op_next(op)) {
      if (pto_op_num_regions(op))
        op_with_regions(g, op, depth);
      else
        op_node(g, op, depth);
    }
  }
}

static PtoResult run(PtoPass *pass, PtoOp *module) {
  Graph g;
  memset(&g, 0, sizeof g);
  pto_ptrmap_init(&g.ids);
  pto_str_puts(&g.out, "digraph \"");
  PtoIdent *name = pto_op_symbol_name(module);
  escape_cstr(&g.out, name ? pto_ident_str(name) : pto_op_name_str(module));
  pto_str_puts(&g.out, "\" {\n  compound = true;\n"
                       "  node [shape=box, fontname=\"monospace\"];\n");
  for (unsigned r = 0; r < pto_op_num_regions(module); r++)
    for (PtoBlock *b = pto_region_first_block(pto_op_region(module, r)); b;
         b = pto_block_next(b))
      for (PtoOp *f = pto_block_first_op(b); f; f = pto_op_next(f))
        if (pto_op_num_regions(f)) op_with_regions(&g, f, 1);
  if (g.edges.len) pto_str_append(&g.out, g.edges.data, g.edges.len);
  pto_str_puts(&g.out, "}\n");
  PtoResult res = pto_dot_write(pass, module, &g.out);
  pto_str_release(&g.out);
  pto_str_release(&g.edges);
  pto_ptrmap_release(&g.ids);
  return res;
}

static const PtoPassOptionDef options[] = {
    {"output", PTO_OPT_STRING, "-",
     "File to write the graph to ('-': standard error)", 0, 0, NULL},
};

const PtoPassDef pto_print_op_graph_pass = {
    .argument = "print-op-graph",
    .summary = "Write the def-use graph of each function as Graphviz DOT",
    .anchor = "builtin.module",
    .options = options,
    .num_options = PTO_ARRAY_SIZE(options),
    .run = run,
    .description =
        "Writes one Graphviz `digraph` with a cluster per function-like op\n"
        "(each op with regions directly inside the module) and per nested op\n"
        "with regions. Each op is a box labelled with its name, result types,\n"
        "its `label` attribute when present and its core affinity (`[vector]`,\n"
        "`[cube]`) when its definition has one; block arguments are ellipses;\n"
        "an edge goes from the producer of each value to each of its users,\n"
        "labelled `#N` for result N of multi-result ops. The IR is unchanged.\n"
        "The graph goes to standard error unless `output=FILE` is given, so\n"
        "the IR on standard output stays clean:\n"
        "`pto-opt x.pto --print-op-graph 2>&1 >/dev/null | dot -Tsvg`.",
};
