/* Unit tests of the pipe-ordering model behind insert-sync and the hazard
 * checker: the worked example's flags, transitive ordering, barriers on
 * unordered pipes, flag faults, event ids, and random kernels whose
 * planned synchronisation the checker must find clean. */
#include "Test.h"

#include "Support/Alloc.h"
#include "Transforms/PipeSync.h"

enum { S, V, M, MTE1, MTE2, MTE3, FIX, NPIPES };
enum { UB = 0, GM_A = 10, GM_B = 11, GM_T = 12 };

static const PtoSyncModel model = {NPIPES, 8, 0};

#define RD(k, lo, hi) {(k), false, (lo), (hi)}
#define WR(k, lo, hi) {(k), true, (lo), (hi)}
#define INSTR(p, a) {PTO_SYNC_INSTR, (p), 0, 0, (a), PTO_ARRAY_SIZE(a)}
#define SET(p, q, e) {PTO_SYNC_SET, (p), (q), (e), NULL, 0}
#define WAIT(p, q, e) {PTO_SYNC_WAIT, (p), (q), (e), NULL, 0}
#define BARRIER(p) {PTO_SYNC_BARRIER, (p), 0, 0, NULL, 0}

/* The worked example's vector kernel after memory-plan. */
static const PtoSyncAccess ld_a[] = {RD(GM_A, 0, 4096), WR(UB, 0, 4096)};
static const PtoSyncAccess ld_b[] = {RD(GM_B, 0, 4096), WR(UB, 4096, 8192)};
static const PtoSyncAccess muls[] = {RD(UB, 0, 4096), WR(UB, 8192, 12288)};
static const PtoSyncAccess add[] = {RD(UB, 8192, 12288), RD(UB, 4096, 8192),
                                    WR(UB, 0, 4096)};
static const PtoSyncAccess st[] = {RD(UB, 0, 4096), WR(GM_T, 0, 4096)};
static const PtoSyncInst example[] = {INSTR(MTE2, ld_a), INSTR(MTE2, ld_b),
                                      INSTR(V, muls), INSTR(V, add),
                                      INSTR(MTE3, st)};

/* The instructions with the planned insertions merged in. */
static PtoSyncInst *apply(const PtoSyncInst *in, uint32_t n,
                          const PtoSyncInsertion *ins, uint32_t num_ins,
                          uint32_t *out_n) {
  PtoSyncInst *out = pto_malloc((n + num_ins) * sizeof *out);
  uint32_t k = 0, o = 0;
  for (uint32_t i = 0; i <= n; i++) {
    for (; k < num_ins && ins[k].before == i; k++)
      out[o++] = (PtoSyncInst){ins[k].kind, ins[k].pipe, ins[k].dst,
                               ins[k].event, NULL, 0};
    if (i < n)
      out[o++] = in[i];
  }
  *out_n = o;
  return out;
}

TEST(worked_example_needs_two_pairs) {
  PtoSyncReport rep;
  CHECK(!pto_sync_check(example, 5, &model, &rep));
  /* ld_a->muls RAW, ld_a->add WAW, ld_a->st RAW, ld_b->add RAW,
   * add->st RAW */
  CHECK(rep.num_hazards == 5);
  CHECK(rep.num_flag_errors == 0);
  CHECK(rep.hazards[0].first == 0 && rep.hazards[0].second == 2 &&
        rep.hazards[0].kind == PTO_HAZARD_RAW);
  CHECK(rep.hazards[1].first == 0 && rep.hazards[1].second == 3 &&
        rep.hazards[1].kind == PTO_HAZARD_WAW);
  pto_sync_report_free(&rep);

  PtoSyncInsertion *ins;
  uint32_t num, bad;
  CHECK(pto_sync_plan(example, 5, &model, &ins, &num, &bad));
  CHECK(num == 4);
  if (num != 4)
    return;
  CHECK(ins[0].before == 2 && ins[0].kind == PTO_SYNC_SET &&
        ins[0].pipe == MTE2 && ins[0].dst == V && ins[0].event == 0);
  CHECK(ins[1].before == 2 && ins[1].kind == PTO_SYNC_WAIT &&
        ins[1].pipe == MTE2 && ins[1].dst == V && ins[1].event == 0);
  CHECK(ins[2].before == 4 && ins[2].kind == PTO_SYNC_SET &&
        ins[2].pipe == V && ins[2].dst == MTE3 && ins[2].event == 0);
  CHECK(ins[3].before == 4 && ins[3].kind == PTO_SYNC_WAIT);

  uint32_t n2;
  PtoSyncInst *synced = apply(example, 5, ins, num, &n2);
  CHECK(pto_sync_check(synced, n2, &model, &rep));
  pto_sync_report_free(&rep);
  /* Already synchronised: nothing more to insert. */
  PtoSyncInsertion *again;
  uint32_t num_again;
  CHECK(pto_sync_plan(synced, n2, &model, &again, &num_again, &bad));
  CHECK(num_again == 0);
  pto_free(again);
  /* Deleting either pair leaves a hazard the checker reports. */
  for (uint32_t pair = 0; pair < 2; pair++) {
    PtoSyncInst cut[16];
    uint32_t c = 0;
    for (uint32_t i = 0; i < n2; i++)
      if (synced[i].kind == PTO_SYNC_INSTR || (i / 4 != pair && i < 4) ||
          (i >= 4 && pair == 0) || (i < 4 && pair == 1))
        cut[c++] = synced[i];
    CHECK(c == n2 - 2);
    CHECK(!pto_sync_check(cut, c, &model, &rep));
    CHECK(rep.num_hazards > 0 && rep.num_flag_errors == 0);
    pto_sync_report_free(&rep);
  }
  pto_free(synced);
  pto_free(ins);
}

