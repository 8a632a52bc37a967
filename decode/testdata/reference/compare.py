"""Compare the Go decoder's traces with the reference decoder's.

usage: python3 compare.py MANIFEST.json

MANIFEST lists cases: {"name", "buffer" (a raw capture), "aic", "aiv"
(planned capacities or null), "config" (_CycleTraceConfig fields), "trace"
(the Go trace, or null when Go refused the capture), "error" (Go's error)}.

For each case the reference must refuse exactly the captures Go refuses,
and otherwise produce the same trace: same events in the same order, same
keys in the same order, same values, with ts and dur equal to within the
Go trace's nanosecond rounding, and megaKernelCycleTrace equal apart from
the abiVersion, abiFingerprint and layout keys (cubeSlots, layoutSource,
cubeSlotsSource, layoutFound) Go adds. The one deliberate change of
SPEC.md is applied to the reference's output first: desc_ids from 0x30000
are not task types (an unnamed graph stage s is GraphStage_<s> with
args.graph_stage; ids past the graph-stage range are DescId_<id>).
"""

import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cycle_trace as ref  # noqa: E402

GRAPH_STAGE_BASE = 0x30000
GRAPH_STAGE_END = 0x40000


def deliberate_change(event, stage_names):
    desc = event["args"]["desc_id"]
    if desc < GRAPH_STAGE_BASE:
        return event
    fallback = f"TaskType_{desc - ref.TASK_TYPE_DESC_BASE}"
    args = {}
    for key, value in event["args"].items():
        if key != "task_type":
            args[key] = value
        elif desc < GRAPH_STAGE_END:
            args["graph_stage"] = desc - GRAPH_STAGE_BASE
    event = dict(event, args=args)
    if desc not in stage_names:
        if desc < GRAPH_STAGE_END:
            new = f"GraphStage_{desc - GRAPH_STAGE_BASE}"
        else:
            new = f"DescId_{desc}"
        event["name"] = event["name"].replace(fallback, new, 1)
    return event


def same(a, b, path, loose=False):
    """Return a description of the first difference, or None."""
    if isinstance(a, dict) or isinstance(b, dict):
        if not (isinstance(a, dict) and isinstance(b, dict)):
            return f"{path}: {a!r} != {b!r}"
        if list(a) != list(b):
            return f"{path}: keys {list(a)} != {list(b)}"
        for k in a:
            d = same(a[k], b[k], f"{path}.{k}", loose=k in ("ts", "dur"))
            if d:
                return d
        return None
    if isinstance(a, list) or isinstance(b, list):
        if not (isinstance(a, list) and isinstance(b, list)) or len(a) != len(b):
            return f"{path}: {a!r} != {b!r}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = same(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    if loose:
        if math.isclose(float(a), float(b), rel_tol=1e-15, abs_tol=0.0005 + 1e-9):
            return None
        return f"{path}: {a!r} != {b!r}"
    if type(a) is not type(b) and not (isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool)):
        return f"{path}: {a!r} ({type(a).__name__}) != {b!r} ({type(b).__name__})"
    if a != b:
        return f"{path}: {a!r} != {b!r}"
    return None


def check(case):
    with open(case["buffer"], "rb") as f:
        buffer = f.read()
    cfg = dict(case["config"])
    cfg["stage_names"] = {int(k): v for k, v in cfg["stage_names"].items()}
    if cfg.get("task_stage_names") is not None:
        cfg["task_stage_names"] = {int(k): v for k, v in cfg["task_stage_names"].items()}
    try:
        want = ref._parse_cycle_buffer(buffer, ref._CycleTraceConfig(**cfg),
                                       aic_record_capacity=case["aic"], aiv_record_capacity=case["aiv"])
    except ValueError as e:
        if case["trace"] is None:
            return None
        return f"the reference refuses the capture ({e}); Go accepts it"
    if case["trace"] is None:
        return f"Go refuses the capture ({case['error']}); the reference accepts it"
    with open(case["trace"]) as f:
        got = json.load(f)
    if list(got) != ["traceEvents", "megaKernelCycleTrace", "metadata"]:
        return f"top-level keys {list(got)}"
    stage_names = ref._resolve_stage_names(cfg["stage_names"])
    want_events = [deliberate_change(e, stage_names) if e["ph"] == "X" else e for e in want["traceEvents"]]
    d = same(got["traceEvents"], want_events, "traceEvents")
    if d:
        return d
    meta = dict(got["megaKernelCycleTrace"])
    for key in ("abiVersion", "abiFingerprint", "cubeSlots", "layoutSource", "cubeSlotsSource", "layoutFound"):
        if key not in meta:
            return f"megaKernelCycleTrace has no {key}"
        del meta[key]
    d = same(meta, want["megaKernelCycleTrace"], "megaKernelCycleTrace")
    if d:
        return d
    if got["metadata"] != got["megaKernelCycleTrace"]:
        return "metadata differs from megaKernelCycleTrace"
    return None


def main():
    with open(sys.argv[1]) as f:
        cases = json.load(f)
    failures = 0
    accepted = 0
    for case in cases:
        d = check(case)
        accepted += case["trace"] is not None
        if d:
            failures += 1
            if failures <= 10:
                print(f"{case['name']}: {d}")
    print(f"{len(cases)} cases ({accepted} valid), {failures} differ from the reference")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
