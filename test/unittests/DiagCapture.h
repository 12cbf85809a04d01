/* Captures a context's diagnostics as text ("loc: error: message" lines)
 * so that unit tests can check exact messages. */
#ifndef PTO_UNITTEST_DIAGCAPTURE_H
#define PTO_UNITTEST_DIAGCAPTURE_H

#include "pto/IR.h"

#include <string.h>

typedef struct DiagCapture {
  PtoContext *ctx;
  char text[8192];
  char last[8192]; /* what diag_capture_take returned */
  unsigned count;  /* diagnostics captured since diag_capture_begin */
} DiagCapture;

static inline bool diag_capture_fn(const PtoDiagInfo *d, void *user) {
  DiagCapture *c = user;
  char *s = pto_diag_render(c->ctx, d);
  size_t have = strlen(c->text);
  strncat(c->text, s, sizeof c->text - have - 1);
  pto_free(s);
  c->count++;
  return true;
}

static inline void diag_capture_begin(DiagCapture *c, PtoContext *ctx) {
  c->ctx = ctx;
  c->text[0] = 0;
  c->count = 0;
  pto_ctx_push_diag_handler(ctx, diag_capture_fn, c);
}

/* Stops capturing (the handler is popped). */
static inline void diag_capture_end(DiagCapture *c) {
  pto_ctx_pop_diag_handler(c->ctx);
}

/* Whether the text captured so far contains `needle`. */
static inline bool diag_capture_has(const DiagCapture *c, const char *needle) {
  return strstr(c->text, needle) != NULL;
}

/* Returns the captured text and clears it for the next check. */
static inline const char *diag_capture_take(DiagCapture *c) {
  memcpy(c->last, c->text, sizeof c->last);
  c->text[0] = 0;
  return c->last;
}

#endif
