/* The differential test of the JIT against the reference interpreter:
 * every pto instruction of the op table, with every element type its row
 * accepts, in small kernels of several tile shapes (1x1, odd sizes, GM
 * windows whose row stride is not the tile's), run through InterpPto and
 * through pto_translate_to_llvmir (as the host back end translates: for
 * x86-64 on such a host) + the JIT (8 and 16 f32 lanes) on the
 * same random inputs. Integer and data-movement results must match bit for
 * bit; floating-point ones within the bounds of docs/numerics.md, which
 * this test measures and prints, and with the interpreter's sign of zero
 * (inputs of mostly -0 and +0 make it show). An instruction the translation does not
 * take fails the test unless kNotTranslated lists it with the reason. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "DiagCapture.h"
#include "Dialect/PTO/PTOInternal.h"
#include "Test.h"
#include "pto/Dialects.h"
#include "pto/ExecutionEngine.h"
#include "pto/Float16.h"
#include "pto/Interp.h"
#include "pto/LLVMIR.h"
#include "pto/NdArray.h"

/* ---- what is not translated yet, and why ---- */

typedef struct NotTranslated {
  const char *label; /* a module's label: "mnemonic dtype[ variant]" */
  const char *reason;
} NotTranslated;

static const NotTranslated kNotTranslated[] = {
    {NULL, NULL},
};

static const NotTranslated *not_translated(const char *label) {
  for (size_t i = 0; kNotTranslated[i].label; i++)
    if (strcmp(kNotTranslated[i].label, label) == 0) return &kNotTranslated[i];
  return NULL;
}

/* ---- text ---- */

typedef struct Buf {
  char *s;
  size_t len, cap;
} Buf;

static void bprintf(Buf *b, const char *fmt, ...) {
  va_list ap;
  for (;;) {
    va_start(ap, fmt);
    int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0,
                      fmt, ap);
    va_end(ap);
    if (b->s && (size_t)n < b->cap - b->len) {
      b->len += (size_t)n;
      return;
    }
    b->cap = (b->cap + (size_t)n + 1) * 2;
    b->s = realloc(b->s, b->cap);
  }
}

/* The IR's spelling. */
static const char *dt_name(PtoDType dt) {
  switch (dt) {
  case PTO_DT_BOOL: return "i1";
  case PTO_DT_U8: return "ui8";
  case PTO_DT_U16: return "ui16";
  case PTO_DT_U32: return "ui32";
  case PTO_DT_U64: return "ui64";
  case PTO_DT_F8E4M3: return "f8E4M3FN";
  case PTO_DT_F8E5M2: return "f8E5M2";
  case PTO_DT_F8E8M0: return "f8E8M0FNU";
  default: return pto_dtype_name(dt);
  }
}
static bool dt_float(PtoDType dt) {
  return dt == PTO_DT_F32 || dt == PTO_DT_F16 || dt == PTO_DT_BF16;
}
static bool dt_f8(PtoDType dt) {
  return dt == PTO_DT_F8E4M3 || dt == PTO_DT_F8E5M2 || dt == PTO_DT_F8E8M0;
}

/* ---- random inputs ---- */

static uint64_t rng_ = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd_u64(void) {
  rng_ ^= rng_ << 13;
  rng_ ^= rng_ >> 7;
  rng_ ^= rng_ << 17;
  return rng_;
}
static double rnd_unit(void) { return (double)(rnd_u64() >> 11) * 0x1p-53; }

typedef enum Fill {
  FILL_RANDOM,   /* uniform in [-4, 4), floats with specials */
  FILL_POSITIVE, /* uniform in (0, 8), with specials (log, sqrt) */
  FILL_DYADIC,   /* k/8, |k| <= 32: sums of thousands are exact in f32 */
  FILL_TIES,     /* few distinct values, -0 and +0, one NaN: sorts */
  FILL_UNIFORM,  /* uniform in [-1, 1), no specials: random sums */
  FILL_SMALLINT, /* integers in [-4, 4]: products of products are exact */
  FILL_INT_EDGES, /* FILL_RANDOM, integers with 0, +-1, MIN, MAX and small
                   * multiples of powers of two among them: division, gcd */
  FILL_F8,        /* floats about the 8-bit floats' codes (f8_edge) */
  FILL_ZEROS,     /* mostly -0 and +0, with +-1, subnormals and infinities
                   * among them: where a result's sign of zero shows */
} Fill;

static void store_elem(PtoDType dt, void *p, int64_t i, double v) {
  switch (dt) {
  case PTO_DT_F32: ((float *)p)[i] = (float)v; break;
  case PTO_DT_F16: ((uint16_t *)p)[i] = pto_f32_to_f16_bits((float)v); break;
  case PTO_DT_BF16: ((uint16_t *)p)[i] = pto_f32_to_bf16_bits((float)v); break;
  case PTO_DT_I32: ((int32_t *)p)[i] = (int32_t)v; break;
  case PTO_DT_I16: ((int16_t *)p)[i] = (int16_t)v; break;
  case PTO_DT_I8: ((int8_t *)p)[i] = (int8_t)v; break;
  /* unsigned: modulo 2^bits, so that the signed fills reach past the
   * signed range (-1 is the largest value) */
  case PTO_DT_U32: ((uint32_t *)p)[i] = (uint32_t)(int64_t)v; break;
  case PTO_DT_U16: ((uint16_t *)p)[i] = (uint16_t)(int64_t)v; break;
  case PTO_DT_U8: ((uint8_t *)p)[i] = (uint8_t)(int64_t)v; break;
  case PTO_DT_I64: ((int64_t *)p)[i] = (int64_t)v; break;
  case PTO_DT_U64: ((uint64_t *)p)[i] = (uint64_t)(int64_t)v; break;
  default: ((uint8_t *)p)[i] = v != 0; break;
  }
}
static double load_elem(PtoDType dt, const void *p, int64_t i) {
  switch (dt) {
  case PTO_DT_F32: return ((const float *)p)[i];
  case PTO_DT_F16: return pto_f16_bits_to_f32(((const uint16_t *)p)[i]);
  case PTO_DT_BF16: return pto_bf16_bits_to_f32(((const uint16_t *)p)[i]);
  case PTO_DT_I32: return ((const int32_t *)p)[i];
  case PTO_DT_I16: return ((const int16_t *)p)[i];
  case PTO_DT_I8: return ((const int8_t *)p)[i];
  case PTO_DT_U32: return ((const uint32_t *)p)[i];
  case PTO_DT_U16: return ((const uint16_t *)p)[i];
  case PTO_DT_I64: return (double)((const int64_t *)p)[i];
  case PTO_DT_U64: return (double)((const uint64_t *)p)[i];
  default: return ((const uint8_t *)p)[i];
  }
}

static double special(void) {
  static const double s[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1e-40,
                             -3e-39, 70000.0, -1e30, 1.0, 88.5, -104.0};
  return s[rnd_u64() % (sizeof s / sizeof s[0])];
}

/* i64 (or ui64: the same bits, past 2^63 where i64 is negative) element
 * i, drawn as fill() draws the narrower integers but in integers (a
 * double does not hold every i64): any 64 bits; with
 * FILL_INT_EDGES also 0, +-1, MIN, MAX and small multiples of powers of
 * two; small ones for the other fills. */
static void fill_i64(void *p, int64_t i, Fill how) {
  int64_t v = (int64_t)rnd_u64();
  if (how == FILL_INT_EDGES && rnd_u64() % 4 == 0) {
    static const int64_t edge[] = {0, 1, -1, INT64_MIN, INT64_MAX};
    v = rnd_u64() % 2 ? edge[rnd_u64() % 5]
                      : (int64_t)((int)(rnd_u64() % 21) - 10) * ((int64_t)1 << (rnd_u64() % 60));
  } else if (how != FILL_RANDOM && how != FILL_POSITIVE && how != FILL_INT_EDGES) {
    v = (int64_t)(rnd_u64() % 9) - 4;
  }
  ((int64_t *)p)[i] = v;
}

/* A value about the codes of a random 8-bit format: a code's value, the
 * midpoint to the next magnitude (a tie; past the largest finite value
 * too), or just off either, with a random sign; now and then a special. */
static double f8_edge(void) {
  static const PtoDType fmts[] = {PTO_DT_F8E4M3, PTO_DT_F8E5M2, PTO_DT_F8E8M0};
  PtoDType f = fmts[rnd_u64() % 3];
  unsigned max = f == PTO_DT_F8E4M3 ? 0x7e : f == PTO_DT_F8E5M2 ? 0x7b : 0xfe;
  uint8_t k = (uint8_t)(rnd_u64() % (max + 1)), k1 = (uint8_t)(k + 1), k0 = (uint8_t)(k - 1);
  double lo = pto_dtype_load_f64(f, &k, 0);
  double hi = f == PTO_DT_F8E8M0 ? 2 * lo
              : k < max          ? pto_dtype_load_f64(f, &k1, 0)
                                 : 2 * lo - pto_dtype_load_f64(f, &k0, 0);
  double mid = (lo + hi) / 2;
  const double pick[] = {lo, mid, mid * (1 + 0x1p-14), mid * (1 - 0x1p-14),
                         lo * (1 + 0x1p-14), hi};
  double v = rnd_u64() % 8 == 0 ? special() : pick[rnd_u64() % 6];
  return rnd_u64() % (f == PTO_DT_F8E8M0 ? 8 : 2) == 0 ? -v : v;
}

static void fill(PtoDType dt, void *p, int64_t n, Fill how) {
  /* an 8-bit float: every code in turn from a random one (NaNs,
   * infinities, subnormals, both zeros) */
  uint8_t start = (uint8_t)rnd_u64();
  for (int64_t i = 0; i < n; i++) {
    double v;
    if (dt == PTO_DT_I64 || dt == PTO_DT_U64) {
      fill_i64(p, i, how);
      continue;
    }
    if (dt_f8(dt)) {
      ((uint8_t *)p)[i] = (uint8_t)(start + i);
      continue;
    }
    if (dt == PTO_DT_BOOL) {
      v = (double)(rnd_u64() & 1);
    } else if (!dt_float(dt)) {
      unsigned bits = 8 * (unsigned)pto_dtype_size(dt);
      uint64_t u = rnd_u64() >> (64 - bits);
      v = (double)(int64_t)(u << (64 - bits)) / pow(2.0, 64 - bits);
      if (how == FILL_INT_EDGES && rnd_u64() % 4 == 0) {
        double lim = pow(2.0, bits - 1);
        const double edge[] = {0, 1, -1, -lim, lim - 1};
        v = rnd_u64() % 2 ? edge[rnd_u64() % 5]
                          : (double)((int)(rnd_u64() % 21) - 10) *
                                pow(2.0, (double)(rnd_u64() % (bits - 4)));
      } else if (how != FILL_RANDOM && how != FILL_POSITIVE && how != FILL_INT_EDGES) {
        v = (double)(rnd_u64() % 9) - 4;
      }
    } else if (how == FILL_SMALLINT) {
      v = (double)(rnd_u64() % 9) - 4;
    } else if (how == FILL_UNIFORM) {
      v = 2 * rnd_unit() - 1;
    } else if (how == FILL_DYADIC) {
      v = ((double)(rnd_u64() % 65) - 32) / 8;
    } else if (how == FILL_F8) {
      v = f8_edge();
    } else if (how == FILL_ZEROS) {
      /* -0 the most often: a column or row of -0 only is common */
      static const double z[] = {-0.0, -0.0, -0.0, -0.0, 0.0, 0.0, 1.0, -1.0,
                                 1e-40, -1e-40, INFINITY, -INFINITY};
      v = z[rnd_u64() % (sizeof z / sizeof z[0])];
    } else if (how == FILL_TIES) {
      v = i % 7 == 3 ? -0.0 : (double)(rnd_u64() % 5) - 2;
      if (i == 5) v = NAN;
    } else {
      v = how == FILL_POSITIVE ? 8 * rnd_unit() + 1e-3 : 8 * rnd_unit() - 4;
      if (rnd_u64() % 16 == 0) v = special();
    }
    store_elem(dt, p, i, v);
  }
}

/* ---- one case: a kernel and the host function that launches it ---- */

enum { MAX_OPERANDS = 6, MAX_RESULTS = 2 };

typedef struct Gm {
  PtoDType dt;
  int64_t rows, cols;   /* the tensor */
  int64_t r0, c0;       /* the window's first element */
  int64_t wrows, wcols; /* the window (the tile) */
  void *data;
  bool scalar; /* a scalar kernel argument, value in data[0] */
  /* > 0: the tensor is planes x (rows / planes) x cols, the window two
   * planes from plane 1 on, r0 the row inside a plane: its rows at two
   * strides, a tload / tstore of two pieces */
  int64_t planes;
  int64_t p0; /* with planes, of tgather_gm / tscatter_gm: the first plane */
} Gm;

typedef struct Case {
  char name[96];
  bool cube;
  bool faults; /* the kernel can fail: i32 @k(..., i64* %fault) */
  bool fails;  /* the interpreter is expected to stop with an error */
  unsigned nin, nout;
  Gm in[MAX_OPERANDS], out[MAX_RESULTS];
  /* the instruction, its operand list and types filled in by the kind */
  Buf body;
  /* result bounds: ulps of the output dtype, or an accumulation bound */
  unsigned ulps;
  int accum; /* 0; 1 row sums; 2 column sums; 3 matmul (in[0] x in[1]) */
  unsigned trans; /* bit i: input i is stored transposed, moved by tmov_trans */
  int64_t k; /* accumulation length */
} Case;

typedef struct Planner {
  int64_t next[PTO_BUF_NUM_SPACES];
} Planner;

static int64_t plan(Planner *p, PtoBufSpace s, int64_t bytes) {
  static const int64_t align[PTO_BUF_NUM_SPACES] = {32, 32, 512, 512, 1024};
  int64_t at = p->next[s];
  p->next[s] = at + (bytes + align[s] - 1) / align[s] * align[s];
  return at;
}

static void tile_type(Buf *b, int64_t r, int64_t c, PtoDType dt, PtoBufSpace s,
                      int64_t off) {
  bprintf(b, "!pto.tile<%lldx%lldx%s, %s, offset = %lld>", (long long)r,
          (long long)c, dt_name(dt), pto_buf_space_name(s), (long long)off);
}

static void tensor_type(Buf *b, const Gm *g) {
  if (g->planes)
    bprintf(b, "tensor<%lldx", (long long)g->planes);
  bprintf(b, "%s%lldx%lldx%s>", g->planes ? "" : "tensor<",
          (long long)(g->planes ? g->rows / g->planes : g->rows),
          (long long)g->cols, dt_name(g->dt));
}

/* The window of g in a tload / tstore: its offsets, and its sizes when
 * the tensor has planes. */
static void window_text(Buf *b, const Gm *g) {
  if (g->planes)
    bprintf(b, "[1, %lld, %lld] {sizes = [2, %lld, %lld]}", (long long)g->r0,
            (long long)g->c0, (long long)g->wrows / 2, (long long)g->wcols);
  else
    bprintf(b, "[%lld, %lld]", (long long)g->r0, (long long)g->c0);
}

/* A GM operand of rows x cols for a tile: for variant > 0 a window at
 * (1, 2) of a wider tensor, so that the GM row stride is not the tile's. */
static Gm gm_make(PtoDType dt, int64_t rows, int64_t cols, int variant,
                  Fill how, bool output) {
  Gm g = {dt, rows, cols, 0, 0, rows, cols, NULL, false, 0, 0};
  if (variant > 0) {
    g.rows += output ? 1 : 2;
    g.cols += output ? 2 : 3;
    g.r0 = 1;
    g.c0 = output ? 1 : 2;
  }
  size_t n = (size_t)(g.rows * g.cols);
  g.data = calloc(n ? n : 1, pto_dtype_size(dt) ? pto_dtype_size(dt) : 1);
  if (output)
    memset(g.data, dt == PTO_DT_BOOL ? 0 : 0x5a, n * pto_dtype_size(dt));
  else
    fill(dt, g.data, (int64_t)n, how);
  return g;
}

