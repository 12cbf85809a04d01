/* libFuzzer target for machine descriptions: any bytes go through the
 * platform loader (XML parse, RelaxNG validation, unit checks). A refusal
 * must come with a message and, when it names a line, a real one; an
 * accepted description must be complete and describable. Its seeds
 * (fuzz/corpus/platform_fuzz/) link to the shipped descriptions and to
 * malformed ones of the tests. */
#include "pto/Platform.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  PtoPlatform p;
  PtoPlatformError err;
  if (!pto_platform_parse(&p, (const char *)data, size, "fuzz.xml", &err)) {
    if (!err.message[0]) abort();
    unsigned lines = 1;
    for (size_t i = 0; i < size; i++) lines += data[i] == '\n';
    if (err.line > lines) abort();
    return 0;
  }
  for (unsigned s = 0; s < PTO_MEM_SPACE_COUNT; s++)
    if (!p.buffers[s].size_bytes) abort();
  for (unsigned t = 0; t < PTO_CORE_TYPE_COUNT; t++)
    if (!p.cores[t]) abort();
  char *text = pto_platform_describe(&p);
  if (strncmp(text, "platform ", 9) != 0) abort();
  pto_free(text);
  return 0;
}
