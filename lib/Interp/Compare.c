/* Comparing results against references with per-dtype tolerances, and the
 * summary statistics and checksum pto-run prints for each output. */
#include "pto/Interp.h"

#include <math.h>
#include <string.h>

void pto_default_tolerance(PtoDType dt, double *rtol, double *atol) {
  switch (dt) {
  case PTO_DT_F64: *rtol = 1e-12, *atol = 1e-12; break;
  case PTO_DT_F32: *rtol = 1e-5, *atol = 1e-5; break;
  case PTO_DT_F16: *rtol = 1e-3, *atol = 1e-3; break;
  case PTO_DT_BF16: *rtol = 1e-2, *atol = 1e-2; break;
  /* one unit in the last place of the format */
  case PTO_DT_F8E4M3: *rtol = 0.125, *atol = 0x1p-9; break;
  case PTO_DT_F8E5M2: *rtol = 0.25, *atol = 0x1p-16; break;
  default: *rtol = 0, *atol = 0; break;
  }
}

/* Calls fn(offset_a, offset_b, index) for every element in C order. */
typedef void (*VisitFn)(int64_t oa, int64_t ob, const int64_t *idx, void *u);

static void visit(const PtoNdArray *a, const PtoNdArray *b, VisitFn fn,
                  void *u) {
  int64_t idx[PTO_MAX_RANK] = {0};
  for (unsigned d = 0; d < a->rank; d++)
    if (a->shape[d] == 0) return;
  for (;;) {
    int64_t oa = 0, ob = 0;
    for (unsigned d = 0; d < a->rank; d++) {
      oa += idx[d] * a->strides[d];
      if (b) ob += idx[d] * b->strides[d];
    }
    fn(oa, ob, idx, u);
    unsigned d = a->rank;
    for (;;) {
      if (d == 0) return;
      d--;
      if (++idx[d] < a->shape[d]) break;
      idx[d] = 0;
    }
  }
}

typedef struct CmpState {
  const PtoNdArray *got, *exp;
  double rtol, atol, worst_excess;
  bool have_worst;
  PtoCompareResult *r;
} CmpState;

static void cmp_one(int64_t oa, int64_t ob, const int64_t *idx, void *u) {
  CmpState *s = u;
  double g = pto_dtype_load_f64(s->got->dtype, s->got->data, oa);
  double e = pto_dtype_load_f64(s->exp->dtype, s->exp->data, ob);
  double excess;
  if (s->got->dtype == s->exp->dtype && pto_dtype_is_int(s->got->dtype) &&
      s->rtol == 0 && s->atol == 0) {
    /* exact: 64-bit integers past 2^53 differ where their doubles may not */
    bool eq = pto_dtype_load_i64(s->got->dtype, s->got->data, oa) ==
              pto_dtype_load_i64(s->exp->dtype, s->exp->data, ob);
    double diff = fabs(g - e);
    excess = eq ? -INFINITY : diff > 0 ? diff : 1;
    if (!eq && diff > s->r->max_abs_diff) s->r->max_abs_diff = diff;
  } else if (isnan(g) || isnan(e)) {
    excess = isnan(g) && isnan(e) ? -INFINITY : INFINITY;
  } else if (isinf(g) || isinf(e)) {
    excess = g == e ? -INFINITY : INFINITY;
  } else {
    double diff = fabs(g - e), tol = s->atol + s->rtol * fabs(e);
    excess = diff - tol;
    if (diff > s->r->max_abs_diff) s->r->max_abs_diff = diff;
    if (e != 0 && diff / fabs(e) > s->r->max_rel_diff)
      s->r->max_rel_diff = diff / fabs(e);
  }
  if (excess > 0) s->r->num_mismatched++;
  if (!s->have_worst || excess > s->worst_excess) {
    s->have_worst = true;
    s->worst_excess = excess;
    memcpy(s->r->worst_index, idx, s->got->rank * sizeof *idx);
    s->r->worst_got = g;
    s->r->worst_expected = e;
  }
}

bool pto_compare_arrays(const PtoNdArray *got, const PtoNdArray *expected,
                        double rtol, double atol, PtoCompareResult *r) {
  memset(r, 0, sizeof *r);
  r->numel = pto_ndarray_numel(got);
  CmpState s = {got, expected, rtol, atol, 0, false, r};
  visit(got, expected, cmp_one, &s);
  return r->num_mismatched == 0;
}

typedef struct StatState {
  const PtoNdArray *a;
  PtoArrayStats *s;
  double sum;
  int64_t n;
  uint64_t h;
} StatState;

static void stat_one(int64_t oa, int64_t ob, const int64_t *idx, void *u) {
  (void)ob;
  (void)idx;
  StatState *st = u;
  const unsigned char *p =
      (const unsigned char *)st->a->data + oa * (int64_t)pto_dtype_size(st->a->dtype);
  size_t es = pto_dtype_size(st->a->dtype);
  for (size_t i = 0; i < es; i++) {
    /* bool elements hash as the 0/1 a well-formed array holds */
    unsigned char b = st->a->dtype == PTO_DT_BOOL ? (unsigned char)(p[0] != 0) : p[i];
    st->h = (st->h ^ b) * 0x100000001b3ULL;
  }
  if (!st->s) return;
  double v = pto_dtype_load_f64(st->a->dtype, st->a->data, oa);
  if (isnan(v)) {
    st->s->num_nan++;
    return;
  }
  if (st->n == 0 || v < st->s->min) st->s->min = v;
  if (st->n == 0 || v > st->s->max) st->s->max = v;
  st->sum += v;
  st->n++;
}

static uint64_t checksum_and_stats(const PtoNdArray *a, PtoArrayStats *s) {
  StatState st = {a, s, 0, 0, 0xcbf29ce484222325ULL};
  if (s) memset(s, 0, sizeof *s);
  visit(a, NULL, stat_one, &st);
  if (s) {
    s->mean = st.n ? st.sum / (double)st.n : 0;
    s->checksum = st.h;
  }
  return st.h;
}

uint64_t pto_ndarray_checksum(const PtoNdArray *a) {
  return checksum_and_stats(a, NULL);
}

void pto_ndarray_stats(const PtoNdArray *a, PtoArrayStats *s) {
  checksum_and_stats(a, s);
}