/* g (a window of an even number of rows) in a tensor of 3 planes of
 * rows / 2 + 2 rows each instead. */
static void gm_planes(Gm *g, Fill how, bool output) {
  g->planes = 3;
  g->rows = 3 * (g->wrows / 2 + 2);
  free(g->data);
  size_t n = (size_t)(g->rows * g->cols);
  g->data = calloc(n, pto_dtype_size(g->dt));
  if (output) memset(g->data, g->dt == PTO_DT_BOOL ? 0 : 0x5a, n * pto_dtype_size(g->dt));
  else fill(g->dt, g->data, (int64_t)n, how);
}

/* The 3-D GM operand of tgather_gm / tscatter_gm at the m x n tile seen
 * as shape = [p, m / p, n] (3 planes of rows when m divides by 3, else 1
 * or 2): the window starts at 1 along each dim but dim (0 there) of a
 * tensor one wider there than the tile and two longer along dim. */
static Gm gm_indexed_nd(PtoDType dt, int64_t m, int64_t n, unsigned dim, Fill how, bool output,
                        int64_t *shape) {
  shape[0] = m % 3 == 0 ? 3 : m % 2 == 0 ? 2 : 1;
  shape[1] = m / shape[0];
  shape[2] = n;
  int64_t t[3];
  for (unsigned d = 0; d < 3; d++) t[d] = shape[d] + (d == dim ? 2 : 2 - (d == 2));
  Gm g = {dt, t[0] * t[1], t[2], dim == 1 ? 0 : 1, dim == 2 ? 0 : 1, m, n, NULL, false, t[0],
          dim == 0 ? 0 : 1};
  size_t count = (size_t)(g.rows * g.cols);
  g.data = calloc(count, pto_dtype_size(dt));
  if (output) memset(g.data, dt == PTO_DT_BOOL ? 0 : 0x5a, count * pto_dtype_size(dt));
  else fill(dt, g.data, (int64_t)count, how);
  return g;
}

/* The extent of g along dim d: its planes, their rows, its columns. */
static int64_t gm_extent(const Gm *g, unsigned d) {
  if (!g->planes) return d ? g->cols : g->rows;
  return d == 0 ? g->planes : d == 1 ? g->rows / g->planes : g->cols;
}

/* An integer scalar's value as the interpreter holds it (a ui64 past
 * 2^63 as its bit pattern, which a double would round). */
static int64_t scalar_int(const Gm *g) {
  int64_t v;
  if (pto_dtype_size(g->dt) != 8) return (int64_t)load_elem(g->dt, g->data, 0);
  memcpy(&v, g->data, 8);
  return v;
}

static Gm scalar_make(PtoDType dt, double v) {
  Gm g = {dt, 1, 1, 0, 0, 1, 1, calloc(1, 8), true, 0, 0};
  store_elem(dt, g.data, 0, v);
  return g;
}

/* ---- the builder of a case's text ---- */

typedef struct Emit {
  Case *c;
  Planner p;
  Buf *b;
  char name[MAX_OPERANDS + 2][16]; /* SSA name of input i's tile */
  char type[MAX_OPERANDS + 2][96]; /* its tile type */
} Emit;

/* %t<i> = tload of input i into `space`, then into left/right by tmov. */
static void load_input(Emit *e, unsigned i, PtoBufSpace space) {
  Gm *g = &e->c->in[i];
  if (g->scalar) {
    snprintf(e->name[i], sizeof e->name[i], "%%a%u", i);
    snprintf(e->type[i], sizeof e->type[i], "%s", dt_name(g->dt));
    return;
  }
  PtoBufSpace ls = space == PTO_BUF_VEC ? PTO_BUF_VEC : PTO_BUF_MAT;
  Buf t = {0};
  tile_type(&t, g->wrows, g->wcols, g->dt, ls,
            plan(&e->p, ls, g->wrows * g->wcols * (int64_t)pto_dtype_size(g->dt)));
  bprintf(e->b, "  %%t%u = pto.tload %%a%u", i, i);
  window_text(e->b, g);
  bprintf(e->b, " : ");
  tensor_type(e->b, g);
  bprintf(e->b, " -> %s\n", t.s);
  snprintf(e->name[i], sizeof e->name[i], "%%t%u", i);
  snprintf(e->type[i], sizeof e->type[i], "%s", t.s);
  free(t.s);
}

static void moves(Emit *e, unsigned i, PtoBufSpace space) {
  Gm *g = &e->c->in[i];
  if (space != PTO_BUF_LEFT && space != PTO_BUF_RIGHT) return;
  bool tr = e->c->trans >> i & 1;
  Buf t = {0};
  tile_type(&t, tr ? g->wcols : g->wrows, tr ? g->wrows : g->wcols, g->dt, space,
            plan(&e->p, space, g->wrows * g->wcols * (int64_t)pto_dtype_size(g->dt)));
  bprintf(e->b, "  %%m%u = pto.%s %s : %s -> %s\n", i, tr ? "tmov_trans" : "tmov",
          e->name[i], e->type[i], t.s);
  snprintf(e->name[i], sizeof e->name[i], "%%m%u", i);
  snprintf(e->type[i], sizeof e->type[i], "%s", t.s);
  free(t.s);
}

/* A result tile's type in `space`, planned. */
static void result_type(Emit *e, Buf *t, const Gm *g, PtoBufSpace space) {
  tile_type(t, g->wrows, g->wcols, g->dt, space,
            plan(&e->p, space, g->wrows * g->wcols * (int64_t)pto_dtype_size(g->dt)));
}

static void store_result(Emit *e, unsigned j, const char *val, const char *ty) {
  Gm *g = &e->c->out[j];
  bprintf(e->b, "  pto.tstore %s, %%o%u", val, j);
  window_text(e->b, g);
  bprintf(e->b, " : %s into ", ty);
  tensor_type(e->b, g);
  bprintf(e->b, "\n");
}

static void kernel_head(Buf *b, const Case *c, unsigned idx) {
  bprintf(b, "pto.kernel %s @k%u(", c->cube ? "cube" : "vector", idx);
  for (unsigned i = 0; i < c->nin; i++) {
    bprintf(b, "%s%%a%u: ", i ? ", " : "", i);
    if (c->in[i].scalar) bprintf(b, "%s", dt_name(c->in[i].dt));
    else tensor_type(b, &c->in[i]);
  }
  for (unsigned j = 0; j < c->nout; j++) {
    bprintf(b, ", %%o%u: ", j);
    tensor_type(b, &c->out[j]);
  }
  bprintf(b, ") {\n");
}

static void host_func(Buf *b, const Case *c, unsigned idx) {
  Buf args = {0}, types = {0}, otypes = {0}, outs = {0};
  bprintf(&args, "%s", "");
  bprintf(&types, "%s", "");
  bprintf(&otypes, "%s", "");
  bprintf(&outs, "%s", "");
  for (unsigned i = 0; i < c->nin + c->nout; i++) {
    bool in = i < c->nin;
    const Gm *g = in ? &c->in[i] : &c->out[i - c->nin];
    bprintf(&args, "%s%%%c%u", i ? ", " : "", in ? 'a' : 'o', in ? i : i - c->nin);
    if (i) bprintf(&types, ", ");
    if (g->scalar) bprintf(&types, "%s", dt_name(g->dt));
    else tensor_type(&types, g);
    if (!in) {
      bprintf(&outs, "%s%%o%u", i > c->nin ? ", " : "", i - c->nin);
      if (i > c->nin) bprintf(&otypes, ", ");
      tensor_type(&otypes, g);
    }
  }
  bprintf(b, "func.func @f%u(", idx);
  for (unsigned i = 0; i < c->nin + c->nout; i++) {
    bool in = i < c->nin;
    const Gm *g = in ? &c->in[i] : &c->out[i - c->nin];
    bprintf(b, "%s%%%c%u: ", i ? ", " : "", in ? 'a' : 'o', in ? i : i - c->nin);
    if (g->scalar) bprintf(b, "%s", dt_name(g->dt));
    else tensor_type(b, g);
  }
  bprintf(b, ") -> (%s) {\n", otypes.s);
  bprintf(b, "  block.launch @k%u(%s) {label = \"k\", reads = [], writes = []} : (%s)\n",
          idx, args.s, types.s);
  bprintf(b, "  func.return %s : %s\n}\n", outs.s, otypes.s);
  free(args.s), free(types.s), free(otypes.s), free(outs.s);
}

/* ---- the cases of each kind ---- */

typedef struct Shape {
  int64_t m, n, k; /* k: matmul's contracting dim */
} Shape;
static const Shape kShapes[] = {{1, 1, 1}, {3, 17, 5}, {32, 32, 32}, {16, 64, 16}};
enum { NUM_SHAPES = sizeof kShapes / sizeof kShapes[0] };

static const char *const kCmpPreds[] = {"eq", "ne", "lt", "le", "gt", "ge"};
static const char *const kRoundModes[] = {"rint", "trunc", "floor", "ceil", "round"};

static void vec_flags(Buf *b, const char *src, const char *dst) {
  bprintf(b, "  pto.set_flag %s -> %s, 0\n  pto.wait_flag %s -> %s, 0\n", src, dst,
          src, dst);
}

static bool is_sum(PtoPtoOp id) {
  return id == PTO_PTO_TROWSUM || id == PTO_PTO_TCOLSUM;
}
static bool accumulates(PtoPtoOp id) {
  return is_sum(id) || pto_pto_op_kind(id) == PTO_PTO_KIND_MATMUL ||
         id == PTO_PTO_TMOV_TRANS;
}

static PtoDType matmul_c(PtoDType a) {
  return a == PTO_DT_I8 ? PTO_DT_I32 : PTO_DT_F32;
}

/* One instruction applied to the loaded inputs: "%r0[, %r1] = pto.<mn>
 * ops attrs : types -> rtypes", then the stores. Inputs 0..nin-1 are
 * loaded (or are scalars) in the spaces `space[i]`. */
static void instruction(Emit *e, PtoPtoOp id, const char *attrs,
                        const PtoBufSpace *space, PtoBufSpace rspace) {
  Case *c = e->c;
  Buf *b = e->b;
  for (unsigned i = 0; i < c->nin; i++) load_input(e, i, space[i]);
  if (c->cube) {
    vec_flags(b, "MTE2", "MTE1");
    for (unsigned i = 0; i < c->nin; i++) moves(e, i, space[i]);
    vec_flags(b, "MTE1", "M");
  } else {
    vec_flags(b, "MTE2", "V");
  }
  Buf rt[MAX_RESULTS] = {{0}};
  for (unsigned j = 0; j < c->nout; j++) result_type(e, &rt[j], &c->out[j], rspace);
  unsigned first = id == PTO_PTO_TMATMUL_ACC ? 2 : 0;
  if (id == PTO_PTO_TMATMUL_ACC) {
    /* the accumulator: a first product, in the buffer the second adds to */
    bprintf(b, "  %%c = pto.tmatmul %s, %s : %s, %s -> %s\n", e->name[0], e->name[1],
            e->type[0], e->type[1], rt[0].s);
  }
  bprintf(b, " ");
  for (unsigned j = 0; j < c->nout; j++) bprintf(b, "%s %%r%u", j ? "," : "", j);
  bprintf(b, " = pto.%s ", pto_pto_op_mnemonic(id));
  if (id == PTO_PTO_TMATMUL_ACC) bprintf(b, "%%c, ");
  for (unsigned i = first; i < c->nin; i++)
    bprintf(b, "%s%s", i > first ? ", " : "", e->name[i]);
  bprintf(b, "%s : ", attrs);
  if (id == PTO_PTO_TMATMUL_ACC) bprintf(b, "%s, ", rt[0].s);
  for (unsigned i = first; i < c->nin; i++)
    bprintf(b, "%s%s", i > first ? ", " : "", e->type[i]);
  bprintf(b, " -> ");
  for (unsigned j = 0; j < c->nout; j++) bprintf(b, "%s%s", j ? ", " : "", rt[j].s);
  bprintf(b, "\n");
  if (c->cube) vec_flags(b, "M", "FIX");
  else vec_flags(b, "V", "MTE3");
  for (unsigned j = 0; j < c->nout; j++) {
    char nm[16];
    snprintf(nm, sizeof nm, "%%r%u", j);
    store_result(e, j, nm, rt[j].s);
    free(rt[j].s);
  }
}

/* The kernel of a data-movement row: tload, (tprefetch,) (pipe_barrier,)
 * tstore, with the flags between the pipes. */
static void copy_kernel(Emit *e, PtoPtoOp id) {
  Case *c = e->c;
  Gm *g = &c->in[0];
  if (id == PTO_PTO_TPREFETCH) {
    bprintf(e->b, "  pto.tprefetch %%a0[%lld, %lld] {sizes = [%lld, %lld]} : ",
            (long long)g->r0, (long long)g->c0, (long long)g->wrows,
            (long long)g->wcols);
    tensor_type(e->b, g);
    bprintf(e->b, "\n");
  }
  load_input(e, 0, PTO_BUF_VEC);
  vec_flags(e->b, "MTE2", "V");
  if (id == PTO_PTO_PIPE_BARRIER) bprintf(e->b, "  pto.pipe_barrier V\n");
  vec_flags(e->b, "V", "MTE3");
  store_result(e, 0, e->name[0], e->type[0]);
}

/* tmov acc -> mat -> left between two products: C = (A B) D. */
static void mov_kernel(Emit *e) {
  Case *c = e->c;
  Buf *b = e->b;
  static const PtoBufSpace sp[3] = {PTO_BUF_LEFT, PTO_BUF_RIGHT, PTO_BUF_RIGHT};
  for (unsigned i = 0; i < 3; i++) load_input(e, i, sp[i]);
  vec_flags(b, "MTE2", "MTE1");
  for (unsigned i = 0; i < 3; i++) moves(e, i, sp[i]);
  vec_flags(b, "MTE1", "M");
  Gm ab = c->in[0];
  ab.wcols = c->in[1].wcols;
  Buf acc = {0}, mat = {0}, left = {0}, out = {0};
  result_type(e, &acc, &ab, PTO_BUF_ACC);
  result_type(e, &mat, &ab, PTO_BUF_MAT);
  result_type(e, &left, &ab, PTO_BUF_LEFT);
  result_type(e, &out, &c->out[0], PTO_BUF_ACC);
  bprintf(b, "  %%p = pto.tmatmul %s, %s : %s, %s -> %s\n", e->name[0], e->name[1],
          e->type[0], e->type[1], acc.s);
  vec_flags(b, "M", "FIX");
  bprintf(b, "  %%q = pto.tmov %%p : %s -> %s\n", acc.s, mat.s);
  vec_flags(b, "FIX", "MTE1");
  bprintf(b, "  %%l = pto.tmov %%q : %s -> %s\n", mat.s, left.s);
  vec_flags(b, "MTE1", "M");
  bprintf(b, "  %%r0 = pto.tmatmul %%l, %s : %s, %s -> %s\n", e->name[2], left.s,
          e->type[2], out.s);
  vec_flags(b, "M", "FIX");
  store_result(e, 0, "%r0", out.s);
  free(acc.s), free(mat.s), free(left.s), free(out.s);
}

/* tstore of an f32 accumulator into an f16 / bf16 tensor, rounded by FIX:
 * C = A B of A and B in the tensor's type. */
static void fix_kernel(Emit *e) {
  Case *c = e->c;
  Buf *b = e->b;
  static const PtoBufSpace sp[2] = {PTO_BUF_LEFT, PTO_BUF_RIGHT};
  for (unsigned i = 0; i < 2; i++) load_input(e, i, sp[i]);
  vec_flags(b, "MTE2", "MTE1");
  for (unsigned i = 0; i < 2; i++) moves(e, i, sp[i]);
  vec_flags(b, "MTE1", "M");
  Gm acc = c->out[0];
  acc.dt = PTO_DT_F32;
  Buf t = {0};
  result_type(e, &t, &acc, PTO_BUF_ACC);
  bprintf(b, "  %%r0 = pto.tmatmul %s, %s : %s, %s -> %s\n", e->name[0], e->name[1],
          e->type[0], e->type[1], t.s);
  vec_flags(b, "M", "FIX");
  store_result(e, 0, "%r0", t.s);
  free(t.s);
}

