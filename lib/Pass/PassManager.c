/* The pass manager: a list of passes and nested managers anchored on an op
 * name. A nested manager runs on every op of its name directly inside the
 * ops its parent runs on. Passes run pass by pass over all those ops, so
 * that every stage of the pipeline exists as a whole (for dumps and
 * reports); each op is verified after each pass that changed it and the
 * run stops at the first failure. */
#include "Pass/PassInternal.h"

#include <string.h>

static PtoPassManager *pm_new(PtoContext *ctx, PtoIdent *anchor,
                              PtoPassManager *parent) {
  PtoPassManager *pm = pto_calloc(1, sizeof *pm);
  pm->ctx = ctx;
  pm->anchor = anchor;
  pm->any = strcmp(pto_ident_str(anchor), "any") == 0;
  pm->parent = parent;
  pm->root = parent ? parent->root : pm;
  return pm;
}

PtoPassManager *pto_pm_create(PtoContext *ctx, const char *anchor) {
  PtoPassManager *pm =
      pm_new(ctx, pto_ident_cstr(ctx, anchor ? anchor : "builtin.module"), NULL);
  pm->verify_each = true;
  pm->ins.print_after_failure = true;
  return pm;
}

void pto_pm_destroy(PtoPassManager *pm) {
  if (!pm) return;
  pto_vec_foreach(&pm->entries, e) {
    pto_pass_destroy(e->pass);
    pto_pm_destroy(e->nested);
  }
  pto_vec_free(&pm->entries);
  pto_vec_foreach(&pm->timings, t) pto_free(t->name);
  pto_vec_free(&pm->timings);
  pto_free(pm->print_before);
  pto_free(pm->print_after);
  pto_free(pm->dump_dir);
  pto_free(pm);
}

PtoPassManager *pto_pm_nest(PtoPassManager *pm, const char *op_name) {
  PtoIdent *anchor = pto_ident_cstr(pm->ctx, op_name);
  if (pm->entries.len) {
    PmEntry *last = &pto_vec_last(&pm->entries);
    if (last->nested && last->nested->anchor == anchor) return last->nested;
  }
  PmEntry e = {NULL, pm_new(pm->ctx, anchor, pm), 0};
  pto_vec_push(&pm->entries, e);
  return e.nested;
}

PtoResult pto_pm_add_pass_instance(PtoPassManager *pm, PtoPass *pass,
                                   PtoLoc *loc) {
  const char *anchor = pass->def->anchor;
  if (anchor && !pm->any && strcmp(anchor, pto_ident_str(pm->anchor)) != 0) {
    for (PtoPassManager *p = pm->parent; p; p = p->parent)
      if (strcmp(anchor, pto_ident_str(p->anchor)) == 0) {
        pto_emit_error(pm->ctx, loc,
                       "pass '%s' runs on '%s' operations and cannot run "
                       "inside the pipeline of '%s'",
                       pass->def->argument, anchor, pto_ident_str(pm->anchor));
        pto_pass_destroy(pass);
        return PTO_FAILURE;
      }
    pm = pto_pm_nest(pm, anchor);
  }
  PmEntry e = {pass, NULL, 0};
  pto_vec_push(&pm->entries, e);
  return PTO_SUCCESS;
}

static void reparent(PtoPassManager *pm, PtoPassManager *parent) {
  pm->parent = parent;
  pm->root = parent->root;
  pto_vec_foreach(&pm->entries, e) if (e->nested) reparent(e->nested, pm);
}

void pto_pm_append_all(PtoPassManager *to, PtoPassManager *from) {
  pto_vec_foreach(&from->entries, e) {
    PmEntry *last = to->entries.len ? &pto_vec_last(&to->entries) : NULL;
    if (e->nested && last && last->nested &&
        last->nested->anchor == e->nested->anchor) {
      pto_pm_append_all(last->nested, e->nested);
      continue;
    }
    if (e->nested) reparent(e->nested, to);
    pto_vec_push(&to->entries, *e);
  }
  from->entries.len = 0;
  pto_pm_destroy(from);
}

