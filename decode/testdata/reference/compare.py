"""Compare the Go decoder's traces with the reference decoder's.

usage: python3 compare.py MANIFEST.json

MANIFEST lists cases: {"name", "buffer" (a raw capture), "aic", "aiv"
(planned capacities or null), "config" (_CycleTraceConfig fields), "trace"
(the Go trace, or null when Go refused the capture), "error" (Go's error)}.

For each case the reference must refuse exactly the captures Go refuses,
and otherwise produce the same trace: same events in the same order, same
keys in the same order, same values, with ts equal to within the Go
trace's nanosecond rounding and dur to within 2.5 ns (Go shortens a dur by
a nanosecond or two so that ts + dur, added as doubles, never passes the
end's own timestamp), and megaKernelCycleTrace equal apart from
the abiVersion, abiFingerprint and layout keys (cubeSlots, layoutSource,
cubeSlotsSource, layoutFound) Go adds. The one deliberate change of
cycleabi decode (docs/decode.md) is applied to the reference's output first: desc_ids from 0x30000
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
# How far Go's ts and dur (microseconds) may be from the reference's.
LOOSE = {"ts": 0.0005, "dur": 0.0025}
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


def same(a, b, path, loose=0):
    """Return a description of the first difference, or None; loose is the
    tolerance of a number (0: exact)."""
    if isinstance(a, dict) or isinstance(b, dict):
        if not (isinstance(a, dict) and isinstance(b, dict)):
            return f"{path}: {a!r} != {b!r}"
        if list(a) != list(b):
            return f"{path}: keys {list(a)} != {list(b)}"
        for k in a:
            d = same(a[k], b[k], f"{path}.{k}", loose=LOOSE.get(k, 0))
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
        if math.isclose(float(a), float(b), rel_tol=1e-15, abs_tol=loose + 1e-9):
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
    d = extra_warnings(meta, want)
    if d:
        return d
    d = same(meta, want["megaKernelCycleTrace"], "megaKernelCycleTrace")
    if d:
        return d
    if got["metadata"] != got["megaKernelCycleTrace"]:
        return "metadata differs from megaKernelCycleTrace"
    return None


def count(n, one, many):
    return f"1 {one}" if n == 1 else f"{n} {many}"


def extra_warnings(meta, want):
    """Check the warnings Go adds after the reference's, counted here from
    the reference's own events, and remove them from meta."""
    ref_warnings = want["megaKernelCycleTrace"]["warnings"]
    got = meta["warnings"]
    if got[:len(ref_warnings)] != ref_warnings:
        return f"megaKernelCycleTrace.warnings: {got!r} does not start with {ref_warnings!r}"
    anchor = want["megaKernelCycleTrace"]["anchorCycle"]
    overlap = before_entry = negative = 0
    max_end = {}
    for e in want["traceEvents"]:
        if e["ph"] != "X":
            continue
        a, core = e["args"], (e["pid"], e["tid"])
        if core in max_end and a["start_cycle"] < max_end[core]:
            overlap += 1
        max_end[core] = max(max_end.get(core, 0), a["end_cycle"])
        before_entry += a["start_cycle"] < a["core_entry_cycle"]
        negative += a["start_cycle"] < anchor
    tail = "; run validate for offsets"
    expect = []
    if overlap:
        expect.append(f"{count(overlap, 'record overlaps', 'records overlap')} an earlier record of their core (viewers move them to another track){tail}")
    if before_entry:
        expect.append(f"{count(before_entry, 'record starts', 'records start')} before their core's entry_cycle{tail}")
    if negative:
        expect.append(f"{count(negative, 'record starts', 'records start')} before the trace's anchor cycle, so their ts is negative (Perfetto drops them){tail}")
    extra = got[len(ref_warnings):]
    # The unsorted-slot count needs the slot order the trace no longer has.
    if extra and extra[-1].endswith(f" records out of start_cycle order (shown sorted){tail}"):
        extra = extra[:-1]
    if extra != expect:
        return f"megaKernelCycleTrace.warnings: Go adds {extra!r}, the reference's events say {expect!r}"
    meta["warnings"] = ref_warnings
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
