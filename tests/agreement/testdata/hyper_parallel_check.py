"""cycleabi.hyper_parallel against upstream's behaviour, event for event.

usage: python3 hyper_parallel_check.py REPO   (cycleabi on PATH)

Decode: parse_cycle_buffer against decode/testdata/reference/cycle_trace.py,
the transcription of upstream's decoder the decode tests run, on the example
capture and on damaged copies (same dict, same error text). Merge:
merge_chrome_traces against upstream_merge below, upstream's placement rules
(hyper-parallel profiler/trace_merger.py @5ab3a3ad) restated for a selection
by name, on the cases of upstream's unit tests. install(): a stand-in of
upstream's module layout goes through cycleabi. Prints one "ok NAME" a case.
"""

import copy
import json
import math
import os
import sys
import tempfile
import types

REPO = sys.argv[1]
sys.path[:0] = [os.path.join(REPO, "decode", "testdata", "reference"), os.path.join(REPO, "python"),
                os.path.join(REPO, "gen", "py")]
import numpy as np  # noqa: E402
import cycle_trace as ref  # noqa: E402
import cycleabi.hyper_parallel as hp  # noqa: E402
from upstream_site import MERGER, upstream_site  # noqa: E402  (beside this script)

TABLES = hp._upstream_tables(ref)
CAPTURE = open(os.path.join(REPO, "examples", "moe_layer.bin"), "rb").read()


def same(name, want, got):
    a, b = json.dumps(want, sort_keys=False), json.dumps(got, sort_keys=False)
    if a != b:
        for i, (x, y) in enumerate(zip(want.get("traceEvents", []), got.get("traceEvents", []))):
            if x != y:
                raise AssertionError(f"{name}: event {i}: upstream {x}\n drop-in {y}")
        raise AssertionError(f"{name}: upstream {a[:400]}\n drop-in {b[:400]}")
    print("ok", name)


def config(**kw):
    base = dict(rank=3, device_id=None, cycle_frequency_mhz=50.0, detailed_task_names=False, kernel_name="MegaMoe",
                owner_label="Expert", stage_names={0x30001: "GMM1"}, soc_name="Ascend910B2",
                task_stage_names={5: "Disp", 7: "Comb"})
    base.update(kw)
    return ref._CycleTraceConfig(**base)


# Decode: configs, buffer kinds, both calling forms.
for label, cfg in [("plain", config()), ("detailed", config(detailed_task_names=True)),
                   ("device", config(device_id=6, rank=0, stage_names={}, task_stage_names=None)),
                   ("int-mhz", config(cycle_frequency_mhz=1000))]:
    want = ref._parse_cycle_buffer(CAPTURE, cfg)
    for kind, buf in [("bytes", CAPTURE), ("numpy", np.frombuffer(CAPTURE, np.uint8)),
                      ("bytearray", bytearray(CAPTURE)), ("memoryview", memoryview(CAPTURE))]:
        same(f"decode {label} {kind}", want, hp.parse_cycle_buffer(buf, cfg, tables=TABLES))
kw = {f: getattr(config(), f) for f in hp._CONFIG_FIELDS if f != "cube_slot_count"}
same("decode keyword form", ref._parse_cycle_buffer(CAPTURE, config()), hp.parse_cycle_buffer(CAPTURE, tables=TABLES, **kw))
same("decode positional form", ref._parse_cycle_buffer(CAPTURE, config()),
     hp.parse_cycle_buffer(CAPTURE, *[kw[f] for f in hp._CONFIG_FIELDS[:-1]], tables=TABLES))

# A window of records before the anchor and drops: shift a slot's entry.
buf = bytearray(CAPTURE)
aic = int.from_bytes(buf[24:28], "little")
aiv_at = 24 * (64 + 32 * aic)
buf[aiv_at + 12:aiv_at + 16] = (5).to_bytes(4, "little")      # AIV/0 dropped 5
buf[aiv_at:aiv_at + 8] = (int.from_bytes(buf[aiv_at:aiv_at + 8], "little") + 10**6).to_bytes(8, "little")
same("decode drops", ref._parse_cycle_buffer(bytes(buf), config()), hp.parse_cycle_buffer(buf, config(), tables=TABLES))


