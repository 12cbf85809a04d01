/* Merging launches of one kernel N at a time (l1-reuse, nbuffer-merge):
 * a run of launches of the same kernel becomes one launch of a new kernel
 * whose body is the original's, unrolled once per launch with that
 * launch's arguments, in launch order; GM windows the merged kernel loads
 * more than once and never stores to are loaded once. */
#include "Dialect/Block/Transforms/BlockPasses.h"

#include "Support/Alloc.h"
#include "Support/Hash.h"
#include "Support/Str.h"
#include "Support/Vec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef PTO_VEC(PtoOp *) OpVec;

typedef struct Merger {
  PtoPass *pass;
  PtoContext *ctx;
  const PtoMergeSpec *spec;
  PtoOp *module;
  PtoPtrMap kernels; /* kernel name ident -> kernel op */
  PtoPtrMap ordinal; /* kernel op -> its position among kernels, + 1 */
  PtoPtrMap uses;    /* kernel op -> launches naming it, + 1 */
  PtoPtrMap touched; /* kernels some of whose launches were merged */
  PtoStrMap merged;  /* shape of a merge (see merge_group) -> new kernel */
  PTO_VEC(void *) keys; /* storage of the merged map's keys */
  int64_t option;    /* the pass option, 0 when not given */
  int64_t dflt;      /* its default */
  bool failed;
} Merger;

static uint64_t key_of(const void *p) { return (uint64_t)(uintptr_t)p; }

/* ---- the factor: pass option, else PyPTO's setting on the IR ---- */

/* A factor of the setting, in [1, the cap of `factor`]; else an error at
 * `holder` naming the entry `what`. */
static bool factor_ok(Merger *m, PtoOp *holder, const char *what, int64_t f) {
  if (f >= 1 && f <= PTO_BLOCK_MERGE_MAX_FACTOR) return true;
  pto_op_emit_error(holder, "pypto.pass_options: %s: the factor of %s must "
                            "be %s, got %lld",
                    m->spec->setting, what,
                    f < 1 ? "at least 1"
                          : "at most 65536 (as the pass's 'factor' option)",
                    (long long)f);
  return false;
}

/* PyPTO's dictionary form, `{DEFAULT = N, "<label>" = N, "<k>" = N}`:
 * DEFAULT for every kernel, a label for the launches carrying it, a
 * decimal number for kernel number k. */
static int64_t setting_dict_factor(Merger *m, PtoOp *holder, PtoAttr *dict,
                                   int64_t ord, const char *label) {
  int64_t any = 0, mine = 0;
  const PtoNamedAttr *e = pto_attr_dict_entries(dict);
  for (unsigned i = 0; i < pto_attr_dict_size(dict); i++) {
    const char *key = pto_ident_str(e[i].name);
    char what[96];
    snprintf(what, sizeof what, "'%.64s'", key);
    if (pto_attr_kind(e[i].value) != PTO_ATTR_INTEGER) {
      pto_op_emit_error(holder, "pypto.pass_options: %s: the factor of %s "
                                "must be an integer",
                        m->spec->setting, what);
      return -1;
    }
    int64_t f = pto_attr_int_value(e[i].value);
    if (!factor_ok(m, holder, what, f)) return -1;
    char *end;
    long long k = strtoll(key, &end, 10);
    if (strcmp(key, "DEFAULT") == 0 || (!*end && *key && k == -1)) any = f;
    else if (label && strcmp(key, label) == 0) mine = f;
    else if (!*end && *key && k == ord) mine = f;
  }
  return mine ? mine : any;
}

/* `setting = [[kernel, factor], ...]` in a `pypto.pass_options` dict (or
 * the dictionary form above): the factor for kernel number `ord` (or for
 * -1, every kernel) launched with `label` (NULL: none), 0 when the
 * setting names neither; -1 after an error at `holder`. */