TEST(flags_order_transitively) {
  /* MTE2 -> V -> MTE3 orders the store after the load with no MTE2 ->
   * MTE3 pair. */
  static const PtoSyncAccess ld[] = {WR(UB, 0, 64)};
  static const PtoSyncAccess use[] = {RD(UB, 0, 64), WR(UB, 64, 128)};
  static const PtoSyncAccess out[] = {RD(UB, 0, 128)};
  static const PtoSyncInst k[] = {INSTR(MTE2, ld), INSTR(V, use),
                                  INSTR(MTE3, out)};
  PtoSyncInsertion *ins;
  uint32_t num, bad;
  CHECK(pto_sync_plan(k, 3, &model, &ins, &num, &bad));
  CHECK(num == 4);
  for (uint32_t i = 0; i < num; i++)
    CHECK(ins[i].pipe != MTE2 || ins[i].dst != MTE3);
  pto_free(ins);

  static const PtoSyncInst synced[] = {
      INSTR(MTE2, ld), SET(MTE2, V, 0), WAIT(MTE2, V, 0), INSTR(V, use),
      SET(V, MTE3, 3), WAIT(V, MTE3, 3), INSTR(MTE3, out)};
  PtoSyncReport rep;
  CHECK(pto_sync_check(synced, 7, &model, &rep));
  pto_sync_report_free(&rep);
  /* A wait placed before the set it matches orders nothing: the flag
   * pair must come after the load in program order. */
  static const PtoSyncInst early[] = {
      SET(MTE2, V, 0), WAIT(MTE2, V, 0), INSTR(MTE2, ld), INSTR(V, use),
      SET(V, MTE3, 0), WAIT(V, MTE3, 0), INSTR(MTE3, out)};
  CHECK(!pto_sync_check(early, 7, &model, &rep));
  CHECK(rep.num_hazards == 2); /* ld->use, ld->out */
  pto_sync_report_free(&rep);
}

TEST(unordered_pipe_gets_a_barrier) {
  static const PtoSyncAccess a[] = {WR(UB, 0, 64)};
  static const PtoSyncAccess b[] = {RD(UB, 0, 64), WR(UB, 64, 128)};
  static const PtoSyncAccess c[] = {RD(UB, 512, 576), WR(UB, 576, 640)};
  static const PtoSyncInst k[] = {INSTR(V, a), INSTR(V, c), INSTR(V, b)};
  PtoSyncModel loose = model;
  loose.unordered_pipes = 1u << V;
  PtoSyncReport rep;
  CHECK(pto_sync_check(k, 3, &model, &rep)); /* V in order: nothing */
  pto_sync_report_free(&rep);
  CHECK(!pto_sync_check(k, 3, &loose, &rep));
  CHECK(rep.num_hazards == 1 && rep.hazards[0].first == 0 &&
        rep.hazards[0].second == 2);
  pto_sync_report_free(&rep);
  PtoSyncInsertion *ins;
  uint32_t num, bad;
  CHECK(pto_sync_plan(k, 3, &loose, &ins, &num, &bad));
  CHECK(num == 1 && ins[0].before == 2 && ins[0].kind == PTO_SYNC_BARRIER &&
        ins[0].pipe == V);
  pto_free(ins);
  static const PtoSyncInst fenced[] = {INSTR(V, a), INSTR(V, c), BARRIER(V),
                                       INSTR(V, b)};
  CHECK(pto_sync_check(fenced, 4, &loose, &rep));
  pto_sync_report_free(&rep);
}

TEST(flag_faults) {
  static const PtoSyncInst k[] = {WAIT(MTE2, V, 0), SET(V, MTE3, 1),
                                  SET(V, V, 0),     SET(MTE2, V, 8),
                                  BARRIER(NPIPES)};
  PtoSyncReport rep;
  CHECK(!pto_sync_check(k, 5, &model, &rep));
  CHECK(rep.num_hazards == 0);
  CHECK(rep.num_flag_errors == 5);
  if (rep.num_flag_errors == 5) {
    CHECK(rep.flag_errors[0].inst == 0 &&
          rep.flag_errors[0].fault == PTO_FLAG_WAIT_UNMATCHED);
    CHECK(rep.flag_errors[1].inst == 2 &&
          rep.flag_errors[1].fault == PTO_FLAG_BAD_PIPES);
    CHECK(rep.flag_errors[2].inst == 3 &&
          rep.flag_errors[2].fault == PTO_FLAG_BAD_EVENT);
    CHECK(rep.flag_errors[3].inst == 4 &&
          rep.flag_errors[3].fault == PTO_FLAG_BAD_PIPES);
    CHECK(rep.flag_errors[4].inst == 1 &&
          rep.flag_errors[4].fault == PTO_FLAG_SET_UNWAITED);
  }
  pto_sync_report_free(&rep);
  PtoSyncInsertion *ins;
  uint32_t num, bad = 99;
  CHECK(!pto_sync_plan(k, 5, &model, &ins, &num, &bad));
  CHECK(bad == 0 && ins == NULL && num == 0);
}

