/* The SVG swimlane of a run, written with libxml2's xmlTextWriter: one
 * lane per core, tasks coloured by semantic label (with a tooltip each), a
 * legend and a time axis. Opens in any browser. */
#include "Internal.h"

#include <libxml/xmlwriter.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { WIDTH = 1200, LEFT = 90, RIGHT = 20, TOP = 30, LANE = 14,
       MAX_SHOWN = 200000 };

/* Distinct, readable fills; labels beyond the palette reuse it. */
static const char *const palette[] = {
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
    "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#1f77b4", "#d62728"};
enum { NCOLOURS = sizeof palette / sizeof palette[0] };

static int attr(xmlTextWriterPtr w, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int attr(xmlTextWriterPtr w, const char *name, const char *fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return xmlTextWriterWriteAttribute(w, BAD_CAST name, BAD_CAST buf);
}

/* A round step for about `ticks` axis divisions of `span`. */
static double nice_step(double span, int ticks) {
  double raw = span / ticks, mag = pow(10, floor(log10(raw)));
  double m = raw / mag;
  return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * mag;
}

PtoRtStatus pto_timeline_write_svg(const PtoRtTimeline *tl, const char *path) {
  if (!tl || !path || !tl->valid || !tl->g->rt)
    return PTO_RT_ERR_MISUSE;
  const PtoGraph *g = tl->g;
  double u = tl->us_per_unit, end = 0;
  /* Lanes shown: those of core types that ran something (host: all). */
  bool type_used[PTO_RT_CORE_TYPE_COUNT] = {false};
  for (uint32_t i = 0; i < g->ntasks; i++)
    if (tl->lane[i] != RT_NONE) {
      /* As in the report: the run ends when the last completion does. */
      end = fmax(end, fmax(tl->times[(size_t)i * 5 + 3],
                           tl->times[(size_t)i * 5 + 4]) * u);
      if (tl->lane_core[tl->lane[i]] >= 0)
        type_used[tl->lane_core[tl->lane[i]]] = true;
    }
  uint32_t *row = malloc((tl->nlanes ? tl->nlanes : 1) * sizeof *row);
  /* Colour per label: the order labels first appear in. */
  uint32_t *colour_of = calloc(g->nlabels_bytes ? g->nlabels_bytes : 1, sizeof *colour_of);
  uint32_t *legend = malloc((g->nlabel_distinct + 1) * sizeof *legend);
  if (!row || !colour_of || !legend) {
    free(row), free(colour_of), free(legend);
    return PTO_RT_ERR_NOMEM;
  }
  uint32_t rows = 0;
  for (uint32_t l = 0; l < tl->nlanes; l++)
    row[l] = tl->lane_core[l] < 0 || type_used[tl->lane_core[l]] ? rows++ : RT_NONE;
  uint32_t nlegend = 0;
  for (uint32_t i = 0; i < g->ntasks; i++) {
    uint32_t lab = g->tasks[i].label;
    if (tl->lane[i] == RT_NONE || colour_of[lab])
      continue;
    legend[nlegend] = lab;
    colour_of[lab] = ++nlegend; /* 1-based; 0 is "not seen yet" */
  }
  if (end <= 0)
    end = 1;
  double plot = WIDTH - LEFT - RIGHT, scale = plot / end;
  int legend_rows = (int)((nlegend + 3) / 4);
  int height = TOP + (int)rows * LANE + 40 + legend_rows * 18 + 10;

  PtoRtStatus st = PTO_RT_ERR_IO;
  xmlTextWriterPtr w = xmlNewTextWriterFilename(path, 0);
  if (!w)
    goto out;
  xmlTextWriterSetIndent(w, 1);
  int ok = xmlTextWriterStartDocument(w, NULL, "UTF-8", NULL) >= 0;
  ok = ok && xmlTextWriterStartElement(w, BAD_CAST "svg") >= 0;
  ok = ok && attr(w, "xmlns", "http://www.w3.org/2000/svg") >= 0;
  ok = ok && attr(w, "width", "%d", WIDTH) >= 0;
  ok = ok && attr(w, "height", "%d", height) >= 0;
  ok = ok && attr(w, "font-family", "sans-serif") >= 0;
  ok = ok && attr(w, "font-size", "10") >= 0;
  /* Background, so that viewers with dark themes show the same picture. */
  ok = ok && xmlTextWriterStartElement(w, BAD_CAST "rect") >= 0 &&
       attr(w, "width", "100%%") >= 0 && attr(w, "height", "100%%") >= 0 &&
       attr(w, "fill", "white") >= 0 && xmlTextWriterEndElement(w) >= 0;
  char title[200];
  snprintf(title, sizeof title, "%s swimlane: %u tasks, makespan %.3f us",
           tl->backend == PTO_RT_SIM ? g->rt->platform.name : "host",
           g->nreal, end);
  ok = ok && xmlTextWriterStartElement(w, BAD_CAST "text") >= 0 &&
       attr(w, "x", "%d", LEFT) >= 0 && attr(w, "y", "16") >= 0 &&
       attr(w, "font-size", "13") >= 0 &&
       xmlTextWriterWriteString(w, BAD_CAST title) >= 0 &&
       xmlTextWriterEndElement(w) >= 0;
  /* Lanes: name and a light band. */
  for (uint32_t l = 0; l < tl->nlanes && ok; l++) {
    if (row[l] == RT_NONE)
      continue;
    int y = TOP + (int)row[l] * LANE;
    ok = xmlTextWriterStartElement(w, BAD_CAST "rect") >= 0 &&
         attr(w, "x", "%d", LEFT) >= 0 && attr(w, "y", "%d", y) >= 0 &&
         attr(w, "width", "%.0f", plot) >= 0 &&
         attr(w, "height", "%d", LANE - 1) >= 0 &&
         attr(w, "fill", row[l] % 2 ? "#f4f4f4" : "#ebebeb") >= 0 &&
         xmlTextWriterEndElement(w) >= 0 &&
         xmlTextWriterStartElement(w, BAD_CAST "text") >= 0 &&
         attr(w, "x", "%d", LEFT - 6) >= 0 &&
         attr(w, "y", "%d", y + LANE - 4) >= 0 &&
         attr(w, "text-anchor", "end") >= 0 &&
         xmlTextWriterWriteString(w, BAD_CAST tl->lane_names[l]) >= 0 &&
         xmlTextWriterEndElement(w) >= 0;
  }
  /* Tasks. */
  uint32_t shown = 0;
  for (uint32_t i = 0; i < g->ntasks && ok && shown < MAX_SHOWN; i++) {
    if (tl->lane[i] == RT_NONE || row[tl->lane[i]] == RT_NONE)
      continue;
    shown++;
    const double *t = &tl->times[(size_t)i * 5];
    double x = LEFT + t[2] * u * scale, wd = fmax((t[3] - t[2]) * u * scale, 0.5);
    const char *lab = rt_label(g, i);
    char tip[256];
    snprintf(tip, sizeof tip, "task %u %s%s%s on %s: %.3f-%.3f us", i,
             rt_task_name(g, i), *lab ? " " : "", lab,
             tl->lane_names[tl->lane[i]], t[2] * u, t[3] * u);
    ok = xmlTextWriterStartElement(w, BAD_CAST "rect") >= 0 &&
         attr(w, "x", "%.2f", x) >= 0 &&
         attr(w, "y", "%d", TOP + (int)row[tl->lane[i]] * LANE + 1) >= 0 &&
         attr(w, "width", "%.2f", wd) >= 0 &&
         attr(w, "height", "%d", LANE - 3) >= 0 &&
         attr(w, "fill", "%s",
              palette[(colour_of[g->tasks[i].label] - 1) % NCOLOURS]) >= 0 &&
         xmlTextWriterStartElement(w, BAD_CAST "title") >= 0 &&
         xmlTextWriterWriteString(w, BAD_CAST tip) >= 0 &&
         xmlTextWriterEndElement(w) >= 0 && xmlTextWriterEndElement(w) >= 0;
  }
  /* Time axis. */
  int ay = TOP + (int)rows * LANE + 4;
  ok = ok && xmlTextWriterStartElement(w, BAD_CAST "line") >= 0 &&
       attr(w, "x1", "%d", LEFT) >= 0 && attr(w, "y1", "%d", ay) >= 0 &&
       attr(w, "x2", "%.0f", LEFT + plot) >= 0 && attr(w, "y2", "%d", ay) >= 0 &&
       attr(w, "stroke", "black") >= 0 && xmlTextWriterEndElement(w) >= 0;
  double step = nice_step(end, 10);
  for (double tk = 0; tk <= end * 1.0001 && ok; tk += step) {
    double x = LEFT + tk * scale;
    char lbl[32];
    snprintf(lbl, sizeof lbl, "%g us", tk);
    ok = xmlTextWriterStartElement(w, BAD_CAST "line") >= 0 &&
         attr(w, "x1", "%.2f", x) >= 0 && attr(w, "y1", "%d", ay) >= 0 &&
         attr(w, "x2", "%.2f", x) >= 0 && attr(w, "y2", "%d", ay + 4) >= 0 &&
         attr(w, "stroke", "black") >= 0 && xmlTextWriterEndElement(w) >= 0 &&
         xmlTextWriterStartElement(w, BAD_CAST "text") >= 0 &&
         attr(w, "x", "%.2f", x) >= 0 && attr(w, "y", "%d", ay + 14) >= 0 &&
         attr(w, "text-anchor", "middle") >= 0 &&
         xmlTextWriterWriteString(w, BAD_CAST lbl) >= 0 &&
         xmlTextWriterEndElement(w) >= 0;
  }
  /* Legend: a swatch and the label, four to a row. */
  int ly = ay + 30;
  for (uint32_t k = 0; k < nlegend && ok; k++) {
    int x = LEFT + (int)(k % 4) * 260, y = ly + (int)(k / 4) * 18;
    const char *lab = g->labels + legend[k];
    ok = xmlTextWriterStartElement(w, BAD_CAST "rect") >= 0 &&
         attr(w, "x", "%d", x) >= 0 && attr(w, "y", "%d", y - 9) >= 0 &&
         attr(w, "width", "12") >= 0 && attr(w, "height", "10") >= 0 &&
         attr(w, "fill", "%s", palette[k % NCOLOURS]) >= 0 &&
         xmlTextWriterEndElement(w) >= 0 &&
         xmlTextWriterStartElement(w, BAD_CAST "text") >= 0 &&
         attr(w, "x", "%d", x + 16) >= 0 && attr(w, "y", "%d", y) >= 0 &&
         xmlTextWriterWriteString(w, BAD_CAST(*lab ? lab : "(no label)")) >= 0 &&
         xmlTextWriterEndElement(w) >= 0;
  }
  ok = ok && xmlTextWriterEndElement(w) >= 0 && xmlTextWriterEndDocument(w) >= 0;
  xmlFreeTextWriter(w);
  st = ok ? PTO_RT_OK : PTO_RT_ERR_IO;
out:
  free(row);
  free(colour_of);
  free(legend);
  return st;
}