def error(fn):
    try:
        fn()
    except (ValueError, TypeError) as e:
        return type(e).__name__ + ": " + str(e)
    return "no error"


bad = {}
b = bytearray(CAPTURE); b[20:24] = (5).to_bytes(4, "little"); bad["identity"] = b
b = bytearray(CAPTURE); b[aiv_at + 28:aiv_at + 32] = (1).to_bytes(4, "little"); bad["reserved"] = b
b = bytearray(CAPTURE); b[aiv_at + 64 + 8:aiv_at + 64 + 16] = (0).to_bytes(8, "little"); bad["negative"] = b
b = bytearray(CAPTURE); b[aiv_at + 8:aiv_at + 12] = (aiv_cap := int.from_bytes(CAPTURE[aiv_at + 24:aiv_at + 28], "little") + 1).to_bytes(4, "little"); bad["count"] = b
bad["short"] = CAPTURE[:1000]
bad["truncated"] = CAPTURE[:len(CAPTURE) // 2]
bad["empty"] = bytes(len(CAPTURE))
for name, data in bad.items():
    want = error(lambda: ref._parse_cycle_buffer(bytes(data), config()))
    got = error(lambda: hp.parse_cycle_buffer(data, config(), tables=TABLES))
    assert want == got and want != "no error", (name, want, got)
    print("ok decode refuses", name)
for name, cfg, extra in [("mhz", config(cycle_frequency_mhz=0.0), {}),
                         ("one capacity", config(), {"aic_record_capacity": 16}),
                         ("unaligned", config(), {"aic_record_capacity": 17, "aiv_record_capacity": 16})]:
    want = error(lambda: ref._parse_cycle_buffer(CAPTURE, cfg, **extra))
    got = error(lambda: hp.parse_cycle_buffer(CAPTURE, cfg, tables=TABLES, **extra))
    assert want == got and want != "no error", (name, want, got)
    print("ok decode refuses", name)

# The opt-in: cycleabi's names; everything else as upstream's.
up = hp.parse_cycle_buffer(CAPTURE, config(), tables=TABLES)
mine = hp.parse_cycle_buffer(CAPTURE, config(), tables=TABLES, cycleabi=True)
assert up["megaKernelCycleTrace"] == mine["megaKernelCycleTrace"]
differ = 0
for x, y in zip(up["traceEvents"], mine["traceEvents"]):
    x, y = dict(x), dict(y)
    xa, ya = dict(x.pop("args")), dict(y.pop("args"))
    if xa.get("desc_id", 0) >= 0x30000:
        assert "graph_stage" in ya and "task_type" in xa and "task_type" not in ya, (xa, ya)
        xa.pop("task_type"), ya.pop("graph_stage")
    if x["name"] != y["name"]:
        differ += 1
    x.pop("name"), y.pop("name")
    assert x == y and xa == ya, (x, y, xa, ya)
assert differ > 0, "cycleabi=True named every event as upstream does"
print("ok decode opt-in names", differ)


# Merge. upstream_merge restates upstream's merger for a selection by
# name: outer candidates, best score, placement in doubles, threads per
# invocation, the report.
def num(v):
    return float(v)


def is_device(e):
    cat = str(e.get("cat", "")).lower()
    tt = ""
    for k, v in (e.get("args") or {}).items():
        if str(k).strip().lower().replace("_", " ") == "task type":
            tt = str(v).lower()
            break
    return any(t in cat for t in ("kernel", "npu", "ascend", "aicore")) or \
        (bool(tt) and any(t in tt for t in ("kernel", "ai_core", "aicore", "aic", "aiv")))


def score(e):
    name, cat = str(e.get("name", "")).lower(), str(e.get("cat", "")).lower()
    args = json.dumps(e.get("args", {}), ensure_ascii=False).lower()
    s = 6 if is_device(e) else 0
    s += 2 if "pyboostlaunchaclnn" in name else 1 if "pynativelaunchtask" in name else 0
    s -= 3 if "getworkspacesize" in name or "tiling" in name else 0
    s += 5 if "_op_" in name or "kernel" in name else 0
    s += 3 if any(t in cat for t in ("kernel", "npu", "ascend", "aicore")) else 0
    s += 2 if any(t in args for t in ("kernel", "task type", "ai_core", "aicore")) else 0
    s -= 4 if any(t in cat for t in ("cpu", "python")) else 0
    return s


def upstream_merge(fw, mk, pattern):
    import re
    merged = {"traceEvents": copy.deepcopy(fw)} if isinstance(fw, list) else copy.deepcopy(fw)
    events = merged["traceEvents"]
    meta = mk["megaKernelCycleTrace"]
    internal = [e for e in mk["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "MegaKernelInternal"]
    groups = {}
    for e in internal:
        groups.setdefault(e["args"].get("invocation_id"), []).append(e)
    items = {i["invocationId"]: i for i in meta.get("invocations", [])}
    invs = []
    for iid, evs in groups.items():
        it = items.get(iid, {})
        invs.append(dict(id=iid, events=evs, kernel=str(it.get("kernelName") or meta.get("kernelName") or "MegaKernel"),
                         rank=it.get("rank", meta.get("rank")), device=it.get("deviceId", meta.get("deviceId")),
                         direction=None if it.get("direction") is None else str(it["direction"])))
    rx = re.compile(pattern)
    cands = [e for e in events if e.get("ph") in (None, "X") and num(e["ts"]) >= 0 and num(e["dur"]) > 0
             and rx.search(str(e.get("name", "")))]
    best = max(score(e) for e in cands)
    chosen = sorted((e for e in cands if score(e) == best), key=lambda e: num(e["ts"]))[:len(invs)]
    report = {"schemaVersion": 1, "kernelPattern": pattern, "kernelIndex": 0, "usedFallbackKernelSelection": False,
              "allowHostWrapperAlignment": False, "mergedInvocationCount": len(invs), "mergedEventCount": 0,
              "alignments": [], "warnings": []}
    counts = {}
    for o, inv in zip(chosen, invs):
        pid = o.get("pid", 0)
        counts[pid] = counts.get(pid, 0) + len({(e["args"]["core_type"], e["args"]["block_id"]) for e in inv["events"]})
    sort = {pid: min([e["args"]["sort_index"] for e in events if e.get("pid") == pid and e.get("name") == "thread_sort_index"],
                     default=0) - n for pid, n in counts.items()}
    for o, inv in zip(chosen, invs):
        pid, ots, odur = o.get("pid", 0), num(o["ts"]), num(o["dur"])
        cores = sorted({(str(e["args"]["core_type"]), int(e["args"]["block_id"])) for e in inv["events"]})
        first = max([e["tid"] for e in events if e.get("pid") == pid and type(e.get("tid")) is int], default=0) + 1
        tids = {c: first + i for i, c in enumerate(cores)}
        for i, (c, tid) in enumerate(tids.items()):
            events.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid,
                           "args": {"name": f"{inv['kernel']}/{c[0]}/{c[1]}"}})
            events.append({"name": "thread_sort_index", "ph": "M", "pid": pid, "tid": tid,
                           "args": {"sort_index": sort[pid] + i}})
        sort[pid] += len(cores)
        anchor = min(num(e["ts"]) for e in inv["events"])
        span = max(num(e["ts"]) + num(e["dur"]) - anchor for e in inv["events"])
        placed = []
        for e in inv["events"]:
            p = copy.deepcopy(e)
            p["pid"], p["tid"] = pid, tids[(str(e["args"]["core_type"]), int(e["args"]["block_id"]))]
            p["ts"] = ots + num(e["ts"]) - anchor
            p["args"] = dict(e["args"], parent_kernel=o.get("name"), parent_kernel_ts=ots, parent_kernel_dur=odur,
                             cycle_trace_rank=inv["rank"], cycle_trace_device_id=inv["device"])
            placed.append(p)
        end = max(num(p["ts"]) + num(p["dur"]) for p in placed)
        exceed = max(end - ots - odur, 0.0)
        events.extend(placed)
        report["mergedEventCount"] += len(placed)
        report["alignments"].append({
            "invocationId": inv["id"], "direction": inv["direction"], "kernelName": inv["kernel"], "rank": inv["rank"],
            "deviceId": inv["device"], "outerKernelName": o.get("name"), "outerKernelPid": o.get("pid", 0),
            "outerKernelTid": o.get("tid"), "outerKernelTs": ots, "outerKernelDur": odur, "outerKernelScore": score(o),
            "outerKernelIsDevice": is_device(o), "internalEventCount": len(placed), "internalSpanUs": span,
            "exceedsOuterKernelUs": exceed})
        if exceed > 0:
            report["warnings"].append(f"Invocation {inv['id']!r} internal events exceed outer kernel by {exceed:.3f} us")
    merged["megaKernelTraceMerge"] = report
    return merged


def canon(trace):
    """The trace with its events as a sorted list (the order is one of the
    listed differences), floats exact: repr of every value."""
    t = dict(trace)
    t["traceEvents"] = sorted(json.dumps(e, sort_keys=True) for e in trace["traceEvents"])
    return json.dumps(t, sort_keys=True)


def outer(name, ts, dur, device=True, pid=7, tid=3):
    return {"name": name, "cat": "kernel" if device else "cpu_op", "ph": "X", "pid": pid, "tid": tid, "ts": ts,
            "dur": dur, "args": {}}


def inner(name, ts, dur, inv, core, block):
    args = {"core_type": core, "block_id": block, "task_id": 1, "desc_id": 0x10002}
    if inv is not None:
        args["invocation_id"] = inv
    # tid = core type · 1000 + block, as upstream's export writes it (its unit
    # tests give 1000 + block to AIV cores too: one of the listed differences).
    tid = (1000 if core == "AIC" else 2000) + block
    return {"name": name, "cat": "MegaKernelInternal", "ph": "X", "pid": 0, "tid": tid, "ts": ts, "dur": dur,
            "args": args}


window = {"traceEvents": [inner("GMM1", 10.0, 5.0, 0, "AIC", 0), inner("SwiGLU", 20.0, 10.0, 0, "AIV", 1),
                          inner("GMM2Grad", 100.0, 4.0, 1, "AIC", 0)],
          "megaKernelCycleTrace": {"schemaVersion": 1, "windowIndex": 0, "anchorCycle": 5, "invocations": [
              {"invocationId": 0, "direction": "forward", "kernelName": "HyperMegaMoe", "rank": 0, "deviceId": 6},
              {"invocationId": 1, "direction": "backward", "kernelName": "HyperMegaMoeGrad", "rank": 0, "deviceId": 6}]}}
fw_window = {"displayTimeUnit": "ns", "traceEvents": [
    {"name": "thread_sort_index", "ph": "M", "pid": 7, "tid": 3, "args": {"sort_index": 10}},
    outer("HyperMegaMoe", 900.0, 200.0, device=False), outer("HyperMegaMoe_abc123", 1000.0, 50.0),
    outer("HyperMegaMoeGrad_def456", 2000.0, 20.0)]}
single = {"traceEvents": [inner("GMM1", 3.0, 8.0, None, "AIC", 0)],
          "megaKernelCycleTrace": {"schemaVersion": 1, "rank": 1, "deviceId": 7, "kernelName": "MegaMoe"}}
fw_list = [outer("aclnnMegaMoe_MegaMoe_MegaMoe", "1234.5", "40.0", pid=99)]
rounding = {"traceEvents": [inner("GMM1", 0.0, 1.5, None, "AIC", 0), inner("GMM2", 10.423, 2.0, None, "AIV", 3),
                            inner("Combine", 12.423, 100.0, None, "AIV", 3)],
            "megaKernelCycleTrace": {"schemaVersion": 1, "rank": 0, "deviceId": 0, "kernelName": "MegaMoe"}}
fw_rounding = {"traceEvents": [outer("MegaMoe_1", 10000.1, 20.0, tid=12), outer("MegaMoe_2", 20000.0, 5.0)]}

with tempfile.TemporaryDirectory() as tmp:
    for name, fw, mk, pattern in [
            ("window", fw_window, window, "(?i)(?:Hyper[_]?Mega[_]?Moe|Hyper[_]?Mega[_]?Moe[_]?Grad)"),
            ("event list, string ts, trace's rank", fw_list, single, "(?i)(?:Mega[_]?Moe)"),
            ("float rounding, overrun", fw_rounding, rounding, "(?i)(?:Mega[_]?Moe)")]:
        want = upstream_merge(fw, mk, pattern)
        for form in ("objects", "paths"):
            a, b = fw, mk
            if form == "paths":
                a, b = os.path.join(tmp, "fw.json"), os.path.join(tmp, "mk.json")
                json.dump(fw, open(a, "w")), json.dump(mk, open(b, "w"))
            out = os.path.join(tmp, "sub", "merged.json")
            got = hp.merge_chrome_traces(a, b, out)
            if canon(want) != canon(got):
                raise AssertionError(f"merge {name}:\nupstream {canon(want)}\ndrop-in  {canon(got)}")
            assert canon(json.load(open(out))) == canon(want), "the file differs from the returned object"
            print("ok merge", name, form)
    assert 10010.523000000001 in [e["ts"] for e in got["traceEvents"] if e.get("cat") == "MegaKernelInternal"]
    for name, call, want in [
            ("empty pattern", lambda: hp.merge_chrome_traces(fw_list, single, os.path.join(tmp, "x.json"), kernel_pattern=""),
             "ValueError: kernel_pattern must not be empty"),
            ("kernel_index", lambda: hp.merge_chrome_traces(fw_list, single, os.path.join(tmp, "x.json"), kernel_index=-1),
             "ValueError: kernel_index must be a non-negative integer, got -1"),
            ("input type", lambda: hp.merge_chrome_traces(3, single, os.path.join(tmp, "x.json")),
             "TypeError: framework_trace must be a path, Chrome Trace object, or event list, got int")]:
        got = error(call)
        assert got == want, (name, got, want)
        print("ok merge refuses", name)
    got = error(lambda: hp.merge_chrome_traces([outer("Other", 1.0, 2.0)], single, os.path.join(tmp, "x.json"),
                                               kernel_pattern="MegaMoe"))
    assert got.startswith("ValueError: "), got
    print("ok merge refuses no match")

    # gate_profile_records: Gate buffers written here as upstream's
    # runtime/gate.py (@ec0fa8dd) lays them out (24 AIC headers of capacity
    # 0, 48 AIV slots of 16 records), with the records each worker writes
    # for each stage of the image; the dicts wanted are built from what was
    # written, as upstream's GateProfile.records() builds them.
    import struct
    class Stage:
        def __init__(self, name, spans):
            self.logical_name, self.source_spans = name, spans
    stages = [Stage("softplus", ["gate.py:10"]), Stage("topk", ["gate.py:20", "gate.py:21"]), Stage("gather", [])]
    def gate_buffer(workers, count=None, dropped=0, bad=None):
        b = bytearray(24 * 64 + 48 * (64 + 16 * 32))
        want = []
        for w in workers:
            off = 24 * 64 + w * (64 + 16 * 32)
            n = len(stages) if count is None else count
            struct.pack_into("<QIIIIII", b, off, 1000 + w, n, dropped, 2, w, 16, 0)
            for i in range(n):
                start, end = 2000 + 100 * w + 10 * i, 2005 + 100 * w + 10 * i
                desc, task, index, owner = 0x30000 + i, i, w, w
                if bad == (w, i):
                    owner = w + 1
                struct.pack_into("<QQIIII", b, off + 64 + 32 * i, start, end, desc, task, index, owner)
                if i < len(stages):
                    want.append({"direction": "backward", "worker": w, "stage": stages[i].logical_name,
                                 "start_cycle": start, "end_cycle": end,
                                 "source": tuple(str(s) for s in stages[i].source_spans)})
        return bytes(b), tuple(want)
    buf, want = gate_buffer([0, 5, 47])
    for form in (buf, np.frombuffer(buf, dtype=np.uint8), memoryview(buf)):
        got = hp.gate_profile_records(form, stages, "backward")
        assert got == want, (got[:2], want[:2])
    assert hp.gate_profile_records(gate_buffer([])[0], stages) == ()
    print("ok gate records")
    for name, b, msg in [
            ("dropped", gate_buffer([3], dropped=1)[0], "ValueError: Invalid or dropped Gate profile records for worker 3"),
            ("count", gate_buffer([4], count=2)[0], "ValueError: Invalid or dropped Gate profile records for worker 4"),
            ("identity", gate_buffer([6], bad=(6, 1))[0], "ValueError: Gate profile descriptor/worker identity mismatch"),
            ("size", buf[:-1], "ValueError: Gate profile buffer must be 29184 bytes, got 29183")]:
        got = error(lambda: hp.gate_profile_records(b, stages, "backward"))
        assert got == msg, (name, got, msg)
        print("ok gate refuses", name)

    # install(): a stand-in of upstream's layout, each function raising
    # if upstream's own ran.
    root = upstream_site(tmp, {
        "profiler/__init__.py":
        "from hyper_parallel.core.multicore.profiler.profiler import merge_chrome_traces, mega_kernel_profile\n",
        "profiler/trace_merger.py": MERGER,
        "profiler/profiling.py":
        "MAX_RECORDS_PER_CORE = 256\nCUBE_SLOT_COUNT = 24\nVECTOR_SLOT_COUNT = 48\n"
        "DEFAULT_STAGE_NAMES = {0x10000: 'WaitDependency', 0x10006: 'TerminateTask', 0x10007: 'TriggerEvent'}\n"
        "TASK_TYPE_NAMES = {103: 'MatMul'}\n"
        "def _parse_cycle_buffer(*a, **k):\n    raise RuntimeError('upstream parse ran')\n"
        "class _PreparedMegaKernelRuntime:\n"
        "    def parse(self, buffer, *, detailed_task_names):\n"
        "        return _parse_cycle_buffer(buffer=buffer, rank=0, device_id=0, cycle_frequency_mhz=50.0,\n"
        "            detailed_task_names=detailed_task_names, kernel_name='MegaMoe', owner_label='Expert',\n"
        "            stage_names={}, soc_name='Ascend910B2', task_stage_names={}, aic_record_capacity=None,\n"
        "            aiv_record_capacity=None)\n",
        "profiler/profiler.py":
        "import json\n"
        "from hyper_parallel.core.multicore.profiler.profiling import _PreparedMegaKernelRuntime\n"
        "from hyper_parallel.core.multicore.profiler.trace_merger import merge_chrome_traces\n"
        "class mega_kernel_profile:\n"
        "    def __init__(self, data):\n        self._last_trace = _PreparedMegaKernelRuntime().parse(data, detailed_task_names=False)\n"
        "    def export_chrome_trace(self, path):\n"
        "        open(path, 'w').write(json.dumps(self._last_trace))\n        return self._last_trace\n",
        "runtime/gate.py":
        "class GateProfile:\n"
        "    def __init__(self, direction, image, buffer, event):\n"
        "        self.direction, self.image, self.buffer, self.event = direction, image, buffer, event\n"
        "    def records(self):\n        raise RuntimeError('upstream gate records ran')\n",
    })
    sys.path.insert(0, root)
    rebound = hp.install()
    import hyper_parallel.core.multicore.profiler as P
    from hyper_parallel.core.multicore.profiler import profiler as PP, profiling as PG, trace_merger as TM
    assert P.merge_chrome_traces is hp.merge_chrome_traces and PP.merge_chrome_traces is hp.merge_chrome_traces
    assert TM.merge_chrome_traces is hp.merge_chrome_traces
    trace = P.mega_kernel_profile(CAPTURE).export_chrome_trace(os.path.join(tmp, "export.json"))
    assert trace["megaKernelCycleTrace"]["maxRecordCapacityPerCore"] == 256, "install() did not take the module's tables"
    names = {e["name"] for e in trace["traceEvents"]}
    assert "TaskType_101" in names and "TaskType_AddCustom" not in names, sorted(names)[:20]  # its table, not ours
    merged = PP.merge_chrome_traces([outer("MegaMoe_x", 5.0, 1e6, pid=1)], trace, os.path.join(tmp, "m.json"))
    assert merged["megaKernelTraceMerge"]["mergedEventCount"] == trace["megaKernelCycleTrace"]["recordCount"]
    from hyper_parallel.core.multicore.runtime import gate as G
    class Synced:
        def synchronize(self):
            pass
    class Host:  # a tensor already on the host: .cpu() is itself
        def __init__(self, data):
            self.data = data
        def cpu(self):
            return self
        def numpy(self):
            return np.frombuffer(self.data, dtype=np.uint8)
    class Image:
        pass
    image = Image()
    image.stages = stages
    assert G.GateProfile("backward", image, Host(buf), Synced()).records() == want
    assert "hyper_parallel.core.multicore.runtime.gate.GateProfile.records" in rebound, rebound
    print("ok install", " ".join(rebound))
