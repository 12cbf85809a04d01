/* Unit tests of the context (identifiers, dialect registry, extension
 * slots), the diagnostics API (handlers, rendering, counting, the
 * --verify-diagnostics and --split-input-file helpers) and of two contexts
 * used from two threads at once. */
#include "IRTestUtil.h"
#include "Test.h"

#include <pthread.h>

TEST(identifiers) {
  PtoContext *ctx = pto_ctx_create();
  PtoIdent *a = pto_ident_cstr(ctx, "abc");
  CHECK(a == pto_ident(ctx, "abcdef", 3) && a != pto_ident_cstr(ctx, "abd"));
  CHECK(strcmp(pto_ident_str(a), "abc") == 0 && pto_ident_len(a) == 3);
  PtoIdent *z = pto_ident(ctx, "a\0b", 3);
  CHECK(z != pto_ident_cstr(ctx, "a") && pto_ident_len(z) == 3);
  CHECK(strcmp(pto_ident_str(NULL), "") == 0 && pto_ident_len(NULL) == 0);
  pto_ctx_destroy(ctx);
}

static const PtoOpDef clash_ops[] = {
    {"ptotest.add", 0, 0, 0, 0, 0, PTO_AFFINITY_NONE, NULL, NULL, NULL, NULL,
     NULL, "clashes with ptotest.add"},
};
static const PtoDialectDef other_ptotest = {"ptotest", NULL, 0, NULL, NULL,
                                            NULL, NULL, NULL, "a second ptotest",
                                            NULL, 0};
static const PtoDialectDef clash = {"clash", clash_ops, 1, NULL, NULL, NULL,
                                    NULL, NULL, "registers an existing op",
                                    NULL, 0};

TEST(dialect_registry) {
  PtoContext *ctx = pto_ctx_create();
  CHECK(pto_ctx_num_dialects(ctx) == 1); /* builtin */
  CHECK(strcmp(pto_ctx_dialect(ctx, 0)->name, "builtin") == 0);
  CHECK(pto_ctx_lookup_op(ctx, "builtin.module") != NULL);
  pto_register_test_dialect(ctx);
  pto_register_test_dialect(ctx); /* the same definition again: a no-op */
  CHECK(pto_ctx_num_dialects(ctx) == 2 && pto_ctx_dialect(ctx, 2) == NULL);
  const PtoDialectDef *d = pto_ctx_lookup_dialect(ctx, "ptotestXYZ", 7);
  CHECK(d == pto_ctx_dialect(ctx, 1) && strcmp(d->name, "ptotest") == 0);
  CHECK(pto_ctx_lookup_dialect(ctx, "nope", 4) == NULL);
  CHECK(pto_ctx_lookup_op(ctx, "ptotest.add") != NULL);
  CHECK(pto_ctx_lookup_op(ctx, "ptotest.nope") == NULL);
  DiagCapture log;
  diag_capture_begin(&log, ctx);
  CHECK(pto_ctx_register_dialect(ctx, &other_ptotest) == PTO_FAILURE);
  CHECK(diag_capture_has(&log, "error: dialect 'ptotest' is already registered"));
  CHECK(pto_ctx_register_dialect(ctx, &clash) == PTO_FAILURE);
  CHECK(diag_capture_has(&log, "error: operation 'ptotest.add' is already registered"));
  diag_capture_end(&log);
  CHECK(pto_ctx_num_dialects(ctx) == 2 && pto_ctx_lookup_dialect(ctx, "clash", 5) == NULL);
  /* allow-unregistered is off by default */
  CHECK(!pto_ctx_get_allow_unregistered(ctx));
  pto_ctx_set_allow_unregistered(ctx, true);
  CHECK(pto_ctx_get_allow_unregistered(ctx));
  pto_ctx_destroy(ctx);
}

/* A dialect's declared attribute names are interned once per context and
 * reachable from each of its ops in constant time; an op of a dialect that
 * declares none has no table. */
