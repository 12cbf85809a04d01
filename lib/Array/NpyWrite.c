/* The .npy writer: numpy's header layout (sorted keys, padded with spaces
 * to a 64-byte boundary, newline-terminated), then the data in C order. */
#include "Array/NpyFormat.h"

#include "Support/Alloc.h"
#include "Support/File.h"
#include "Support/Str.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Appends prefix + header for `a` to `out`. */
static PtoResult build_header(const PtoNdArray *a,
                              const PtoNpyWriteOptions *opts, PtoStr *out,
                              PtoError *err) {
  unsigned version = opts ? opts->version : 0;
  if (version > 3)
    return pto_error_set(err,
                         "cannot write .npy format version %u (supported: 1, "
                         "2 and 3)",
                         version);
  char shape[PTO_SHAPE_STR_MAX];
  PtoStr dict;
  pto_str_init(&dict);
  pto_str_printf(&dict, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                 pto_dtype_npy_descr(a->dtype),
                 pto_shape_str(shape, a->rank, a->shape));
  /* The length field is 2 bytes in version 1, 4 in later versions. */
  size_t len1 = PTO_NPY_MAGIC_LEN + 2 + 2 + dict.len + 1;
  size_t pad1 = (PTO_NPY_ALIGN - len1 % PTO_NPY_ALIGN) % PTO_NPY_ALIGN;
  if (version == 0) version = dict.len + 1 + pad1 <= 0xffff ? 1 : 2;
  size_t lenbytes = version == 1 ? 2 : 4;
  size_t fixed = PTO_NPY_MAGIC_LEN + 2 + lenbytes + dict.len + 1;
  size_t pad = (PTO_NPY_ALIGN - fixed % PTO_NPY_ALIGN) % PTO_NPY_ALIGN;
  size_t hlen = dict.len + pad + 1;
  if (version == 1 && hlen > 0xffff) {
    pto_str_release(&dict);
    return pto_error_set(err,
                         "a header of %zu bytes does not fit .npy format "
                         "version 1.0; use version 2",
                         hlen);
  }
  unsigned char prefix[PTO_NPY_MAGIC_LEN + 6];
  memcpy(prefix, PTO_NPY_MAGIC, PTO_NPY_MAGIC_LEN);
  prefix[6] = (unsigned char)version;
  prefix[7] = 0;
  for (size_t i = 0; i < lenbytes; i++)
    prefix[8 + i] = (unsigned char)(hlen >> (8 * i));
  pto_str_append(out, (const char *)prefix, PTO_NPY_MAGIC_LEN + 2 + lenbytes);
  pto_str_append(out, dict.data, dict.len);
  for (size_t i = 0; i < pad; i++) pto_str_putc(out, ' ');
  pto_str_putc(out, '\n');
  pto_str_release(&dict);
  return PTO_SUCCESS;
}

/* The array's bytes in C order: its own buffer when contiguous, else a
 * copy in *tmp. */
static const void *c_order_data(const PtoNdArray *a, PtoNdArray **tmp) {
  *tmp = NULL;
  if (pto_ndarray_is_contiguous(a)) return a->data;
  *tmp = pto_ndarray_convert(a, a->dtype, PTO_CAST_DEFAULT);
  return (*tmp)->data;
}

void *pto_npy_save_buffer(const PtoNdArray *a, const PtoNpyWriteOptions *opts,
                          size_t *len, PtoError *err) {
  PtoStr s;
  pto_str_init(&s);
  if (build_header(a, opts, &s, err)) {
    pto_str_release(&s);
    return NULL;
  }
  PtoNdArray *tmp;
  const void *data = c_order_data(a, &tmp);
  pto_str_append(&s, data, a->nbytes);
  pto_ndarray_destroy(tmp);
  *len = s.len;
  return pto_str_take(&s);
}

PtoResult pto_npy_save_file(const char *path, const PtoNdArray *a,
                            const PtoNpyWriteOptions *opts, PtoError *err) {
  PtoStr hdr;
  pto_str_init(&hdr);
  if (build_header(a, opts, &hdr, err)) {
    pto_str_release(&hdr);
    return PTO_FAILURE;
  }
  /* a failed write leaves an existing file as it was */
  PtoOutFile out;
  int e = pto_out_file_open(&out, path);
  if (e) {
    pto_str_release(&hdr);
    return pto_error_set(err, "cannot open for writing: %s", strerror(e));
  }
  PtoNdArray *tmp;
  const void *data = c_order_data(a, &tmp);
  fwrite(hdr.data, 1, hdr.len, out.f);
  fwrite(data, 1, a->nbytes, out.f);
  pto_ndarray_destroy(tmp);
  pto_str_release(&hdr);
  e = pto_out_file_commit(&out);
  if (e) return pto_error_set(err, "cannot write: %s", strerror(e));
  return PTO_SUCCESS;
}
