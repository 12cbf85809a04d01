/* Diagnostics: building, handler dispatch, clang-style rendering. */
#include "IR/IRInternal.h"

#include <string.h>

typedef struct DiagNote {
  PtoLoc *loc;
  PtoStr msg;
} DiagNote;

struct PtoDiag {
  PtoContext *ctx;
  PtoDiagSeverity sev;
  PtoLoc *loc;
  PtoStr msg;
  PTO_VEC(DiagNote) notes;
};

void pto_ctx_push_diag_handler(PtoContext *ctx, PtoDiagHandlerFn fn,
                               void *user) {
  PtoDiagHandlerEntry e = {fn, user};
  pto_vec_push(&ctx->handlers, e);
}

void pto_ctx_pop_diag_handler(PtoContext *ctx) {
  if (ctx->handlers.len) ctx->handlers.len--;
}

void pto_ctx_set_diag_stream(PtoContext *ctx, FILE *f) { ctx->diag_stream = f; }
unsigned pto_ctx_num_errors(PtoContext *ctx) { return ctx->num_errors; }

static const char *sev_name(PtoDiagSeverity s) {
  switch (s) {
  case PTO_DIAG_ERROR:
    return "error";
  case PTO_DIAG_WARNING:
    return "warning";
  case PTO_DIAG_NOTE:
    return "note";
  case PTO_DIAG_REMARK:
    return "remark";
  }
  return "error";
}

static void render_one(PtoContext *ctx, PtoStr *s, PtoDiagSeverity sev,
                       PtoLoc *loc, const char *msg) {
  const char *file;
  unsigned line, col;
  bool has = pto_loc_get_file_line_col(loc, &file, &line, &col);
  if (has) {
    pto_str_printf(s, "%s:%u:%u: ", file, line, col);
  } else if (loc && loc->kind == PTO_LOC_NAME) {
    pto_str_printf(s, "%s: ", loc->u.name.name->str);
  } else {
    pto_str_puts(s, "<unknown>:0: ");
  }
  pto_str_printf(s, "%s: %s\n", sev_name(sev), msg);
  if (!has) return;
  const PtoSource *src = pto_ctx_find_source(ctx, file);
  const char *ls;
  size_t ll;
  if (!src || !pto_source_line(src, line, &ls, &ll)) return;
  pto_str_append(s, ls, ll);
  pto_str_putc(s, '\n');
  /* caret under the column; tabs kept so that the caret lines up */
  for (unsigned i = 1; i < col && i <= ll; i++)
    pto_str_putc(s, ls[i - 1] == '\t' ? '\t' : ' ');
  pto_str_puts(s, "^\n");
}

char *pto_diag_render(PtoContext *ctx, const PtoDiagInfo *d) {
  PtoStr s;
  pto_str_init(&s);
  render_one(ctx, &s, d->severity, d->loc, d->message);
  for (unsigned i = 0; i < d->num_notes; i++)
    render_one(ctx, &s, PTO_DIAG_NOTE, d->notes[i].loc, d->notes[i].message);
  return pto_str_take(&s);
}

PtoDiag *pto_diag_begin(PtoContext *ctx, PtoDiagSeverity sev, PtoLoc *loc) {
  PtoDiag *d = pto_calloc(1, sizeof *d);
  d->ctx = ctx;
  d->sev = sev;
  d->loc = loc ? loc : ctx->l_unknown;
  pto_str_init(&d->msg);
  return d;
}

void pto_diag_vprintf(PtoDiag *d, const char *fmt, va_list ap) {
  pto_str_vprintf(&d->msg, fmt, ap);
}

void pto_diag_printf(PtoDiag *d, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  pto_str_vprintf(&d->msg, fmt, ap);
  va_end(ap);
}

void pto_diag_print_type(PtoDiag *d, PtoType *t) {
  pto_print_type_to(&d->msg, t);
}
void pto_diag_print_attr(PtoDiag *d, PtoAttr *a) {
  pto_print_attr_to(&d->msg, a);
}

void pto_diag_note(PtoDiag *d, PtoLoc *loc, const char *fmt, ...) {
  DiagNote n;
  n.loc = loc ? loc : d->ctx->l_unknown;
  pto_str_init(&n.msg);
  va_list ap;
  va_start(ap, fmt);
  pto_str_vprintf(&n.msg, fmt, ap);
  va_end(ap);
  if (!n.msg.data) pto_str_puts(&n.msg, "");
  pto_vec_push(&d->notes, n);
}