/* tgather_gm: the index tile loaded, the tensor (input 0) read by the
 * instruction itself on MTE2, in order after the load on the same pipe. */
static void gather_gm_kernel(Emit *e, const char *attrs) {
  Case *c = e->c;
  Gm *x = &c->in[0];
  load_input(e, 1, PTO_BUF_VEC);
  Buf rt = {0};
  result_type(e, &rt, &c->out[0], PTO_BUF_VEC);
  bprintf(e->b, "  %%r0 = pto.tgather_gm %%a0[");
  if (x->planes) bprintf(e->b, "%lld, ", (long long)x->p0);
  bprintf(e->b, "%lld, %lld], %s%s : ", (long long)x->r0, (long long)x->c0, e->name[1], attrs);
  tensor_type(e->b, x);
  bprintf(e->b, ", %s -> %s\n", e->type[1], rt.s);
  vec_flags(e->b, "MTE2", "MTE3");
  store_result(e, 0, "%r0", rt.s);
  free(rt.s);
}

/* tscatter_gm: the tile and the index tile loaded, the tensor (output 0,
 * a kernel argument) written by the instruction itself on MTE3, after the
 * loads' flag. */
static void scatter_gm_kernel(Emit *e, const char *attrs) {
  Gm *y = &e->c->out[0];
  load_input(e, 0, PTO_BUF_VEC);
  load_input(e, 1, PTO_BUF_VEC);
  vec_flags(e->b, "MTE2", "MTE3");
  bprintf(e->b, "  pto.tscatter_gm %s, %%o0[", e->name[0]);
  if (y->planes) bprintf(e->b, "%lld, ", (long long)y->p0);
  bprintf(e->b, "%lld, %lld], %s%s : %s, %s into ", (long long)y->r0, (long long)y->c0,
          e->name[1], attrs, e->type[0], e->type[1]);
  tensor_type(e->b, y);
  bprintf(e->b, "\n");
}

typedef struct Variant {
  PtoDType dt2;     /* tcvt: the destination; tsel: the data */
  const char *attr; /* tcvt: the rounding mode; tcmp: the predicate;
                     * tscatter_gm: the mode */
  bool sat;         /* tcvt; tscatter_gm: one index per slice */
  Fill fill;
  bool nd; /* tgather_gm, tscatter_gm: a window of a 3-D tensor */
} Variant;

static void case_free(Case *c) {
  for (unsigned i = 0; i < c->nin; i++) free(c->in[i].data);
  for (unsigned j = 0; j < c->nout; j++) free(c->out[j].data);
  free(c->body.s);
  memset(c, 0, sizeof *c);
}

/* Fills case c (kernel @k<idx>, host @f<idx>) for instruction id on
 * element type dt, shape s; false when the instruction has no case of
 * this kind (tmov of a type no instruction reads from left/right). */
static bool build_case(Case *c, unsigned idx, PtoPtoOp id, PtoDType dt,
                       const Shape *sh, int variant, const Variant *v) {
  memset(c, 0, sizeof *c);
  PtoPtoKind kind = pto_pto_op_kind(id);
  int64_t m = sh->m, n = sh->n;
  Fill how = v->fill;
  Emit e = {c, {{0}}, &c->body, {{0}}, {{0}}};
  char attrs[160] = "";
  PtoBufSpace space[MAX_OPERANDS] = {PTO_BUF_VEC, PTO_BUF_VEC, PTO_BUF_VEC,
                                     PTO_BUF_VEC, PTO_BUF_VEC, PTO_BUF_VEC};
  PtoBufSpace rspace = PTO_BUF_VEC;
  snprintf(c->name, sizeof c->name, "%s %s %lldx%lld", pto_pto_op_mnemonic(id),
           dt_name(dt), (long long)m, (long long)n);
#define IN(...) (c->in[c->nin++] = gm_make(__VA_ARGS__, variant, how, false))
#define OUT(...) (c->out[c->nout++] = gm_make(__VA_ARGS__, variant, how, true))
  switch (kind) {
  case PTO_PTO_KIND_KERNEL: case PTO_PTO_KIND_RETURN: case PTO_PTO_KIND_LOAD:
  case PTO_PTO_KIND_STORE: case PTO_PTO_KIND_PREFETCH: case PTO_PTO_KIND_SETFLAG:
  case PTO_PTO_KIND_WAITFLAG: case PTO_PTO_KIND_BARRIER:
    if (v->attr && strcmp(v->attr, "fix") == 0) { /* the converting store */
      c->cube = true;
      IN(dt, m, n), IN(dt, n, sh->k), OUT(dt, m, sh->k);
      c->accum = 3;
      c->k = n + 1;
      snprintf(c->name, sizeof c->name, "tstore acc f32->%s %lldx%lld", dt_name(dt),
               (long long)m, (long long)n);
      break;
    }
    IN(dt, m, n);
    OUT(dt, m, n);
    if (variant == 3 && id != PTO_PTO_TPREFETCH) {
      gm_planes(&c->in[0], how, false), gm_planes(&c->out[0], how, true);
      snprintf(c->name, sizeof c->name, "%s %s %lldx%lld in planes",
               pto_pto_op_mnemonic(id), dt_name(dt), (long long)m, (long long)n);
    }
    break;
  case PTO_PTO_KIND_BINARY:
    IN(dt, m, n), IN(dt, m, n), OUT(dt, m, n);
    if (id == PTO_PTO_TSHL || id == PTO_PTO_TSHR) {
      /* counts: half inside [0, width), half in [-70, 70] (negative, and
       * past the width and past 63) */
      int64_t w = 8 * (int64_t)pto_dtype_size(dt);
      for (int64_t i = 0; i < c->in[1].rows * c->in[1].cols; i++)
        store_elem(dt, c->in[1].data, i,
                   (double)(rnd_u64() % 2 ? (int64_t)(rnd_u64() % (uint64_t)w)
                                          : (int64_t)(rnd_u64() % 141) - 70));
    }
    break;
  case PTO_PTO_KIND_SCALAR: {
    IN(dt, m, n);
    double s = dt_float(dt) ? 8 * rnd_unit() - 4 : (double)(int)(rnd_u64() % 200) - 100;
    if (how == FILL_ZEROS) s = variant % 2 ? -0.0 : 0.0;
    c->in[c->nin++] = scalar_make(dt, s);
    OUT(dt, m, n);
    break;
  }
  case PTO_PTO_KIND_UNARY:
    IN(dt, m, n), OUT(dt, m, n);
    if (v->attr) snprintf(attrs, sizeof attrs, " %s", v->attr); /* tlrelu, tclip */
    break;
  case PTO_PTO_KIND_CVT:
    IN(dt, m, n), OUT(v->dt2, m, n);
    if (dt == PTO_DT_I32) { /* integers whose f32 rounding makes a bf16 tie */
      static const int32_t hard[] = {(1 << 24) + (1 << 16) + 1, -((1 << 24) + (1 << 16) + 1),
                                     (1 << 30) + (1 << 22) + 1, 65519, 65520, -65536};
      for (int64_t i = 0; i < c->in[0].rows * c->in[0].cols; i += 5)
        ((int32_t *)c->in[0].data)[i] = hard[(i / 5) % 6];
    }
    if (dt == PTO_DT_I64) { /* bf16 ties after an f32 rounding; 2^63 - 1 rounds up to 2^63 */
      static const int64_t hard[] = {((int64_t)1 << 40) + ((int64_t)1 << 32) + 1,
                                     -(((int64_t)1 << 56) + ((int64_t)1 << 48) + 1),
                                     INT64_MAX, INT64_MIN, 65520, ((int64_t)1 << 24) + 1};
      for (int64_t i = 0; i < c->in[0].rows * c->in[0].cols; i += 5)
        ((int64_t *)c->in[0].data)[i] = hard[(i / 5) % 6];
    }
    if (dt == PTO_DT_U64) { /* past 2^63: bf16 ties after an f32 rounding, 2^64 - 1 rounds up */
      static const uint64_t hard[] = {((uint64_t)1 << 63) + ((uint64_t)1 << 55) + 1,
                                      ((uint64_t)1 << 63) + ((uint64_t)1 << 39) + 1,
                                      UINT64_MAX, (uint64_t)1 << 63, 65520,
                                      ((uint64_t)1 << 24) + 1};
      for (int64_t i = 0; i < c->in[0].rows * c->in[0].cols; i += 5)
        ((uint64_t *)c->in[0].data)[i] = hard[(i / 5) % 6];
    }
    if (dt == PTO_DT_F32 && (v->dt2 == PTO_DT_I64 || v->dt2 == PTO_DT_U64)) {
      /* at and past 2^63: wraps modulo 2^64 */
      static const float hard[] = {0x1p63f, -0x1p63f, 0x1.000002p64f, -0x1.8p66f,
                                   0x1.fffffep87f, 0x1p88f, 0x1.fffffep62f};
      for (int64_t i = 0; i < c->in[0].rows * c->in[0].cols; i += 3)
        ((float *)c->in[0].data)[i] = hard[(i / 3) % 7];
    }
    if (dt == PTO_DT_U32) { /* the same above 2^31, where signed would be negative */
      static const uint32_t hard[] = {(1u << 31) + (1u << 23) + 1, (1u << 24) + (1u << 16) + 1,
                                      0xffffffffu, 65519, 65520, 0x80000000u};
      for (int64_t i = 0; i < c->in[0].rows * c->in[0].cols; i += 5)
        ((uint32_t *)c->in[0].data)[i] = hard[(i / 5) % 6];
    }
    snprintf(attrs, sizeof attrs, " {mode = \"%s\", satmode = \"%s\"}", v->attr,
             v->sat ? "on" : "off");
    snprintf(c->name, sizeof c->name, "tcvt %s->%s %s%s %lldx%lld", dt_name(dt),
             dt_name(v->dt2), v->attr, v->sat ? " sat" : "", (long long)m,
             (long long)n);
    break;
  case PTO_PTO_KIND_CMP: {
    IN(dt, m, n), IN(dt, m, n), OUT(PTO_DT_BOOL, m, n);
    /* equal pairs: b takes two elements of each three from a */
    size_t sz = pto_dtype_size(dt);
    for (int64_t i = 0; i < c->in[0].rows * c->in[0].cols; i++)
      if (i % 3) memcpy((char *)c->in[1].data + i * sz, (char *)c->in[0].data + i * sz, sz);
    snprintf(attrs, sizeof attrs, " {cmp = \"%s\"}", v->attr);
    snprintf(c->name, sizeof c->name, "tcmp %s %s %lldx%lld", v->attr, dt_name(dt),
             (long long)m, (long long)n);
    break;
  }
  case PTO_PTO_KIND_SEL:
    IN(PTO_DT_BOOL, m, n), IN(v->dt2, m, n), IN(v->dt2, m, n), OUT(v->dt2, m, n);
    snprintf(c->name, sizeof c->name, "tsel %s %lldx%lld", dt_name(v->dt2),
             (long long)m, (long long)n);
    break;
  case PTO_PTO_KIND_ROWRED: IN(dt, m, n), OUT(dt, m, 1); break;
  case PTO_PTO_KIND_COLRED: IN(dt, m, n), OUT(dt, 1, n); break;
  case PTO_PTO_KIND_ROWARG: IN(dt, m, n), OUT(dt, m, 1), OUT(PTO_DT_I32, m, 1); break;
  case PTO_PTO_KIND_COLARG: IN(dt, m, n), OUT(dt, 1, n), OUT(PTO_DT_I32, 1, n); break;
  case PTO_PTO_KIND_ARGCOMBINE: {
    /* v1 takes two elements of each three from v0: ties keep (v0, i0) */
    IN(dt, m, n), IN(PTO_DT_I32, m, n), IN(dt, m, n), IN(PTO_DT_I32, m, n);
    size_t sz = pto_dtype_size(dt);
    for (int64_t i = 0; i < c->in[0].rows * c->in[0].cols; i++)
      if (i % 3) memcpy((char *)c->in[2].data + i * sz, (char *)c->in[0].data + i * sz, sz);
    OUT(dt, m, n), OUT(PTO_DT_I32, m, n);
    break;
  }
  case PTO_PTO_KIND_ROWEXPAND: IN(dt, m, n), IN(dt, m, 1), OUT(dt, m, n); break;
  case PTO_PTO_KIND_TRANS:
    if (id != PTO_PTO_TMOV_TRANS) {
      IN(dt, m, n), OUT(dt, n, m);
      break;
    }
    /* seen through a tmatmul of its operand types: A stored K x M and B
     * N x K, both moved to L0 transposed */
    if (dt != PTO_DT_F32 && dt != PTO_DT_F16 && dt != PTO_DT_BF16 && dt != PTO_DT_I8)
      return false;
    c->cube = true;
    c->trans = 3;
    IN(dt, n, m), IN(dt, sh->k, n), OUT(matmul_c(dt), m, sh->k);
    space[0] = PTO_BUF_LEFT, space[1] = PTO_BUF_RIGHT;
    rspace = PTO_BUF_ACC;
    c->accum = 3;
    c->k = n + 1;
    break;
  /* by the shape: a column (Mx1), a row (1xN) or one element broadcast */
  case PTO_PTO_KIND_EXPAND:
    IN(dt, variant % 3 == 2 ? m : 1, variant % 3 == 1 ? n : 1), OUT(dt, m, n);
    break;
  /* the tile seen as [2, m, n] with its dims rotated or its two leading
   * ones swapped; a [2, 1, n] view repeated m times along its dim of 1, or
   * a [1, n] one m + 1 times */
  case PTO_PTO_KIND_PERMUTE:
    IN(dt, 2 * m, n);
    if (variant & 1) OUT(dt, 2 * n, m);
    else OUT(dt, 2 * m, n);
    snprintf(attrs, sizeof attrs, " {perm = [%s], shape = [2, %lld, %lld]}",
             variant & 1 ? "2, 0, 1" : "1, 0, 2", (long long)m, (long long)n);
    break;
  case PTO_PTO_KIND_REPEAT:
    if (variant & 1) {
      IN(dt, 2, n), OUT(dt, 2 * m, n);
      snprintf(attrs, sizeof attrs, " {repeats = [1, %lld, 1], shape = [2, 1, %lld]}",
               (long long)m, (long long)n);
    } else {
      IN(dt, 1, n), OUT(dt, m + 1, n);
      snprintf(attrs, sizeof attrs, " {repeats = [%lld, 1], shape = [1, %lld]}",
               (long long)m + 1, (long long)n);
    }
    break;
  case PTO_PTO_KIND_EXPANDS: {
    double s = dt == PTO_DT_BOOL ? (double)(rnd_u64() & 1)
               : dt_float(dt)    ? 8 * rnd_unit() - 4
                                 : (double)(int)(rnd_u64() % 200) - 100;
    c->in[c->nin++] = scalar_make(dt, s);
    OUT(dt, m, n);
    break;
  }
  case PTO_PTO_KIND_GATHER: {
    int64_t w = n + 3;
    IN(dt, m, n), IN(PTO_DT_I32, m, w), OUT(dt, m, w);
    int32_t *ix = c->in[1].data;
    for (int64_t i = 0; i < c->in[1].rows * c->in[1].cols; i++)
      ix[i] = (int32_t)(rnd_u64() % (uint64_t)n);
    break;
  }
  case PTO_PTO_KIND_RANDOM: {
    /* a key with both 32-bit words in use (exact in the double the
     * harness carries it in), the window of a 2-D stream, or of a 3-D
     * one whose leading dims flatten into the tile's rows */
    c->in[c->nin++] = scalar_make(PTO_DT_I64, (double)0x12345678abcdLL + variant);
    c->in[c->nin++] = scalar_make(PTO_DT_I64, (double)(variant * 3));
    OUT(dt, m, n);
    if (m % 2 == 0 && variant % 2)
      snprintf(attrs, sizeof attrs,
               " {dist = \"%s\", origin = [1, 1, 3], full = [3, %lld, %lld], window = [2, %lld, %lld]}",
               v->attr, (long long)(m / 2 + 2), (long long)(n + 4), (long long)(m / 2), (long long)n);
    else
      snprintf(attrs, sizeof attrs, " {dist = \"%s\", origin = [2, 5], full = [%lld, %lld], window = [%lld, %lld]}",
               v->attr, (long long)(m + 3), (long long)(n + 7), (long long)m, (long long)n);
    snprintf(c->name, sizeof c->name, "trandom %s %s %lldx%lld", v->attr, dt_name(dt),
             (long long)m, (long long)n);
    break;
  }
  case PTO_PTO_KIND_GATHERGM: {
    /* the tensor is read where the indices say, not loaded: a window of
     * m rows (dim 1) or n columns (dim 0) at 0 along dim, in a tensor
     * wider than the tile; every index inside the tensor's dim; i32
     * indices at the first two shapes, i64 ones at the others */
    /* nd: the same in a 3-D tensor, along each of its dims in turn */
    unsigned dim = v->nd ? (unsigned)variant % 3 : (unsigned)variant & 1;
    PtoDType ixt = variant & 2 ? PTO_DT_I64 : PTO_DT_I32;
    int64_t nd[3];
    if (v->nd) c->in[c->nin++] = gm_indexed_nd(dt, m, n, dim, how, false, nd);
    else IN(dt, m + 3, n + 2);
    IN(ixt, m, n), OUT(dt, m, n);
    Gm *x = &c->in[0];
    if (v->nd) {
    } else if (dim == 1) {
      x->c0 = 0, x->wrows = m, x->wcols = x->cols;
    } else {
      x->r0 = 0, x->wrows = x->rows, x->wcols = n;
    }
    for (int64_t i = 0; i < c->in[1].rows * c->in[1].cols; i++) {
      int64_t at = (int64_t)(rnd_u64() % (uint64_t)gm_extent(x, dim));
      if (ixt == PTO_DT_I64) ((int64_t *)c->in[1].data)[i] = at;
      else ((int32_t *)c->in[1].data)[i] = (int32_t)at;
    }
    if (v->nd)
      snprintf(attrs, sizeof attrs, " {dim = %u : i64, shape = [%lld, %lld, %lld]}", dim,
               (long long)nd[0], (long long)nd[1], (long long)nd[2]);
    else
      snprintf(attrs, sizeof attrs, " {dim = %u : i64}", dim);
    c->faults = true;
    snprintf(c->name, sizeof c->name, "tgather_gm %s%s dim %u %s indices %lldx%lld", dt_name(dt),
             v->nd ? " 3-D" : "", dim, dt_name(ixt), (long long)m, (long long)n);
    break;
  }
  case PTO_PTO_KIND_SCATTERGM: {
    /* the tile written where the indices say into a window of m rows
     * (dim 1) or n columns (dim 0) at 0 along dim of a tensor wider than
     * the tile, which holds values before (add and multiply combine with
     * them); indices of the odd shape all 0 or 1, the others random, so
     * duplicates apply in order everywhere; i32 indices at the first two
     * shapes, i64 ones at the others */
    /* nd: the same in a 3-D tensor, along each of its dims in turn */
    unsigned dim = v->nd ? (unsigned)variant % 3 : (unsigned)variant & 1;
    bool slices = v->sat;
    PtoDType ixt = variant & 2 ? PTO_DT_I64 : PTO_DT_I32;
    if (strcmp(v->attr, "overwrite") != 0) how = FILL_UNIFORM; /* no NaN payloads */
    int64_t nd[3];
    Gm y0 = {0};
    if (v->nd) y0 = gm_indexed_nd(dt, m, n, dim, how, true, nd);
    int64_t count = v->nd ? nd[dim] : dim ? n : m;
    IN(dt, m, n);
    IN(ixt, slices ? 1 : m, slices ? count : n);
    if (v->nd) c->out[c->nout++] = y0;
    else OUT(dt, m + 3, n + 2);
    Gm *y = &c->out[0];
    fill(dt, y->data, y->rows * y->cols, how);
    if (v->nd) {
    } else if (dim == 1) {
      y->c0 = 0, y->wrows = m, y->wcols = y->cols;
    } else {
      y->r0 = 0, y->wrows = y->rows, y->wcols = n;
    }
    for (int64_t i = 0; i < c->in[1].rows * c->in[1].cols; i++) {
      int64_t at = variant == 1 ? i % 2 : (int64_t)(rnd_u64() % (uint64_t)gm_extent(y, dim));
      if (ixt == PTO_DT_I64) ((int64_t *)c->in[1].data)[i] = at;
      else ((int32_t *)c->in[1].data)[i] = (int32_t)at;
    }
    if (v->nd)
      snprintf(attrs, sizeof attrs,
               " {dim = %u : i64, mode = \"%s\", shape = [%lld, %lld, %lld]}", dim, v->attr,
               (long long)nd[0], (long long)nd[1], (long long)nd[2]);
    else
      snprintf(attrs, sizeof attrs, " {dim = %u : i64, mode = \"%s\"}", dim, v->attr);
    c->faults = true;
    snprintf(c->name, sizeof c->name, "tscatter_gm %s%s %s%s dim %u %s indices %lldx%lld",
             dt_name(dt), v->nd ? " 3-D" : "", v->attr, slices ? " slices" : "", dim,
             dt_name(ixt), (long long)m, (long long)n);
    break;
  }
  case PTO_PTO_KIND_SORT32:
  case PTO_PTO_KIND_MRGSORT: {
    n = (n + 31) / 32 * 32;
    IN(dt, m, n);
    if (kind == PTO_PTO_KIND_MRGSORT) {
      IN(PTO_DT_I32, m, n);
      int32_t *ix = c->in[1].data;
      for (int64_t i = 0; i < c->in[1].rows * c->in[1].cols; i++)
        ix[i] = (int32_t)(rnd_u64() % 100000);
      int64_t block = n / 2 > 32 ? 16 : n / 2;
      snprintf(attrs, sizeof attrs, " {block = %lld}", (long long)block);
    }
    OUT(dt, m, n), OUT(PTO_DT_I32, m, n);
    snprintf(c->name, sizeof c->name, "%s %s %lldx%lld%s", pto_pto_op_mnemonic(id),
             dt_name(dt), (long long)m, (long long)n,
             how == FILL_TIES ? " ties" : "");
    break;
  }
  case PTO_PTO_KIND_TOPK: {
    /* k of each row's largest (or smallest), ties kept by index */
    int64_t kk = n < 3 ? n : 3;
    IN(dt, m, n), OUT(dt, m, kk), OUT(PTO_DT_I32, m, kk);
    snprintf(attrs, sizeof attrs, " {k = %lld%s}", (long long)kk,
             variant & 1 ? ", largest = false" : "");
    snprintf(c->name, sizeof c->name, "ttopk %s %lldx%lld%s", dt_name(dt), (long long)m,
             (long long)n, how == FILL_TIES ? " ties" : "");
    break;
  }
  case PTO_PTO_KIND_TOPKMERGE: {
    /* two lists of n and n / 2 + 1 per row with random i32 index values */
    int64_t n1 = n / 2 + 1, kk = n + n1 < 4 ? n + n1 : 4;
    IN(dt, m, n), IN(PTO_DT_I32, m, n), IN(dt, m, n1), IN(PTO_DT_I32, m, n1);
    for (unsigned j = 1; j < 4; j += 2) {
      int32_t *ix = c->in[j].data;
      for (int64_t i = 0; i < c->in[j].rows * c->in[j].cols; i++)
        ix[i] = (int32_t)(rnd_u64() % 100000);
    }
    OUT(dt, m, kk), OUT(PTO_DT_I32, m, kk);
    snprintf(attrs, sizeof attrs, " {k = %lld%s}", (long long)kk,
             variant & 1 ? ", largest = false" : "");
    snprintf(c->name, sizeof c->name, "ttopk_merge %s %lldx%lld+%lld%s", dt_name(dt),
             (long long)m, (long long)n, (long long)n1, how == FILL_TIES ? " ties" : "");
    break;
  }
  case PTO_PTO_KIND_QUANT: {
    IN(dt, m, n), IN(PTO_DT_F32, m, 1), OUT(PTO_DT_I8, m, n);
    /* scales near max |x| / 100, and one row of scale 0 */
    Gm *g = &c->in[1];
    float *s = g->data;
    for (int64_t i = 0; i < g->rows * g->cols; i++)
      s[i] = i == (g->r0 + 1) * g->cols + g->c0 ? 0.0f : (float)(0.01 + 0.05 * rnd_unit());
    break;
  }
  case PTO_PTO_KIND_MATMUL: {
    if (dt != PTO_DT_F32 && dt != PTO_DT_F16 && dt != PTO_DT_BF16 && dt != PTO_DT_I8)
      return false;
    c->cube = true;
    int64_t k = sh->k;
    /* m, k, n: the shape's m and n as m and k, its k as n */
    IN(dt, m, n), IN(dt, n, k);
    space[0] = PTO_BUF_LEFT, space[1] = PTO_BUF_RIGHT;
    if (id == PTO_PTO_TMATMUL_ACC) {
      IN(dt, m, n), IN(dt, n, k);
      space[2] = PTO_BUF_LEFT, space[3] = PTO_BUF_RIGHT;
    } else if (id == PTO_PTO_TMATMUL_BIAS) {
      IN(matmul_c(dt), 1, k);
      space[2] = PTO_BUF_MAT;
    }
    OUT(matmul_c(dt), m, k);
    rspace = PTO_BUF_ACC;
    c->accum = 3;
    c->k = id == PTO_PTO_TMATMUL_ACC ? 2 * n + 1 : n + 1;
    break;
  }
  case PTO_PTO_KIND_MOV:
    /* tmov moves mat to left/right and acc to mat; what reaches left and
     * right is seen only through a tmatmul, of its operand types */
    if (dt != PTO_DT_F32 && dt != PTO_DT_F16 && dt != PTO_DT_BF16 && dt != PTO_DT_I8)
      return false;
    c->cube = true;
    if (dt == PTO_DT_F32) {
      how = FILL_SMALLINT; /* (A B) D is exact */
      IN(dt, m, n), IN(dt, n, sh->k), IN(dt, sh->k, m), OUT(PTO_DT_F32, m, m);
    } else {
      IN(dt, m, n), IN(dt, n, sh->k), OUT(matmul_c(dt), m, sh->k);
      space[0] = PTO_BUF_LEFT, space[1] = PTO_BUF_RIGHT;
      rspace = PTO_BUF_ACC;
      c->accum = 3;
      c->k = n + 1;
    }
    break;
  }
#undef IN
#undef OUT
  if (is_sum(id)) {
    c->accum = kind == PTO_PTO_KIND_ROWRED ? 1 : 2;
    c->k = kind == PTO_PTO_KIND_ROWRED ? n : m;
  }
  kernel_head(&c->body, c, idx);
  switch (kind) {
  case PTO_PTO_KIND_KERNEL: case PTO_PTO_KIND_RETURN: case PTO_PTO_KIND_LOAD:
  case PTO_PTO_KIND_STORE: case PTO_PTO_KIND_PREFETCH: case PTO_PTO_KIND_SETFLAG:
  case PTO_PTO_KIND_WAITFLAG: case PTO_PTO_KIND_BARRIER:
    if (c->cube) fix_kernel(&e);
    else copy_kernel(&e, id);
    break;
  case PTO_PTO_KIND_MOV:
    if (dt == PTO_DT_F32) {
      mov_kernel(&e);
      break;
    }
    instruction(&e, PTO_PTO_TMATMUL, "", space, rspace);
    break;
  case PTO_PTO_KIND_TRANS:
    instruction(&e, c->trans ? PTO_PTO_TMATMUL : id, attrs, space, rspace);
    break;
  case PTO_PTO_KIND_GATHERGM: gather_gm_kernel(&e, attrs); break;
  case PTO_PTO_KIND_SCATTERGM: scatter_gm_kernel(&e, attrs); break;

  default: instruction(&e, id, attrs, space, rspace); break;
  }
  bprintf(&c->body, "}\n");
  host_func(&c->body, c, idx);
  return true;
}