void pto_pm_set_verify_each(PtoPassManager *pm, bool verify) {
  pm->root->verify_each = verify;
}

void pto_pm_set_verify_roundtrip(PtoPassManager *pm, bool on) {
  pm->root->verify_roundtrip = on;
}

static char *dup_or_null(const char *s) {
  return s ? pto_strndup(s, strlen(s)) : NULL;
}

void pto_pm_set_instrumentation(PtoPassManager *pm,
                                const PtoInstrumentation *ins) {
  PtoPassManager *root = pm->root;
  pto_free(root->print_before);
  pto_free(root->print_after);
  pto_free(root->dump_dir);
  root->ins = *ins;
  root->print_before = dup_or_null(ins->print_before);
  root->print_after = dup_or_null(ins->print_after);
  root->dump_dir = dup_or_null(ins->dump_dir);
  root->ins.print_before = root->print_before;
  root->ins.print_after = root->print_after;
  root->ins.dump_dir = root->dump_dir;
}

static TimingEntry *timing_slot(PtoPassManager *root, const char *name) {
  pto_vec_foreach(&root->timings, t) {
    if (!name ? !t->name : t->name && strcmp(t->name, name) == 0) return t;
  }
  TimingEntry t = {dup_or_null(name), 0};
  pto_vec_push(&root->timings, t);
  return &pto_vec_last(&root->timings);
}

void pto_pm_add_timing(PtoPassManager *pm, const char *name, double seconds) {
  timing_slot(pm->root, name)->seconds += seconds;
}

bool pto_pm_empty(PtoPassManager *pm) { return pm->entries.len == 0; }

static void pm_print(PtoPassManager *pm, PtoStr *s) {
  pto_str_printf(s, "%s(", pto_ident_str(pm->anchor));
  for (uint32_t i = 0; i < pm->entries.len; i++) {
    PmEntry *e = &pm->entries.data[i];
    if (i) pto_str_putc(s, ',');
    if (e->nested) {
      pm_print(e->nested, s);
    } else {
      pto_str_puts(s, e->pass->def->argument);
      pto_pass_print_options(e->pass, s);
    }
  }
  pto_str_putc(s, ')');
}

char *pto_pm_to_string(PtoPassManager *pm) {
  PtoStr s;
  pto_str_init(&s);
  pm_print(pm, &s);
  return pto_str_take(&s);
}

/* ------------------------------------------------------------------ */
/* Running                                                              */
/* ------------------------------------------------------------------ */

struct RunState {
  PtoPassManager *root;
  PtoOp *top;
  unsigned stage;
};

static bool wants_after(PtoPassManager *root, const char *arg) {
  const PtoInstrumentation *ins = &root->ins;
  if (ins->print_after_all || pto_ins_wants(root->print_after, arg))
    return true;
  /* --print-ir-after-change alone filters "after every pass" */
  return ins->print_after_change && !root->print_after;
}

