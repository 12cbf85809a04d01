/* The pipe-ordering model shared by insert-sync and the hazard checker:
 * a kernel as a sequence of instructions, each on one pipe and touching
 * byte ranges of buffers, interleaved with set_flag / wait_flag /
 * pipe_barrier. Knows no IR: pipes are small integers, buffers are keys.
 *
 * The model: the instructions are issued in program order; each pipe runs
 * its own in order. On an ordered pipe an instruction starts after the
 * previous one on that pipe has finished; on an unordered pipe it may
 * overlap it unless a pipe_barrier separates them. set_flag(P, Q, e)
 * fires once every earlier instruction of P has finished; wait_flag(P, Q,
 * e) holds every later instruction of Q until the oldest pending
 * set_flag(P, Q, e) has fired. */
#ifndef PTO_TRANSFORMS_PIPESYNC_H
#define PTO_TRANSFORMS_PIPESYNC_H

#include <stdbool.h>
#include <stdint.h>

enum { PTO_SYNC_MAX_PIPES = 16, PTO_SYNC_MAX_EVENTS = 64 };

typedef enum PtoSyncKind {
  PTO_SYNC_INSTR,
  PTO_SYNC_SET,     /* set_flag pipe -> dst, event */
  PTO_SYNC_WAIT,    /* wait_flag pipe -> dst, event */
  PTO_SYNC_BARRIER, /* pipe_barrier pipe */
} PtoSyncKind;

/* Bytes [lo, hi) of buffer `key` (a memory space, or a GM tensor). */
typedef struct PtoSyncAccess {
  uint32_t key;
  bool write;
  uint64_t lo, hi;
} PtoSyncAccess;

typedef struct PtoSyncInst {
  PtoSyncKind kind;
  uint8_t pipe; /* the instruction's pipe; the source pipe of a flag */
  uint8_t dst;  /* flags: the destination pipe */
  uint8_t event;
  const PtoSyncAccess *acc;
  uint32_t num_acc;
} PtoSyncInst;

typedef struct PtoSyncModel {
  unsigned num_pipes;      /* pipes are 0 .. num_pipes-1 */
  unsigned num_events;     /* event ids per (src, dst) pair */
  uint32_t unordered_pipes; /* bit p: pipe p may overlap its own work */
} PtoSyncModel;

typedef enum PtoHazardKind { PTO_HAZARD_RAW, PTO_HAZARD_WAR, PTO_HAZARD_WAW } PtoHazardKind;

/* `second` may run before `first` finishes with the bytes both touch. */
typedef struct PtoHazard {
  uint32_t first, second; /* instruction indices, first < second */
  PtoHazardKind kind;
  uint32_t key;
} PtoHazard;

typedef enum PtoFlagFault {
  PTO_FLAG_WAIT_UNMATCHED, /* no pending set_flag: the pipe would hang */
  PTO_FLAG_SET_UNWAITED,   /* still pending at the end of the kernel */
  PTO_FLAG_BAD_PIPES,      /* a pipe out of range, or src == dst */
  PTO_FLAG_BAD_EVENT,      /* event id >= num_events */
} PtoFlagFault;

typedef struct PtoFlagError {
  uint32_t inst;
  PtoFlagFault fault;
} PtoFlagError;

typedef struct PtoSyncReport {
  PtoHazard *hazards;
  uint32_t num_hazards;
  PtoFlagError *flag_errors;
  uint32_t num_flag_errors;
} PtoSyncReport;

/* Every pair of instructions on different pipes (or on one unordered
 * pipe) whose accesses overlap with at least one write and that no chain
 * of program order, flags and barriers orders; and every flag that cannot
 * be matched. Returns whether the kernel is clean. */
bool pto_sync_check(const PtoSyncInst *insts, uint32_t n,
                    const PtoSyncModel *model, PtoSyncReport *out);
void pto_sync_report_free(PtoSyncReport *r);

/* A flag or barrier to insert before instruction `before` (n: at the end),
 * in the order given when several share a position. */
typedef struct PtoSyncInsertion {
  uint32_t before;
  PtoSyncKind kind;
  uint8_t pipe, dst, event;
} PtoSyncInsertion;

/* The synchronisation that makes the kernel hazard-free: for each
 * instruction, one set_flag/wait_flag pair from every other pipe that has
 * an earlier conflicting instruction not yet ordered before it (placed
 * just before it, so that one pair covers all of that pipe's earlier
 * work), and a pipe_barrier when the conflict is on its own unordered
 * pipe. Dependences already implied by earlier flags (the input's or
 * inserted ones) get nothing. Event ids are the lowest free for their
 * pipe pair. Returns false with *bad_inst set when the input's own flags
 * are inconsistent (see pto_sync_check) or all event ids of a pair are in
 * use. */
bool pto_sync_plan(const PtoSyncInst *insts, uint32_t n,
                   const PtoSyncModel *model, PtoSyncInsertion **out,
                   uint32_t *num_out, uint32_t *bad_inst);

const char *pto_hazard_kind_name(PtoHazardKind k); /* "RAW" ... */

#endif
