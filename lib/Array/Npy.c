/* The .npy reader: magic and version prefix, the header dict (a Python
 * literal), dtype descrs, and the data, checked against the file's real
 * size before anything is allocated. */
#include "Array/NpyFormat.h"

#include "Support/Alloc.h"
#include "Support/Str.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

typedef struct Reader {
  PtoError *err;      /* may be NULL */
  uint64_t max_bytes; /* of data; 0: no limit */
} Reader;

typedef struct Header {
  PtoDType dtype;
  bool fortran;
  unsigned rank; /* may exceed PTO_MAX_RANK; only the first dims are kept */
  int64_t shape[PTO_MAX_RANK];
  bool seen_descr, seen_fortran, seen_shape;
} Header;

static bool fail(Reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static bool fail(Reader *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (r->err) vsnprintf(r->err->msg, sizeof r->err->msg, fmt, ap);
  va_end(ap);
  return false;
}

/* ---- prefix: magic, version, header length ---- */

/* Validates the prefix in p[0, avail) of a file of `total` bytes; on
 * success the header occupies [*hoff, *hoff + *hlen). */
static bool read_prefix(Reader *r, const unsigned char *p, size_t avail,
                        size_t total, unsigned *major, size_t *hoff,
                        size_t *hlen) {
  size_t m = avail < PTO_NPY_MAGIC_LEN ? avail : PTO_NPY_MAGIC_LEN;
  if (memcmp(p, PTO_NPY_MAGIC, m) != 0 || total == 0) {
    return fail(r, "not a .npy file: it does not start with the magic "
                   "string \"\\x93NUMPY\"");
  }
  if (avail < PTO_NPY_MAGIC_LEN + 2) {
    return fail(r, "truncated .npy header: the file ends after %zu bytes, "
                   "before the format version",
                   total);
  }
  *major = p[6];
  unsigned minor = p[7];
  if (*major < 1 || *major > 3 || minor != 0) {
    return fail(r, "unsupported .npy format version %u.%u (supported: 1.0, "
                   "2.0 and 3.0)",
                   *major, minor);
  }
  size_t lenbytes = *major == 1 ? 2 : 4;
  *hoff = PTO_NPY_MAGIC_LEN + 2 + lenbytes;
  if (avail < *hoff) {
    return fail(r, "truncated .npy header: the file ends after %zu bytes, "
                   "inside the header length",
                   total);
  }
  const unsigned char *q = p + PTO_NPY_MAGIC_LEN + 2;
  *hlen = (size_t)q[0] | (size_t)q[1] << 8;
  if (lenbytes == 4) *hlen |= (size_t)q[2] << 16 | (size_t)q[3] << 24;
  if (*hlen > total - *hoff) {
    return fail(r, "truncated .npy header: it declares %zu bytes but the file "
                   "has %zu after the %zu-byte prefix",
                   *hlen, total - *hoff, *hoff);
  }
  return true;
}

/* ---- the header dict ---- */

typedef struct Lex {
  Reader *r;
  const char *begin, *p, *end;
} Lex;

/* Appends header text for a message: printable ASCII as is, other bytes
 * as \xNN, at most `limit` characters. */
static void put_escaped(PtoStr *s, const char *p, size_t n, size_t limit) {
  for (size_t i = 0; i < n && i < limit; i++) {
    unsigned char c = (unsigned char)p[i];
    if (c >= 0x20 && c < 0x7f) pto_str_putc(s, (char)c);
    else pto_str_printf(s, "\\x%02x", c);
  }
  if (n > limit) pto_str_puts(s, "...");
  if (!s->data) pto_str_puts(s, "");
}

/* The header as shown in messages, without its padding. */
static void quote_header(PtoStr *s, const Lex *lx) {
  const char *e = lx->end;
  while (e > lx->begin && (e[-1] == ' ' || e[-1] == '\n')) e--;
  put_escaped(s, lx->begin, (size_t)(e - lx->begin), 100);
}

static bool malformed(Lex *lx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static bool malformed(Lex *lx, const char *fmt, ...) {
  PtoStr s;
  pto_str_init(&s);
  pto_str_puts(&s, "malformed .npy header: ");
  va_list ap;
  va_start(ap, fmt);
  pto_str_vprintf(&s, fmt, ap);
  va_end(ap);
  pto_str_printf(&s, " (at offset %zu of the header: ",
                 (size_t)(lx->p - lx->begin));
  quote_header(&s, lx);
  pto_str_puts(&s, ")");
  fail(lx->r, "%s", s.data);
  pto_str_release(&s);
  return false;
}

static void skip_ws(Lex *lx) {
  while (lx->p < lx->end && (*lx->p == ' ' || *lx->p == '\t' ||
                             *lx->p == '\n' || *lx->p == '\r'))
    lx->p++;
}

static bool accept(Lex *lx, char c) {
  skip_ws(lx);
  if (lx->p < lx->end && *lx->p == c) {
    lx->p++;
    return true;
  }
  return false;
}

/* A quoted Python string without escapes (none of the header's strings
 * need them); [*s, *s + *n) is its content. */
static bool lex_string(Lex *lx, const char **s, size_t *n, const char *what) {
  skip_ws(lx);
  if (lx->p >= lx->end || (*lx->p != '\'' && *lx->p != '"'))
    return malformed(lx, "expected %s as a quoted string", what);
  char q = *lx->p++;
  *s = lx->p;
  while (lx->p < lx->end && *lx->p != q) {
    if (*lx->p == '\\') return malformed(lx, "escapes in strings are not supported");
    lx->p++;
  }
  if (lx->p >= lx->end) return malformed(lx, "unterminated string");
  *n = (size_t)(lx->p - *s);
  lx->p++;
  return true;
}

static bool is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_';
}

static bool accept_word(Lex *lx, const char *w) {
  skip_ws(lx);
  size_t n = strlen(w);
  if ((size_t)(lx->end - lx->p) < n || memcmp(lx->p, w, n) != 0) return false;
  if (lx->p + n < lx->end && is_ident_char(lx->p[n])) return false;
  lx->p += n;
  return true;
}

static bool parse_dim(Lex *lx, int64_t *out) {
  skip_ws(lx);
  bool neg = lx->p < lx->end && *lx->p == '-';
  if (neg) lx->p++;
  if (lx->p >= lx->end || *lx->p < '0' || *lx->p > '9')
    return malformed(lx, "expected an integer dimension in 'shape'");
  uint64_t v = 0;
  bool big = false;
  while (lx->p < lx->end && *lx->p >= '0' && *lx->p <= '9') {
    unsigned dgt = (unsigned)(*lx->p++ - '0');
    if (v > (UINT64_MAX - dgt) / 10) big = true;
    else v = v * 10 + dgt;
  }
  if (lx->p < lx->end && *lx->p == 'L') lx->p++; /* Python 2 long */
  if (big || v > (uint64_t)INT64_MAX)
    return malformed(lx, "dimension does not fit in 64 bits");
  *out = neg ? -(int64_t)v : (int64_t)v;
  return true;
}

static bool parse_shape(Lex *lx, Header *h) {
  if (!accept(lx, '('))
    return malformed(lx, "'shape' must be a tuple of integers");
  h->rank = 0;
  if (accept(lx, ')')) return true;
  for (;;) {
    int64_t d = 0;
    if (!parse_dim(lx, &d)) return false;
    if (h->rank < PTO_MAX_RANK) h->shape[h->rank] = d;
    h->rank++;
    bool comma = accept(lx, ',');
    if (accept(lx, ')')) {
      if (h->rank == 1 && !comma)
        return malformed(lx, "'shape' must be a tuple; a 1-d shape is "
                             "written (n,)");
      return true;
    }
    if (!comma) return malformed(lx, "expected ',' or ')' in 'shape'");
  }
}

/* Name of an unsupported descr for messages, from numpy's kind codes. */
static void describe_descr(PtoStr *s, char kind, unsigned size) {
  const char *base = NULL;
  switch (kind) {
  case 'i': base = "int"; break;
  case 'u': base = "uint"; break;
  case 'f': base = "float"; break;
  case 'c': base = "complex"; break;
  case 'b': base = "bool"; break;
  case 'S': pto_str_puts(s, " (bytes)"); return;
  case 'U': pto_str_puts(s, " (str)"); return;
  case 'V': pto_str_puts(s, " (void)"); return;
  case 'M': pto_str_puts(s, " (datetime64)"); return;
  case 'm': pto_str_puts(s, " (timedelta64)"); return;
  default: return;
  }
  if (size) pto_str_printf(s, " (%s%u)", base, size * 8);
}

static bool parse_descr(Lex *lx, Header *h) {
  Reader *r = lx->r;
  skip_ws(lx);
  if (lx->p < lx->end && (*lx->p == '[' || *lx->p == '{'))
    return fail(r, "structured arrays are not supported (the dtype is a "
                   "list of fields); save one plain numeric array per file");
  const char *s;
  size_t n;
  if (!lex_string(lx, &s, &n, "'descr'")) return false;
  size_t i = 0;
  char order = 0;
  if (n > 0 && s[0] && strchr("<>|=", s[0])) order = s[i++];
  if (n - i == 1 && s[i] == 'O')
    return fail(r, "object arrays ('%.*s') are not supported: a .npy file "
                   "for PTO holds plain numbers",
                (int)n, s);
  char kind = i < n ? s[i++] : 0;
  unsigned size = 0;
  bool digits = i < n;
  for (; i < n; i++) {
    if (s[i] < '0' || s[i] > '9' || size > 1000) {
      digits = false;
      break;
    }
    size = size * 10 + (unsigned)(s[i] - '0');
  }
  int found = -1;
  for (int dt = 0; digits && dt < PTO_DT_COUNT && found < 0; dt++) {
    const char *d = pto_dtype_npy_descr((PtoDType)dt);
    if (dt != PTO_DT_INDEX && d[1] == kind &&
        (unsigned)(d[2] - '0') == size && d[3] == 0)
      found = dt;
  }
  if (found < 0) {
    PtoStr m;
    pto_str_init(&m);
    pto_str_puts(&m, "unsupported dtype '");
    put_escaped(&m, s, n, 40);
    pto_str_putc(&m, '\'');
    if (digits) describe_descr(&m, kind, size);
    fail(r, "%s; PTO reads float16, float32, float64, bfloat16 (as '<u2'), "
            "int8, int16, int32, int64, uint8, uint32, uint64 and bool",
         m.data);
    pto_str_release(&m);
    return false;
  }
  if (order == '>' && size > 1)
    return fail(r, "big-endian data ('%.*s') is not supported; save "
                   "a.astype('<%.*s') instead",
                (int)n, s, (int)(n - 1), s + 1);
  h->dtype = (PtoDType)found;
  return true;
}

/* One `'key': value` entry; the key has been read. */
static bool parse_entry(Lex *lx, const char *key, size_t kn, Header *h) {
  bool descr = kn == 5 && memcmp(key, "descr", 5) == 0;
  bool fortran = kn == 13 && memcmp(key, "fortran_order", 13) == 0;
  bool shape = kn == 5 && memcmp(key, "shape", 5) == 0;
  bool colon = accept(lx, ':');
  if (!colon || !(descr || fortran || shape)) {
    PtoStr q; /* the key may hold any bytes */
    pto_str_init(&q);
    put_escaped(&q, key, kn, 40);
    if (!colon) {
      malformed(lx, "expected ':' after '%s'", q.data);
    } else {
      lx->p = key - 1; /* point at the key */
      malformed(lx,
                "unexpected key '%s'; a .npy header has exactly the keys "
                "'descr', 'fortran_order' and 'shape'",
                q.data);
    }
    pto_str_release(&q);
    return false;
  }
  if (descr) {
    h->seen_descr = true;
    return parse_descr(lx, h);
  }
  if (shape) {
    h->seen_shape = true;
    return parse_shape(lx, h);
  }
  h->seen_fortran = true;
  if (accept_word(lx, "True")) h->fortran = true;
  else if (!accept_word(lx, "False"))
    return malformed(lx, "'fortran_order' must be True or False");
  return true;
}

static bool parse_header(Reader *r, const char *text, size_t len, Header *h) {
  Lex lx = {r, text, text, text + len};
  memset(h, 0, sizeof *h);
  if (!accept(&lx, '{')) return malformed(&lx, "expected '{'");
  while (!accept(&lx, '}')) {
    const char *key;
    size_t kn;
    if (!lex_string(&lx, &key, &kn, "a key")) return false;
    if (!parse_entry(&lx, key, kn, h)) return false;
    if (!accept(&lx, ',')) {
      if (accept(&lx, '}')) break;
      return malformed(&lx, "expected ',' or '}'");
    }
  }
  skip_ws(&lx);
  if (lx.p != lx.end) return malformed(&lx, "unexpected text after '}'");
  const char *missing = !h->seen_descr     ? "descr"
                        : !h->seen_fortran ? "fortran_order"
                        : !h->seen_shape   ? "shape"
                                           : NULL;
  if (missing) return malformed(&lx, "missing key '%s'", missing);
  if (h->fortran)
    return fail(r, "Fortran-order arrays are not supported; save a C-order "
                   "copy (numpy.ascontiguousarray(a))");
  return true;
}

/* Checks the declared shape against the `avail` bytes after the header. */
static bool check_data(Reader *r, const Header *h, size_t avail,
                       size_t *nbytes) {
  if (pto_shape_check(h->dtype, h->rank, h->shape, nbytes, r->err))
    return false;
  if (r->max_bytes && *nbytes > r->max_bytes) {
    char buf[PTO_SHAPE_STR_MAX];
    return fail(r, ".npy data of shape %s of %s needs %zu bytes, more than "
                   "the limit of %" PRIu64 " bytes",
                pto_shape_str(buf, h->rank, h->shape),
                pto_dtype_numpy_name(h->dtype), *nbytes, r->max_bytes);
  }
  if (*nbytes > avail) {
    char buf[PTO_SHAPE_STR_MAX];
    return fail(r, "truncated .npy data: shape %s of %s needs %zu bytes but "
                   "the file has %zu after the header",
                   pto_shape_str(buf, h->rank, h->shape),
                   pto_dtype_numpy_name(h->dtype), *nbytes, avail);
  }
  return true;
}

static PtoNdArray *new_array(const Header *h) {
  /* Sizes were checked: creation cannot fail. */
  return pto_ndarray_create(h->dtype, h->rank, h->shape, NULL);
}

/* ---- entry points ---- */

PtoNdArray *pto_npy_load_buffer(const void *buf, size_t len, PtoError *err) {
  Reader r = {err, 0};
  const unsigned char *p = buf;
  unsigned major;
  size_t hoff = 0, hlen = 0, nbytes = 0;
  Header h;
  if (!read_prefix(&r, p, len, len, &major, &hoff, &hlen) ||
      !parse_header(&r, (const char *)p + hoff, hlen, &h) ||
      !check_data(&r, &h, len - hoff - hlen, &nbytes))
    return NULL;
  PtoNdArray *a = new_array(&h);
  if (nbytes) memcpy(a->data, p + hoff + hlen, nbytes);
  return a;
}

static PtoNdArray *io_error(Reader *r, const char *what, FILE *f) {
  fail(r, "%s: %s", what, errno ? strerror(errno) : "the file ended early");
  if (f) fclose(f);
  return NULL;
}

/* Appends up to n bytes of f to s; returns how many it read. Chunked, so
 * that a size declared by the input allocates only what actually comes. */
static size_t read_upto(FILE *f, PtoStr *s, size_t n) {
  char chunk[65536];
  size_t total = 0;
  while (total < n) {
    size_t want = n - total < sizeof chunk ? n - total : sizeof chunk;
    size_t got = fread(chunk, 1, want, f);
    pto_str_append(s, chunk, got);
    total += got;
    if (got < want) break;
  }
  return total;
}

/* Streams (pipes, /dev/stdin, devices) have no size: the prefix and the
 * header are read and checked first, then the data they declare and no
 * more (a stream that never ends is not read to its end). */
static PtoNdArray *read_stream(Reader *r, FILE *f) {
  unsigned char pre[PTO_NPY_MAGIC_LEN + 6];
  size_t got = fread(pre, 1, PTO_NPY_MAGIC_LEN + 2, f);
  size_t need = PTO_NPY_MAGIC_LEN + (got == PTO_NPY_MAGIC_LEN + 2 &&
                                     pre[PTO_NPY_MAGIC_LEN] >= 2 ? 6 : 4);
  if (got == PTO_NPY_MAGIC_LEN + 2) got += fread(pre + got, 1, need - got, f);
  unsigned major;
  size_t hoff = 0, hlen = 0, nbytes = 0;
  Header h;
  PtoStr s;
  pto_str_init(&s);
  bool ok = !ferror(f) &&
            read_prefix(r, pre, got, got < need ? got : SIZE_MAX, &major,
                        &hoff, &hlen);
  if (ok && read_upto(f, &s, hlen) < hlen) {
    ok = false;
    if (!ferror(f))
      fail(r, "truncated .npy header: it declares %zu bytes but the stream "
              "has %zu after the %zu-byte prefix",
           hlen, s.len, hoff);
  }
  ok = ok && parse_header(r, s.data ? s.data : "", hlen, &h) &&
       check_data(r, &h, SIZE_MAX, &nbytes);
  s.len = 0;
  if (ok && read_upto(f, &s, nbytes) < nbytes) {
    ok = false;
    if (!ferror(f)) {
      char buf[PTO_SHAPE_STR_MAX];
      fail(r, "truncated .npy data: shape %s of %s needs %zu bytes but the "
              "stream has %zu after the header",
           pto_shape_str(buf, h.rank, h.shape),
           pto_dtype_numpy_name(h.dtype), nbytes, s.len);
    }
  }
  PtoNdArray *a = NULL;
  if (ok) {
    a = new_array(&h);
    if (nbytes) memcpy(a->data, s.data, nbytes);
  }
  pto_str_release(&s);
  if (ferror(f)) return io_error(r, "cannot read", f);
  fclose(f);
  return a;
}

PtoNdArray *pto_npy_load_file(const char *path, uint64_t max_bytes,
                              PtoError *err) {
  Reader r = {err, max_bytes};
  errno = 0;
  FILE *f = fopen(path, "rb");
  if (!f) return io_error(&r, "cannot open", NULL);
  struct stat st;
  if (fstat(fileno(f), &st) != 0) return io_error(&r, "cannot read", f);
  if (S_ISDIR(st.st_mode)) {
    errno = EISDIR;
    return io_error(&r, "cannot read", f);
  }
  if (!S_ISREG(st.st_mode)) return read_stream(&r, f);
  size_t total = (size_t)st.st_size;
  unsigned char pre[PTO_NPY_MAGIC_LEN + 6];
  size_t got = fread(pre, 1, sizeof pre, f);
  unsigned major;
  size_t hoff = 0, hlen = 0, nbytes = 0;
  Header h;
  if (!read_prefix(&r, pre, got, total, &major, &hoff, &hlen)) {
    fclose(f);
    return NULL;
  }
  /* hlen <= the file size: reading the header allocates nothing absurd. */
  char *text = pto_malloc(hlen);
  bool ok = fseek(f, (long)hoff, SEEK_SET) == 0 &&
            fread(text, 1, hlen, f) == hlen;
  if (!ok) {
    pto_free(text);
    return io_error(&r, "cannot read", f);
  }
  ok = parse_header(&r, text, hlen, &h) &&
       check_data(&r, &h, total - hoff - hlen, &nbytes);
  pto_free(text);
  if (!ok) {
    fclose(f);
    return NULL;
  }
  PtoNdArray *a = new_array(&h);
  if (fread(a->data, 1, nbytes, f) != nbytes) {
    pto_ndarray_destroy(a);
    return io_error(&r, "cannot read", f);
  }
  fclose(f);
  return a;
}
