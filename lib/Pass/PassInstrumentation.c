/* What the pass manager shows around passes: IR dumps before/after passes
 * and on failure, stage files in a dump directory, the print/parse
 * round-trip check, and the timing and statistics reports. */
#include "Pass/PassInternal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static FILE *out_of(PtoPassManager *root) {
  return root->ins.out ? root->ins.out : stderr;
}

/* Whether `argument` is one of the comma-separated names in `list`. */
bool pto_ins_wants(const char *list, const char *argument) {
  if (!list) return false;
  size_t n = strlen(argument);
  for (const char *p = list; *p;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == n && strncmp(p, argument, n) == 0) return true;
    if (!end) break;
    p = end + 1;
  }
  return false;
}

static void describe_op(PtoStr *s, PtoOp *op) {
  pto_str_printf(s, "('%s' operation", pto_op_name_str(op));
  PtoIdent *sym = pto_op_symbol_name(op);
  if (sym) pto_str_printf(s, ": @%s", pto_ident_str(sym));
  pto_str_putc(s, ')');
}

void pto_ins_print_ir(PtoPassManager *root, const char *when, PtoPass *pass,
                      PtoOp *op, bool failed) {
  PtoStr s;
  pto_str_init(&s);
  pto_str_printf(&s, "// -----// IR Dump %s %s%s ", when, pass->def->argument,
                 failed ? " Failed" : "");
  describe_op(&s, op);
  pto_str_puts(&s, " //----- //\n");
  /* IR a pass failed on may not verify: the generic form always prints */
  unsigned flags = root->ins.print_flags | (failed ? PTO_PRINT_GENERIC : 0);
  char *ir = pto_op_print_to_string(op, flags);
  pto_str_puts(&s, ir);
  pto_str_putc(&s, '\n');
  pto_free(ir);
  FILE *out = out_of(root);
  fwrite(s.data, 1, s.len, out);
  fflush(out);
  pto_str_release(&s);
}

/* ------------------------------------------------------------------ */
/* Dump directory                                                       */
/* ------------------------------------------------------------------ */

/* mkdir -p; on failure errno says why. */
static bool make_dirs(const char *path) {
  char *p = pto_strndup(path, strlen(path));
  bool ok = true;
  for (char *c = p + 1; ok && *c; c++) {
    if (*c != '/') continue;
    *c = 0;
    if (mkdir(p, 0777) != 0 && errno != EEXIST) ok = false;
    *c = '/';
  }
  if (ok && mkdir(p, 0777) != 0 && errno != EEXIST) ok = false;
  pto_free(p);
  struct stat st;
  if (ok && stat(path, &st) != 0) ok = false;
  if (ok && !S_ISDIR(st.st_mode)) {
    errno = ENOTDIR;
    ok = false;
  }
  return ok;
}

PtoResult pto_ins_prepare_dump_dir(PtoPassManager *root, PtoOp *op) {
  if (!make_dirs(root->dump_dir))
    return pto_emit_error(root->ctx, NULL,
                          "cannot create the dump directory '%s': %s",
                          root->dump_dir, strerror(errno));
  return pto_ins_dump_stage(root, 0, "input", op);
}

PtoResult pto_ins_dump_stage(PtoPassManager *root, unsigned stage,
                             const char *name, PtoOp *op) {
  PtoStr path;
  pto_str_init(&path);
  pto_str_printf(&path, "%s/%02u-%s.pto", root->dump_dir, stage, name);
  FILE *f = fopen(path.data, "wb");
  PtoResult r = PTO_SUCCESS;
  if (f) {
    char *ir = pto_op_print_to_string(op, root->ins.print_flags);
    size_t len = strlen(ir);
    if (fwrite(ir, 1, len, f) != len) r = PTO_FAILURE;
    if (fclose(f) != 0) r = PTO_FAILURE;
    pto_free(ir);
  } else {
    r = PTO_FAILURE;
  }
  if (r)
    pto_emit_error(root->ctx, NULL, "cannot write the IR dump '%s': %s",
                   path.data, strerror(errno));
  pto_str_release(&path);
  return r;
}

/* ------------------------------------------------------------------ */
/* Round trip                                                           */
/* ------------------------------------------------------------------ */

static void line_at(const char *s, unsigned line, PtoStr *out) {
  for (unsigned l = 1; l < line && s; l++) {
    s = strchr(s, '\n');
    if (s) s++;
  }
  if (!s || !*s) {
    pto_str_puts(out, "<end of text>");
    return;
  }
  const char *e = strchr(s, '\n');
  pto_str_append(out, s, e ? (size_t)(e - s) : strlen(s));
}

/* Parses `text` back and checks that the result prints, in the generic
 * form (which shows everything), as `expected` does. */
static PtoResult reparse(PtoPassManager *root, PtoOp *op, const char *text,
                         const char *form, const char *stage,
                         const char *expected) {
  PtoContext *ctx = root->ctx;
  static const char name[] = "<round-trip>";
  size_t len = strlen(text);
  pto_ctx_add_source(ctx, name, text, len);
  PtoParseOptions po = {name, 1};
  PtoOp *m = pto_parse_module(ctx, text, len, &po);
  if (!m)
    return pto_emit_error(ctx, pto_op_loc(op),
                          "the IR %s does not parse back from its %s form; "
                          "the printer and the parser disagree",
                          stage, form);
  PtoOp *again = m;
  if (!pto_op_is(op, "builtin.module")) {
    PtoBlock *b = pto_region_first_block(pto_op_region(m, 0));
    again = b ? pto_block_first_op(b) : NULL;
  }
  char *printed = again ? pto_op_print_to_string(again, PTO_PRINT_GENERIC)
                        : NULL;
  PtoResult r = PTO_SUCCESS;
  if (!printed || strcmp(printed, expected) != 0) {
    unsigned line = 1;
    const char *a = expected, *b = printed ? printed : "";
    while (*a && *a == *b) {
      if (*a == '\n') line++;
      a++, b++;
    }
    PtoStr was, now;
    pto_str_init(&was);
    pto_str_init(&now);
    line_at(expected, line, &was);
    line_at(printed ? printed : "", line, &now);
    r = pto_emit_error(ctx, pto_op_loc(op),
                       "the IR %s changes when printed in %s form and parsed "
                       "back; in generic form, line %u was\n  %s\nand is "
                       "now\n  %s",
                       stage, form, line, was.data, now.data);
    pto_str_release(&was);
    pto_str_release(&now);
  }
  pto_free(printed);
  pto_op_destroy(m);
  return r;
}