/* ---- running a module of cases both ways ---- */

static const uint64_t kImageBytes[PTO_BUF_NUM_SPACES] = {
    192 << 10, 512 << 10, 64 << 10, 64 << 10, 128 << 10}; /* a2a3 */
static uint8_t *image_[PTO_BUF_NUM_SPACES];
static PtoJit *jit_;

/* What one (instruction, dtype) row of the coverage table found. */
typedef struct Row {
  unsigned cases;       /* run both ways and compared */
  unsigned listed;      /* modules kNotTranslated explains */
  double max_ulps;      /* floats: worst distance in ulps of the output */
  double max_accum;     /* accumulations: worst |diff| / (k 2^-24 sum|x|) */
  bool lanes_differ;    /* 8 and 16 lanes gave different bits somewhere */
  bool width_dependent; /* 8 and 16 lanes give different code (run both) */
  bool unobservable;    /* no kernel can observe it (tmov of i32 to left) */
  bool seen;
} Row;

static Row rows_[PTO_PTO_NUM_OPS][PTO_DT_COUNT];
static const NotTranslated *listed_[64];
static unsigned nlisted_;

static const char *llvm_type(PtoDType dt) {
  switch (dt) {
  case PTO_DT_F32: return "float";
  case PTO_DT_F16: return "half";
  case PTO_DT_BF16: return "i16"; /* its bits, as the translation passes it */
  case PTO_DT_I32:
  case PTO_DT_U32: return "i32";
  case PTO_DT_I16:
  case PTO_DT_U16: return "i16";
  case PTO_DT_I64:
  case PTO_DT_U64: return "i64";
  default: return "i8";
  }
}

/* i32 pto_entry<idx>(void **argv): the kernel over argv's pointers (its
 * fault record after them when it can fail), its status (0 for a kernel
 * that cannot fail). */
static void entry_wrapper(Buf *b, const Case *c, unsigned idx) {
  unsigned nsp = c->cube ? 4 : 1, n = nsp + c->nin + c->nout;
  bprintf(b, "define i32 @pto_entry%u(i8** %%p) {\n", idx);
  for (unsigned i = 0; i < n; i++) {
    bprintf(b, "  %%g%u = getelementptr i8*, i8** %%p, i64 %u\n", i, i);
    bprintf(b, "  %%v%u = load i8*, i8** %%g%u\n", i, i);
    const Gm *g = i >= nsp && i - nsp < c->nin ? &c->in[i - nsp] : NULL;
    if (g && g->scalar) {
      const char *t = llvm_type(g->dt);
      bprintf(b, "  %%q%u = bitcast i8* %%v%u to %s*\n", i, i, t);
      bprintf(b, "  %%x%u = load %s, %s* %%q%u\n", i, t, t, i);
    }
  }
  if (c->faults) {
    bprintf(b, "  %%gf = getelementptr i8*, i8** %%p, i64 %u\n", n);
    bprintf(b, "  %%vf = load i8*, i8** %%gf\n  %%f = bitcast i8* %%vf to i64*\n");
  }
  bprintf(b, "  %s@k%u(", c->faults ? "%st = call i32 " : "call void ", idx);
  for (unsigned i = 0; i < n; i++) {
    const Gm *g = i >= nsp && i - nsp < c->nin ? &c->in[i - nsp] : NULL;
    if (g && g->scalar) bprintf(b, "%s%s %%x%u", i ? ", " : "", llvm_type(g->dt), i);
    else bprintf(b, "%si8* %%v%u", i ? ", " : "", i);
  }
  bprintf(b, "%s)\n  ret i32 %s\n}\n", c->faults ? ", i64* %f" : "", c->faults ? "%st" : "0");
}

