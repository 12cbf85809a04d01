/* Reading a machine description: parse the XML with libxml2 (no network,
 * no DTD, no entities), validate it against the embedded RelaxNG schema,
 * then convert every quantity to its canonical unit with checks a schema
 * cannot express. The schema decides whether a file is valid; when it is
 * not, the loader's own reading usually says more precisely why, so that
 * message is preferred. */
#include "Target/Platform/PlatformInternal.h"

#include "Support/Alloc.h"

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/relaxng.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A description larger than this is certainly not one. */
#define MAX_FILE_BYTES (1u << 20)

typedef struct Loader {
  PtoPlatform *p;
  PtoPlatformError *err;
  bool failed;
} Loader;

static void vfail(Loader *L, unsigned line, const char *fmt, va_list ap) {
  if (L->failed) return;
  L->failed = true;
  L->err->line = line;
  vsnprintf(L->err->message, sizeof L->err->message, fmt, ap);
}

static bool fail(Loader *L, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool fail(Loader *L, unsigned line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfail(L, line, fmt, ap);
  va_end(ap);
  return false;
}

static unsigned line_of(const xmlNode *n) {
  long l = xmlGetLineNo(n);
  return l > 0 ? (unsigned)l : 0;
}

/* Keeps the first message libxml2 reports, without its trailing newline. */
static void on_xml_error(void *data, xmlErrorPtr e) {
  Loader *L = data;
  if (!e || L->failed || e->level == XML_ERR_WARNING) return;
  char msg[sizeof L->err->message];
  snprintf(msg, sizeof msg, "%s", e->message ? e->message : "invalid XML");
  size_t n = strlen(msg);
  while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' ')) msg[--n] = 0;
  fail(L, e->line > 0 ? (unsigned)e->line : 0, "%s", msg);
}

static void on_parser_error(void *ctx, xmlErrorPtr e) {
  xmlParserCtxtPtr c = ctx;
  on_xml_error(c->_private, e);
}

/* The first callback of a DOCTYPE, before any of its declarations is
 * read: refusing here means no entity is ever declared, let alone
 * expanded, and no external subset is fetched. */
static void refuse_doctype(void *ctx, const xmlChar *name,
                           const xmlChar *external_id,
                           const xmlChar *system_id) {
  xmlParserCtxtPtr c = ctx;
  fail(c->_private, c->input ? (unsigned)c->input->line : 0,
       "a platform file may not have a DOCTYPE (no DTD, no entities)");
  xmlStopParser(c);
}

static xmlDocPtr parse_xml(Loader *L, const char *xml, size_t len) {
  if (len == 0) return fail(L, 0, "the file is empty"), NULL;
  if (len > MAX_FILE_BYTES)
    return fail(L, 0, "the file is larger than %u bytes", MAX_FILE_BYTES),
           NULL;
  xmlParserCtxtPtr c = xmlCreateMemoryParserCtxt(xml, (int)len);
  if (!c) return fail(L, 0, "out of memory reading the XML"), NULL;
  c->_private = L;
  c->sax->internalSubset = refuse_doctype;
  c->sax->serror = on_parser_error;
  xmlCtxtUseOptions(c, XML_PARSE_NONET | XML_PARSE_NOWARNING |
                           XML_PARSE_NOCDATA | XML_PARSE_NOBLANKS);
  /* libxml2 raises its encoding and I/O errors without the parser
   * context, through its per-thread handler, whose default prints to
   * stderr: for the length of the parse that handler is ours, so that
   * they become this file's error and the library prints nothing. */
  xmlStructuredErrorFunc saved = xmlStructuredError;
  void *saved_data = xmlStructuredErrorContext;
  xmlSetStructuredErrorFunc(L, on_xml_error);
  xmlParseDocument(c);
  xmlSetStructuredErrorFunc(saved_data, saved);
  xmlDocPtr doc = c->myDoc;
  bool ok = c->wellFormed && !L->failed;
  xmlFreeParserCtxt(c);
  if (!ok) {
    fail(L, 0, "not well-formed XML");
    xmlFreeDoc(doc);
    return NULL;
  }
  return doc;
}