static int64_t setting_factor(Merger *m, PtoOp *holder, PtoAttr *list,
                              int64_t ord, const char *label) {
  const char *name = m->spec->setting;
  if (pto_attr_kind(list) == PTO_ATTR_DICT)
    return setting_dict_factor(m, holder, list, ord, label);
  if (pto_attr_kind(list) != PTO_ATTR_ARRAY) {
    pto_op_emit_error(holder, "pypto.pass_options: %s must be a list of "
                              "[kernel, factor] pairs or a dictionary of "
                              "factors", name);
    return -1;
  }
  int64_t any = 0, mine = 0;
  for (unsigned i = 0; i < pto_attr_array_size(list); i++) {
    int64_t kv[2];
    unsigned n = 0;
    if (!pto_attr_get_i64_array(pto_attr_array_get(list, i), kv, 2, &n) ||
        n != 2) {
      pto_op_emit_error(holder, "pypto.pass_options: %s must be a list of "
                                "[kernel, factor] pairs or a dictionary of "
                                "factors", name);
      return -1;
    }
    if (kv[0] < -1) {
      pto_op_emit_error(holder, "pypto.pass_options: %s: kernel %lld is not "
                                "a kernel number (0, 1, ... or -1 for all)",
                        name, (long long)kv[0]);
      return -1;
    }
    char what[48];
    snprintf(what, sizeof what, "kernel %lld", (long long)kv[0]);
    if (!factor_ok(m, holder, what, kv[1])) return -1;
    if (kv[0] == -1) any = kv[1];
    if (kv[0] == ord) mine = kv[1];
  }
  return mine ? mine : any;
}

/* The innermost scope (loop or function) whose options name the setting
 * decides; a kernel it does not name gets the pass's default. */
static int64_t launch_factor(Merger *m, PtoOp *launch, PtoOp *kernel) {
  if (m->option) return m->option;
  int64_t ord = (int64_t)(intptr_t)pto_ptrmap_get(&m->ordinal, key_of(kernel)) - 1;
  for (PtoOp *p = pto_op_parent_op(launch); p; p = pto_op_parent_op(p)) {
    PtoAttr *opts = pto_op_attr(p, "pypto.pass_options");
    PtoAttr *s = opts && pto_attr_kind(opts) == PTO_ATTR_DICT
                     ? pto_attr_dict_get(opts, m->spec->setting)
                     : NULL;
    if (!s) continue;
    PtoAttr *label = pto_op_attr(launch, "label");
    int64_t f = setting_factor(m, p, s, ord,
                               label && pto_attr_kind(label) == PTO_ATTR_STRING
                                   ? pto_attr_str(label) : NULL);
    if (f < 0) m->failed = true;
    return f > 0 ? f : m->dflt;
  }
  return m->dflt;
}

/* The integer option `name` of the innermost scope that names it, 0 when
 * none does (check_scope has refused malformed ones). */
static int64_t scope_option(PtoOp *launch, const char *name) {
  for (PtoOp *p = pto_op_parent_op(launch); p; p = pto_op_parent_op(p)) {
    PtoAttr *opts = pto_op_attr(p, "pypto.pass_options");
    PtoAttr *v = opts && pto_attr_kind(opts) == PTO_ATTR_DICT
                     ? pto_attr_dict_get(opts, name)
                     : NULL;
    if (!v) continue;
    return pto_attr_int_value(v);
  }
  return 0;
}

/* Every scope's setting and bound is checked, also where no launch of
 * the pass's core type would read it: a malformed option is an error
 * whatever the module holds. */
static PtoWalkResult check_scope(PtoOp *op, void *user) {
  Merger *m = user;
  PtoAttr *opts = pto_op_attr(op, "pypto.pass_options");
  if (!opts || pto_attr_kind(opts) != PTO_ATTR_DICT) return PTO_WALK_ADVANCE;
  PtoAttr *s = pto_attr_dict_get(opts, m->spec->setting);
  PtoAttr *v = pto_attr_dict_get(opts, m->spec->limit);
  int64_t min = m->spec->limit_is_bytes ? 0 : 1;
  if (s && setting_factor(m, op, s, -2, NULL) < 0) m->failed = true;
  else if (v && (pto_attr_kind(v) != PTO_ATTR_INTEGER ||
                 pto_attr_int_value(v) < min)) {
    pto_op_emit_error(op, "pypto.pass_options: %s must be an integer of at "
                          "least %lld", m->spec->limit, (long long)min);
    m->failed = true;
  }
  return m->failed ? PTO_WALK_INTERRUPT : PTO_WALK_ADVANCE;
}

