/* Machine descriptions: the facts about a target (cores, clock, on-chip
 * buffers, bandwidths, latencies) that the compiler's capacity checks,
 * the cost model and the runtime read, loaded from XML files validated
 * against platforms/pto-platform.rng. Depends on nothing but libxml2: a
 * PtoPlatform is a plain value the caller owns, errors are plain values
 * too, and nothing is printed. */
#ifndef PTO_PLATFORM_H
#define PTO_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum PtoCoreType {
  PTO_CORE_CUBE,
  PTO_CORE_VECTOR,
  PTO_CORE_SCHEDULER,
  PTO_CORE_TYPE_COUNT
} PtoCoreType;

/* The on-chip memory spaces, then global memory (an endpoint of data
 * paths only: it has no per-core buffer). */
typedef enum PtoMemSpace {
  PTO_MEM_VEC,   /* UB, vector core */
  PTO_MEM_MAT,   /* L1, cube core */
  PTO_MEM_LEFT,  /* L0A */
  PTO_MEM_RIGHT, /* L0B */
  PTO_MEM_ACC,   /* L0C */
  PTO_MEM_SPACE_COUNT,
  PTO_MEM_GM = PTO_MEM_SPACE_COUNT
} PtoMemSpace;

typedef struct PtoPlatformBuffer {
  PtoCoreType core;      /* the core type the buffer belongs to */
  uint64_t size_bytes;   /* capacity per core */
  uint64_t align_bytes;  /* allocation granularity */
  uint64_t fractal_bytes; /* one fractal tile; 0 when the space has none */
} PtoPlatformBuffer;

typedef struct PtoPlatformPath {
  PtoMemSpace from, to;
  double bytes_per_cycle;
} PtoPlatformPath;

/* One cube instruction's fractal: in x in -> acc, m x k x n per step. */
typedef struct PtoPlatformFractal {
  char in[8], acc[8]; /* element types: f16 bf16 f32 i8 i32 */
  unsigned m, k, n;
  double per_cycle; /* fractals per cycle */
} PtoPlatformFractal;

typedef struct PtoPlatformVectorOp {
  char name[32];
  unsigned latency_cycles;
} PtoPlatformVectorOp;

enum {
  PTO_PLATFORM_MAX_PATHS = 32,
  PTO_PLATFORM_MAX_FRACTALS = 8,
  PTO_PLATFORM_MAX_VECTOR_OPS = 128
};

/* Every quantity in one canonical unit, named by the field. */
typedef struct PtoPlatform {
  char name[32];
  char description[256];
  char source[256]; /* "built in" or the file it was read from */
  double clock_hz;
  unsigned cores[PTO_CORE_TYPE_COUNT];
  unsigned scheduler_threads;
  PtoPlatformBuffer buffers[PTO_MEM_SPACE_COUNT];
  /* global memory and L2 */
  double gm_read_bytes_per_cycle;
  unsigned gm_read_latency_cycles, gm_write_latency_cycles;
  double gm_aggregate_bytes_per_second;
  double gm_efficiency; /* in (0, 1] */
  double l2_read_bytes_per_cycle, l2_write_bytes_per_cycle;
  unsigned num_paths;
  PtoPlatformPath paths[PTO_PLATFORM_MAX_PATHS];
  /* cube unit */
  unsigned cube_max_dim;
  unsigned num_fractals;
  PtoPlatformFractal fractals[PTO_PLATFORM_MAX_FRACTALS];
  /* vector unit: cost = latency + repeats - 1, one repeat per
   * vector_repeat_bytes of operand data */
  uint64_t vector_repeat_bytes;
  unsigned vector_default_latency_cycles;
  unsigned num_vector_ops;
  PtoPlatformVectorOp vector_ops[PTO_PLATFORM_MAX_VECTOR_OPS];
  /* scheduler costs */
  unsigned submit_cycles, dispatch_cycles, dependency_cycles,
      completion_cycles;
  unsigned sync_events; /* event ids per (src, dst) pipe pair */
} PtoPlatform;

/* Where a description is wrong: line 0 when the fault is not on a line
 * (a missing file, an unknown platform name). */
typedef struct PtoPlatformError {
  char file[256];
  unsigned line;
  char message[512];
} PtoPlatformError;

/* The platform used when none is named. */
#define PTO_PLATFORM_DEFAULT "a2a3"

/* Loads `spec`: NULL or "" means the default platform, a name without a
 * '/' and not ending in ".xml" one of the built-in descriptions (embedded
 * in the library), anything else a file path. Returns false and fills
 * *err (if non-NULL) when the description cannot be read or is invalid. */
bool pto_platform_load(PtoPlatform *out, const char *spec,
                       PtoPlatformError *err);

/* Parses and validates a description held in memory; `file` names it in
 * errors. The parser reads no DTD, expands no entity and never touches
 * the network: a document with a DOCTYPE is refused. */
bool pto_platform_parse(PtoPlatform *out, const char *xml, size_t len,
                        const char *file, PtoPlatformError *err);

/* The built-in descriptions, i = 0 .. count-1; NULL past the end. */
unsigned pto_platform_builtin_count(void);
const char *pto_platform_builtin_name(unsigned i);
/* The XML text of built-in `name` (NUL-terminated), NULL if unknown. */
const char *pto_platform_builtin_xml(const char *name);

/* The latency of vector op `name` ("add", "exp"...), the platform's
 * default latency for ops it does not list. */
unsigned pto_platform_vector_latency(const PtoPlatform *p, const char *name);

const char *pto_core_type_name(PtoCoreType t);
const char *pto_mem_space_name(PtoMemSpace s); /* "vec" ... "acc", "gm" */

/* A human-readable summary of every fact, one section per line; free with
 * pto_free. */
char *pto_platform_describe(const PtoPlatform *p);
void pto_free(void *p);

/* Writes "file:line: error: message" (or "file: error: message") into buf,
 * as the tools print it. */
void pto_platform_error_format(const PtoPlatformError *err, char *buf,
                               size_t n);

#ifdef __cplusplus
}
#endif

#endif
