/* Output files written completely or not at all (temporary file + rename),
 * and the error check every tool makes on its streams before exiting. */
#include "Support/File.h"

#include "Support/Alloc.h"
#include "Support/Str.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int pto_out_file_open(PtoOutFile *o, const char *path) {
  memset(o, 0, sizeof *o);
  struct stat st;
  bool exists = stat(path, &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) return EISDIR;
  if (exists && !S_ISREG(st.st_mode)) {
    o->f = fopen(path, "wb");
    return o->f ? 0 : errno;
  }
  /* O_EXCL with the final mode, so that the umask applies as it would to
   * the file itself; an existing file keeps its permissions. */
  mode_t mode = exists ? (st.st_mode & 07777) : 0666;
  PtoStr tmp;
  pto_str_init(&tmp);
  int fd = -1, err = 0;
  for (unsigned n = 0; n < 100 && fd < 0; n++) {
    tmp.len = 0;
    pto_str_printf(&tmp, "%s.tmp-%ld-%u", path, (long)getpid(), n);
    fd = open(tmp.data, O_WRONLY | O_CREAT | O_EXCL, mode);
    err = errno;
    if (fd < 0 && err != EEXIST) break;
  }
  if (fd >= 0 && exists) fchmod(fd, mode);
  if (fd < 0 || !(o->f = fdopen(fd, "wb"))) {
    if (fd >= 0) {
      err = errno;
      close(fd);
      unlink(tmp.data);
    }
    pto_str_release(&tmp);
    return err;
  }
  o->tmp = tmp.data;
  o->path = pto_strndup(path, strlen(path));
  return 0;
}

int pto_stream_finish(FILE *f) {
  /* A write that failed before (a large fwrite goes out at once) left its
   * reason in errno; the flush below may have nothing left to fail on. */
  int earlier = ferror(f) ? errno : 0;
  errno = 0;
  if (fflush(f) != 0 || ferror(f)) return errno ? errno : earlier ? earlier : EIO;
  return 0;
}

int pto_out_file_commit(PtoOutFile *o) {
  int err = pto_stream_finish(o->f);
  if (fclose(o->f) != 0 && !err) err = errno ? errno : EIO;
  o->f = NULL;
  if (o->tmp) {
    if (!err && rename(o->tmp, o->path) != 0) err = errno;
    if (err) unlink(o->tmp);
  }
  pto_free(o->tmp);
  pto_free(o->path);
  o->tmp = o->path = NULL;
  return err;
}

void pto_out_file_abandon(PtoOutFile *o) {
  if (o->f) fclose(o->f);
  if (o->tmp) unlink(o->tmp);
  pto_free(o->tmp);
  pto_free(o->path);
  memset(o, 0, sizeof *o);
}

int pto_make_dirs(const char *path) {
  size_t n = strlen(path);
  char *p = pto_strndup(path, n);
  int err = 0;
  /* each prefix ending before a '/', then the whole path */
  for (size_t i = 1; i <= n && !err; i++) {
    if (i < n && p[i] != '/') continue;
    p[i] = 0;
    struct stat st;
    if (mkdir(p, 0777) != 0 && errno != EEXIST) err = errno;
    else if (stat(p, &st) != 0) err = errno;
    else if (!S_ISDIR(st.st_mode)) err = ENOTDIR;
    if (i < n) p[i] = '/';
  }
  pto_free(p);
  return err;
}