/* Bytes of GM the launch's `reads` name. */
static int64_t read_bytes(PtoOp *launch, int shared_only) {
  int64_t total = 0;
  for (unsigned i = 0; i < pto_block_launch_num_regions(launch, false); i++) {
    PtoBlockRegion r;
    if ((shared_only >= 0 && (int)i != shared_only) ||
        !pto_block_launch_region(launch, false, i, &r))
      continue;
    PtoType *t = pto_value_type(pto_op_operand(launch, r.operand));
    int64_t n = (pto_type_bitwidth(pto_type_tensor_elem(t)) + 7) / 8;
    for (unsigned d = 0; d < r.rank; d++) n *= r.sizes[d];
    total += n;
  }
  return total;
}

/* ---- which launches may merge ---- */

/* Two launch operands are the same value: one SSA value, or constants
 * with one value. */
static bool same_value(PtoValue *a, PtoValue *b) {
  if (a == b) return true;
  PtoAttr *ca = pto_value_constant(a), *cb = pto_value_constant(b);
  return ca && ca == cb && pto_value_type(a) == pto_value_type(b);
}

/* Region `i` of `reads` names one GM window in both launches. */
static bool same_window(PtoOp *a, PtoOp *b, unsigned i) {
  PtoAttr *ra = pto_op_attr(a, "reads"), *rb = pto_op_attr(b, "reads");
  if (i >= pto_attr_array_size(ra) || i >= pto_attr_array_size(rb) ||
      pto_attr_array_get(ra, i) != pto_attr_array_get(rb, i))
    return false;
  PtoBlockRegion r;
  if (!pto_block_launch_region(a, false, i, &r) ||
      pto_op_operand(a, r.operand) != pto_op_operand(b, r.operand))
    return false;
  for (unsigned d = 0; d < r.rank; d++)
    if (r.offset_operand[d] >= 0 &&
        !same_value(pto_op_operand(a, (unsigned)r.offset_operand[d]),
                    pto_op_operand(b, (unsigned)r.offset_operand[d])))
      return false;
  return true;
}

/* Same attributes apart from the GM regions (callee, label, ...). */
static bool same_attrs(PtoOp *a, PtoOp *b) {
  const PtoNamedAttr *x = pto_op_attrs(a), *y = pto_op_attrs(b);
  if (pto_op_num_attrs(a) != pto_op_num_attrs(b)) return false;
  for (unsigned i = 0; i < pto_op_num_attrs(a); i++) {
    if (x[i].name != y[i].name) return false;
    const char *n = pto_ident_str(x[i].name);
    if (x[i].value != y[i].value && strcmp(n, "reads") && strcmp(n, "writes"))
      return false;
  }
  return true;
}

typedef struct Run {
  OpVec launches;
  PtoOp *kernel;
  int64_t factor;
  int64_t limit; /* the spec's limit option, 0 when not set */
  int shared; /* the read region all launches share (l1-reuse), or -1 */
} Run;

static bool joins(Merger *m, Run *run, PtoOp *launch, PtoOp *kernel,
                  int64_t factor) {
  if (!run->launches.len || run->kernel != kernel || run->factor != factor)
    return false;
  PtoOp *first = run->launches.data[0];
  if (!same_attrs(first, launch)) return false;
  if (!m->spec->shared_read) return true;
  if (run->shared >= 0) return same_window(first, launch, (unsigned)run->shared);
  for (unsigned i = 0; i < pto_block_launch_num_regions(first, false); i++)
    if (same_window(first, launch, i)) {
      run->shared = (int)i;
      return true;
    }
  return false;
}

/* ---- building a merged kernel ---- */

