/* The per-context registry of passes and named pipelines, kept in a context
 * extension slot so that two contexts never share registrations. */
#include "Pass/PassInternal.h"

#include <stdlib.h>
#include <string.h>

static const char registry_key[] = "pto.pass-registry";

static void registry_destroy(void *p) {
  PassRegistry *r = p;
  pto_strmap_release(&r->names);
  pto_vec_free(&r->passes);
  pto_vec_free(&r->pipelines);
  pto_arena_release(&r->arena);
  pto_free(r);
}

PassRegistry *pto_pass_registry(PtoContext *ctx) {
  PassRegistry *r = pto_ctx_get_ext(ctx, registry_key);
  if (r) return r;
  r = pto_calloc(1, sizeof *r);
  pto_arena_init(&r->arena);
  pto_strmap_init(&r->names);
  pto_ctx_set_ext(ctx, registry_key, r, registry_destroy);
  return r;
}

const RegEntry *pto_pass_registry_find(PtoContext *ctx, const char *name,
                                       size_t len) {
  PassRegistry *r = pto_ctx_get_ext(ctx, registry_key);
  return r ? pto_strmap_get(&r->names, name, len) : NULL;
}

/* Pass and pipeline arguments: a letter, then letters, digits, '-', '_'.
 * No '.', so that `a.b(` in a pipeline always names an operation. */
static bool valid_argument(const char *s) {
  if (!s || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
    return false;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
          (*s >= '0' && *s <= '9') || *s == '-' || *s == '_'))
      return false;
  return true;
}

static PtoResult check_free(PtoContext *ctx, const char *what,
                            const char *argument) {
  if (!valid_argument(argument))
    return pto_emit_error(ctx, NULL,
                          "cannot register %s '%s': arguments start with a "
                          "letter and contain only letters, digits, '-' and "
                          "'_'",
                          what, argument ? argument : "");
  const RegEntry *e = pto_pass_registry_find(ctx, argument, strlen(argument));
  if (e)
    return pto_emit_error(ctx, NULL,
                          "cannot register %s '%s': the name is already taken "
                          "by a %s",
                          what, argument, e->pass ? "pass" : "pass pipeline");
  return PTO_SUCCESS;
}

static PtoResult check_options(PtoContext *ctx, const PtoPassDef *def) {
  if ((def->num_options && !def->options) ||
      (def->num_statistics && !def->statistics))
    return pto_emit_error(ctx, NULL,
                          "cannot register pass '%s': it declares options or "
                          "statistics without their table",
                          def->argument);
  for (unsigned i = 0; i < def->num_options; i++) {
    const PtoPassOptionDef *od = &def->options[i];
    if (!valid_argument(od->name))
      return pto_emit_error(ctx, NULL,
                            "pass '%s' declares an option with an invalid "
                            "name '%s'",
                            def->argument, od->name ? od->name : "");
    for (unsigned j = 0; j < i; j++)
      if (strcmp(def->options[j].name, od->name) == 0)
        return pto_emit_error(ctx, NULL,
                              "pass '%s' declares option '%s' twice",
                              def->argument, od->name);
    if (od->kind == PTO_OPT_ENUM && (!od->enum_values || !od->enum_values[0]))
      return pto_emit_error(ctx, NULL,
                            "enum option '%s' of pass '%s' has no values",
                            od->name, def->argument);
    if (od->min > od->max)
      return pto_emit_error(ctx, NULL,
                            "option '%s' of pass '%s' has an empty range "
                            "[%lld, %lld]",
                            od->name, def->argument, (long long)od->min,
                            (long long)od->max);
    PassOptValue v;
    PtoArena scratch;
    pto_arena_init(&scratch);
    char why[160];
    const char *dv = od->default_value ? od->default_value : "";
    const char *err = NULL;
    /* an empty default means the zero value (enums: the first value) */
    if (*dv)
      err = pto_pass_option_parse(od, dv, strlen(dv), &v, &scratch, why,
                                  sizeof why, NULL);
    pto_arena_release(&scratch);
    if (err)
      return pto_emit_error(ctx, NULL,
                            "invalid default value '%s' for option '%s' of "
                            "pass '%s': %s",
                            dv, od->name, def->argument, err);
  }
  for (unsigned i = 0; i < def->num_statistics; i++) {
    if (!def->statistics[i].name || !*def->statistics[i].name)
      return pto_emit_error(ctx, NULL,
                            "pass '%s' declares a statistic without a name",
                            def->argument);
    for (unsigned j = 0; j < i; j++)
      if (strcmp(def->statistics[j].name, def->statistics[i].name) == 0)
        return pto_emit_error(ctx, NULL,
                              "pass '%s' declares statistic '%s' twice",
                              def->argument, def->statistics[i].name);
  }
  return PTO_SUCCESS;
}