static bool validate(Loader *L, xmlDocPtr doc) {
  xmlRelaxNGParserCtxtPtr pc = xmlRelaxNGNewMemParserCtxt(
      pto_platform_schema_text, (int)strlen(pto_platform_schema_text));
  if (!pc) return fail(L, 0, "out of memory reading the schema");
  Loader schema_errors = {L->p, &(PtoPlatformError){{0}, 0, {0}}, false};
  xmlRelaxNGSetParserStructuredErrors(pc, on_xml_error, &schema_errors);
  xmlRelaxNGPtr schema = xmlRelaxNGParse(pc);
  xmlRelaxNGFreeParserCtxt(pc);
  /* The schema is part of the library: failing to read it is our bug. */
  if (!schema)
    return fail(L, 0, "internal error: the platform schema does not parse: %s",
                schema_errors.err->message);
  xmlRelaxNGValidCtxtPtr vc = xmlRelaxNGNewValidCtxt(schema);
  int rc = -1;
  if (vc) {
    xmlRelaxNGSetValidStructuredErrors(vc, on_xml_error, L);
    rc = xmlRelaxNGValidateDoc(vc, doc);
    xmlRelaxNGFreeValidCtxt(vc);
  }
  xmlRelaxNGFree(schema);
  if (rc != 0 && !L->failed) fail(L, 0, "the file does not match the schema");
  return rc == 0;
}

/* ---- reading values ---------------------------------------------------- */

static bool is_el(const xmlNode *n, const char *name) {
  return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

/* The attribute's text, or NULL when it is absent. Without entities an
 * attribute's value is a single text node. */
static const char *prop(const xmlNode *n, const char *name) {
  for (const xmlAttr *a = n->properties; a; a = a->next)
    if (strcmp((const char *)a->name, name) == 0)
      return a->children && a->children->content
                 ? (const char *)a->children->content
                 : "";
  return NULL;
}

static const char *need(Loader *L, const xmlNode *n, const char *name) {
  const char *v = prop(n, name);
  if (!v)
    fail(L, line_of(n), "<%s> has no '%s' attribute", (const char *)n->name,
         name);
  return v;
}

typedef enum Dim { DIM_BYTES, DIM_FREQ, DIM_CYCLES, DIM_BANDWIDTH,
                   DIM_RATE, DIM_RATIO, DIM_CUBE_RATE } Dim;

typedef struct Unit { Dim dim; const char *name; double scale; } Unit;
static const Unit units[] = {
    {DIM_BYTES, "B", 1},          {DIM_BYTES, "KiB", 1024.0},
    {DIM_BYTES, "MiB", 1048576.0}, {DIM_BYTES, "GiB", 1073741824.0},
    {DIM_FREQ, "Hz", 1},          {DIM_FREQ, "kHz", 1e3},
    {DIM_FREQ, "MHz", 1e6},       {DIM_FREQ, "GHz", 1e9},
    {DIM_CYCLES, "cycles", 1},    {DIM_BANDWIDTH, "B/cycle", 1},
    {DIM_RATE, "GB/s", 1e9},      {DIM_RATE, "TB/s", 1e12},
    {DIM_RATIO, "%", 0.01},       {DIM_CUBE_RATE, "fractal/cycle", 1},
};
static const char *const dim_names[] = {
    "size", "frequency", "latency", "bandwidth per core",
    "aggregate bandwidth", "ratio", "cube rate"};

/* "192 KiB" -> 196608 for DIM_BYTES. The value must be positive. */
static bool quantity(Loader *L, const xmlNode *n, const char *name, Dim dim,
                     double *out) {
  const char *s = need(L, n, name);
  if (!s) return false;
  unsigned line = line_of(n);
  const char *el = (const char *)n->name;
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || errno || !isfinite(v) || (*end && *end != ' '))
    return fail(L, line, "<%s %s=\"%s\">: not a number followed by a unit",
                el, name, s);
  if (*end == 0) {
    char example[64] = "";
    for (size_t i = 0; i < PTO_ARRAY_SIZE(units); i++)
      if (units[i].dim == dim) {
        snprintf(example, sizeof example, "'%s %s'", s, units[i].name);
        break;
      }
    return fail(L, line, "<%s %s=\"%s\">: the number has no unit; write e.g. %s",
                el, name, s, example);
  }
  const char *u = end + 1;
  const Unit *unit = NULL;
  for (size_t i = 0; i < PTO_ARRAY_SIZE(units); i++)
    if (units[i].dim == dim && strcmp(units[i].name, u) == 0) unit = &units[i];
  if (!unit) {
    char list[128] = "";
    size_t len = 0;
    for (size_t i = 0; i < PTO_ARRAY_SIZE(units); i++)
      if (units[i].dim == dim)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
                                len ? ", " : "", units[i].name);
    return fail(L, line, "<%s %s=\"%s\">: '%s' is not a unit of %s (%s)",
                el, name, s, u, dim_names[dim], list);
  }
  if (v <= 0)
    return fail(L, line, "<%s %s=\"%s\">: must be positive", el, name, s);
  *out = v * unit->scale;
  if (dim == DIM_RATIO && *out > 1)
    return fail(L, line, "<%s %s=\"%s\">: must be at most 100 %%", el, name,
                s);
  return true;
}