static PtoAttr *renumber_region(PtoContext *ctx, PtoAttr *d,
                                const uint32_t *argidx) {
  unsigned n = pto_attr_dict_size(d);
  PtoNamedAttr *e = pto_malloc(n * sizeof *e);
  memcpy(e, pto_attr_dict_entries(d), n * sizeof *e);
  for (unsigned i = 0; i < n; i++) {
    const char *k = pto_ident_str(e[i].name);
    if (strcmp(k, "operand") == 0) {
      e[i].value = pto_attr_int(ctx, pto_attr_get_type(e[i].value),
                                argidx[pto_attr_int_value(e[i].value)]);
    } else if (strcmp(k, "offset_operands") == 0) {
      unsigned r = pto_attr_array_size(e[i].value);
      PtoAttr **el = pto_malloc((r ? r : 1) * sizeof *el);
      for (unsigned d2 = 0; d2 < r; d2++) {
        PtoAttr *x = pto_attr_array_get(e[i].value, d2);
        int64_t q = pto_attr_int_value(x);
        el[d2] = q < 0 ? x : pto_attr_int(ctx, pto_attr_get_type(x), argidx[q]);
      }
      e[i].value = pto_attr_array(ctx, el, r);
      pto_free(el);
    }
  }
  PtoAttr *out = pto_attr_dict(ctx, e, n);
  pto_free(e);
  return out;
}

/* The union of the launches' `reads` or `writes`, renumbered to the
 * merged launch's operands; a window named twice is listed once. */
static PtoAttr *union_regions(PtoContext *ctx, PtoOp *const *ls, unsigned n,
                              const uint32_t *argidx, unsigned nargs,
                              const char *which) {
  PTO_VEC(PtoAttr *) out = {0};
  PtoPtrMap seen;
  pto_ptrmap_init(&seen);
  for (unsigned j = 0; j < n; j++) {
    PtoAttr *list = pto_op_attr(ls[j], which);
    for (unsigned i = 0; list && i < pto_attr_array_size(list); i++) {
      PtoAttr *r = renumber_region(ctx, pto_attr_array_get(list, i),
                                   argidx + (size_t)j * nargs);
      if (!pto_ptrmap_contains(&seen, key_of(r))) {
        pto_ptrmap_put(&seen, key_of(r), r);
        pto_vec_push(&out, r);
      }
    }
  }
  PtoAttr *a = pto_attr_array(ctx, out.data, out.len);
  pto_ptrmap_release(&seen);
  pto_vec_free(&out);
  return a;
}

/* Loads of one window of a tensor the kernel never stores to read the
 * same data: all but the first are dropped. */
static int64_t share_loads(PtoOp *kernel) {
  PtoBlock *body = pto_region_first_block(pto_op_region(kernel, 0));
  PtoPtrMap stored;
  pto_ptrmap_init(&stored);
  for (PtoOp *op = pto_block_first_op(body); op; op = pto_op_next(op))
    if (pto_op_is(op, "block.store"))
      pto_ptrmap_put(&stored, key_of(pto_op_operand(op, 1)), op);
  PtoStrMap loads;
  pto_strmap_init(&loads);
  PTO_VEC(uint64_t *) keys = {0};
  int64_t shared = 0;
  for (PtoOp *op = pto_block_first_op(body), *next; op; op = next) {
    next = pto_op_next(op);
    if (!pto_op_is(op, "block.load") ||
        pto_ptrmap_contains(&stored, key_of(pto_op_operand(op, 0))))
      continue;
    unsigned no = pto_op_num_operands(op), na = pto_op_num_attrs(op);
    unsigned len = no + 1 + 2 * na;
    uint64_t *k = pto_malloc(len * sizeof *k);
    unsigned w = 0;
    for (unsigned i = 0; i < no; i++) k[w++] = key_of(pto_op_operand(op, i));
    k[w++] = key_of(pto_value_type(pto_op_result(op, 0)));
    for (unsigned i = 0; i < na; i++) {
      k[w++] = key_of(pto_op_attrs(op)[i].name);
      k[w++] = key_of(pto_op_attrs(op)[i].value);
    }
    PtoOp *first = pto_strmap_get(&loads, (const char *)k, len * sizeof *k);
    if (first) {
      pto_value_replace_all_uses(pto_op_result(op, 0), pto_op_result(first, 0));
      pto_op_erase(op);
      pto_free(k);
      shared++;
    } else {
      pto_strmap_put(&loads, (const char *)k, len * sizeof *k, op);
      pto_vec_push(&keys, k);
    }
  }
  pto_vec_foreach(&keys, k) pto_free(*k);
  pto_vec_free(&keys);
  pto_strmap_release(&loads);
  pto_ptrmap_release(&stored);
  return shared;
}