TEST(dialect_attr_names) {
  PtoContext *c1 = pto_ctx_create(), *c2 = pto_ctx_create();
  pto_register_test_dialect(c1);
  pto_register_test_dialect(c2);
  PtoLoc *l1 = pto_loc_unknown(c1);
  PtoType *i32 = pto_type_int(c1, 32);
  PtoNamedAttr na = {pto_ident_cstr(c1, "value"), pto_attr_int(c1, i32, 7)};
  PtoOp *k = pto_op_create_simple(c1, "ptotest.constant", l1, NULL, 0, &i32, 1, &na, 1);
  PtoIdent *const *n1 = pto_op_dialect_attr_names(k);
  CHECK(n1 && n1[0] == pto_ident_cstr(c1, "value") && n1[1] == pto_ident_cstr(c1, "label"));
  CHECK(pto_op_attr_id(k, n1[0]) == na.value && pto_op_attr_id(k, n1[1]) == NULL);
  PtoType *i32b = pto_type_int(c2, 32);
  PtoNamedAttr nb = {pto_ident_cstr(c2, "value"), pto_attr_int(c2, i32b, 7)};
  PtoOp *k2 = pto_op_create_simple(c2, "ptotest.constant", pto_loc_unknown(c2), NULL, 0,
                                   &i32b, 1, &nb, 1);
  PtoIdent *const *n2 = pto_op_dialect_attr_names(k2);
  CHECK(n2 && n2 != n1 && n2[0] == pto_ident_cstr(c2, "value") && n2[0] != n1[0]);
  PtoOp *m = pto_op_create_simple(c1, "builtin.module", l1, NULL, 0, NULL, 0, NULL, 0);
  CHECK(pto_op_dialect_attr_names(m) == NULL);
  pto_op_destroy(k);
  pto_op_destroy(k2);
  pto_op_destroy(m);
  pto_ctx_destroy(c1);
  pto_ctx_destroy(c2);
}

static int destroyed;
static void count_destroy(void *p) {
  (void)p;
  destroyed++;
}

TEST(extension_slots) {
  PtoContext *ctx = pto_ctx_create();
  int a, b;
  destroyed = 0;
  CHECK(pto_ctx_get_ext(ctx, "k") == NULL);
  pto_ctx_set_ext(ctx, "k", &a, count_destroy);
  pto_ctx_set_ext(ctx, "other", &b, NULL);
  CHECK(pto_ctx_get_ext(ctx, "k") == &a && pto_ctx_get_ext(ctx, "other") == &b);
  pto_ctx_set_ext(ctx, "k", &a, count_destroy); /* same object: kept */
  CHECK(destroyed == 0);
  pto_ctx_set_ext(ctx, "k", &b, count_destroy); /* replaced: old destroyed */
  CHECK(destroyed == 1 && pto_ctx_get_ext(ctx, "k") == &b);
  pto_ctx_destroy(ctx);
  CHECK(destroyed == 2);
}

/* ---- diagnostics ---- */

typedef struct Seen {
  unsigned calls;
  bool handle;
  PtoDiagSeverity sev;
  char msg[256];
  unsigned notes;
} Seen;

static bool record(const PtoDiagInfo *d, void *user) {
  Seen *s = user;
  s->calls++;
  s->sev = d->severity;
  snprintf(s->msg, sizeof s->msg, "%s", d->message);
  s->notes = d->num_notes;
  return s->handle;
}

