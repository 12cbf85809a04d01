/* Dominator trees of multi-block regions (Cooper, Harvey and Kennedy's
 * iterative algorithm over reverse post-order), shared by the verifier's
 * dominance check and by passes such as CSE. */
#include "IR/IRInternal.h"

struct PtoDomTree {
  PtoBlock **blocks;  /* region order */
  uint32_t n;
  int32_t *rpo_num;   /* block -> reverse post-order number, -1 unreachable */
  uint32_t *rpo;      /* rpo number -> block */
  uint32_t nreach;
  int32_t *idom;      /* block -> immediate dominator, -1 if none */
  uint32_t *child_start, *children; /* dominator-tree children, in RPO */
};

static uint32_t block_index(PtoBlock *b) { return b->scratch; }

/* Successors of block i that are blocks of the same region. */
#define FOR_SUCCS(t, r, i, s)                                               \
  for (PtoOp *term_ = pto_block_last_op((t)->blocks[i]); term_; term_ = NULL) \
    for (unsigned k_ = 0; k_ < term_->num_successors; k_++)                 \
      for (PtoBlock *s = term_->successors[k_]; s && s->parent == (r); s = NULL)

static void compute_rpo(PtoDomTree *t, PtoRegion *r) {
  uint32_t *stack = pto_malloc(t->n * sizeof *stack);
  uint32_t *next_succ = pto_calloc(t->n, sizeof *next_succ);
  uint8_t *seen = pto_calloc(t->n, 1);
  uint32_t *post = pto_malloc(t->n * sizeof *post), npost = 0, sp = 0;
  stack[sp++] = 0;
  seen[0] = 1;
  while (sp) {
    uint32_t bi = stack[sp - 1];
    PtoOp *term = pto_block_last_op(t->blocks[bi]);
    unsigned ns = term ? term->num_successors : 0;
    if (next_succ[bi] < ns) {
      PtoBlock *s = term->successors[next_succ[bi]++];
      if (!s || s->parent != r) continue;
      uint32_t si = block_index(s);
      if (!seen[si]) {
        seen[si] = 1;
        stack[sp++] = si;
      }
      continue;
    }
    post[npost++] = bi;
    sp--;
  }
  t->nreach = npost;
  for (uint32_t i = 0; i < npost; i++) {
    uint32_t bi = post[npost - 1 - i];
    t->rpo[i] = bi;
    t->rpo_num[bi] = (int32_t)i;
  }
  pto_free(stack);
  pto_free(next_succ);
  pto_free(seen);
  pto_free(post);
}

static void compute_idoms(PtoDomTree *t, PtoRegion *r) {
  uint32_t n = t->n;
  uint32_t *pred_start = pto_calloc(n + 1, sizeof *pred_start);
  for (uint32_t i = 0; i < n; i++)
    FOR_SUCCS(t, r, i, s) pred_start[block_index(s) + 1]++;
  for (uint32_t i = 0; i < n; i++) pred_start[i + 1] += pred_start[i];
  uint32_t *preds = pto_malloc((pred_start[n] + 1) * sizeof *preds);
  uint32_t *fill = pto_calloc(n, sizeof *fill);
  for (uint32_t i = 0; i < n; i++)
    FOR_SUCCS(t, r, i, s) {
      uint32_t si = block_index(s);
      preds[pred_start[si] + fill[si]++] = i;
    }
  t->idom[0] = 0;
  bool changed = true;
  while (changed) {
    changed = false;
    for (uint32_t k = 1; k < t->nreach; k++) {
      uint32_t b = t->rpo[k];
      int32_t new_idom = -1;
      for (uint32_t q = pred_start[b]; q < pred_start[b + 1]; q++) {
        uint32_t pb = preds[q];
        if (t->idom[pb] < 0) continue;
        if (new_idom < 0) {
          new_idom = (int32_t)pb;
          continue;
        }
        int32_t f1 = (int32_t)pb, f2 = new_idom;
        while (f1 != f2) {
          while (t->rpo_num[f1] > t->rpo_num[f2]) f1 = t->idom[f1];
          while (t->rpo_num[f2] > t->rpo_num[f1]) f2 = t->idom[f2];
        }
        new_idom = f1;
      }
      if (new_idom >= 0 && t->idom[b] != new_idom) {
        t->idom[b] = new_idom;
        changed = true;
      }
    }
  }
  t->idom[0] = -1;
  pto_free(pred_start);
  pto_free(preds);
  pto_free(fill);
}

static void compute_children(PtoDomTree *t) {
  uint32_t n = t->n;
  t->child_start = pto_calloc(n + 1, sizeof *t->child_start);
  for (uint32_t i = 0; i < n; i++)
    if (t->idom[i] >= 0) t->child_start[t->idom[i] + 1]++;
  for (uint32_t i = 0; i < n; i++) t->child_start[i + 1] += t->child_start[i];
  t->children = pto_malloc((t->child_start[n] + 1) * sizeof *t->children);
  uint32_t *fill = pto_calloc(n + 1, sizeof *fill);
  for (uint32_t k = 0; k < t->nreach; k++) {
    uint32_t i = t->rpo[k];
    int32_t p = t->idom[i];
    if (p >= 0) t->children[t->child_start[p] + fill[p]++] = i;
  }
  pto_free(fill);
}

PtoDomTree *pto_domtree_create(PtoRegion *r) {
  PtoDomTree *t = pto_calloc(1, sizeof *t);
  t->n = pto_region_num_blocks(r);
  size_t n = t->n ? t->n : 1;
  t->blocks = pto_malloc(n * sizeof *t->blocks);
  t->rpo_num = pto_malloc(n * sizeof *t->rpo_num);
  t->rpo = pto_malloc(n * sizeof *t->rpo);
  t->idom = pto_malloc(n * sizeof *t->idom);
  uint32_t i = 0;
  PTO_FOR_BLOCKS(r, b) {
    b->scratch = i;
    t->blocks[i++] = b;
  }
  for (i = 0; i < t->n; i++) t->rpo_num[i] = -1, t->idom[i] = -1;
  if (t->n) {
    compute_rpo(t, r);
    compute_idoms(t, r);
  }
  compute_children(t);
  return t;
}

void pto_domtree_destroy(PtoDomTree *t) {
  if (!t) return;
  pto_free(t->blocks);
  pto_free(t->rpo_num);
  pto_free(t->rpo);
  pto_free(t->idom);
  pto_free(t->child_start);
  pto_free(t->children);
  pto_free(t);
}

unsigned pto_domtree_num_blocks(const PtoDomTree *t) { return t->n; }
PtoBlock *pto_domtree_block(const PtoDomTree *t, unsigned i) {
  return t->blocks[i];
}
bool pto_domtree_reachable(const PtoDomTree *t, unsigned i) {
  return t->rpo_num[i] >= 0;
}
int pto_domtree_idom(const PtoDomTree *t, unsigned i) { return t->idom[i]; }
unsigned pto_domtree_num_children(const PtoDomTree *t, unsigned i) {
  return t->child_start[i + 1] - t->child_start[i];
}
unsigned pto_domtree_child(const PtoDomTree *t, unsigned i, unsigned k) {
  return t->children[t->child_start[i] + k];
}