/* A symbol name not yet taken in the module. */
static PtoAttr *fresh_name(Merger *m, PtoOp *kernel, unsigned n) {
  const char *base = pto_ident_str(pto_op_symbol_name(kernel));
  size_t cap = strlen(base) + strlen(m->spec->suffix) + 48;
  char *name = pto_malloc(cap);
  snprintf(name, cap, "%s_%s%u", base, m->spec->suffix, n);
  for (unsigned k = 1; pto_symbol_lookup(m->module, name); k++)
    snprintf(name, cap, "%s_%s%u_%u", base, m->spec->suffix, n, k);
  PtoAttr *a = pto_attr_cstr(m->ctx, name);
  pto_free(name);
  return a;
}

/* The kernel running `kernel` n times in a row, its copy j taking the
 * merged kernel's arguments argidx[j * nargs + p] for its own p. */
static PtoOp *build_kernel(Merger *m, PtoOp *kernel, unsigned n,
                           const uint32_t *argidx, PtoType **types,
                           unsigned ntypes) {
  PtoContext *ctx = m->ctx;
  PtoOpState st;
  pto_op_state_init(&st, ctx, "block.kernel", pto_op_loc(kernel));
  for (unsigned i = 0; i < pto_op_num_attrs(kernel); i++) {
    PtoNamedAttr a = pto_op_attrs(kernel)[i];
    pto_op_state_set_attr(&st, a.name, a.value);
  }
  pto_op_state_add_attr(&st, "sym_name", fresh_name(m, kernel, n));
  if (!pto_op_attr(kernel, "merged_from"))
    pto_op_state_add_attr(&st, "merged_from",
                          pto_attr_cstr(ctx, pto_ident_str(pto_op_symbol_name(kernel))));
  pto_op_state_add_attr(&st, "function_type",
                        pto_attr_type(ctx, pto_type_function(ctx, types, ntypes,
                                                             NULL, 0)));
  PtoRegion *region = pto_op_state_add_region(&st);
  PtoBlock *body = pto_block_create(ctx);
  pto_region_push_block(region, body);
  PtoBlock *src = pto_region_first_block(pto_op_region(kernel, 0));
  for (unsigned i = 0; i < ntypes; i++)
    pto_block_add_arg(body, types[i], pto_op_loc(kernel));
  unsigned nargs = pto_block_num_args(src);
  PtoOp *term = pto_block_terminator(src);
  for (unsigned j = 0; j < n; j++) {
    PtoValueMap *map = pto_value_map_create();
    for (unsigned p = 0; p < nargs; p++)
      pto_value_map_set(map, pto_block_arg(src, p),
                        pto_block_arg(body, argidx[(size_t)j * nargs + p]));
    for (PtoOp *op = pto_block_first_op(src); op; op = pto_op_next(op))
      if (op != term) pto_block_append(body, pto_op_clone(op, map));
    pto_value_map_destroy(map);
  }
  if (term) pto_block_append(body, pto_op_clone(term, NULL));
  PtoOp *k = pto_op_create(&st);
  pto_block_insert_after(kernel, k);
  pto_ptrmap_put(&m->kernels, key_of(pto_op_symbol_name(k)), k);
  pto_pass_stat_add(m->pass, "kernels-created", 1);
  pto_pass_stat_add(m->pass, "loads-shared", share_loads(k));
  return k;
}

/* Replaces launches ls[0..n) of `kernel` by one launch where the last of
 * them was. The merged kernel's arguments: each distinct GM tensor once;
 * an index or scalar argument once when every launch passes the same
 * value, else once per launch. Merges of the same shape share a kernel. */