/* A quantity that must come out a whole number no larger than `max`. */
static bool whole(Loader *L, const xmlNode *n, const char *name, Dim dim,
                  double max, uint64_t *out) {
  double v;
  if (!quantity(L, n, name, dim, &v)) return false;
  if (v != floor(v) || v > max)
    return fail(L, line_of(n), "<%s %s=\"%s\">: must be a whole number of %s "
                "no larger than %.0f", (const char *)n->name, name,
                prop(n, name), dim == DIM_BYTES ? "bytes" : "cycles", max);
  *out = (uint64_t)v;
  return true;
}

static bool cycles(Loader *L, const xmlNode *n, const char *name,
                   unsigned *out) {
  uint64_t v;
  if (!whole(L, n, name, DIM_CYCLES, 1e9, &v)) return false;
  *out = (unsigned)v;
  return true;
}

/* A plain positive integer no larger than `max`. */
static bool count(Loader *L, const xmlNode *n, const char *name,
                  unsigned max, unsigned *out) {
  const char *s = need(L, n, name);
  if (!s) return false;
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (end == s || *end || errno)
    return fail(L, line_of(n), "<%s %s=\"%s\">: not an integer",
                (const char *)n->name, name, s);
  if (v <= 0 || v > (long)max)
    return fail(L, line_of(n), "<%s %s=\"%s\">: must be between 1 and %u",
                (const char *)n->name, name, s, max);
  *out = (unsigned)v;
  return true;
}

static bool name_copy(Loader *L, const xmlNode *n, const char *attr,
                      char *dst, size_t cap) {
  const char *s = need(L, n, attr);
  if (!s) return false;
  if (!*s || strlen(s) >= cap)
    return fail(L, line_of(n), "<%s %s=\"%s\">: must be 1 to %zu characters",
                (const char *)n->name, attr, s, cap - 1);
  memcpy(dst, s, strlen(s) + 1);
  return true;
}

static bool lookup(Loader *L, const xmlNode *n, const char *attr,
                   const char *what, const char *const *names, unsigned count,
                   unsigned *out) {
  const char *s = need(L, n, attr);
  if (!s) return false;
  for (unsigned i = 0; i < count; i++)
    if (strcmp(names[i], s) == 0) return *out = i, true;
  char list[128] = "";
  size_t len = 0;
  for (unsigned i = 0; i < count; i++)
    len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
                            i == 0 ? "" : i + 1 == count ? " or " : ", ",
                            names[i]);
  return fail(L, line_of(n), "<%s %s=\"%s\">: unknown %s (expected %s)",
              (const char *)n->name, attr, s, what, list);
}

static const char *const core_names[] = {"cube", "vector", "scheduler"};
static const char *const space_names[] = {"vec", "mat", "left", "right",
                                          "acc", "gm"};
static const char *const dtype_names[] = {"f16", "bf16", "f32", "i8", "i32"};

/* ---- one function per element ------------------------------------------ */

static bool read_cores(Loader *L, const xmlNode *el) {
  for (const xmlNode *n = el->children; n; n = n->next) {
    if (!is_el(n, "core")) continue;
    unsigned t, c;
    if (!lookup(L, n, "type", "core type", core_names, PTO_CORE_TYPE_COUNT, &t) ||
        !count(L, n, "count", 1u << 20, &c))
      return false;
    if (L->p->cores[t])
      return fail(L, line_of(n), "<core type=\"%s\"> is given twice",
                  core_names[t]);
    L->p->cores[t] = c;
    if (prop(n, "threads")) {
      if (t != PTO_CORE_SCHEDULER)
        return fail(L, line_of(n), "<core type=\"%s\">: only scheduler cores "
                    "have 'threads'", core_names[t]);
      if (!count(L, n, "threads", 1u << 20, &L->p->scheduler_threads))
        return false;
    }
  }
  for (unsigned t = 0; t < PTO_CORE_TYPE_COUNT; t++)
    if (!L->p->cores[t])
      return fail(L, line_of(el), "<cores> has no <core type=\"%s\">",
                  core_names[t]);
  if (!L->p->scheduler_threads)
    L->p->scheduler_threads = L->p->cores[PTO_CORE_SCHEDULER];
  return true;
}

