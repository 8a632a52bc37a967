"""Write the JSON traces the reference decoder (and upstream's export) makes of captures.

usage: python3 ref_trace.py MANIFEST.json

MANIFEST lists cases: {"out": the trace to write, "window": bool,
"invocations": [{"buffer", "aic", "aiv", "config" (_CycleTraceConfig
fields), "invocation_id", "step", "direction"}]}.

Without "window" the case has one invocation, whose trace is
_parse_cycle_buffer's output written as json.dumps writes it (what upstream's
export writes for one launch). With "window", the invocations are
combined as upstream's profiler export combines a window
(profiler/profiler.py, _TraceAccumulator and _build_trace): each
invocation's duration events shifted by (its anchor - the window's
earliest anchor) / MHz and given invocation_id, step and direction args,
metadata events kept once per (name, pid, tid), duration events sorted by
(ts, pid, tid), and a top-level megaKernelCycleTrace with the window's
counts and an invocations list (no capacities, frequency or SoC: upstream
writes none there).
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "decode", "testdata", "reference"))
import cycle_trace as ref  # noqa: E402


def parse(inv):
    with open(inv["buffer"], "rb") as f:
        data = f.read()
    cfg = dict(inv["config"])
    cfg["stage_names"] = {int(k): v for k, v in cfg["stage_names"].items()}
    cfg["task_stage_names"] = {int(k): v for k, v in cfg["task_stage_names"].items()}
    config = ref._CycleTraceConfig(**cfg)
    return ref._parse_cycle_buffer(data, config, aic_record_capacity=inv["aic"], aiv_record_capacity=inv["aiv"])


def window(invocations):
    parsed = [(inv, parse(inv)) for inv in invocations]
    anchor = min(t["megaKernelCycleTrace"]["anchorCycle"] for _, t in parsed)
    events, keys, metas = [], set(), []
    records = dropped = 0
    for inv, t in parsed:
        m = t["megaKernelCycleTrace"]
        shift = (m["anchorCycle"] - anchor) / m["cycleFrequencyMHz"]
        records += m["recordCount"]
        dropped += m["droppedRecordCount"]
        metas.append({
            "invocationId": inv["invocation_id"], "step": inv["step"], "direction": inv["direction"],
            "kernelName": inv["config"]["kernel_name"], "rank": m["rank"], "deviceId": m["deviceId"],
            "anchorCycle": m["anchorCycle"], "recordCount": m["recordCount"],
            "droppedRecordCount": m["droppedRecordCount"],
        })
        for e in t["traceEvents"]:
            if e["ph"] == "M":
                k = (e["name"], e["pid"], e["tid"])
                if k not in keys:
                    keys.add(k)
                    events.append(e)
                continue
            e = dict(e)
            e["ts"] += shift
            e["args"] = {**e.get("args", {}), "invocation_id": inv["invocation_id"], "step": inv["step"],
                         "direction": inv["direction"]}
            events.append(e)
    meta = [e for e in events if e["ph"] == "M"]
    dur = sorted((e for e in events if e["ph"] != "M"), key=lambda e: (e["ts"], e["pid"], e["tid"]))
    return {
        "traceEvents": meta + dur,
        "megaKernelCycleTrace": {
            "schemaVersion": 1, "windowIndex": 0, "anchorCycle": anchor, "invocationCount": len(invocations),
            "recordCount": records, "droppedRecordCount": dropped,
            "detailedTaskNames": invocations[0]["config"]["detailed_task_names"], "invocations": metas,
            "warnings": [] if dropped == 0 else [f"Device dropped {dropped} cycle trace records"],
        },
    }


def main():
    with open(sys.argv[1]) as f:
        cases = json.load(f)
    for case in cases:
        trace = window(case["invocations"]) if case["window"] else parse(case["invocations"][0])
        with open(case["out"], "w", encoding="utf-8") as f:
            f.write(json.dumps(trace, ensure_ascii=False))


if __name__ == "__main__":
    main()