static void merge_group(Merger *m, PtoOp *kernel, PtoOp *const *ls, unsigned n) {
  PtoContext *ctx = m->ctx;
  unsigned nargs = pto_op_num_operands(ls[0]);
  uint32_t *argidx = pto_malloc(((size_t)n * nargs + 2) * sizeof *argidx);
  PTO_VEC(PtoValue *) vals = {0};
  PTO_VEC(PtoType *) types = {0};
  PtoPtrMap tensors;
  pto_ptrmap_init(&tensors);
  bool *common = pto_malloc((nargs ? nargs : 1) * sizeof *common);
  for (unsigned p = 0; p < nargs; p++) {
    common[p] = true;
    for (unsigned i = 1; i < n && common[p]; i++)
      common[p] = same_value(pto_op_operand(ls[i], p), pto_op_operand(ls[0], p));
  }
  for (unsigned j = 0; j < n; j++)
    for (unsigned p = 0; p < nargs; p++) {
      PtoValue *v = pto_op_operand(ls[j], p);
      uint32_t idx;
      if (pto_type_is_tensor(pto_value_type(v))) {
        void *known = pto_ptrmap_get(&tensors, key_of(v));
        idx = known ? (uint32_t)(uintptr_t)known - 1 : vals.len;
        if (!known) pto_ptrmap_put(&tensors, key_of(v), (void *)(uintptr_t)(idx + 1));
      } else if (j > 0 && common[p]) {
        idx = argidx[p];
      } else {
        idx = vals.len;
      }
      if (idx == vals.len) {
        pto_vec_push(&vals, v);
        pto_vec_push(&types, pto_value_type(v));
      }
      argidx[(size_t)j * nargs + p] = idx;
    }
  /* The key: the kernel, n and the argument numbering. */
  size_t klen = sizeof(uintptr_t) + ((size_t)n * nargs + 1) * sizeof(uint32_t);
  char *key = pto_malloc(klen);
  uintptr_t kp = (uintptr_t)kernel;
  memcpy(key, &kp, sizeof kp);
  uint32_t n32 = n;
  memcpy(key + sizeof kp, &n32, sizeof n32);
  memcpy(key + sizeof kp + sizeof n32, argidx, (size_t)n * nargs * sizeof(uint32_t));
  PtoOp *merged = pto_strmap_get(&m->merged, key, klen);
  if (merged) {
    pto_free(key);
  } else {
    merged = build_kernel(m, kernel, n, argidx, types.data, types.len);
    pto_strmap_put(&m->merged, key, klen, merged);
    pto_vec_push(&m->keys, key);
  }

  PtoOp *last = ls[n - 1];
  PtoOpState st;
  pto_op_state_init(&st, ctx, "block.launch", pto_op_loc(ls[0]));
  pto_op_state_add_operands(&st, vals.data, vals.len);
  for (unsigned i = 0; i < pto_op_num_attrs(ls[0]); i++) {
    PtoNamedAttr a = pto_op_attrs(ls[0])[i];
    pto_op_state_set_attr(&st, a.name, a.value);
  }
  pto_op_state_add_attr(&st, "callee",
                        pto_attr_symref(ctx, pto_op_symbol_name(merged), NULL, 0));
  pto_op_state_add_attr(&st, "reads",
                        union_regions(ctx, ls, n, argidx, nargs, "reads"));
  pto_op_state_add_attr(&st, "writes",
                        union_regions(ctx, ls, n, argidx, nargs, "writes"));
  pto_block_insert_before(last, pto_op_create(&st));
  for (unsigned j = 0; j < n; j++) pto_op_erase(ls[j]);
  void **uses = pto_ptrmap_find(&m->uses, key_of(kernel));
  if (uses) *uses = (void *)((uintptr_t)*uses - n);
  pto_ptrmap_put(&m->touched, key_of(kernel), kernel);
  pto_pass_stat_add(m->pass, "launches-after", 1 - (int64_t)n);
  pto_ptrmap_release(&tensors);
  pto_free(common);
  pto_vec_free(&vals);
  pto_vec_free(&types);
  pto_free(argidx);
}

/* The factor after the spec's limit: at least `limit` launches stay of
 * a run (none merge in a run of fewer), or a merged launch reads at most
 * `limit` bytes, the window all share counted once. */
static unsigned limited_factor(Merger *m, Run *run) {
  unsigned len = run->launches.len, f = (unsigned)run->factor;
  if (run->limit <= 0) return f;
  if (!m->spec->limit_is_bytes) {
    unsigned most = (unsigned)(len / run->limit);
    return most < f ? (most ? most : 1) : f;
  }
  PtoOp *first = run->launches.data[0];
  int64_t each = read_bytes(first, -1);
  int64_t shared = run->shared >= 0 ? read_bytes(first, run->shared) : 0;
  while (f > 1 && shared + (int64_t)f * (each - shared) > run->limit) f--;
  return f;
}

