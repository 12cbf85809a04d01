// The oneTBB peers of bench/runtime-dispatch: a flow::graph of
// continue_nodes (built, run and destroyed each time, and built once then
// run again), and dependency counting on a task_group (successor lists
// and counters made each time, or kept and the counters reset), with the
// successor lists written from the shape's edges, or derived from the
// tasks' memory regions as the runtime derives them. Replays call the
// runtime's replay kernel on a per-task argument record (args.h) and check
// the marks; the task_group replay is also timed with the bare index call
// of the build-per-run figures, as a reference. Prints
// "<figure> <tasks per second>" lines.
#include "args.h"

#include <tbb/flow_graph.h>
#include <tbb/global_control.h>
#include <tbb/task_group.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <vector>

using tbb::flow::continue_msg;
using Node = tbb::flow::continue_node<continue_msg>;

static double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

__attribute__((noinline)) static void empty(long) {}

// The replay kernel, the same as the runtime's: reads the task id from
// its argument record and marks the task.
static char *ran;
__attribute__((noinline)) static int mark(const BenchTaskArgs *a) {
  ran[a->task_id] = 1;
  return 0;
}

static std::vector<BenchTaskArgs> make_args(long tasks) {
  std::vector<BenchTaskArgs> args(tasks);
  std::memset(args.data(), 0, tasks * sizeof(BenchTaskArgs));
  for (long t = 0; t < tasks; t++) args[t].task_id = (unsigned)t;
  return args;
}

static bool all_marked(long tasks) {
  bool ok = std::memchr(ran, 0, (size_t)tasks) == nullptr;
  if (!ok) std::fprintf(stderr, "tbb replay: a task did not run\n");
  return ok;
}

struct Shape {
  bool chain;
  long n, tasks;
  // Successors of task t (at most two).
  int succ(long t, long out[2]) const {
    int k = 0;
    if (chain) {
      if (t + 1 < tasks) out[k++] = t + 1;
    } else {
      if (t % n + 1 < n) out[k++] = t + 1;
      if (t / n + 1 < n) out[k++] = t + n;
    }
    return k;
  }
  int preds(long t) const {
    return chain ? (t > 0) : (t / n > 0) + (t % n > 0);
  }
  // The byte ranges task t reads and writes, as the runtime's benchmark
  // submits them: it writes its cell and reads its left and upper
  // neighbours' (one 8-byte cell per task).
  struct Region {
    long lo, hi;
    bool write;
  };
  int regions(long t, Region out[3]) const {
    int k = 0;
    out[k++] = {t * 8, t * 8 + 8, true};
    if (!chain && t / n > 0) out[k++] = {(t - n) * 8, (t - n) * 8 + 8, false};
    if (chain ? t > 0 : t % n > 0) out[k++] = {(t - 1) * 8, (t - 1) * 8 + 8, false};
    return k;
  }
};

// What a user of the task_group would write to get the runtime's
// dependencies from memory regions: an interval map of the buffer (start
// -> end, last writer, readers since) giving RAW, WAR and WAW on
// overlapping byte ranges, and the edges it yields, deduplicated.
struct RegionTracker {
  struct Seg {
    long hi, writer;
    std::vector<long> readers;
  };
  std::map<long, Seg> segs;
  std::vector<long> mark;  // last task that took an edge from this one
  explicit RegionTracker(long bytes, long tasks) : mark(tasks, -1) {
    segs.emplace(0, Seg{bytes, -1, {}});
  }
  // The segments covering [lo, hi), split so that they start at lo and
  // the last one ends at hi.
  std::map<long, Seg>::iterator split(long at) {
    auto it = std::prev(segs.upper_bound(at));
    if (it->first == at) return it;
    Seg right = it->second;
    it->second.hi = at;
    return segs.emplace_hint(std::next(it), at, std::move(right));
  }
  // Appends the predecessors of task t to `preds`, then records its
  // accesses (reads first, so that a read-write leaves t the writer).
  void access(long t, const Shape::Region *r, int nr, std::vector<long> &preds) {
    for (int i = 0; i < nr; i++) {
      auto end = segs.find(r[i].hi) != segs.end() ? segs.find(r[i].hi) : split(r[i].hi);
      for (auto it = split(r[i].lo); it != end; ++it) {
        auto take = [&](long p) {
          if (p >= 0 && mark[p] != t) {
            mark[p] = t;
            preds.push_back(p);
          }
        };
        take(it->second.writer);
        if (r[i].write)
          for (long p : it->second.readers) take(p);
      }
    }
    for (int pass = 0; pass < 2; pass++)
      for (int i = 0; i < nr; i++) {
        if (r[i].write != (pass == 1)) continue;
        auto first = split(r[i].lo), end = split(r[i].hi);
        if (r[i].write) {
          first->second.hi = r[i].hi;
          first->second.writer = t;
          first->second.readers.clear();
          segs.erase(std::next(first), end);
        } else {
          for (auto it = first; it != end; ++it) it->second.readers.push_back(t);
        }
      }
  }
};

struct FlowGraph {
  tbb::flow::graph g;
  std::vector<std::unique_ptr<Node>> nodes;
  // With `args`, each node calls the replay kernel on its record.
  explicit FlowGraph(const Shape &s, const BenchTaskArgs *args = nullptr) {
    nodes.reserve(s.tasks);
    for (long t = 0; t < s.tasks; t++) {
      if (args)
        nodes.emplace_back(new Node(g, [a = &args[t]](const continue_msg &) { mark(a); }));
      else
        nodes.emplace_back(new Node(g, [t](const continue_msg &) { empty(t); }));
    }
    for (long t = 0; t < s.tasks; t++) {
      long out[2];
      int k = s.succ(t, out);
      for (int i = 0; i < k; i++) tbb::flow::make_edge(*nodes[t], *nodes[out[i]]);
    }
  }
  void run() {
    nodes[0]->try_put(continue_msg());
    g.wait_for_all();
  }
};

