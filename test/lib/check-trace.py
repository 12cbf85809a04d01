"""Checks a runtime trace: valid against the Trace Event JSON schema in
runtime/schema/, lanes named like the platform's cores, every task's times
in order, and a flow start and finish for each dependency arrow.
Usage: check-trace.py TRACE.json SCHEMA.json"""

import json
import re
import sys

import jsonschema


def main():
    trace_path, schema_path = sys.argv[1], sys.argv[2]
    with open(trace_path) as f:
        trace = json.load(f)
    with open(schema_path) as f:
        schema = json.load(f)
    jsonschema.validate(trace, schema)
    events = trace["traceEvents"]
    lanes = {e["tid"]: e["args"]["name"] for e in events
             if e["ph"] == "M" and e["name"] == "thread_name"}
    for name in lanes.values():
        if not re.fullmatch(r"(AIC|AIV|AICPU) \d+", name):
            sys.exit("bad lane name %r" % name)
    tasks = [e for e in events if e["ph"] == "X"]
    for e in tasks:
        a = e["args"]
        if not (a["submit"] <= a["dispatch"] <= a["start"] <= a["end"]
                <= a["finish"] + 1e-9):
            sys.exit("task %d: times out of order: %r" % (a["taskId"], a))
        if e["tid"] not in lanes:
            sys.exit("task %d on an unnamed lane %d" % (a["taskId"], e["tid"]))
    starts = {e["id"] for e in events if e["ph"] == "s"}
    ends = {e["id"] for e in events if e["ph"] == "f"}
    if starts != ends:
        sys.exit("flow events without their other end")
    print("trace ok: %d lanes, %d tasks, %d dependency arrows"
          % (len(lanes), len(tasks), len(starts)))


main()