PtoResult pto_ins_check_roundtrip(PtoPassManager *root, PtoPass *pass,
                                  PtoOp *op) {
  char stage[200];
  if (pass)
    snprintf(stage, sizeof stage, "after pass '%s'", pass->def->argument);
  else
    snprintf(stage, sizeof stage, "of the input");
  char *custom = pto_op_print_to_string(op, 0);
  char *generic = pto_op_print_to_string(op, PTO_PRINT_GENERIC);
  PtoResult r = reparse(root, op, custom, "custom", stage, generic);
  if (!r) r = reparse(root, op, generic, "generic", stage, generic);
  pto_free(custom);
  pto_free(generic);
  return r;
}

/* ------------------------------------------------------------------ */
/* Reports                                                              */
/* ------------------------------------------------------------------ */

static void banner(PtoStr *s, const char *title) {
  static const char rule[] =
      "===-------------------------------------------------------------------"
      "------===\n";
  size_t pad = (77 - strlen(title)) / 2;
  pto_str_puts(s, rule);
  pto_str_indent(s, (unsigned)pad);
  pto_str_printf(s, "%s\n", title);
  pto_str_puts(s, rule);
}

static void time_line(PtoStr *s, double secs, double total, unsigned depth,
                      const char *name) {
  pto_str_printf(s, "  %9.4f (%5.1f%%)  ", secs,
                 total > 0 ? 100.0 * secs / total : 0.0);
  pto_str_indent(s, 2 * depth);
  pto_str_printf(s, "%s\n", name);
}

static double pm_total(PtoPassManager *pm) {
  double t = pm->verify_seconds;
  pto_vec_foreach(&pm->entries, e) t += e->nested ? e->seconds : e->pass->seconds;
  return t;
}

static void time_tree(PtoStr *s, PtoPassManager *pm, double total,
                      unsigned depth) {
  pto_vec_foreach(&pm->entries, e) {
    if (e->nested) {
      char name[300];
      snprintf(name, sizeof name, "'%s' Pipeline",
               pto_ident_str(e->nested->anchor));
      time_line(s, e->seconds, total, depth, name);
      time_tree(s, e->nested, total, depth + 1);
    } else {
      time_line(s, e->pass->seconds, total, depth, e->pass->def->argument);
    }
  }
  if (pm->root->verify_each && pm->entries.len)
    time_line(s, pm->verify_seconds, total, depth, "(verifier)");
}

static void timing_report(PtoPassManager *root, PtoStr *s) {
  double total = 0;
  bool has_pipeline = false;
  pto_vec_foreach(&root->timings, t) {
    if (t->name)
      total += t->seconds;
    else
      has_pipeline = true;
  }
  total += pm_total(root);
  banner(s, "... Pass execution timing report ...");
  pto_str_printf(s, "  Total Execution Time: %.4f seconds\n\n", total);
  pto_str_puts(s, "   ----Wall Time----  ----Name----\n");
  pto_vec_foreach(&root->timings, t) {
    if (t->name)
      time_line(s, t->seconds, total, 0, t->name);
    else
      time_tree(s, root, total, 0);
  }
  if (!has_pipeline) time_tree(s, root, total, 0);
  time_line(s, total, total, 0, "Total");
}

static void stats_tree(PtoStr *s, PtoPassManager *pm, unsigned depth) {
  pto_vec_foreach(&pm->entries, e) {
    pto_str_indent(s, 2 * depth);
    if (e->nested) {
      pto_str_printf(s, "'%s' Pipeline\n", pto_ident_str(e->nested->anchor));
      stats_tree(s, e->nested, depth + 1);
      continue;
    }
    const PtoPassDef *def = e->pass->def;
    pto_str_printf(s, "%s\n", def->argument);
    int width = 1;
    for (unsigned i = 0; i < def->num_statistics; i++) {
      char buf[32];
      int w = snprintf(buf, sizeof buf, "%lld", (long long)e->pass->stats[i]);
      if (w > width) width = w;
    }
    for (unsigned i = 0; i < def->num_statistics; i++) {
      pto_str_indent(s, 2 * depth + 2);
      pto_str_printf(s, "(S) %*lld %s", width, (long long)e->pass->stats[i],
                     def->statistics[i].name);
      if (def->statistics[i].description)
        pto_str_printf(s, " - %s", def->statistics[i].description);
      pto_str_putc(s, '\n');
    }
  }
}

void pto_pm_report(PtoPassManager *pm) {
  PtoPassManager *root = pm->root;
  PtoStr s;
  pto_str_init(&s);
  if (root->ins.statistics) {
    banner(&s, "... Pass statistics report ...");
    stats_tree(&s, root, 0);
  }
  if (root->ins.timing) timing_report(root, &s);
  if (s.len) {
    FILE *out = out_of(root);
    fwrite(s.data, 1, s.len, out);
    fflush(out);
  }
  pto_str_release(&s);
}