PtoResult pto_diag_emit(PtoDiag *d) {
  PtoContext *ctx = d->ctx;
  if (!d->msg.data) pto_str_puts(&d->msg, "");
  PtoDiagInfo notes_buf[8];
  PtoDiagInfo *notes =
      d->notes.len <= 8 ? notes_buf : pto_malloc(d->notes.len * sizeof *notes);
  for (uint32_t i = 0; i < d->notes.len; i++) {
    notes[i].severity = PTO_DIAG_NOTE;
    notes[i].loc = d->notes.data[i].loc;
    notes[i].message = d->notes.data[i].msg.data;
    notes[i].num_notes = 0;
    notes[i].notes = NULL;
  }
  PtoDiagInfo info = {d->sev, d->loc, d->msg.data, d->notes.len, notes};
  if (d->sev == PTO_DIAG_ERROR) ctx->num_errors++;
  bool handled = false;
  for (uint32_t i = ctx->handlers.len; i-- > 0 && !handled;)
    handled = ctx->handlers.data[i].fn(&info, ctx->handlers.data[i].user);
  if (!handled && ctx->diag_stream) {
    char *text = pto_diag_render(ctx, &info);
    fputs(text, ctx->diag_stream);
    fflush(ctx->diag_stream);
    pto_free(text);
  }
  if (notes != notes_buf) pto_free(notes);
  PtoResult r = d->sev == PTO_DIAG_ERROR ? PTO_FAILURE : PTO_SUCCESS;
  for (uint32_t i = 0; i < d->notes.len; i++)
    pto_str_release(&d->notes.data[i].msg);
  pto_vec_free(&d->notes);
  pto_str_release(&d->msg);
  pto_free(d);
  return r;
}

static PtoResult emit_v(PtoContext *ctx, PtoDiagSeverity sev, PtoLoc *loc,
                        const char *fmt, va_list ap) {
  PtoDiag *d = pto_diag_begin(ctx, sev, loc);
  pto_diag_vprintf(d, fmt, ap);
  return pto_diag_emit(d);
}

PtoResult pto_emit_error(PtoContext *ctx, PtoLoc *loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  PtoResult r = emit_v(ctx, PTO_DIAG_ERROR, loc, fmt, ap);
  va_end(ap);
  return r;
}

void pto_emit_warning(PtoContext *ctx, PtoLoc *loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit_v(ctx, PTO_DIAG_WARNING, loc, fmt, ap);
  va_end(ap);
}

void pto_emit_remark(PtoContext *ctx, PtoLoc *loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit_v(ctx, PTO_DIAG_REMARK, loc, fmt, ap);
  va_end(ap);
}

PtoDiag *pto_op_diag(PtoOp *op, PtoDiagSeverity sev, const char *fmt, ...) {
  PtoDiag *d = pto_diag_begin(op_ctx(op), sev, op_loc(op));
  pto_diag_printf(d, "'%s' op ", op->name->str);
  va_list ap;
  va_start(ap, fmt);
  pto_diag_vprintf(d, fmt, ap);
  va_end(ap);
  return d;
}

PtoResult pto_op_emit_error(PtoOp *op, const char *fmt, ...) {
  PtoDiag *d = pto_diag_begin(op_ctx(op), PTO_DIAG_ERROR, op_loc(op));
  pto_diag_printf(d, "'%s' op ", op->name->str);
  va_list ap;
  va_start(ap, fmt);
  pto_diag_vprintf(d, fmt, ap);
  va_end(ap);
  return pto_diag_emit(d);
}

/* ---- split input ---- */

unsigned pto_split_input(const char *text, size_t len, PtoSplitChunk **out) {
  PTO_VEC(PtoSplitChunk) chunks = {0};
  const char *start = text, *p = text, *end = text + len;
  unsigned line = 1, start_line = 1;
  while (p < end) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    const char *le = eol ? eol : end;
    /* a separator line: optional spaces, "// -----", optional dashes */
    const char *q = p;
    while (q < le && (*q == ' ' || *q == '\t')) q++;
    if (le - q >= 8 && memcmp(q, "// -----", 8) == 0) {
      const char *r = q + 8;
      while (r < le && (*r == '-' || *r == ' ' || *r == '\r')) r++;
      if (r == le) {
        PtoSplitChunk c = {start, (size_t)(p - start), start_line};
        pto_vec_push(&chunks, c);
        start = eol ? eol + 1 : end;
        start_line = line + 1;
      }
    }
    p = eol ? eol + 1 : end;
    line++;
  }
  PtoSplitChunk c = {start, (size_t)(end - start), start_line};
  pto_vec_push(&chunks, c);
  *out = chunks.data;
  return chunks.len;
}