static bool read_memory(Loader *L, const xmlNode *el) {
  for (const xmlNode *n = el->children; n; n = n->next) {
    if (!is_el(n, "buffer")) continue;
    unsigned s, core;
    if (!lookup(L, n, "space", "memory space", space_names,
                PTO_MEM_SPACE_COUNT, &s) ||
        !lookup(L, n, "core", "core type", core_names, PTO_CORE_TYPE_COUNT,
                &core))
      return false;
    PtoPlatformBuffer *b = &L->p->buffers[s];
    if (b->size_bytes)
      return fail(L, line_of(n), "<buffer space=\"%s\"> is given twice",
                  space_names[s]);
    bool cube_space = s != PTO_MEM_VEC;
    if (core != (cube_space ? PTO_CORE_CUBE : PTO_CORE_VECTOR))
      return fail(L, line_of(n), "<buffer space=\"%s\">: the %s buffer "
                  "belongs to the %s core", space_names[s], space_names[s],
                  cube_space ? "cube" : "vector");
    b->core = core;
    if (!whole(L, n, "size", DIM_BYTES, 1099511627776.0, &b->size_bytes) ||
        !whole(L, n, "align", DIM_BYTES, 1073741824.0, &b->align_bytes))
      return false;
    if (prop(n, "fractal") &&
        !whole(L, n, "fractal", DIM_BYTES, 1073741824.0, &b->fractal_bytes))
      return false;
    /* Allocators round offsets up to a multiple of the alignment and of
     * the ISA's own (both powers of two), so the larger one is both. */
    if (b->align_bytes & (b->align_bytes - 1))
      return fail(L, line_of(n), "<buffer space=\"%s\" align=\"%llu B\">: "
                  "the alignment must be a power of two", space_names[s],
                  (unsigned long long)b->align_bytes);
    if (b->align_bytes > b->size_bytes || b->fractal_bytes > b->size_bytes)
      return fail(L, line_of(n), "<buffer space=\"%s\">: alignment and fractal "
                  "must not exceed the size", space_names[s]);
  }
  for (unsigned s = 0; s < PTO_MEM_SPACE_COUNT; s++)
    if (!L->p->buffers[s].size_bytes)
      return fail(L, line_of(el), "<memory> has no <buffer space=\"%s\">",
                  space_names[s]);
  return true;
}

static bool read_paths(Loader *L, const xmlNode *el) {
  for (const xmlNode *n = el->children; n; n = n->next) {
    if (!is_el(n, "path")) continue;
    unsigned from, to;
    if (!lookup(L, n, "from", "memory space", space_names, 6, &from) ||
        !lookup(L, n, "to", "memory space", space_names, 6, &to))
      return false;
    if (from == to)
      return fail(L, line_of(n), "<path>: 'from' and 'to' are both '%s'",
                  space_names[from]);
    for (unsigned i = 0; i < L->p->num_paths; i++)
      if (L->p->paths[i].from == (PtoMemSpace)from &&
          L->p->paths[i].to == (PtoMemSpace)to)
        return fail(L, line_of(n), "<path from=\"%s\" to=\"%s\"> is given twice",
                    space_names[from], space_names[to]);
    if (L->p->num_paths == PTO_PLATFORM_MAX_PATHS)
      return fail(L, line_of(n), "more than %d paths", PTO_PLATFORM_MAX_PATHS);
    PtoPlatformPath *p = &L->p->paths[L->p->num_paths++];
    p->from = from;
    p->to = to;
    if (!quantity(L, n, "bandwidth", DIM_BANDWIDTH, &p->bytes_per_cycle))
      return false;
  }
  return true;
}