TEST(handlers_and_counting) {
  PtoContext *ctx = pto_ctx_create();
  FILE *out = tmpfile();
  pto_ctx_set_diag_stream(ctx, out);
  Seen outer = {0, true, PTO_DIAG_NOTE, "", 0}, inner = {0, false, PTO_DIAG_NOTE, "", 0};
  pto_ctx_push_diag_handler(ctx, record, &outer);
  pto_ctx_push_diag_handler(ctx, record, &inner);
  /* the newest handler sees it first; it declines, the next one handles */
  CHECK(pto_emit_error(ctx, NULL, "bad %d", 42) == PTO_FAILURE);
  CHECK(inner.calls == 1 && outer.calls == 1 && strcmp(outer.msg, "bad 42") == 0);
  CHECK(pto_ctx_num_errors(ctx) == 1);
  pto_emit_warning(ctx, NULL, "warn");
  pto_emit_remark(ctx, NULL, "remark");
  CHECK(outer.sev == PTO_DIAG_REMARK && pto_ctx_num_errors(ctx) == 1);
  /* a diagnostic built step by step, with notes */
  PtoDiag *d = pto_diag_begin(ctx, PTO_DIAG_ERROR, pto_loc_file(ctx, "f.pto", 2, 3));
  pto_diag_printf(d, "type ");
  pto_diag_print_type(d, pto_type_int(ctx, 8));
  pto_diag_printf(d, ", attr ");
  pto_diag_print_attr(d, pto_attr_i64(ctx, 5));
  pto_diag_note(d, NULL, "note %s", "one");
  pto_diag_note(d, pto_loc_file(ctx, "f.pto", 1, 1), "note two");
  CHECK(pto_diag_emit(d) == PTO_FAILURE);
  CHECK(strcmp(outer.msg, "type i8, attr 5") == 0 && outer.notes == 2);
  CHECK(pto_ctx_num_errors(ctx) == 2);
  /* a warning built the same way does not fail */
  d = pto_diag_begin(ctx, PTO_DIAG_WARNING, NULL);
  CHECK(pto_diag_emit(d) == PTO_SUCCESS && outer.msg[0] == 0);
  /* popped: the default handler prints to the stream */
  pto_ctx_pop_diag_handler(ctx);
  pto_ctx_pop_diag_handler(ctx);
  pto_ctx_pop_diag_handler(ctx); /* popping an empty stack is harmless */
  pto_emit_error(ctx, pto_loc_file(ctx, "g.pto", 4, 5), "printed");
  CHECK(pto_ctx_num_errors(ctx) == 3);
  fflush(out);
  rewind(out);
  char buf[256] = {0};
  CHECK(fread(buf, 1, sizeof buf - 1, out) > 0);
  CHECK_STR(buf, "g.pto:4:5: error: printed\n");
  fclose(out);
  /* no stream, no output (and no crash) */
  pto_ctx_set_diag_stream(ctx, NULL);
  pto_emit_error(ctx, NULL, "nowhere");
  pto_ctx_destroy(ctx);
}