static PtoOp *find_func(PtoOp *module, const char *name) {
  PtoBlock *top = pto_region_first_block(pto_op_region(module, 0));
  for (PtoOp *op = pto_block_first_op(top); op; op = pto_op_next(op))
    if (pto_op_is(op, "func.func") &&
        strcmp(pto_ident_str(pto_op_symbol_name(op)), name) == 0)
      return op;
  return NULL;
}

static size_t gm_bytes(const Gm *g) {
  return (size_t)(g->rows * g->cols) * pto_dtype_size(g->dt);
}

/* Runs case c's host function in the interpreter; its outputs (whole
 * tensors, C-contiguous) in want[j]. */
static bool run_interp(PtoInterp *I, PtoOp *module, const Case *c, unsigned idx,
                       void **want, DiagCapture *dc) {
  char name[16];
  snprintf(name, sizeof name, "f%u", idx);
  PtoOp *f = find_func(module, name);
  PtoInterpValue args[MAX_OPERANDS + MAX_RESULTS];
  unsigned n = 0;
  PtoError err;
  for (unsigned i = 0; i < c->nin + c->nout; i++) {
    const Gm *g = i < c->nin ? &c->in[i] : &c->out[i - c->nin];
    if (g->scalar) {
      args[n++] = dt_float(g->dt) ? pto_interp_value_float(g->dt, load_elem(g->dt, g->data, 0))
                                  : pto_interp_value_int(g->dt, scalar_int(g));
      continue;
    }
    int64_t shape[3] = {g->rows, g->cols, 0};
    if (g->planes) shape[0] = g->planes, shape[1] = g->rows / g->planes, shape[2] = g->cols;
    PtoNdArray *a = pto_ndarray_wrap(g->dt, g->planes ? 3 : 2, shape, NULL, g->data, &err);
    args[n++] = pto_interp_value_tensor(pto_tensor_from_ndarray(a));
    pto_ndarray_destroy(a);
  }
  PtoInterpValue *res = NULL;
  unsigned nres = 0;
  bool ok = f && pto_succeeded(pto_interp_run(I, f, args, n, &res, &nres)) &&
            nres == c->nout;
  for (unsigned i = 0; i < n; i++) pto_interp_value_release(&args[i]);
  if (!ok) {
    const char *why = diag_capture_take(dc);
    if (!c->fails) fprintf(stderr, "%s: the interpreter failed:\n%s\n", c->name, why);
    return false;
  }
  for (unsigned j = 0; j < nres; j++) {
    const PtoNdArray *a = pto_tensor_array(res[j].tensor);
    const Gm *g = &c->out[j];
    size_t sz = pto_dtype_size(g->dt);
    want[j] = malloc(gm_bytes(g) + 1);
    for (int64_t r = 0; r < g->rows; r++)
      for (int64_t col = 0; col < g->cols; col++) {
        int64_t ix[3] = {r, col, 0};
        if (g->planes) {
          int64_t per = g->rows / g->planes;
          ix[0] = r / per, ix[1] = r % per, ix[2] = col;
        }
        memcpy((char *)want[j] + (r * g->cols + col) * sz, pto_ndarray_elem_ptr(a, ix), sz);
      }
    pto_interp_value_release(&res[j]);
  }
  pto_free(res);
  return true;
}

static int64_t bits_of(PtoDType dt, const void *p, int64_t i) {
  switch (pto_dtype_size(dt)) {
  case 4: return ((const int32_t *)p)[i];
  case 2: return ((const int16_t *)p)[i];
  default: return ((const int8_t *)p)[i];
  }
}

/* Floats as integers in the order of their values (-0 and +0 adjacent). */
static int64_t ordered(PtoDType dt, const void *p, int64_t i) {
  int64_t b = bits_of(dt, p, i);
  unsigned w = 8 * (unsigned)pto_dtype_size(dt);
  int64_t mag = b & (((int64_t)1 << (w - 1)) - 1);
  return b < 0 ? -mag - 1 : mag;
}

static double ulp_at(PtoDType dt, double v) {
  int bits = dt == PTO_DT_F32 ? 24 : dt == PTO_DT_F16 ? 11 : 8;
  int emin = dt == PTO_DT_F16 ? -14 : -126;
  int e;
  frexp(v, &e);
  if (e - 1 < emin) e = emin + 1;
  return ldexp(1.0, e - bits);
}

/* sum |x| of the terms of output element (r, c) (window coordinates). */
static double magnitude(const Case *c, int64_t r, int64_t col) {
  const Gm *a = &c->in[0];
#define AT(g, i, j) fabs(load_elem((g)->dt, (g)->data, ((g)->r0 + (i)) * (g)->cols + (g)->c0 + (j)))
  double s = 0;
  if (c->accum == 1)
    for (int64_t j = 0; j < a->wcols; j++) s += AT(a, r, j);
  else if (c->accum == 2)
    for (int64_t i = 0; i < a->wrows; i++) s += AT(a, i, col);
  else
    for (unsigned p = 0; p + 1 < c->nin && p < 4; p += 2) {
      bool ta = c->trans >> p & 1, tb = c->trans >> (p + 1) & 1;
      int64_t kk = ta ? c->in[p].wrows : c->in[p].wcols;
      if ((tb ? c->in[p + 1].wcols : c->in[p + 1].wrows) != kk) break; /* the bias row */
      for (int64_t k = 0; k < kk; k++)
        s += (ta ? AT(&c->in[p], k, r) : AT(&c->in[p], r, k)) *
             (tb ? AT(&c->in[p + 1], col, k) : AT(&c->in[p + 1], k, col));
    }
  if (c->nin == 3 && c->accum == 3) s += AT(&c->in[2], 0, col);
#undef AT
  return s;
}

/* -0 against +0: a wrong sign, not 1 ulp (the distance `ordered` gives
 * them), whatever the bound. */
static bool zero_sign_differs(double w, double x) {
  return w == 0 && x == 0 && signbit(w) != signbit(x);
}

/* Compares one output: bit for bit, or for float results of computing
 * instructions within `ulps` (NaN matches NaN; a zero of the other sign
 * never matches), or for accumulations within the bound of
 * docs/numerics.md. Records the worst in row. */
static bool compare(const Case *c, unsigned j, const void *want, const void *got,
                    bool bitexact, double ulps, Row *row, const char *what) {
  const Gm *g = &c->out[j];
  bool fp = dt_float(g->dt);
  int bad = 0;
  for (int64_t r = 0; r < g->rows; r++)
    for (int64_t col = 0; col < g->cols; col++) {
      int64_t i = r * g->cols + col;
      if (bits_of(g->dt, want, i) == bits_of(g->dt, got, i)) continue;
      bool inside = r >= g->r0 && r < g->r0 + g->wrows && col >= g->c0 &&
                    col < g->c0 + g->wcols;
      double w = load_elem(g->dt, want, i), x = load_elem(g->dt, got, i);
      bool ok = false;
      if (inside && fp && !bitexact) {
        if (isnan(w) || isnan(x)) {
          ok = isnan(w) && isnan(x);
        } else if (zero_sign_differs(w, x)) {
          ok = false;
        } else if (c->accum && j == 0) {
          double unit = (double)c->k * 0x1p-24 * magnitude(c, r - g->r0, col - g->c0);
          double d = fabs(w - x);
          ok = d <= unit + ulp_at(g->dt, w);
          if (unit > 0 && d / unit > row->max_accum) row->max_accum = d / unit;
        } else {
          double d = (double)llabs(ordered(g->dt, want, i) - ordered(g->dt, got, i));
          if (d > row->max_ulps) row->max_ulps = d;
          ok = d <= ulps;
        }
      }
      if (!ok && bad++ < 3)
        fprintf(stderr, "%s (%s): output %u [%lld, %lld]: interpreter %.9g (0x%llx), "
                "JIT %.9g (0x%llx)\n", c->name, what, j, (long long)r, (long long)col,
                w, (unsigned long long)bits_of(g->dt, want, i) & 0xffffffffULL, x,
                (unsigned long long)bits_of(g->dt, got, i) & 0xffffffffULL);
    }
  return bad == 0;
}

/* The bound of a float result (ulps), or bit for bit. */
static bool bit_exact_op(PtoPtoOp id) {
  if (id == PTO_PTO_TMOV_TRANS) return false; /* seen through a tmatmul */
  /* computed as the interpreter computes them, NaN payloads kept */
  if (id == PTO_PTO_TSIGN || id == PTO_PTO_TTRUNC || id == PTO_PTO_THARDSIGMOID ||
      id == PTO_PTO_TLRELU || id == PTO_PTO_TCLIP)
    return true;
  switch (pto_pto_op_kind(id)) {
  case PTO_PTO_KIND_BINARY: case PTO_PTO_KIND_SCALAR: case PTO_PTO_KIND_UNARY:
  case PTO_PTO_KIND_CVT: case PTO_PTO_KIND_ROWRED: case PTO_PTO_KIND_COLRED:
  case PTO_PTO_KIND_ROWEXPAND: case PTO_PTO_KIND_MATMUL: case PTO_PTO_KIND_MOV:
  case PTO_PTO_KIND_ROWARG: case PTO_PTO_KIND_COLARG:
    return false;
  default: return true;
  }
}

/* EmitMathExp.c's instructions, computed in f64 and rounded once like
 * sin and cos */
static bool exp_math_op(PtoPtoOp id) {
  switch (id) {
  case PTO_PTO_TLOG2: case PTO_PTO_TLOG10: case PTO_PTO_TLOG1P: case PTO_PTO_TEXP2:
  case PTO_PTO_TEXPM1: case PTO_PTO_TSINH: case PTO_PTO_TCOSH: case PTO_PTO_TASINH:
  case PTO_PTO_TACOSH: case PTO_PTO_TATANH: case PTO_PTO_TCBRT:
    return true;
  default: return false;
  }
}

static double ulp_bound(PtoPtoOp id, PtoDType dt) {
  if (id == PTO_PTO_TEXP || id == PTO_PTO_TLOG) return dt == PTO_DT_F32 ? 2 : 1;
  if (id == PTO_PTO_TRSQRT) return 1;
  if (id == PTO_PTO_TTANH) return dt == PTO_DT_F32 ? 2 : 1;
  if (id == PTO_PTO_TSIGMOID) return dt == PTO_DT_F32 ? 4 : 1;
  if (id == PTO_PTO_TSILU) return dt == PTO_DT_F32 ? 4 : 1;
  /* computed in f64: the one rounding to the dtype, or the f32 result's
   * rounding to f16 / bf16 after it */
  if (id == PTO_PTO_TSIN || id == PTO_PTO_TCOS || id == PTO_PTO_TERF || id == PTO_PTO_TPOW)
    return 1;
  if (id == PTO_PTO_TTAN || id == PTO_PTO_TATAN || id == PTO_PTO_TASIN ||
      id == PTO_PTO_TACOS || id == PTO_PTO_TERFC || id == PTO_PTO_TATAN2)
    return 1;
  if (exp_math_op(id)) return 1;
  return 0;
}

/* A context of every dialect with its diagnostics captured in dc, and
 * the module *m parsed from text; false (the reason printed) unless it
 * verifies. */
/* The kernels of m translated for `lanes` as the host back end translates
 * them (lib/Exec/HostProgram.c): for x86-64 on an x86-64 host (its
 * streaming stores fenced with an SFENCE), so the code tested is the code
 * shipped. */
static PtoResult translate(PtoOp *m, unsigned lanes, char **ll) {
  PtoTranslateOptions o = {.lanes = lanes, .x86 = pto_llvmir_host_is_x86()};
  return pto_translate_to_llvmir_with(m, &o, ll);
}

static bool parse_verified(PtoContext **ctx, DiagCapture *dc, const Buf *text,
                           const char *what, PtoOp **m) {
  *ctx = pto_ctx_create();
  pto_register_all_dialects(*ctx);
  diag_capture_begin(dc, *ctx);
  *m = pto_parse_module(*ctx, text->s, text->len, NULL);
  if (*m && pto_succeeded(pto_op_verify(*m))) return true;
  fprintf(stderr, "%s: the generated kernels do not verify:\n%s\n%s\n", what,
          diag_capture_take(dc), text->s);
  return false;
}

/* Runs the n cases both ways; false on a harness or comparison failure. */
static bool run_module(const char *label, PtoPtoOp id, PtoDType dt, Case *cases,
                       unsigned n, Row *row) {
  Buf text = {0};
  bprintf(&text, "%s", "");
  for (unsigned i = 0; i < n; i++) bprintf(&text, "%s", cases[i].body.s);
  PtoContext *ctx;
  DiagCapture dc;
  PtoOp *m;
  bool ok = parse_verified(&ctx, &dc, &text, label, &m);
  if (!ok) {
    goto done;
  }
  void *want[64][MAX_RESULTS] = {{0}}, *got8[64][MAX_RESULTS] = {{0}};
  PtoInterp *I = pto_interp_create(ctx, NULL);
  for (unsigned i = 0; i < n && ok; i++) ok = run_interp(I, m, &cases[i], i, want[i], &dc);
  pto_interp_destroy(I);
  /* the host functions ran the cases in the interpreter; the kernels are
   * what is translated (a module's one host program would be translated
   * too, and this module has one per case) */
  for (PtoOp *o = pto_block_first_op(pto_region_first_block(pto_op_region(m, 0))), *next;
       o; o = next) {
    next = pto_op_next(o);
    if (pto_op_is(o, "func.func")) pto_op_erase(o);
  }
  /* both widths translated; only instructions whose code depends on the
   * width (row reductions, matmul) give a second module to run */
  char *ll[2] = {NULL, NULL};
  for (unsigned w = 0; ok && w < 2; w++) {
    diag_capture_take(&dc);
    if (pto_succeeded(translate(m, w ? 16 : 8, &ll[w]))) continue;
    const NotTranslated *nt = not_translated(label);
    if (!nt) {
      fprintf(stderr, "%s: not translated, and not listed in kNotTranslated:\n%s", label,
              diag_capture_take(&dc));
      ok = false;
    } else if (w == 0) {
      row->listed++;
      if (nlisted_ < 64) listed_[nlisted_++] = nt;
    }
    break;
  }
  if (ll[0] && not_translated(label)) {
    fprintf(stderr, "%s: listed in kNotTranslated, but it translates: take it off "
            "the list\n", label);
    ok = false;
  }
  bool same = ll[0] && ll[1] && strcmp(ll[0], ll[1]) == 0;
  for (unsigned w = 0; ok && ll[0] && ll[1] && w < (same ? 1u : 2u); w++) {
    unsigned lanes = w ? 16 : 8;
    Buf full = {0};
    bprintf(&full, "%s", ll[w]);
    for (unsigned i = 0; i < n; i++) entry_wrapper(&full, &cases[i], i);
    PtoError err;
    PtoJitModule *jm = pto_jit_compile(jit_, full.s, full.len, &err);
    if (!jm) {
      fprintf(stderr, "%s: the JIT failed: %s\n", label, err.msg);
      ok = false;
    }
    for (unsigned i = 0; jm && i < n; i++) {
      Case *c = &cases[i];
      char name[24];
      snprintf(name, sizeof name, "pto_entry%u", i);
      void *p = pto_jit_module_lookup(jm, name, &err);
      int (*entry)(void **);
      memcpy(&entry, &p, sizeof p);
      void *argv[4 + MAX_OPERANDS + MAX_RESULTS + 1];
      int64_t fault[PTO_LLVMIR_FAULT_SLOTS] = {0};
      unsigned a = 0;
      static const PtoBufSpace cube[4] = {PTO_BUF_MAT, PTO_BUF_LEFT, PTO_BUF_RIGHT, PTO_BUF_ACC};
      if (c->cube) for (unsigned s = 0; s < 4; s++) argv[a++] = image_[cube[s]];
      else argv[a++] = image_[PTO_BUF_VEC];
      for (unsigned s = 0; s < PTO_BUF_NUM_SPACES; s++) memset(image_[s], 0xff, kImageBytes[s]);
      for (unsigned k = 0; k < c->nin; k++) argv[a++] = c->in[k].data;
      void *out[MAX_RESULTS];
      for (unsigned j = 0; j < c->nout; j++) {
        out[j] = malloc(gm_bytes(&c->out[j]) + 1);
        memcpy(out[j], c->out[j].data, gm_bytes(&c->out[j]));
        argv[a++] = out[j];
      }
      argv[a] = fault;
      int st = entry(argv);
      if (st != 0 || fault[PTO_LLVMIR_FAULT_SITE] != 0) {
        fprintf(stderr, "%s: the kernel reported a fault (status %d) on indices in range\n",
                c->name, st);
        ok = false;
      }
      char what[16];
      snprintf(what, sizeof what, "%u lanes", lanes);
      for (unsigned j = 0; j < c->nout; j++) {
        ok &= compare(c, j, want[i][j], out[j], (bit_exact_op(id) && !c->accum) || !dt_float(c->out[j].dt),
                      ulp_bound(id, c->out[j].dt), row, what);
        if (lanes == 8) {
          got8[i][j] = out[j];
        } else {
          if (memcmp(got8[i][j], out[j], gm_bytes(&c->out[j]))) row->lanes_differ = true;
          free(out[j]);
        }
      }
      if (w == 0) row->cases++;
    }
    free(full.s);
  }
  if (!same && ll[1]) row->width_dependent = true;
  pto_free(ll[0]);
  pto_free(ll[1]);
  for (unsigned i = 0; i < n; i++)
    for (unsigned j = 0; j < MAX_RESULTS; j++) free(want[i][j]), free(got8[i][j]);
  pto_op_destroy(m);
done:
  diag_capture_end(&dc);
  pto_ctx_destroy(ctx);
  free(text.s);
  return ok;
}