static PtoResult run_pass(RunState *rs, PtoPassManager *pm, PtoPass *pass,
                          PtoOp *op) {
  PtoPassManager *root = rs->root;
  const PtoInstrumentation *ins = &root->ins;
  PtoContext *ctx = pm->ctx;
  const char *arg = pass->def->argument;
  if (ins->print_before_all || pto_ins_wants(root->print_before, arg))
    pto_ins_print_ir(root, "Before", pass, op, false);
  bool after = wants_after(root, arg);
  char *before = after && ins->print_after_change
                     ? pto_op_print_to_string(op, ins->print_flags)
                     : NULL;
  unsigned errors = pto_ctx_num_errors(ctx);
  double t0 = pto_now_seconds();
  pass->unchanged = false;
  PtoResult r = pass->def->run(pass, op);
  pass->seconds += pto_now_seconds() - t0;
  /* IR that verified before a pass that changed nothing still does */
  if (!r && root->verify_each && !pass->unchanged) {
    t0 = pto_now_seconds();
    r = pto_op_verify(op);
    pm->verify_seconds += pto_now_seconds() - t0;
    if (r)
      pto_emit_error(ctx, pto_op_loc(op),
                     "the IR does not verify after pass '%s'", arg);
  } else if (r && pto_ctx_num_errors(ctx) == errors) {
    pto_op_emit_error(op, "pass '%s' failed", arg);
  }
  if (r) {
    pto_free(before);
    if (ins->print_after_failure) pto_ins_print_ir(root, "After", pass, op, true);
    return PTO_FAILURE;
  }
  if (after) {
    bool print = true;
    if (before) {
      char *now = pto_op_print_to_string(op, ins->print_flags);
      print = strcmp(before, now) != 0;
      pto_free(now);
    }
    if (print) pto_ins_print_ir(root, "After", pass, op, false);
  }
  pto_free(before);
  return PTO_SUCCESS;
}

typedef PTO_VEC(PtoOp *) OpList;

static PtoResult run_pm(RunState *rs, PtoPassManager *pm, PtoOp *const *ops,
                        uint32_t n) {
  for (uint32_t k = 0; k < pm->entries.len; k++) {
    PmEntry *e = &pm->entries.data[k];
    if (e->pass) {
      const char *only = pm->any ? e->pass->def->anchor : NULL;
      for (uint32_t i = 0; i < n; i++)
        if ((!only || strcmp(only, pto_op_name_str(ops[i])) == 0) &&
            run_pass(rs, pm, e->pass, ops[i]))
          return PTO_FAILURE;
      rs->stage++;
      if (rs->root->dump_dir &&
          pto_ins_dump_stage(rs->root, rs->stage, e->pass->def->argument,
                             rs->top))
        return PTO_FAILURE;
      if (rs->root->verify_roundtrip &&
          pto_ins_check_roundtrip(rs->root, e->pass, rs->top))
        return PTO_FAILURE;
      if (rs->root->ins.after_stage &&
          rs->root->ins.after_stage(rs->stage, e->pass->def->argument,
                                    rs->top, rs->root->ins.after_stage_user))
        return PTO_FAILURE;
      continue;
    }
    /* the ops are gathered when the nested manager is reached, after the
     * passes before it have changed the IR */
    OpList inner = {0};
    for (uint32_t i = 0; i < n; i++)
      for (unsigned r = 0; r < pto_op_num_regions(ops[i]); r++)
        for (PtoBlock *b = pto_region_first_block(pto_op_region(ops[i], r)); b;
             b = pto_block_next(b))
          for (PtoOp *c = pto_block_first_op(b); c; c = pto_op_next(c))
            if (e->nested->any || pto_op_name(c) == e->nested->anchor)
              pto_vec_push(&inner, c);
    double t0 = pto_now_seconds();
    PtoResult r = run_pm(rs, e->nested, inner.data, inner.len);
    e->seconds += pto_now_seconds() - t0;
    pto_vec_free(&inner);
    if (r) return PTO_FAILURE;
  }
  return PTO_SUCCESS;
}

PtoResult pto_pm_run(PtoPassManager *pm, PtoOp *op) {
  if (!pm->any && pto_op_name(op) != pm->anchor)
    return pto_emit_error(pm->ctx, pto_op_loc(op),
                          "a pass manager anchored on '%s' cannot run on a "
                          "'%s' operation",
                          pto_ident_str(pm->anchor), pto_op_name_str(op));
  PtoPassManager *root = pm->root;
  timing_slot(root, NULL);
  RunState rs = {root, op, 0};
  if (root->dump_dir && pto_ins_prepare_dump_dir(root, op)) return PTO_FAILURE;
  if (root->verify_roundtrip && pto_ins_check_roundtrip(root, NULL, op))
    return PTO_FAILURE;
  return run_pm(&rs, pm, &op, 1);
}