static void flush(Merger *m, Run *run) {
  unsigned len = run->launches.len, f = len ? limited_factor(m, run) : 1;
  for (unsigned i = 0; i + 1 < len; i += f) {
    unsigned n = len - i < f ? len - i : f;
    if (n >= 2) merge_group(m, run->kernel, run->launches.data + i, n);
  }
  pto_vec_clear(&run->launches);
  run->kernel = NULL;
  run->shared = -1;
}

/* Launches merge within one block, in runs separated by nothing that
 * touches GM: between them only effect-free ops and workspaces. */
static void merge_block(Merger *m, PtoBlock *b) {
  Run run = {.shared = -1};
  for (PtoOp *op = pto_block_first_op(b), *next; op && !m->failed; op = next) {
    next = pto_op_next(op);
    if (!pto_op_is(op, "block.launch")) {
      if (!(pto_op_is_effect_free(op) && !pto_op_num_regions(op)) &&
          !pto_op_is(op, "block.workspace"))
        flush(m, &run);
      continue;
    }
    PtoAttr *callee = pto_op_attr(op, "callee");
    PtoOp *kernel = callee && pto_attr_kind(callee) == PTO_ATTR_SYMREF
                        ? pto_ptrmap_get(&m->kernels,
                                         key_of(pto_attr_symref_root(callee)))
                        : NULL;
    if (!kernel || pto_block_kernel_core(kernel) != m->spec->core) {
      flush(m, &run);
      continue;
    }
    pto_pass_stat_add(m->pass, "launches-before", 1);
    pto_pass_stat_add(m->pass, "launches-after", 1);
    int64_t factor = launch_factor(m, op, kernel);
    if (joins(m, &run, op, kernel, factor)) {
      pto_vec_push(&run.launches, op);
      continue;
    }
    flush(m, &run);
    if (factor >= 2) {
      run.kernel = kernel;
      run.factor = factor;
      run.limit = scope_option(op, m->spec->limit);
      pto_vec_push(&run.launches, op);
    }
  }
  if (!m->failed) flush(m, &run);
  pto_vec_free(&run.launches);
}

typedef struct Collect {
  Merger *m;
  PTO_VEC(PtoBlock *) blocks; /* the blocks holding launches */
  PtoPtrMap seen;
} Collect;

static PtoWalkResult collect(PtoOp *op, void *user) {
  Collect *c = user;
  if (pto_op_is(op, "block.kernel")) return PTO_WALK_SKIP;
  /* Launches and any other op naming a kernel keep it alive. */
  for (unsigned i = 0; i < pto_op_num_attrs(op); i++) {
    PtoAttr *a = pto_op_attrs(op)[i].value;
    PtoOp *k = pto_attr_kind(a) == PTO_ATTR_SYMREF
                   ? pto_ptrmap_get(&c->m->kernels, key_of(pto_attr_symref_root(a)))
                   : NULL;
    void **uses = k ? pto_ptrmap_find(&c->m->uses, key_of(k)) : NULL;
    if (uses) *uses = (void *)((uintptr_t)*uses + 1);
  }
  if (pto_op_is(op, "block.launch") &&
      !pto_ptrmap_contains(&c->seen, key_of(pto_op_block(op)))) {
    pto_ptrmap_put(&c->seen, key_of(pto_op_block(op)), op);
    pto_vec_push(&c->blocks, pto_op_block(op));
  }
  return PTO_WALK_ADVANCE;
}

const PtoPassOptionDef pto_block_merge_options[PTO_BLOCK_MERGE_NUM_OPTIONS] = {
    {"factor", PTO_OPT_INT, "1",
     "launches merged into one (overrides the PyPTO setting recorded on the "
     "IR; 1 leaves them apart)",
     1, PTO_BLOCK_MERGE_MAX_FACTOR, NULL},
};

const PtoPassStatDef pto_block_merge_statistics[PTO_BLOCK_MERGE_NUM_STATISTICS] = {
    {"launches-before", "launches of the pass's core type before the pass"},
    {"launches-after", "launches of the pass's core type after the pass"},
    {"kernels-created", "merged block.kernel ops created"},
    {"kernels-erased", "kernels erased because all their launches were merged"},
    {"loads-shared", "block.load ops a merged kernel does once instead of once per launch"},
};