static bool read_cube(Loader *L, const xmlNode *el) {
  if (!count(L, el, "max-dim", 1u << 20, &L->p->cube_max_dim)) return false;
  for (const xmlNode *n = el->children; n; n = n->next) {
    if (!is_el(n, "fractal")) continue;
    if (L->p->num_fractals == PTO_PLATFORM_MAX_FRACTALS)
      return fail(L, line_of(n), "more than %d cube fractals",
                  PTO_PLATFORM_MAX_FRACTALS);
    PtoPlatformFractal *f = &L->p->fractals[L->p->num_fractals];
    unsigned in, acc;
    if (!lookup(L, n, "in", "element type", dtype_names, 5, &in) ||
        !lookup(L, n, "acc", "element type", dtype_names, 5, &acc) ||
        !count(L, n, "m", 4096, &f->m) || !count(L, n, "k", 4096, &f->k) ||
        !count(L, n, "n", 4096, &f->n) ||
        !quantity(L, n, "rate", DIM_CUBE_RATE, &f->per_cycle))
      return false;
    for (unsigned i = 0; i < L->p->num_fractals; i++)
      if (strcmp(L->p->fractals[i].in, dtype_names[in]) == 0)
        return fail(L, line_of(n), "<fractal in=\"%s\"> is given twice",
                    dtype_names[in]);
    snprintf(f->in, sizeof f->in, "%s", dtype_names[in]);
    snprintf(f->acc, sizeof f->acc, "%s", dtype_names[acc]);
    L->p->num_fractals++;
  }
  return true;
}

static bool read_vector(Loader *L, const xmlNode *el) {
  PtoPlatform *p = L->p;
  if (!whole(L, el, "repeat", DIM_BYTES, 1048576.0, &p->vector_repeat_bytes) ||
      !cycles(L, el, "default-latency", &p->vector_default_latency_cycles))
    return false;
  for (const xmlNode *n = el->children; n; n = n->next) {
    if (!is_el(n, "op")) continue;
    if (p->num_vector_ops == PTO_PLATFORM_MAX_VECTOR_OPS)
      return fail(L, line_of(n), "more than %d vector ops",
                  PTO_PLATFORM_MAX_VECTOR_OPS);
    PtoPlatformVectorOp *op = &p->vector_ops[p->num_vector_ops];
    if (!name_copy(L, n, "name", op->name, sizeof op->name) ||
        !cycles(L, n, "latency", &op->latency_cycles))
      return false;
    for (unsigned i = 0; i < p->num_vector_ops; i++)
      if (strcmp(p->vector_ops[i].name, op->name) == 0)
        return fail(L, line_of(n), "<op name=\"%s\"> is given twice", op->name);
    p->num_vector_ops++;
  }
  return true;
}

static bool read_platform(Loader *L, const xmlNode *root) {
  PtoPlatform *p = L->p;
  if (!is_el(root, "platform"))
    return fail(L, line_of(root), "the root element is <%s>, not <platform>",
                (const char *)root->name);
  if (!name_copy(L, root, "name", p->name, sizeof p->name)) return false;
  const char *format = need(L, root, "format");
  if (!format) return false;
  if (strcmp(format, "1") != 0)
    return fail(L, line_of(root), "<platform format=\"%s\">: this version "
                "reads format 1", format);
  bool have[6] = {0};
  for (const xmlNode *n = root->children; n; n = n->next) {
    if (n->type != XML_ELEMENT_NODE) continue;
    bool ok = true;
    if (is_el(n, "description")) {
      xmlChar *text = xmlNodeGetContent(n);
      size_t len = text ? strlen((const char *)text) : 0;
      if (len >= sizeof p->description)
        ok = fail(L, line_of(n), "<description> is longer than %zu characters",
                  sizeof p->description - 1);
      else if (text)
        memcpy(p->description, text, len + 1);
      xmlFree(text);
    } else if (is_el(n, "clock")) {
      ok = quantity(L, n, "frequency", DIM_FREQ, &p->clock_hz);
    } else if (is_el(n, "cores")) {
      ok = read_cores(L, n), have[0] = true;
    } else if (is_el(n, "memory")) {
      ok = read_memory(L, n), have[1] = true;
    } else if (is_el(n, "global-memory")) {
      double rl, wl;
      ok = quantity(L, n, "read-bandwidth", DIM_BANDWIDTH,
                    &p->gm_read_bytes_per_cycle) &&
           quantity(L, n, "read-latency", DIM_CYCLES, &rl) &&
           quantity(L, n, "write-latency", DIM_CYCLES, &wl) &&
           quantity(L, n, "aggregate-bandwidth", DIM_RATE,
                    &p->gm_aggregate_bytes_per_second) &&
           quantity(L, n, "efficiency", DIM_RATIO, &p->gm_efficiency) &&
           cycles(L, n, "read-latency", &p->gm_read_latency_cycles) &&
           cycles(L, n, "write-latency", &p->gm_write_latency_cycles);
    } else if (is_el(n, "l2")) {
      ok = quantity(L, n, "read-bandwidth", DIM_BANDWIDTH,
                    &p->l2_read_bytes_per_cycle) &&
           quantity(L, n, "write-bandwidth", DIM_BANDWIDTH,
                    &p->l2_write_bytes_per_cycle);
    } else if (is_el(n, "paths")) {
      ok = read_paths(L, n);
    } else if (is_el(n, "cube")) {
      ok = read_cube(L, n), have[2] = true;
    } else if (is_el(n, "vector")) {
      ok = read_vector(L, n), have[3] = true;
    } else if (is_el(n, "runtime")) {
      ok = cycles(L, n, "submit", &p->submit_cycles) &&
           cycles(L, n, "dispatch", &p->dispatch_cycles) &&
           cycles(L, n, "dependency", &p->dependency_cycles) &&
           cycles(L, n, "completion", &p->completion_cycles) &&
           count(L, n, "sync-events", 1024, &p->sync_events);
      have[4] = true;
    } else {
      ok = fail(L, line_of(n), "unknown element <%s> in <platform>",
                (const char *)n->name);
    }
    if (!ok) return false;
  }
  static const char *const required[] = {"cores", "memory", "cube", "vector",
                                         "runtime"};
  for (unsigned i = 0; i < PTO_ARRAY_SIZE(required); i++)
    if (!have[i])
      return fail(L, line_of(root), "<platform> has no <%s>", required[i]);
  return true;
}