static int cmp_def(const void *a, const void *b) {
  return strcmp((*(const PtoPassDef *const *)a)->argument,
                (*(const PtoPassDef *const *)b)->argument);
}
static int cmp_pipeline(const void *a, const void *b) {
  return strcmp((*(NamedPipeline *const *)a)->argument,
                (*(NamedPipeline *const *)b)->argument);
}

/* A lowering names both levels and can mark what it produces. */
static PtoResult check_lowering(PtoContext *ctx, const PtoPassDef *def) {
  if (!def->level_from && !def->level_to) return PTO_SUCCESS;
  if (!def->level_from || !def->level_to || !*def->level_from || !*def->level_to)
    return pto_emit_error(ctx, NULL,
                          "cannot register pass '%s': a lowering names both "
                          "the level it reads and the level it produces",
                          def->argument);
  for (unsigned i = 0; i < def->num_options; i++)
    if (def->options[i].kind == PTO_OPT_BOOL &&
        strcmp(def->options[i].name, "provenance") == 0)
      return PTO_SUCCESS;
  return pto_emit_error(ctx, NULL,
                        "cannot register pass '%s': a lowering has a bool "
                        "option 'provenance'",
                        def->argument);
}

PtoResult pto_pass_register(PtoContext *ctx, const PtoPassDef *def) {
  if (!def || !def->run)
    return pto_emit_error(ctx, NULL,
                          "cannot register pass '%s': it has no run function",
                          def && def->argument ? def->argument : "");
  if (check_free(ctx, "pass", def->argument) || check_options(ctx, def) ||
      check_lowering(ctx, def))
    return PTO_FAILURE;
  PassRegistry *r = pto_pass_registry(ctx);
  RegEntry *e = pto_arena_zalloc(&r->arena, sizeof *e);
  e->pass = def;
  pto_strmap_put(&r->names, def->argument, strlen(def->argument), e);
  pto_vec_push(&r->passes, def);
  qsort(r->passes.data, r->passes.len, sizeof *r->passes.data, cmp_def);
  return PTO_SUCCESS;
}

PtoResult pto_pipeline_register(PtoContext *ctx, const char *argument,
                                const char *summary, const char *pipeline) {
  if (check_free(ctx, "pass pipeline", argument)) return PTO_FAILURE;
  PassRegistry *r = pto_pass_registry(ctx);
  NamedPipeline *p = pto_arena_zalloc(&r->arena, sizeof *p);
  p->argument = pto_arena_strndup(&r->arena, argument, strlen(argument));
  summary = summary ? summary : "";
  pipeline = pipeline ? pipeline : "";
  p->summary = pto_arena_strndup(&r->arena, summary, strlen(summary));
  p->text = pto_arena_strndup(&r->arena, pipeline, strlen(pipeline));
  RegEntry *e = pto_arena_zalloc(&r->arena, sizeof *e);
  e->pipeline = p;
  pto_strmap_put(&r->names, p->argument, strlen(p->argument), e);
  pto_vec_push(&r->pipelines, p);
  qsort(r->pipelines.data, r->pipelines.len, sizeof *r->pipelines.data,
        cmp_pipeline);
  return PTO_SUCCESS;
}

const PtoPassDef *pto_pass_lookup(PtoContext *ctx, const char *argument) {
  const RegEntry *e = pto_pass_registry_find(ctx, argument, strlen(argument));
  return e ? e->pass : NULL;
}

unsigned pto_pass_list(PtoContext *ctx, const PtoPassDef ***out) {
  PassRegistry *r = pto_pass_registry(ctx);
  *out = pto_malloc((r->passes.len ? r->passes.len : 1) * sizeof **out);
  if (r->passes.len)
    memcpy(*out, r->passes.data, r->passes.len * sizeof **out);
  return r->passes.len;
}

unsigned pto_pipeline_count(PtoContext *ctx) {
  return pto_pass_registry(ctx)->pipelines.len;
}

void pto_pipeline_get(PtoContext *ctx, unsigned i, const char **argument,
                      const char **summary, const char **pipeline) {
  PassRegistry *r = pto_pass_registry(ctx);
  NamedPipeline *p = i < r->pipelines.len ? r->pipelines.data[i] : NULL;
  if (argument) *argument = p ? p->argument : NULL;
  if (summary) *summary = p ? p->summary : NULL;
  if (pipeline) *pipeline = p ? p->text : NULL;
}

const char *pto_pass_registry_suggest(PtoContext *ctx, const char *name,
                                      size_t len) {
  PassRegistry *r = pto_pass_registry(ctx);
  PtoSuggest sg;
  pto_suggest_init(&sg, name, len);
  for (uint32_t i = 0; i < r->passes.len; i++)
    pto_suggest_offer(&sg, r->passes.data[i]->argument);
  for (uint32_t i = 0; i < r->pipelines.len; i++)
    pto_suggest_offer(&sg, r->pipelines.data[i]->argument);
  return sg.best;
}

const char *pto_pass_suggest(PtoContext *ctx, const char *name) {
  return pto_pass_registry_suggest(ctx, name, strlen(name));
}
