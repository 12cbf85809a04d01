"""Checks the simulated swimlane of the worked example (a Chrome trace from
pto-run --backend sim --trace) against WORKED-EXAMPLE's execution: the
four muls_add tasks run together on four different vector cores, the
matmul starts on a cube core when the last of them has ended, and the two
rowsums start on vector cores when the matmul has ended.

usage: check-swimlane.py TRACE.json"""
import json
import sys

events = json.load(open(sys.argv[1]))
events = events["traceEvents"] if isinstance(events, dict) else events
lanes = {e["tid"]: e["args"]["name"] for e in events
         if e.get("ph") == "M" and e.get("name") == "thread_name"}
tasks = [e for e in events if e.get("ph") == "X"]
by = lambda label: [e for e in tasks if e["args"]["semanticLabel"] == label]
muls, mm, rows = by("muls_add"), by("matmul"), by("rowsum")
assert (len(muls), len(mm), len(rows)) == (4, 1, 2), (len(muls), len(mm), len(rows))
end = lambda e: e["ts"] + e["dur"]
assert len({e["tid"] for e in muls}) == 4, "muls_add tasks share a core"
assert max(e["ts"] for e in muls) < min(end(e) for e in muls), "muls_add do not overlap"
assert mm[0]["ts"] >= max(end(e) for e in muls), "matmul starts before a muls_add ends"
assert all(e["ts"] >= end(mm[0]) for e in rows), "a rowsum starts before the matmul ends"
print("muls_add x4 on", sorted(lanes.get(e["tid"], e["tid"]) for e in muls))
print("matmul on", lanes.get(mm[0]["tid"], mm[0]["tid"]), "after the last muls_add")
print("rowsum x2 on", sorted(lanes.get(e["tid"], e["tid"]) for e in rows), "after the matmul")