bool pto_platform_parse(PtoPlatform *out, const char *xml, size_t len,
                        const char *file, PtoPlatformError *err) {
  PtoPlatformError scratch;
  if (!err) err = &scratch;
  memset(err, 0, sizeof *err);
  snprintf(err->file, sizeof err->file, "%s", file ? file : "<memory>");
  PtoPlatform *p = pto_calloc(1, sizeof *p);
  Loader L = {p, err, false};
  xmlDocPtr doc = parse_xml(&L, xml, len);
  bool ok = false;
  if (doc) {
    bool valid = validate(&L, doc);
    xmlNodePtr root = xmlDocGetRootElement(doc);
    if (!valid) {
      /* Prefer the loader's explanation of the same fault, when it has
       * one: libxml2 often says only "failed to validate attributes". */
      PtoPlatformError schema_err = *err;
      Loader again = {pto_calloc(1, sizeof *p), err, false};
      if (!root || read_platform(&again, root)) *err = schema_err;
      pto_free(again.p);
    } else {
      ok = root && read_platform(&L, root);
    }
    xmlFreeDoc(doc);
  }
  if (ok) {
    snprintf(p->source, sizeof p->source, "%s", file ? file : "<memory>");
    *out = *p;
  }
  pto_free(p);
  return ok;
}

bool pto_platform_load(PtoPlatform *out, const char *spec,
                       PtoPlatformError *err) {
  PtoPlatformError scratch;
  if (!err) err = &scratch;
  memset(err, 0, sizeof *err);
  if (!spec || !*spec) spec = PTO_PLATFORM_DEFAULT;
  size_t n = strlen(spec);
  bool is_path = strchr(spec, '/') || (n > 4 && strcmp(spec + n - 4, ".xml") == 0);
  if (!is_path) {
    const char *xml = pto_platform_builtin_xml(spec);
    if (!xml) {
      snprintf(err->file, sizeof err->file, "%s", spec);
      char list[128] = "";
      size_t len = 0;
      for (unsigned i = 0; i < pto_platform_builtin_count(); i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
                                i ? ", " : "", pto_platform_builtin_name(i));
      snprintf(err->message, sizeof err->message,
               "unknown platform '%s' (built in: %s; or give a file "
               "ending in .xml)", spec, list);
      return false;
    }
    char name[64];
    snprintf(name, sizeof name, "<built-in %s>", spec);
    if (!pto_platform_parse(out, xml, strlen(xml), name, err)) return false;
    snprintf(out->source, sizeof out->source, "built in");
    return true;
  }
  snprintf(err->file, sizeof err->file, "%s", spec);
  FILE *f = fopen(spec, "rb");
  if (!f) {
    snprintf(err->message, sizeof err->message, "cannot open: %s",
             strerror(errno));
    return false;
  }
  char *buf = pto_malloc(MAX_FILE_BYTES + 1);
  size_t len = fread(buf, 1, MAX_FILE_BYTES + 1, f);
  bool read_error = ferror(f);
  fclose(f);
  bool ok = false;
  if (read_error)
    snprintf(err->message, sizeof err->message, "cannot read the file");
  else
    ok = pto_platform_parse(out, buf, len, spec, err);
  pto_free(buf);
  return ok;
}