PtoResult pto_block_merge_launches(PtoPass *pass, PtoOp *module,
                                   const PtoMergeSpec *spec) {
  Merger m = {.pass = pass, .ctx = pto_pass_ctx(pass), .spec = spec,
              .module = module};
  /* what the statistics say before, to tell whether anything merged */
  int64_t created = pto_pass_stat_get(pass, "kernels-created"),
          gone = pto_pass_stat_get(pass, "launches-before") -
                 pto_pass_stat_get(pass, "launches-after");
  m.option = pto_pass_option_is_set(pass, "factor")
                 ? pto_pass_option_int(pass, "factor")
                 : 0;
  m.dflt = pto_pass_option_int(pass, "factor");
  pto_ptrmap_init(&m.kernels);
  pto_ptrmap_init(&m.ordinal);
  pto_strmap_init(&m.merged);
  pto_ptrmap_init(&m.uses);
  pto_ptrmap_init(&m.touched);
  pto_op_walk(module, PTO_WALK_PRE, check_scope, &m);
  PtoBlock *top = pto_region_first_block(pto_op_region(module, 0));
  /* Kernels are numbered in module order for the settings; one made by
   * merging counts as the kernel it was made from (`merged_from`), so
   * that the numbers do not depend on which merges ran before. */
  int64_t ord = 0;
  PtoPtrMap origin_ord;
  pto_ptrmap_init(&origin_ord);
  for (PtoOp *op = top ? pto_block_first_op(top) : NULL; op; op = pto_op_next(op))
    if (pto_op_is(op, "block.kernel")) {
      PtoAttr *from = pto_op_attr(op, "merged_from");
      PtoIdent *origin = from && pto_attr_kind(from) == PTO_ATTR_STRING
                             ? pto_ident_cstr(m.ctx, pto_attr_str(from))
                             : pto_op_symbol_name(op);
      void *known = pto_ptrmap_get(&origin_ord, key_of(origin));
      if (!known) {
        known = (void *)(intptr_t)++ord;
        pto_ptrmap_put(&origin_ord, key_of(origin), known);
      }
      pto_ptrmap_put(&m.kernels, key_of(pto_op_symbol_name(op)), op);
      pto_ptrmap_put(&m.ordinal, key_of(op), known);
      pto_ptrmap_put(&m.uses, key_of(op), (void *)(uintptr_t)1);
    }
  pto_ptrmap_release(&origin_ord);
  Collect c = {.m = &m, .blocks = {0}};
  pto_ptrmap_init(&c.seen);
  pto_op_walk(module, PTO_WALK_PRE, collect, &c);
  for (uint32_t i = 0; i < c.blocks.len && !m.failed; i++)
    merge_block(&m, c.blocks.data[i]);
  pto_ptrmap_release(&c.seen);
  pto_vec_free(&c.blocks);
  /* A kernel whose launches were all merged is not needed any more. */
  uint64_t k;
  void *left;
  for (uint32_t it = 0; !m.failed && pto_ptrmap_next(&m.uses, &it, &k, &left);)
    if ((uintptr_t)left == 1 && pto_ptrmap_contains(&m.touched, k)) {
      pto_op_erase((PtoOp *)(uintptr_t)k);
      pto_pass_stat_add(pass, "kernels-erased", 1);
    }
  if (!m.failed && pto_pass_stat_get(pass, "kernels-created") == created &&
      pto_pass_stat_get(pass, "launches-before") -
              pto_pass_stat_get(pass, "launches-after") == gone)
    pto_pass_mark_unchanged(pass);
  pto_vec_foreach(&m.keys, k) pto_free(*k);
  pto_vec_free(&m.keys);
  pto_strmap_release(&m.merged);
  pto_ptrmap_release(&m.ordinal);
  pto_ptrmap_release(&m.uses);
  pto_ptrmap_release(&m.touched);
  pto_ptrmap_release(&m.kernels);
  return m.failed ? PTO_FAILURE : PTO_SUCCESS;
}