/* ---- the enumeration ---- */

/* The element types row `id` accepts for its main operand. */
static unsigned row_dtypes(PtoPtoOp id, PtoDType *out) {
  static const PtoDType all[] = {PTO_DT_F32, PTO_DT_F16, PTO_DT_BF16, PTO_DT_I64, PTO_DT_I32,
                                 PTO_DT_I16, PTO_DT_I8, PTO_DT_U64, PTO_DT_U32, PTO_DT_U16,
                                 PTO_DT_U8, PTO_DT_BOOL, PTO_DT_F8E4M3,
                                 PTO_DT_F8E5M2, PTO_DT_F8E8M0};
  unsigned n = 0;
  PtoPtoKind kind = pto_pto_op_kind(id);
  for (unsigned i = 0; i < sizeof all / sizeof all[0]; i++) {
    PtoDType dt = all[i];
    bool ok;
    /* the 8-bit floats are storage: moved and converted */
    if (dt_f8(dt)) {
      ok = kind == PTO_PTO_KIND_CVT || kind == PTO_PTO_KIND_LOAD ||
           kind == PTO_PTO_KIND_STORE || kind == PTO_PTO_KIND_MOV ||
           id == PTO_PTO_TTRANS || kind == PTO_PTO_KIND_EXPAND ||
           kind == PTO_PTO_KIND_PERMUTE || kind == PTO_PTO_KIND_REPEAT;
      if (ok) out[n++] = dt;
      continue;
    }
    switch (pto_pto_op_dtypes(id)) {
    case PTO_PTO_DT_FLOAT: ok = dt_float(dt); break;
    case PTO_PTO_DT_NUMERIC: ok = dt != PTO_DT_BOOL; break;
    case PTO_PTO_DT_INT: ok = !dt_float(dt) && dt != PTO_DT_BOOL; break;
    case PTO_PTO_DT_BOOL: ok = dt == PTO_DT_BOOL; break;
    case PTO_PTO_DT_MATMUL: ok = dt_float(dt) || dt == PTO_DT_I8; break;
    default: ok = true; break;
    }
    if (ok) out[n++] = dt;
  }
  return n;
}

/* Instructions whose float results run_row checks on zeros of both
 * signs: those compared within a bound, where a zero of the wrong sign
 * would otherwise hide in rows of random values. */
static bool zero_signs(PtoPtoOp id) {
  switch (pto_pto_op_kind(id)) {
  case PTO_PTO_KIND_BINARY: case PTO_PTO_KIND_SCALAR: case PTO_PTO_KIND_UNARY:
  case PTO_PTO_KIND_CVT: case PTO_PTO_KIND_ROWRED: case PTO_PTO_KIND_COLRED:
  case PTO_PTO_KIND_ROWEXPAND: case PTO_PTO_KIND_MATMUL: case PTO_PTO_KIND_MOV:
  case PTO_PTO_KIND_EXPAND:
    return true;
  default: return false;
  }
}

static bool run_row(const char *label, PtoPtoOp id, PtoDType dt, const Variant *vars,
                    unsigned nvars, Row *row) {
  static Case cases[64];
  unsigned n = 0;
  PtoPtoKind kind = pto_pto_op_kind(id);
  for (unsigned v = 0; v < nvars; v++)
    for (int s = 0; s < NUM_SHAPES; s++) {
      /* tcvt's many variants: at the odd shape in a wider tensor only, to
       * keep the JIT's compile time in bounds */
      if (kind == PTO_PTO_KIND_CVT && s != (dt_f8(dt) ? 2 : 1)) continue;
      Fill fills[2] = {vars[v].fill, vars[v].fill};
      unsigned nf = 1;
      if (accumulates(id) && dt_float(dt)) fills[0] = FILL_DYADIC, fills[1] = FILL_UNIFORM, nf = 2;
      if (kind == PTO_PTO_KIND_SORT32 || kind == PTO_PTO_KIND_MRGSORT ||
          kind == PTO_PTO_KIND_TOPK || kind == PTO_PTO_KIND_TOPKMERGE ||
          kind == PTO_PTO_KIND_ROWARG ||
          kind == PTO_PTO_KIND_COLARG)
        fills[0] = s == 1 ? FILL_TIES : FILL_RANDOM;
      for (unsigned f = 0; f < nf; f++) {
        Variant vv = vars[v];
        vv.fill = fills[f];
        if (!build_case(&cases[n], n, id, dt, &kShapes[s], s, &vv)) {
          row->unobservable = true;
          return true;
        }
        n++;
      }
    }
  /* the signs of zero: a float instruction that computes (data movement
   * is compared bit for bit anyway) on inputs of mostly -0 and +0, at two
   * shapes (the scalar of tadds ... +0 at one, -0 at the other); tcvt
   * once into each float destination */
  bool cvt = kind == PTO_PTO_KIND_CVT;
  for (unsigned v = 0; dt_float(dt) && zero_signs(id) && v < (cvt ? nvars : 1); v++)
    for (int s = 1; s < 3; s++) {
      Variant vv = vars[v];
      if (vv.fill == FILL_F8 || (cvt && (!dt_float(vv.dt2) || s != 1))) continue;
      vv.fill = FILL_ZEROS;
      if (build_case(&cases[n], n, id, dt, &kShapes[s], s, &vv)) n++;
    }
  bool ok = run_module(label, id, dt, cases, n, row);
  for (unsigned i = 0; i < n; i++) case_free(&cases[i]);
  return ok;
}

/* The JIT at O2; PTO_JITDIFF_OPT_LEVEL=0 compiles without LLVM's
 * optimisations: the sanitizer builds set it, since there the test checks
 * the emitters and the interpreter (instrumented), and LLVM's pipeline
 * (not instrumented, but slowed by the sanitizer's allocator) is most of
 * its time. */
static PtoJit *test_jit(void) {
  PtoError err;
  PtoJitOptions opts = {.opt_level = 2};
  const char *level = getenv("PTO_JITDIFF_OPT_LEVEL");
  if (level && level[0] >= '0' && level[0] <= '3' && !level[1]) opts.opt_level = level[0] - '0';
  return pto_jit_create(&opts, &err);
}

TEST(every_instruction_and_dtype) {
  jit_ = test_jit();
  CHECK(jit_ != NULL);
  if (!jit_) return;
  for (unsigned s = 0; s < PTO_BUF_NUM_SPACES; s++) image_[s] = malloc(kImageBytes[s]);
  static const PtoDType numeric[] = {PTO_DT_F32, PTO_DT_F16, PTO_DT_BF16,
                                     PTO_DT_I64, PTO_DT_I32, PTO_DT_I16,
                                     PTO_DT_I8, PTO_DT_U64, PTO_DT_U32,
                                     PTO_DT_U16, PTO_DT_U8};
  const unsigned nnumeric = sizeof numeric / sizeof numeric[0];
  static const PtoDType kF8[] = {PTO_DT_F8E4M3, PTO_DT_F8E5M2, PTO_DT_F8E8M0};
  /* PTO_JITDIFF_ONLY=tcvt runs one instruction's rows (while debugging) */
  const char *only = getenv("PTO_JITDIFF_ONLY");
  for (int id = 0; id < PTO_PTO_NUM_OPS; id++) {
    if (only && strcmp(only, pto_pto_op_mnemonic((PtoPtoOp)id)) != 0) continue;
    PtoDType dts[PTO_DT_COUNT];
    unsigned ndt = row_dtypes((PtoPtoOp)id, dts);
    PtoPtoKind kind = pto_pto_op_kind((PtoPtoOp)id);
    for (unsigned d = 0; d < ndt; d++) {
      PtoDType dt = dts[d];
      Row *row = &rows_[id][dt];
      row->seen = true;
      Variant vars[64];
      unsigned nv = 0;
      Fill base = id == PTO_PTO_TLOG || id == PTO_PTO_TSQRT || id == PTO_PTO_TRSQRT ||
                          id == PTO_PTO_TLOG2 || id == PTO_PTO_TLOG10 || id == PTO_PTO_TACOSH
                      ? FILL_POSITIVE
                  : id == PTO_PTO_TASIN || id == PTO_PTO_TACOS ? FILL_UNIFORM /* the domain */
                  : id == PTO_PTO_TATANH || id == PTO_PTO_TLOG1P ? FILL_UNIFORM
                  : id == PTO_PTO_TGCD || id == PTO_PTO_TDIV || id == PTO_PTO_TDIVS ||
                          id == PTO_PTO_TROWEXPANDDIV
                      ? FILL_INT_EDGES
                      : FILL_RANDOM;
      char label[64];
      snprintf(label, sizeof label, "%s %s", pto_pto_op_mnemonic((PtoPtoOp)id), dt_name(dt));
      if (kind == PTO_PTO_KIND_CVT && dt_f8(dt)) {
        /* from an 8-bit float (every code, at 32x32) to every dtype and
         * 8-bit float, every rounding mode, saturating or not */
        for (unsigned t = 0; t < nnumeric + 3; t++) {
          PtoDType to = t < nnumeric ? numeric[t] : kF8[t - nnumeric];
          nv = 0;
          for (unsigned r = 0; r < 5; r++)
            for (int sat = 0; sat < 2; sat++)
              vars[nv++] = (Variant){to, kRoundModes[r], sat, FILL_RANDOM, false};
          snprintf(label, sizeof label, "tcvt %s->%s", dt_name(dt), dt_name(to));
          CHECK(run_row(label, (PtoPtoOp)id, dt, vars, nv, row));
        }
        continue;
      }
      if (kind == PTO_PTO_KIND_CVT) {
        /* into each 8-bit float, every rounding mode, saturating or
         * not, from values about its codes: ties, the
         * largest finite value and past it, subnormals, specials (integers:
         * their edges and multiples of powers of two) */
        for (unsigned t = 0; t < 3; t++) {
          nv = 0;
          for (unsigned r = 0; r < 5; r++)
            for (int sat = 0; sat < 2; sat++)
              vars[nv++] = (Variant){kF8[t], kRoundModes[r], sat,
                                     dt_float(dt) ? FILL_F8 : FILL_INT_EDGES, false};
          snprintf(label, sizeof label, "tcvt %s->%s", dt_name(dt), dt_name(kF8[t]));
          CHECK(run_row(label, (PtoPtoOp)id, dt, vars, nv, row));
        }
        /* every destination and rounding mode, saturating or not: to
         * nearest even into every destination in one module, the
         * directed modes one module per destination */
        nv = 0;
        for (unsigned t = 0; t < nnumeric; t++)
          for (int sat = 0; sat < 2; sat++)
            vars[nv++] = (Variant){numeric[t], kRoundModes[0], sat, FILL_RANDOM, false};
        snprintf(label, sizeof label, "tcvt %s rint", dt_name(dt));
        CHECK(run_row(label, (PtoPtoOp)id, dt, vars, nv, row));
        for (unsigned t = 0; t < nnumeric; t++) {
          nv = 0;
          for (unsigned r = 1; r < 5; r++)
            for (int sat = 0; sat < 2; sat++)
              vars[nv++] = (Variant){numeric[t], kRoundModes[r], sat, FILL_RANDOM, false};
          snprintf(label, sizeof label, "tcvt %s->%s directed", dt_name(dt),
                   dt_name(numeric[t]));
          CHECK(run_row(label, (PtoPtoOp)id, dt, vars, nv, row));
        }
        continue;
      }
      if (kind == PTO_PTO_KIND_CMP) {
        for (unsigned p = 0; p < 6; p++) vars[nv++] = (Variant){dt, kCmpPreds[p], false, base, false};
      } else if (kind == PTO_PTO_KIND_SEL) {
        for (unsigned t = 0; t < nnumeric + 3; t++) { /* the 8-bit floats too */
          PtoDType data = t < nnumeric ? numeric[t] : kF8[t - nnumeric];
          Variant one = {data, NULL, false, base, false};
          snprintf(label, sizeof label, "tsel %s", dt_name(data));
          CHECK(run_row(label, (PtoPtoOp)id, dt, &one, 1, row));
        }
        snprintf(label, sizeof label, "tsel i1");
        vars[nv++] = (Variant){PTO_DT_BOOL, NULL, false, base, false};
      } else if (kind == PTO_PTO_KIND_SCATTERGM) {
        /* each mode (i1 only overwrites), one index per element or per slice */
        static const char *const modes[] = {"overwrite", "add", "multiply"};
        for (unsigned k = 0; k < (dt == PTO_DT_BOOL ? 1u : 3u); k++)
          for (int sl = 0; sl < 2; sl++)
            for (int nd = 0; nd < 2; nd++) vars[nv++] = (Variant){dt, modes[k], sl, base, nd};
      } else if (kind == PTO_PTO_KIND_GATHERGM) {
        /* a 2-D tensor, and a 3-D one */
        vars[nv++] = (Variant){dt, NULL, false, base, false};
        vars[nv++] = (Variant){dt, NULL, false, base, true};
      } else if (kind == PTO_PTO_KIND_RANDOM) {
        vars[nv++] = (Variant){dt, "uniform", false, base, false};
        vars[nv++] = (Variant){dt, "normal", false, base, false};
      } else if (id == PTO_PTO_TLRELU || id == PTO_PTO_TCLIP) {
        /* parameters exact and inexact in the dtype, the defaults, a
         * bound at 0 (where -0 must stay) */
        static const char *const lrelu[] = {NULL, "{slope = 0.2 : f64}", "{slope = 3.0 : f64}",
                                            "{slope = 0.0 : f64}"};
        static const char *const clip[] = {
            NULL, "{min = -0.5 : f64, max = 2.0 : f64}",
            "{min = -0.1 : f64, max = 0.3 : f64}", "{min = 0.0 : f64, max = 0.0 : f64}",
            "{min = -1.0e30 : f64, max = 70000.5 : f64}", "{max = 1.0e-40 : f64}"};
        const char *const *ps = id == PTO_PTO_TLRELU ? lrelu : clip;
        unsigned np = id == PTO_PTO_TLRELU ? 4 : 6;
        for (unsigned i = 0; i < np; i++) {
          vars[nv++] = (Variant){dt, ps[i], false, FILL_RANDOM, false};
          vars[nv++] = (Variant){dt, ps[i], false, FILL_UNIFORM, false};
        }
      } else if (id == PTO_PTO_TSIGN || id == PTO_PTO_TTRUNC || id == PTO_PTO_THARDSIGMOID) {
        vars[nv++] = (Variant){dt, NULL, false, base, false};
        vars[nv++] = (Variant){dt, NULL, false, FILL_DYADIC, false}; /* halves, -3 and 3 exactly */
      } else {
        vars[nv++] = (Variant){dt, NULL, false, base, false};
      }
      CHECK(run_row(label, (PtoPtoOp)id, dt, vars, nv, row));
      if (id == PTO_PTO_TSTORE && (dt == PTO_DT_F16 || dt == PTO_DT_BF16)) {
        /* an f32 accumulator stored into the narrower type */
        Variant fix = {dt, "fix", false, FILL_UNIFORM, false};
        snprintf(label, sizeof label, "tstore acc f32->%s", dt_name(dt));
        CHECK(run_row(label, (PtoPtoOp)id, dt, &fix, 1, row));
      }
    }
  }
  /* the coverage table */
  printf("%-14s", "instruction");
  static const PtoDType cols[] = {PTO_DT_F32, PTO_DT_F16, PTO_DT_BF16, PTO_DT_I64, PTO_DT_I32,
                                  PTO_DT_I16, PTO_DT_I8, PTO_DT_U64, PTO_DT_U32, PTO_DT_U16,
                                  PTO_DT_U8, PTO_DT_BOOL, PTO_DT_F8E4M3,
                                  PTO_DT_F8E5M2, PTO_DT_F8E8M0};
  const unsigned ncols = sizeof cols / sizeof cols[0];
  for (unsigned d = 0; d < ncols; d++) printf(" %-12s", dt_name(cols[d]));
  printf("\n");
  unsigned total = 0;
  for (int id = 0; id < PTO_PTO_NUM_OPS; id++) {
    printf("%-14s", pto_pto_op_mnemonic((PtoPtoOp)id));
    for (unsigned d = 0; d < ncols; d++) {
      Row *r = &rows_[id][cols[d]];
      char cell[32];
      if (!r->seen) snprintf(cell, sizeof cell, "-");
      else if (r->unobservable) snprintf(cell, sizeof cell, "n/a");
      else if (r->listed && !r->cases) snprintf(cell, sizeof cell, "NOT");
      else if (r->listed) snprintf(cell, sizeof cell, "%u part", r->cases);
      else if (r->max_accum > 0)
        snprintf(cell, sizeof cell, "%u a%.2f%s", r->cases, r->max_accum,
                 r->lanes_differ ? "*" : r->width_dependent ? "=" : "");
      else
        snprintf(cell, sizeof cell, "%u u%g%s", r->cases, r->max_ulps,
                 r->lanes_differ ? "*" : r->width_dependent ? "=" : "");
      printf(" %-12s", cell);
      total += r->cases;
    }
    printf("\n");
  }
  printf("%u cases compared (uN: worst ulps; aX: worst accumulation error / "
         "(k 2^-24 sum|x|); =: different code at 8 and 16 lanes, run at both, "
         "same results; *: run at both, results differ)\n", total);
  for (unsigned i = 0; i < nlisted_; i++)
    printf("not translated: %s: %s\n", listed_[i]->label, listed_[i]->reason);
  for (unsigned s = 0; s < PTO_BUF_NUM_SPACES; s++) free(image_[s]);
  pto_jit_destroy(jit_);
}