// Dependency counting on a task_group over explicit successor lists (CSR,
// built from the same edges the flow graph gets): the graph a user would
// build for it, not index arithmetic the runtime could not use either.
struct Counted {
  long tasks;
  std::vector<long> succ_off, succ;
  std::vector<int> preds;
  std::unique_ptr<std::atomic<int>[]> count;
  explicit Counted(const Shape &s)
      : tasks(s.tasks), succ_off(s.tasks + 1), preds(s.tasks),
        count(new std::atomic<int>[s.tasks]) {
    succ.reserve(2 * s.tasks);
    for (long t = 0; t < s.tasks; t++) {
      long out[2];
      int k = s.succ(t, out);
      for (int i = 0; i < k; i++) {
        succ.push_back(out[i]);
        preds[out[i]]++;
      }
      succ_off[t + 1] = (long)succ.size();
    }
  }
  // The same lists derived from the tasks' regions, as the tasks come.
  Counted(const Shape &s, bool)
      : tasks(s.tasks), succ_off(s.tasks + 1), preds(s.tasks),
        count(new std::atomic<int>[s.tasks]) {
    RegionTracker rt(s.tasks * 8, s.tasks);
    std::vector<long> from, to, p;
    for (long t = 0; t < s.tasks; t++) {
      Shape::Region r[3];
      p.clear();
      rt.access(t, r, s.regions(t, r), p);
      for (long q : p) {
        from.push_back(q);
        to.push_back(t);
      }
      preds[t] = (int)p.size();
    }
    for (long f : from) succ_off[f + 1]++;
    for (long t = 0; t < s.tasks; t++) succ_off[t + 1] += succ_off[t];
    succ.resize(from.size());
    std::vector<long> fill(succ_off.begin(), succ_off.end() - 1);
    for (size_t e = 0; e < from.size(); e++) succ[fill[from[e]]++] = to[e];
  }
  void reset() {
    for (long t = 0; t < tasks; t++) count[t].store(preds[t], std::memory_order_relaxed);
  }
  const BenchTaskArgs *args = nullptr;  // set: call the replay kernel
  void task(tbb::task_group &tg, long t) {
    for (;;) {
      if (args)
        mark(&args[t]);
      else
        empty(t);
      long next = -1;
      for (long e = succ_off[t]; e < succ_off[t + 1]; e++) {
        long o = succ[e];
        if (count[o].fetch_sub(1, std::memory_order_acq_rel) == 1) {
          if (next < 0) next = o;
          else tg.run([this, &tg, o] { task(tg, o); });
        }
      }
      if (next < 0) return;
      t = next;  // run one ready successor here, as the runtime does
    }
  }
  void run() {
    tbb::task_group tg;
    tg.run([this, &tg] { task(tg, 0); });
    tg.wait();
  }
};

int main(int argc, char **argv) {
  BenchArgs a;
  if (!bench_parse_args(argc, argv, &a))
    return 1;
  Shape s;
  s.chain = a.chain;
  s.n = a.n;
  s.tasks = a.tasks;
  int threads = a.threads, reps = a.reps;
  tbb::global_control gc(tbb::global_control::max_allowed_parallelism, threads);
  double best = 0;
  for (int r = 0; r < reps; r++) {
    double t0 = now();
    { FlowGraph fg(s); fg.run(); }
    best = std::max(best, s.tasks / (now() - t0));
  }
  std::printf("flow_build_run %.0f\n", best);
  ran = static_cast<char *>(std::malloc((size_t)s.tasks));
  std::vector<BenchTaskArgs> args = make_args(s.tasks);
  {
    FlowGraph fg(s, args.data());
    fg.run();
    best = 0;
    for (int r = 0; r < reps; r++) {
      std::memset(ran, 0, (size_t)s.tasks);
      double t0 = now();
      fg.run();
      best = std::max(best, s.tasks / (now() - t0));
      if (!all_marked(s.tasks)) return 1;
    }
  }
  std::printf("flow_replay %.0f\n", best);
  best = 0;
  for (int r = 0; r < reps; r++) {
    double t0 = now();
    { Counted c(s); c.reset(); c.run(); }
    best = std::max(best, s.tasks / (now() - t0));
  }
  std::printf("taskgroup_build_run %.0f\n", best);
  best = 0;
  for (int r = 0; r < reps; r++) {
    double t0 = now();
    { Counted c(s, true); c.reset(); c.run(); }
    best = std::max(best, s.tasks / (now() - t0));
  }
  std::printf("taskgroup_regions_build_run %.0f\n", best);
  {
    Counted c(s);
    c.args = args.data();
    best = 0;
    for (int r = 0; r < reps; r++) {
      std::memset(ran, 0, (size_t)s.tasks);
      double t0 = now();
      c.reset();
      c.run();
      best = std::max(best, s.tasks / (now() - t0));
      if (!all_marked(s.tasks)) return 1;
    }
    std::printf("taskgroup_replay %.0f\n", best);
    // The same loop calling the bare index function: no record, no mark.
    c.args = nullptr;
    best = 0;
    for (int r = 0; r < reps; r++) {
      double t0 = now();
      c.reset();
      c.run();
      best = std::max(best, s.tasks / (now() - t0));
    }
    std::printf("taskgroup_replay_index %.0f\n", best);
  }
  std::free(ran);
  return 0;
}
