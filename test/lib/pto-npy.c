/* pto-npy: drives the .npy reader/writer and the dtype conversions from
 * lit tests (test-only, not installed). */
#include "pto/IRArray.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: pto-npy info FILE...\n"
    "       pto-npy copy IN OUT [options]\n"
    "       pto-npy convert IN OUT DTYPE [options]\n"
    "\n"
    "info prints each file's dtype, shape, size and the FNV-1a 64 hash of\n"
    "its data bytes. copy reads and writes back; convert converts the\n"
    "elements to DTYPE (f32 f16 bf16 f64 i8 i16 i32 i64 u8 bool, or numpy\n"
    "names).\n"
    "\n"
    "options:\n"
    "  --round=MODE     default rint round floor ceil trunc odd\n"
    "  --sat=MODE       wrap (default) or saturate\n"
    "  --transpose      write the array with its axes reversed (a strided\n"
    "                   read of the input)\n"
    "  --version=N      .npy header version to write (1, 2, 3; default:\n"
    "                   the smallest that fits)\n";

static uint64_t fnv1a(const void *p, size_t n) {
  const unsigned char *b = p;
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

static int info(PtoContext *ctx, int argc, char **argv) {
  int rc = 0;
  for (int i = 0; i < argc; i++) {
    PtoNdArray *a = pto_npy_read_file(ctx, argv[i]);
    if (!a) {
      rc = 1;
      continue;
    }
    char shape[PTO_SHAPE_STR_MAX];
    printf("%s: dtype=%s shape=%s nbytes=%zu fnv1a=%016" PRIx64 "\n", argv[i],
           pto_dtype_name(a->dtype), pto_shape_str(shape, a->rank, a->shape),
           a->nbytes, fnv1a(a->data, a->nbytes));
    fflush(stdout); /* keep the order with errors on stderr */
    pto_ndarray_destroy(a);
  }
  return rc;
}

typedef struct Options {
  PtoCastMode mode;
  bool transpose;
  PtoNpyWriteOptions write;
} Options;

static bool parse_option(const char *arg, Options *o) {
  if (strncmp(arg, "--round=", 8) == 0)
    return pto_round_mode_from_name(arg + 8, &o->mode.round);
  if (strncmp(arg, "--sat=", 6) == 0)
    return pto_sat_mode_from_name(arg + 6, &o->mode.sat);
  if (strcmp(arg, "--transpose") == 0) {
    o->transpose = true;
    return true;
  }
  if (strncmp(arg, "--version=", 10) == 0) {
    char *end;
    unsigned long v = strtoul(arg + 10, &end, 10);
    o->write.version = (unsigned)v;
    return *end == 0 && arg[10] && v <= 3;
  }
  return false;
}

static int convert(PtoContext *ctx, const char *in, const char *out,
                   const char *dtname, const Options *o) {
  PtoDType dt;
  PtoNdArray *a = pto_npy_read_file(ctx, in);
  if (!a) return 1;
  if (!dtname) dt = a->dtype;
  else if (!pto_dtype_from_name(dtname, &dt)) {
    fprintf(stderr, "pto-npy: unknown dtype '%s'\n", dtname);
    pto_ndarray_destroy(a);
    return 1;
  }
  PtoNdArray *src = a;
  if (o->transpose) {
    int64_t shape[PTO_MAX_RANK], strides[PTO_MAX_RANK];
    for (unsigned i = 0; i < a->rank; i++) {
      shape[i] = a->shape[a->rank - 1 - i];
      strides[i] = a->strides[a->rank - 1 - i];
    }
    src = pto_ndarray_wrap(a->dtype, a->rank, shape, strides, a->data, NULL);
  }
  PtoNdArray *r = pto_ndarray_convert(src, dt, o->mode);
  int rc = pto_npy_write_file(ctx, out, r, &o->write) ? 1 : 0;
  pto_ndarray_destroy(r);
  if (src != a) pto_ndarray_destroy(src);
  pto_ndarray_destroy(a);
  return rc;
}

int main(int argc, char **argv) {
  if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    fputs(usage, stdout);
    return 0;
  }
  if (argc < 3) {
    fputs(usage, stderr);
    return 1;
  }
  PtoContext *ctx = pto_ctx_create();
  const char *cmd = argv[1];
  int rc;
  if (strcmp(cmd, "info") == 0) {
    rc = info(ctx, argc - 2, argv + 2);
  } else if (strcmp(cmd, "copy") == 0 || strcmp(cmd, "convert") == 0) {
    bool is_convert = strcmp(cmd, "convert") == 0;
    int npos = is_convert ? 3 : 2, n = 0;
    const char *pos[3] = {NULL, NULL, NULL};
    Options o;
    memset(&o, 0, sizeof o);
    rc = 0;
    for (int i = 2; i < argc && !rc; i++) {
      if (strncmp(argv[i], "--", 2) == 0) {
        if (!parse_option(argv[i], &o)) {
          fprintf(stderr, "pto-npy: invalid option '%s'\n", argv[i]);
          rc = 1;
        }
      } else if (n < npos) {
        pos[n++] = argv[i];
      } else {
        fprintf(stderr, "pto-npy: unexpected argument '%s'\n", argv[i]);
        rc = 1;
      }
    }
    if (!rc && n != npos) {
      fputs(usage, stderr);
      rc = 1;
    }
    if (!rc) rc = convert(ctx, pos[0], pos[1], pos[2], &o);
  } else {
    fprintf(stderr, "pto-npy: unknown command '%s'\n", cmd);
    rc = 1;
  }
  pto_ctx_destroy(ctx);
  return rc;
}
