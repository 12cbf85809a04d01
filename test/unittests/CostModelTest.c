/* Unit tests of the cost model's pipe timeline: pipes in parallel, in
 * order within a pipe, flags holding the waiting pipe. */
#include "Test.h"

#include "Analysis/CostModel.h"
#include "Support/Alloc.h"

enum { S, V, M, MTE1, MTE2, MTE3, FIX, NPIPES };
static const PtoSyncModel model = {NPIPES, 8, 0};

#define INSTR(p) {PTO_SYNC_INSTR, (p), 0, 0, NULL, 0}
#define SET(p, q, e) {PTO_SYNC_SET, (p), (q), (e), NULL, 0}
#define WAIT(p, q, e) {PTO_SYNC_WAIT, (p), (q), (e), NULL, 0}

TEST(worked_example_timeline) {
  /* tload, tload, MTE2 -> V, tmuls, tadd, V -> MTE3, tstore */
  static const PtoSyncInst k[] = {INSTR(MTE2), INSTR(MTE2), SET(MTE2, V, 0),
                                  WAIT(MTE2, V, 0), INSTR(V), INSTR(V),
                                  SET(V, MTE3, 0), WAIT(V, MTE3, 0),
                                  INSTR(MTE3)};
  static const uint64_t cycles[] = {1528, 1528, 0, 0, 22, 21, 0, 0, 364};
  PtoPipeTimes t;
  uint32_t bad;
  CHECK(pto_pipe_timeline(k, cycles, 9, &model, &t, &bad));
  CHECK(t.busy[MTE2] == 3056 && t.busy[V] == 43 && t.busy[MTE3] == 364);
  CHECK(t.finish[V] == 3056 + 43);
  CHECK(t.finish[MTE3] == 3056 + 43 + 364);
  CHECK(t.total == 3463);
  CHECK(t.bound == MTE2);
}

TEST(pipes_overlap_without_flags) {
  /* Independent work: the kernel takes as long as its busiest pipe. */
  static const PtoSyncInst k[] = {INSTR(MTE2), INSTR(V), INSTR(V),
                                  INSTR(MTE3)};
  static const uint64_t cycles[] = {100, 30, 40, 50};
  PtoPipeTimes t;
  uint32_t bad;
  CHECK(pto_pipe_timeline(k, cycles, 4, &model, &t, &bad));
  CHECK(t.total == 100 && t.bound == MTE2);
  CHECK(t.finish[V] == 70 && t.finish[MTE3] == 50);
}

TEST(a_wait_holds_later_work_only) {
  /* The V work issued before the wait runs at once; the V work after it
   * starts when MTE2 has finished what came before the set. */
  static const PtoSyncInst k[] = {INSTR(MTE2), INSTR(V), SET(MTE2, V, 2),
                                  INSTR(MTE2), WAIT(MTE2, V, 2), INSTR(V)};
  static const uint64_t cycles[] = {100, 10, 0, 500, 0, 10};
  PtoPipeTimes t;
  uint32_t bad;
  CHECK(pto_pipe_timeline(k, cycles, 6, &model, &t, &bad));
  CHECK(t.finish[V] == 110);
  CHECK(t.finish[MTE2] == 600 && t.total == 600);
}

TEST(unmatched_wait_is_refused) {
  static const PtoSyncInst k[] = {INSTR(V), WAIT(MTE2, V, 0)};
  static const uint64_t cycles[] = {5, 0};
  PtoPipeTimes t;
  uint32_t bad = 99;
  CHECK(!pto_pipe_timeline(k, cycles, 2, &model, &t, &bad));
  CHECK(bad == 1);
}

RUN_TESTS(T(worked_example_timeline), T(pipes_overlap_without_flags),
          T(a_wait_holds_later_work_only), T(unmatched_wait_is_refused))
