/* What the Graphviz-writing passes (print-op-graph, print-kernel-graph)
 * share: escaping for DOT strings and writing the graph to the `output`
 * option's file or, by default, standard error. */
#ifndef PTO_TRANSFORMS_DOTOUTPUT_H
#define PTO_TRANSFORMS_DOTOUTPUT_H

#include "pto/Pass.h"

#include "Support/Str.h"

/* Appends s[0, n) escaped for a DOT double-quoted string. */
void pto_dot_escape(PtoStr *out, const char *s, size_t n);
/* Writes `text` where the pass's `output` option says ("" or "-": stderr,
 * so that the IR on stdout stays clean); reports a file that cannot be
 * written at `module`. */
PtoResult pto_dot_write(PtoPass *pass, PtoOp *module, const PtoStr *text);

#endif