TEST(rendering_with_sources) {
  PtoContext *ctx = pto_ctx_create();
  const char *src = "first line\n\tsecond line\r\nthird";
  pto_ctx_add_source(ctx, "s.pto", src, strlen(src));
  PtoDiagInfo note = {PTO_DIAG_NOTE, pto_loc_file(ctx, "s.pto", 3, 3), "see here", 0, NULL};
  PtoDiagInfo d = {PTO_DIAG_ERROR, pto_loc_file(ctx, "s.pto", 2, 3), "oops", 1, &note};
  char *s = pto_diag_render(ctx, &d);
  CHECK_STR(s, "s.pto:2:3: error: oops\n\tsecond line\n\t ^\n"
               "s.pto:3:3: note: see here\nthird\n  ^\n");
  pto_free(s);
  /* a line past the end, a column past the end of its line */
  PtoDiagInfo past = {PTO_DIAG_WARNING, pto_loc_file(ctx, "s.pto", 9, 1), "past", 0, NULL};
  s = pto_diag_render(ctx, &past);
  CHECK_STR(s, "s.pto:9:1: warning: past\n");
  pto_free(s);
  PtoDiagInfo wide = {PTO_DIAG_REMARK, pto_loc_file(ctx, "s.pto", 1, 40), "wide", 0, NULL};
  s = pto_diag_render(ctx, &wide);
  CHECK_STR(s, "s.pto:1:40: remark: wide\nfirst line\n          ^\n");
  pto_free(s);
  /* registering a name again replaces its text */
  pto_ctx_add_source(ctx, "s.pto", "new text", 8);
  PtoDiagInfo again = {PTO_DIAG_ERROR, pto_loc_file(ctx, "s.pto", 1, 5), "x", 0, NULL};
  s = pto_diag_render(ctx, &again);
  CHECK_STR(s, "s.pto:1:5: error: x\nnew text\n    ^\n");
  pto_free(s);
  /* a long line is shown as a window of 160 characters around the caret */
  char longline[1001];
  for (int i = 0; i < 1000; i++) longline[i] = (char)('a' + i % 26);
  longline[1000] = 0;
  pto_ctx_add_source(ctx, "long.pto", longline, 1000);
  PtoDiagInfo mid = {PTO_DIAG_ERROR, pto_loc_file(ctx, "long.pto", 1, 501), "m", 0, NULL};
  s = pto_diag_render(ctx, &mid);
  char expect[512];
  snprintf(expect, sizeof expect, "long.pto:1:501: error: m\n...%.160s...\n%*s^\n",
           longline + 420, 83, "");
  CHECK_STR(s, expect);
  pto_free(s);
  PtoDiagInfo start = {PTO_DIAG_ERROR, pto_loc_file(ctx, "long.pto", 1, 2), "m", 0, NULL};
  s = pto_diag_render(ctx, &start);
  snprintf(expect, sizeof expect, "long.pto:1:2: error: m\n%.160s...\n ^\n", longline);
  CHECK_STR(s, expect);
  pto_free(s);
  PtoDiagInfo end = {PTO_DIAG_ERROR, pto_loc_file(ctx, "long.pto", 1, 1000), "m", 0, NULL};
  s = pto_diag_render(ctx, &end);
  snprintf(expect, sizeof expect, "long.pto:1:1000: error: m\n...%.160s\n%*s^\n",
           longline + 840, 3 + 159, "");
  CHECK_STR(s, expect);
  pto_free(s);
  PtoDiagInfo named = {PTO_DIAG_ERROR, pto_loc_name(ctx, "nm", NULL), "y", 0, NULL};
  s = pto_diag_render(ctx, &named);
  CHECK_STR(s, "nm: error: y\n");
  pto_free(s);
  pto_ctx_destroy(ctx);
}

