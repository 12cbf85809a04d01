/* Output files that hold either the complete new contents or, after any
 * error, their old contents: never a truncated file in place of a good one. */
#ifndef PTO_SUPPORT_FILE_H
#define PTO_SUPPORT_FILE_H

#include <stdbool.h>
#include <stdio.h>

typedef struct PtoOutFile {
  FILE *f;    /* write here between open and commit/abandon */
  char *path; /* the destination */
  char *tmp;  /* the temporary file beside it, or NULL when written in place */
} PtoOutFile;

/* Opens `path` for writing. A regular file (or a new one) is written to a
 * temporary file in the same directory that pto_out_file_commit renames
 * over it; a device or pipe (/dev/stdout, /dev/full) is written in place.
 * Returns 0 or an errno value. */
int pto_out_file_open(PtoOutFile *o, const char *path);
/* Flushes, checks and closes the file, then moves it into place. Returns 0
 * or the errno value of the first failure (the destination is then left
 * as it was and the temporary file removed). */
int pto_out_file_commit(PtoOutFile *o);
/* Closes and removes the temporary file; the destination is untouched. */
void pto_out_file_abandon(PtoOutFile *o);

/* Creates the directory `path` and its missing parents (mode 0777 less
 * the umask), as `mkdir -p`. Returns 0 or an errno value (ENOTDIR when a
 * part of it is a file). */
int pto_make_dirs(const char *path);

/* Flushes a stream and reports whether anything written to it failed:
 * 0 or an errno value (EIO when the stream does not say why). */
int pto_stream_finish(FILE *f);

#endif