TEST(event_ids_skip_pending_sets) {
  static const PtoSyncAccess ld[] = {WR(UB, 0, 64)};
  static const PtoSyncAccess use[] = {RD(UB, 0, 64)};
  /* The input keeps event 0 of MTE2 -> V pending across the use. */
  static const PtoSyncInst k[] = {SET(MTE2, V, 0), INSTR(MTE2, ld),
                                  INSTR(V, use), WAIT(MTE2, V, 0)};
  PtoSyncInsertion *ins;
  uint32_t num, bad;
  CHECK(pto_sync_plan(k, 4, &model, &ins, &num, &bad));
  CHECK(num == 2 && ins[0].event == 1 && ins[0].before == 2);
  pto_free(ins);
  /* All eight taken: refused at the instruction that needs a ninth. */
  PtoSyncInst full[11];
  for (unsigned e = 0; e < 8; e++)
    full[e] = (PtoSyncInst)SET(MTE2, V, e);
  full[8] = (PtoSyncInst)INSTR(MTE2, ld);
  full[9] = (PtoSyncInst)INSTR(V, use);
  full[10] = (PtoSyncInst)WAIT(MTE2, V, 0);
  CHECK(!pto_sync_plan(full, 11, &model, &ins, &num, &bad));
  CHECK(bad == 9);
}

static uint64_t rng_next(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

TEST(random_kernels_are_clean_after_planning) {
  uint64_t seed = 0x243f6a8885a308d3ull;
  PtoSyncAccess acc[64][3];
  PtoSyncInst k[64];
  unsigned hazardous = 0;
  for (int trial = 0; trial < 800; trial++) {
    PtoSyncModel m = model;
    if (trial % 3 == 0)
      m.unordered_pipes = 1u << V | 1u << MTE2;
    uint32_t n = 1 + (uint32_t)(rng_next(&seed) % 64);
    for (uint32_t i = 0; i < n; i++) {
      uint32_t na = 1 + (uint32_t)(rng_next(&seed) % 3);
      for (uint32_t a = 0; a < na; a++) {
        uint64_t lo = (rng_next(&seed) % 16) * 256;
        acc[i][a] = (PtoSyncAccess){(uint32_t)(rng_next(&seed) % 2),
                                    (rng_next(&seed) % 2) != 0, lo,
                                    lo + 256 + (rng_next(&seed) % 4) * 256};
      }
      k[i] = (PtoSyncInst){PTO_SYNC_INSTR,
                           (uint8_t)(rng_next(&seed) % NPIPES), 0, 0,
                           acc[i], na};
    }
    PtoSyncReport rep;
    if (!pto_sync_check(k, n, &m, &rep))
      hazardous++;
    pto_sync_report_free(&rep);
    PtoSyncInsertion *ins;
    uint32_t num, bad, n2;
    CHECK(pto_sync_plan(k, n, &m, &ins, &num, &bad));
    PtoSyncInst *synced = apply(k, n, ins, num, &n2);
    CHECK(pto_sync_check(synced, n2, &m, &rep));
    pto_sync_report_free(&rep);
    /* Every inserted flag pair or barrier is needed: without it the
     * checker finds a hazard (the plan never adds one that later flags
     * would have made redundant before its own instruction). */
    for (uint32_t x = 0; x < num; x++) {
      if (ins[x].kind == PTO_SYNC_WAIT)
        continue;
      uint32_t skip = ins[x].kind == PTO_SYNC_SET ? 2 : 1;
      PtoSyncInsertion *fewer = pto_malloc(num * sizeof *fewer);
      uint32_t f = 0;
      for (uint32_t y = 0; y < num; y++)
        if (y < x || y >= x + skip)
          fewer[f++] = ins[y];
      uint32_t n3;
      PtoSyncInst *cut = apply(k, n, fewer, f, &n3);
      bool clean = pto_sync_check(cut, n3, &m, &rep);
      CHECK(!clean);
      pto_sync_report_free(&rep);
      pto_free(cut);
      pto_free(fewer);
    }
    pto_free(synced);
    pto_free(ins);
  }
  CHECK(hazardous > 400);
}

RUN_TESTS(T(worked_example_needs_two_pairs), T(flags_order_transitively),
          T(unordered_pipe_gets_a_barrier), T(flag_faults),
          T(event_ids_skip_pending_sets),
          T(random_kernels_are_clean_after_planning))