TEST(op_diagnostics) {
  PtoContext *ctx = test_ctx();
  PtoOp *m = parse(ctx, "\"x.op\"() : () -> ()\n");
  DiagCapture log;
  diag_capture_begin(&log, ctx);
  CHECK(pto_op_emit_error(module_op(m, 0), "has %s", "a problem") == PTO_FAILURE);
  CHECK_STR(log.text, "test.pto:1:1: error: 'x.op' op has a problem\n");
  PtoDiag *d = pto_op_diag(module_op(m, 0), PTO_DIAG_WARNING, "is %d", 7);
  pto_diag_note(d, pto_op_loc(m), "in the module");
  CHECK(pto_diag_emit(d) == PTO_SUCCESS);
  CHECK(diag_capture_has(&log, "test.pto:1:1: warning: 'x.op' op is 7\n"
                           "test.pto:1:1: note: in the module\n"));
  diag_capture_end(&log);
  pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

TEST(split_input) {
  const char *text = "a\n// -----\nb\n  // ----- ---\nc\n// ----- x\n";
  PtoSplitChunk *c;
  unsigned n = pto_split_input(text, strlen(text), &c);
  CHECK(n == 3);
  CHECK(c[0].first_line == 1 && c[0].len == 2 && strncmp(c[0].text, "a\n", 2) == 0);
  CHECK(c[1].first_line == 3 && strncmp(c[1].text, "b\n", c[1].len) == 0);
  /* a separator must be alone on its line: the last one is not */
  CHECK(c[2].first_line == 5 && strncmp(c[2].text, "c\n// ----- x\n", c[2].len) == 0);
  pto_free(c);
  n = pto_split_input("", 0, &c);
  CHECK(n == 1 && c[0].len == 0);
  pto_free(c);
  n = pto_split_input("// -----", 8, &c); /* no final newline */
  CHECK(n == 2 && c[0].len == 0 && c[1].len == 0);
  pto_free(c);
}

TEST(diagnostic_verifier_api) {
  PtoContext *ctx = pto_ctx_create();
  FILE *out = tmpfile();
  pto_ctx_set_diag_stream(ctx, out);
  const char *text = "x\n// expected-error@-1 {{bad}}\n// expected-warning {{w}}\n";
  PtoDiagVerifier *v = pto_diag_verifier_create(ctx, "v.pto", text, strlen(text), 10);
  pto_emit_error(ctx, pto_loc_file(ctx, "v.pto", 10, 1), "very bad");
  pto_emit_warning(ctx, pto_loc_file(ctx, "v.pto", 12, 4), "w");
  CHECK(pto_diag_verifier_finish(v) == PTO_SUCCESS);
  /* the verifier's handler is gone: this reaches the stream */
  pto_emit_remark(ctx, pto_loc_file(ctx, "v.pto", 1, 1), "after");
  v = pto_diag_verifier_create(ctx, "v.pto", text, strlen(text), 1);
  pto_emit_error(ctx, pto_loc_file(ctx, "v.pto", 1, 1), "bad");
  CHECK(pto_diag_verifier_finish(v) == PTO_FAILURE); /* the warning is missing */
  fflush(out);
  rewind(out);
  char buf[512] = {0};
  CHECK(fread(buf, 1, sizeof buf - 1, out) > 0);
  CHECK(strstr(buf, "v.pto:1:1: remark: after") != NULL);
  CHECK(strstr(buf, "v.pto:3:4: error: expected warning \"w\" was not produced") != NULL);
  fclose(out);
  pto_ctx_destroy(ctx);
}

/* ---- two contexts, two threads ---- */

typedef struct ThreadJob {
  int id;
  int ok;
} ThreadJob;

static void *work(void *arg) {
  ThreadJob *job = arg;
  for (int iter = 0; iter < 40; iter++) {
    PtoContext *ctx = test_ctx();
    pto_register_test_dialect(ctx);
    char src[512];
    snprintf(src, sizeof src,
             "%%0 = ptotest.constant %d : i32\n"
             "%%1 = ptotest.add %%0, %%0 : i32\n"
             "\"x.t\"(%%1) ({ ^bb0(%%x: tensor<%dx?xf32>): \"x.c\"(%%x) : "
             "(tensor<%dx?xf32>) -> () }) {v = [1, 2.5, \"s\"]} : (i32) -> ()\n",
             job->id * 100 + iter, job->id + 1, job->id + 1);
    DiagCapture log;
    diag_capture_begin(&log, ctx);
    PtoOp *m = parse(ctx, src);
    if (!m || pto_op_verify(m) || log.count) {
      job->ok = 0;
    } else {
      char *s = pto_op_print_to_string(m, PTO_PRINT_GENERIC);
      char expect[64];
      snprintf(expect, sizeof expect, "{value = %d : i32}", job->id * 100 + iter);
      if (!strstr(s, expect)) job->ok = 0;
      pto_free(s);
      /* errors are reported to this context's handler only */
      PtoOp *bad = parse(ctx, "\"x.y\"(%undefined) : (i32) -> ()");
      if (bad || log.count != 1) job->ok = 0;
    }
    diag_capture_end(&log);
    if (m) pto_op_destroy(m);
    pto_ctx_destroy(ctx);
  }
  return NULL;
}

TEST(two_contexts_two_threads) {
  pthread_t th[2];
  ThreadJob jobs[2] = {{1, 1}, {2, 1}};
  for (int i = 0; i < 2; i++) pthread_create(&th[i], NULL, work, &jobs[i]);
  for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
  CHECK(jobs[0].ok && jobs[1].ok);
}

RUN_TESTS(T(identifiers), T(dialect_registry), T(dialect_attr_names),
          T(extension_slots),
          T(handlers_and_counting), T(rendering_with_sources),
          T(op_diagnostics), T(split_input), T(diagnostic_verifier_api),
          T(two_contexts_two_threads))