/* The JIT'd pto_entry0 of the translated kernels ll with case c's entry
 * wrapper; NULL (the reason printed) when it does not compile. */
static void *jit_entry0(const char *ll, const Case *c) {
  Buf full = {0};
  bprintf(&full, "%s", ll);
  entry_wrapper(&full, c, 0);
  PtoError err;
  PtoJitModule *jm = pto_jit_compile(jit_, full.s, full.len, &err);
  void *p = jm ? pto_jit_module_lookup(jm, "pto_entry0", &err) : NULL;
  free(full.s);
  if (!p) fprintf(stderr, "%s: the JIT failed: %s\n", c->name, err.msg);
  return p;
}

/* The error path of tgather_gm and tscatter_gm: an index outside the
 * tensor stops the interpreter with an error at the instruction, and the
 * compiled kernel returns PTO_LLVMIR_FAULT with the same index, position
 * and bound in its fault record (the first bad index in row-major order,
 * as the interpreter names it), for either dim and sign; a scatter that
 * faults has written nothing. */
typedef struct FaultRow {
  unsigned dim;
  PtoDType ix;
  int64_t index[6]; /* the 2x3 index tile */
  int64_t bad, row, col, bound; /* what both must report */
  bool scatter; /* tscatter_gm of the index tile into X (then of its type) */
  bool nd; /* X is 2x2x40, the tile [2, 1, 3] in it: the message names (row, 0, col) */
} FaultRow;

static bool run_fault_row(const FaultRow *f) {
  const char *ixs = dt_name(f->ix), *xs = f->scatter ? ixs : "f32";
  const char *mn = f->scatter ? "tscatter_gm" : "tgather_gm";
  const char *xd = f->nd ? "2x2x40" : "4x40", *shape = f->nd ? ", shape = [2, 1, 3]" : "";
  char at[32];
  if (f->nd) snprintf(at, sizeof at, "0, 1, %u", f->dim ? 0u : 2u);
  else snprintf(at, sizeof at, "%u, %u", f->dim ? 1u : 0u, f->dim ? 0u : 2u);
  Buf text = {0};
  bprintf(&text,
          "pto.kernel vector @k0(%%X: tensor<%sx%s>, %%I: tensor<2x3x%s>, %%Y: tensor<2x3xf32>) {\n"
          "  %%i = pto.tload %%I[0, 0] : tensor<2x3x%s> -> !pto.tile<2x3x%s, vec, offset = 0>\n",
          xd, xs, ixs, ixs, ixs);
  if (f->scatter)
    bprintf(&text,
            "  pto.tscatter_gm %%i, %%X[%s], %%i {dim = %u : i64%s} : !pto.tile<2x3x%s, vec, "
            "offset = 0>, !pto.tile<2x3x%s, vec, offset = 0> into tensor<%sx%s>\n}\n",
            at, f->dim, shape, ixs, ixs, xd, ixs);
  else
    bprintf(&text,
            "  %%g = pto.tgather_gm %%X[%s], %%i {dim = %u : i64%s} : tensor<%sxf32>, "
            "!pto.tile<2x3x%s, vec, offset = 0> -> !pto.tile<2x3xf32, vec, offset = 64>\n"
            "  pto.set_flag MTE2 -> MTE3, 0\n  pto.wait_flag MTE2 -> MTE3, 0\n"
            "  pto.tstore %%g, %%Y[0, 0] : !pto.tile<2x3xf32, vec, offset = 64> into "
            "tensor<2x3xf32>\n}\n",
            at, f->dim, shape, xd, ixs);
  bprintf(&text,
          "func.func @f0(%%X: tensor<%sx%s>, %%I: tensor<2x3x%s>, %%Y: tensor<2x3xf32>) -> tensor<2x3xf32> {\n"
          "  block.launch @k0(%%X, %%I, %%Y) {label = \"k\", reads = [], writes = []} : "
          "(tensor<%sx%s>, tensor<2x3x%s>, tensor<2x3xf32>)\n"
          "  func.return %%Y : tensor<2x3xf32>\n}\n",
          xd, xs, ixs, xd, xs, ixs);
  Case c;
  memset(&c, 0, sizeof c);
  snprintf(c.name, sizeof c.name, "%s fault %s%s dim %u", mn, ixs, f->nd ? " 3-D" : "", f->dim);
  c.faults = c.fails = true;
  c.nin = 2, c.nout = 1;
  c.in[0] = (Gm){f->scatter ? f->ix : PTO_DT_F32, 4, 40, 0, 0, 4, 40, calloc(160, 8),
                 false, f->nd ? 2 : 0, 0};
  c.in[1] = (Gm){f->ix, 2, 3, 0, 0, 2, 3, calloc(6, 8), false, 0, 0};
  c.out[0] = (Gm){PTO_DT_F32, 2, 3, 0, 0, 2, 3, calloc(6, 4), false, 0, 0};
  for (unsigned i = 0; i < 6; i++) {
    if (f->ix == PTO_DT_I64) ((int64_t *)c.in[1].data)[i] = f->index[i];
    else ((int32_t *)c.in[1].data)[i] = (int32_t)f->index[i];
  }
  char want[160];
  snprintf(want, sizeof want, "-:3:3: error: 'pto.%s' op index %lld at position "
           "(%lld, %s%lld) is out of range [0, %lld) for dim %u", mn, (long long)f->bad,
           (long long)f->row, f->nd ? "0, " : "", (long long)f->col, (long long)f->bound,
           f->dim);
  PtoContext *ctx;
  DiagCapture dc;
  PtoOp *m;
  bool ok = parse_verified(&ctx, &dc, &text, c.name, &m);
  void *none[MAX_RESULTS] = {NULL};
  if (ok) {
    PtoInterp *I = pto_interp_create(ctx, NULL);
    if (run_interp(I, m, &c, 0, none, &dc)) {
      fprintf(stderr, "%s: the interpreter ran an index outside the tensor\n", c.name);
      ok = false;
    } else if (!strstr(dc.last, want)) {
      fprintf(stderr, "%s: the interpreter said\n%s\nnot\n%s\n", c.name, dc.last, want);
      ok = false;
    }
    pto_interp_destroy(I);
    free(none[0]);
  }
  char *ll = NULL;
  if (ok) {
    pto_op_erase(find_func(m, "f0"));
    ok = pto_succeeded(translate(m, 8, &ll));
    if (!ok) fprintf(stderr, "%s: not translated:\n%s\n", c.name, diag_capture_take(&dc));
  }
  if (ok) {
    void *p = jit_entry0(ll, &c);
    if (!p) {
      ok = false;
    } else {
      int (*entry)(void **);
      memcpy(&entry, &p, sizeof p);
      int64_t rec[PTO_LLVMIR_FAULT_SLOTS] = {0};
      void *argv[5] = {image_[PTO_BUF_VEC], c.in[0].data, c.in[1].data, c.out[0].data, rec};
      int st = entry(argv);
      /* the site: the instruction is the body's second op */
      ok = st == PTO_LLVMIR_FAULT && rec[PTO_LLVMIR_FAULT_SITE] == 2 &&
           rec[PTO_LLVMIR_FAULT_INDEX] == f->bad && rec[PTO_LLVMIR_FAULT_ROW] == f->row &&
           rec[PTO_LLVMIR_FAULT_COL] == f->col && rec[PTO_LLVMIR_FAULT_BOUND] == f->bound;
      for (unsigned i = 0; ok && i < 160 * 2; i++)
        if (((int32_t *)c.in[0].data)[i] != 0) {
          fprintf(stderr, "%s: the kernel wrote X[%u] before it faulted\n", c.name, i);
          ok = false;
        }
      if (!ok)
        fprintf(stderr, "%s: the kernel returned %d with site %lld, index %lld at (%lld, %lld), "
                "bound %lld\n", c.name, st, (long long)rec[0], (long long)rec[1],
                (long long)rec[2], (long long)rec[3], (long long)rec[4]);
    }
  }
  pto_free(ll);
  diag_capture_end(&dc);
  if (m) pto_op_destroy(m);
  pto_ctx_destroy(ctx);
  free(text.s);
  case_free(&c);
  return ok;
}

TEST(gather_gm_faults) {
  PtoError err;
  jit_ = pto_jit_create(NULL, &err);
  CHECK(jit_ != NULL);
  if (!jit_) return;
  image_[PTO_BUF_VEC] = malloc(kImageBytes[PTO_BUF_VEC]);
  static const FaultRow rows[] = {
      /* the index equal to the bound; a later bad one is not the first */
      {1, PTO_DT_I32, {1, 2, 3, 4, 40, 99}, 40, 1, 1, 40, false, false},
      {1, PTO_DT_I32, {-1, 0, 0, 0, 0, 0}, -1, 0, 0, 40, false, false},
      {1, PTO_DT_I32, {0, 0, 0, 0, 0, INT32_MIN}, INT32_MIN, 1, 2, 40, false, false},
      /* along dim 0 the bound is the tensor's 4 rows */
      {0, PTO_DT_I32, {3, 0, 2, 1, 3, 4}, 4, 1, 2, 4, false, false},
      {0, PTO_DT_I32, {0, -7, 0, 5, 0, 0}, -7, 0, 1, 4, false, false},
      /* the same for tscatter_gm, its good indices written nowhere */
      {1, PTO_DT_I32, {1, 2, 3, 4, 40, 99}, 40, 1, 1, 40, true, false},
      {1, PTO_DT_I32, {0, 0, 0, 0, 0, INT32_MIN}, INT32_MIN, 1, 2, 40, true, false},
      {0, PTO_DT_I32, {3, 0, 2, 1, 3, 4}, 4, 1, 2, 4, true, false},
      {0, PTO_DT_I32, {0, -7, 0, 5, 0, 0}, -7, 0, 1, 4, true, false},
      /* i64 indices: checked in 64 bits, not truncated to 32 first */
      {1, PTO_DT_I64, {0, 0, ((int64_t)1 << 32) + 3, 0, 0, 0}, ((int64_t)1 << 32) + 3, 0, 2, 40, false, false},
      {0, PTO_DT_I64, {0, 1, 2, 3, INT64_MIN, 0}, INT64_MIN, 1, 1, 4, false, false},
      {1, PTO_DT_I64, {39, 0, 0, 40, 0, 0}, 40, 1, 0, 40, false, false},
      {1, PTO_DT_I64, {0, 0, ((int64_t)1 << 32) + 3, 0, 0, 0}, ((int64_t)1 << 32) + 3, 0, 2, 40, true, false},
      {0, PTO_DT_I64, {0, 1, 2, 3, INT64_MIN, 0}, INT64_MIN, 1, 1, 4, true, false},
      /* a 3-D tensor: the bound is its extent along dim, the position the
       * index tile's seen as the tile's shape there */
      {2, PTO_DT_I32, {1, 2, 3, 4, 40, 99}, 40, 1, 1, 40, false, true},
      {0, PTO_DT_I32, {1, 0, 0, 0, 2, 0}, 2, 1, 1, 2, false, true},
      {2, PTO_DT_I64, {0, 0, 0, 0, 0, -1}, -1, 1, 2, 40, true, true},
      {0, PTO_DT_I32, {0, 1, -3, 0, 0, 5}, -3, 0, 2, 2, true, true},
  };
  unsigned n = 0;
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) n += run_fault_row(&rows[i]);
  printf("tgather_gm, tscatter_gm: %u of %zu out-of-range rows report the interpreter's "
         "error\n", n,
         sizeof rows / sizeof rows[0]);
  CHECK(n == sizeof rows / sizeof rows[0]);
  free(image_[PTO_BUF_VEC]);
  image_[PTO_BUF_VEC] = NULL;
  pto_jit_destroy(jit_);
  jit_ = NULL;
}

/* A tstore into a GM tensor of 16 MiB (streaming: non-temporal vector
 * stores, then a fence) at a window whose rows start off the vector's
 * alignment, translated as the host back end translates it: its fence is
 * an SFENCE on x86-64 hosts (a seq_cst fence elsewhere), and the JIT'd
 * kernel writes the window as the interpreter does and nothing else. */
TEST(streaming_store_as_shipped) {
  jit_ = test_jit();
  CHECK(jit_ != NULL);
  if (!jit_) return;
  image_[PTO_BUF_VEC] = malloc(kImageBytes[PTO_BUF_VEC]);
  Buf text = {0};
  bprintf(&text,
          "pto.kernel vector @k0(%%X: tensor<5x40xf32>, %%Y: tensor<2048x2048xf32>) {\n"
          "  %%x = pto.tload %%X[0, 0] : tensor<5x40xf32> -> !pto.tile<5x40xf32, vec, offset = 0>\n"
          "  pto.set_flag MTE2 -> MTE3, 0\n  pto.wait_flag MTE2 -> MTE3, 0\n"
          "  pto.tstore %%x, %%Y[3, 5] : !pto.tile<5x40xf32, vec, offset = 0> into "
          "tensor<2048x2048xf32>\n}\n"
          "func.func @f0(%%X: tensor<5x40xf32>, %%Y: tensor<2048x2048xf32>) -> "
          "tensor<2048x2048xf32> {\n"
          "  block.launch @k0(%%X, %%Y) {label = \"k\", reads = [], writes = []} : "
          "(tensor<5x40xf32>, tensor<2048x2048xf32>)\n"
          "  func.return %%Y : tensor<2048x2048xf32>\n}\n");
  Case c;
  memset(&c, 0, sizeof c);
  snprintf(c.name, sizeof c.name, "streaming tstore");
  c.nin = 1, c.nout = 1;
  c.in[0] = (Gm){PTO_DT_F32, 5, 40, 0, 0, 5, 40, malloc(200 * 4), false, 0, 0};
  c.out[0] = (Gm){PTO_DT_F32, 2048, 2048, 3, 5, 5, 40, NULL, false, 0, 0};
  c.out[0].data = malloc(gm_bytes(&c.out[0]));
  for (int64_t i = 0; i < 200; i++) ((float *)c.in[0].data)[i] = (float)i + 0.5f;
  for (int64_t i = 0; i < 2048 * 2048; i++) ((float *)c.out[0].data)[i] = -(float)(i % 1000);
  float *before = malloc(gm_bytes(&c.out[0]));
  memcpy(before, c.out[0].data, gm_bytes(&c.out[0]));
  PtoContext *ctx;
  DiagCapture dc;
  PtoOp *m;
  bool ok = parse_verified(&ctx, &dc, &text, c.name, &m);
  void *want[MAX_RESULTS] = {NULL};
  if (ok) {
    PtoInterp *I = pto_interp_create(ctx, NULL);
    ok = run_interp(I, m, &c, 0, want, &dc);
    pto_interp_destroy(I);
  }
  char *ll = NULL;
  if (ok) {
    pto_op_erase(find_func(m, "f0"));
    ok = pto_succeeded(translate(m, pto_llvmir_host_lanes(), &ll));
    if (!ok) fprintf(stderr, "%s: not translated:\n%s\n", c.name, diag_capture_take(&dc));
  }
  CHECK(ok);
  if (ok) {
    CHECK(strstr(ll, "!nontemporal") != NULL);
    if (pto_llvmir_host_is_x86())
      CHECK(strstr(ll, "call void @llvm.x86.sse.sfence()") && !strstr(ll, "fence seq_cst"));
    else
      CHECK(strstr(ll, "fence seq_cst") && !strstr(ll, "llvm.x86"));
    int (*entry)(void **) = NULL;
    void *p = jit_entry0(ll, &c);
    CHECK(p != NULL);
    if (p) {
      memcpy(&entry, &p, sizeof p);
      memcpy(c.out[0].data, before, gm_bytes(&c.out[0]));
      void *argv[3] = {image_[PTO_BUF_VEC], c.in[0].data, c.out[0].data};
      entry(argv);
      CHECK(memcmp(c.out[0].data, want[0], gm_bytes(&c.out[0])) == 0);
      /* and the window was written: the interpreter's result is not the
       * tensor as it was */
      CHECK(memcmp(want[0], before, gm_bytes(&c.out[0])) != 0);
    }
  }
  free(want[0]);
  free(before);
  pto_free(ll);
  diag_capture_end(&dc);
  if (m) pto_op_destroy(m);
  pto_ctx_destroy(ctx);
  case_free(&c);
  free(text.s);
  free(image_[PTO_BUF_VEC]);
  image_[PTO_BUF_VEC] = NULL;
  pto_jit_destroy(jit_);
  jit_ = NULL;
}

/* The host's width is the JIT's: 16 lanes exactly where it sees AVX-512;
 * other widths are refused at the module. */
TEST(lanes_from_the_host) {
  PtoError err;
  PtoJit *jit = pto_jit_create(NULL, &err);
  CHECK(jit != NULL);
  if (!jit) return;
  unsigned want = strcmp(pto_jit_get_vector_isa(jit), "avx512f") == 0 ? 16 : 8;
  CHECK(pto_llvmir_host_lanes() == want);
  pto_jit_destroy(jit);

  PtoContext *ctx = pto_ctx_create();
  pto_register_all_dialects(ctx);
  const char *src = "pto.kernel vector @k(%A: tensor<8x8xf32>) {\n"
                    "  %a = pto.tload %A[0, 0] : tensor<8x8xf32> -> !pto.tile<8x8xf32, vec, offset = 0>\n"
                    "}\n";
  PtoOp *m = pto_parse_module(ctx, src, strlen(src), NULL);
  CHECK(m != NULL);
  DiagCapture dc;
  diag_capture_begin(&dc, ctx);
  char *ll = NULL;
  CHECK(m && pto_failed(pto_translate_to_llvmir(m, 12, &ll)) && !ll);
  CHECK(diag_capture_has(&dc, "error: 'builtin.module' op cannot translate for 12 f32 lanes: 8 or 16 (AVX-512)"));
  /* a buffer smaller than the tile: refused at the tload */
  PtoTranslateOptions o = {.lanes = 16, .buffer_bytes = {128, 0, 0, 0, 0}};
  CHECK(m && pto_failed(pto_translate_to_llvmir_with(m, &o, &ll)) && !ll);
  CHECK(diag_capture_has(&dc, "-:2:3: error: 'pto.tload' op tile '!pto.tile<8x8xf32, vec, "
                              "offset = 0>' occupies bytes [0, 256) of vec, which has 128 bytes"));
  o.buffer_bytes[0] = 256;
  CHECK(m && pto_succeeded(pto_translate_to_llvmir_with(m, &o, &ll)) && ll);
  pto_free(ll);
  diag_capture_end(&dc);
  if (m) pto_op_destroy(m);
  pto_ctx_destroy(ctx);
}

/* ---- ttan, tatan, tasin, tacos, terfc, tatan2: dense sweeps ---- */

/* The values C's functions treat apart (NaN, infinities, zeros, the ends
 * of asin's domain and just past them, f32's extremes, erfc's pieces and
 * its underflow), each at the start of a sweep. */
static const double kTrigSpecials[] = {
    NAN,       INFINITY,  -INFINITY, 0.0,       -0.0,      1.0,       -1.0,
    0.5,       -0.5,      2.0,       -2.0,      0x1.000002p0, -0x1.000002p0, 0x1.fffffep-1,
    -0x1.fffffep-1, 0x1p-149, -0x1p-149, 0x1.fffffep127, -0x1.fffffep127, 1e-30, -1e-30,
    1.5707963705062866, -1.5707963705062866, 3.1415927410125732, 4.0, -4.0, 3.999999761581421,
    10.0,      10.05,     10.1,      -10.1,     27.0,      -6.0,      0x1p51,    -0x1p60,
    65504.0,   0x1p-14,   0.41421356, 2.4142135};
enum { NUM_TRIG_SPECIALS = sizeof kTrigSpecials / sizeof kTrigSpecials[0] };

/* The first chunks of a sweep: each special (for tatan2 each pair of
 * them), the rest of the chunk a grid; for ttan a second one with the
 * specials of magnitude above 2^50 (and NaN) replaced, so that both of
 * its paths (polynomial; libm for a tile holding such an x) see them. */
static unsigned trig_special_chunks(PtoPtoOp id) { return id == PTO_PTO_TTAN ? 2 : 1; }
static uint64_t trig_specials(PtoPtoOp id) {
  return id == PTO_PTO_TATAN2 ? NUM_TRIG_SPECIALS * NUM_TRIG_SPECIALS : NUM_TRIG_SPECIALS;
}

/* k of n on a uniform grid over the function's domain (and past it). */
static double trig_grid(PtoPtoOp id, uint64_t k, uint64_t n) {
  double lo = -1.0, hi = 1.0; /* asin, acos */
  if (id == PTO_PTO_TTAN) lo = -20.0, hi = 20.0;
  if (id == PTO_PTO_TATAN || id == PTO_PTO_TATAN2) lo = -8.0, hi = 8.0;
  if (id == PTO_PTO_TERFC) lo = -7.0, hi = 11.0;
  return lo + (hi - lo) * (double)k / (double)n;
}

/* Element i (operand j) of chunk ch of `chunks` for instruction id on dt:
 * after the specials' chunks, in f16 and bf16 every bit pattern (tatan2:
 * each paired with another), in f32 a stride through the bit patterns
 * (every exponent, both signs; for ttan those of magnitude up to 2^50
 * but in the last chunk) on the even elements and the grid on the odd
 * ones. Stored into dt as fill() stores. */
static double trig_sweep_value(PtoPtoOp id, PtoDType dt, unsigned j, unsigned ch, int64_t i,
                               unsigned chunks, int64_t per) {
  unsigned nsc = trig_special_chunks(id);
  if (ch < nsc) {
    if ((uint64_t)i >= trig_specials(id)) return trig_grid(id, (uint64_t)i, (uint64_t)per);
    unsigned ns = NUM_TRIG_SPECIALS;
    double v = kTrigSpecials[id == PTO_PTO_TATAN2 ? (j ? (unsigned)i % ns : (unsigned)i / ns)
                                                  : (unsigned)i];
    return ch == 1 && !(fabs(v) <= 0x1p50) ? 0.75 : v;
  }
  uint64_t k = (uint64_t)(ch - nsc) * (uint64_t)per + (uint64_t)i;
  uint64_t n = (uint64_t)(chunks - nsc) * (uint64_t)per;
  if (dt != PTO_DT_F32) {
    uint16_t bits = (uint16_t)(j ? k * 40503u + 7 : k);
    return dt == PTO_DT_F16 ? pto_f16_bits_to_f32(bits) : pto_bf16_bits_to_f32(bits);
  }
  if (k % 2 == 0) {
    uint32_t bits = (uint32_t)((k / 2) * 8191u * (j ? 3u : 1u) + 0x9e37u * j);
    float f;
    memcpy(&f, &bits, sizeof f);
    if (id == PTO_PTO_TTAN && ch + 1 < chunks && !(fabsf(f) <= 0x1p50f)) f = ldexpf(f, -100);
    if (!isnan(f)) return f;
  }
  return trig_grid(id, k, n);
}

typedef struct TrigSweep {
  uint64_t n, differ, special_differ;
  int64_t max_ulps;
} TrigSweep;

/* Runs the sweep of id on dt through the interpreter and the JIT (8
 * lanes), chunk by chunk on one 64x128 kernel; false on a harness failure
 * or a result more than 1 ulp off. */
static bool trig_sweep(PtoPtoOp id, PtoDType dt, unsigned chunks, TrigSweep *out) {
  static const Shape sh = {64, 128, 1};
  Variant v = {dt, NULL, false, FILL_UNIFORM, false};
  Case c;
  memset(out, 0, sizeof *out);
  if (!build_case(&c, 0, id, dt, &sh, 0, &v)) return false;
  PtoContext *ctx;
  DiagCapture dc;
  PtoOp *m;
  bool ok = parse_verified(&ctx, &dc, &c.body, c.name, &m);
  PtoInterp *I = ok ? pto_interp_create(ctx, NULL) : NULL;
  PtoOp *host = ok ? find_func(m, "f0") : NULL;
  char *ll = NULL;
  int (*entry)(void **) = NULL;
  if (ok) {
    /* the kernel alone translated; the interpreter runs the host
     * function, which is unlinked from the module meanwhile */
    pto_op_remove(host);
    ok = pto_succeeded(translate(m, 8, &ll));
    pto_block_append(pto_region_first_block(pto_op_region(m, 0)), host);
    if (!ok) fprintf(stderr, "%s: not translated:\n%s\n", c.name, diag_capture_take(&dc));
  }
  void *p = ok ? jit_entry0(ll, &c) : NULL;
  ok = ok && p;
  if (ok) memcpy(&entry, &p, sizeof p);
  const int64_t per = sh.m * sh.n;
  for (unsigned ch = 0; ok && ch < chunks; ch++) {
    for (unsigned j = 0; j < c.nin; j++)
      for (int64_t i = 0; i < per; i++)
        store_elem(dt, c.in[j].data, i,
                   trig_sweep_value(id, dt, j, ch, i, chunks, per));
    void *want[MAX_RESULTS] = {NULL};
    if (!run_interp(I, m, &c, 0, want, &dc)) {
      ok = false;
      break;
    }
    void *argv[4] = {image_[PTO_BUF_VEC], c.in[0].data, c.nin > 1 ? c.in[1].data : c.out[0].data,
                     c.out[0].data};
    entry(argv);
    for (int64_t i = 0; i < per; i++) {
      bool special = ch < trig_special_chunks(id) && (uint64_t)i < trig_specials(id);
      double w = load_elem(dt, want[0], i), x = load_elem(dt, c.out[0].data, i);
      out->n++;
      if (isnan(w) && isnan(x)) continue;
      if (bits_of(dt, want[0], i) == bits_of(dt, c.out[0].data, i)) continue;
      int64_t d = isnan(w) || isnan(x) || zero_sign_differs(w, x)
                      ? INT64_MAX
                      : llabs(ordered(dt, want[0], i) - ordered(dt, c.out[0].data, i));
      out->differ++;
      out->special_differ += special;
      if (d > out->max_ulps) out->max_ulps = d;
      if (out->differ <= 3)
        fprintf(stderr, "%s: input %.9g, %.9g: interpreter %.9g, JIT %.9g\n", c.name,
                load_elem(dt, c.in[0].data, i), c.nin > 1 ? load_elem(dt, c.in[1].data, i) : 0.0,
                w, x);
    }
    free(want[0]);
  }
  if (I) pto_interp_destroy(I);
  pto_free(ll);
  diag_capture_end(&dc);
  if (m) pto_op_destroy(m);
  pto_ctx_destroy(ctx);
  case_free(&c);
  return ok && out->max_ulps <= 1 && out->special_differ == 0;
}

/* Every special value bit for bit, and over dense sweeps (every f16 and
 * bf16 value, 2^18 f32 ones; PTO_JITDIFF_SWEEP_CHUNKS=n sweeps n x 2^13
 * f32 values instead) at most 1 ulp off and on fewer than 1 in 10^4
 * elements (docs/jit.md gives the measured counts). */
TEST(trig_sweeps) {
  jit_ = test_jit();
  CHECK(jit_ != NULL);
  if (!jit_) return;
  image_[PTO_BUF_VEC] = malloc(kImageBytes[PTO_BUF_VEC]);
  static const PtoPtoOp ops[] = {PTO_PTO_TTAN, PTO_PTO_TATAN, PTO_PTO_TASIN, PTO_PTO_TACOS,
                                 PTO_PTO_TERFC, PTO_PTO_TATAN2};
  static const PtoDType dts[] = {PTO_DT_F32, PTO_DT_F16, PTO_DT_BF16};
  unsigned f32_chunks = 32;
  const char *nc = getenv("PTO_JITDIFF_SWEEP_CHUNKS");
  if (nc && atoi(nc) > 0) f32_chunks = (unsigned)atoi(nc);
  for (unsigned o = 0; o < sizeof ops / sizeof ops[0]; o++)
    for (unsigned d = 0; d < 3; d++) {
      TrigSweep sw;
      CHECK(trig_sweep(ops[o], dts[d],
                       trig_special_chunks(ops[o]) + (dts[d] == PTO_DT_F32 ? f32_chunks : 8),
                       &sw));
      CHECK(sw.differ * 10000 < sw.n);
      printf("%-7s %-4s %8llu values: %llu differ (%.2e), max %lld ulp\n",
             pto_pto_op_mnemonic(ops[o]), dt_name(dts[d]), (unsigned long long)sw.n,
             (unsigned long long)sw.differ, (double)sw.differ / (double)sw.n,
             (long long)sw.max_ulps);
    }
  free(image_[PTO_BUF_VEC]);
  image_[PTO_BUF_VEC] = NULL;
  pto_jit_destroy(jit_);
  jit_ = NULL;
}

RUN_TESTS(T(lanes_from_the_host), T(gather_gm_faults), T(streaming_store_as_shipped),
          T(every_instruction_and_dtype), T(trig_sweeps))
