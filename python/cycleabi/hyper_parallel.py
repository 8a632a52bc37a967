"""hyper-parallel's host API, made fast: the same names, the same results.

    import cycleabi.hyper_parallel as hp
    hp.install()            # an installed hyper-parallel's profiler now parses
                            # and merges through cycleabi; nothing else changes
    trace = hp.parse_cycle_buffer(buf, rank=0, device_id=0, cycle_frequency_mhz=50.0,
                                  detailed_task_names=False, kernel_name="MegaMoe",
                                  owner_label="Expert", stage_names=None, soc_name="Ascend910B2")
    merged = hp.merge_chrome_traces("torch.json", "mega.json", "merged.json")

parse_cycle_buffer returns what hyper-parallel's profiler function
_parse_cycle_buffer returns (profiler/profiling.py), event for event, from
the buffer's bytes read with NumPy instead of one struct.unpack per record.
export_chrome_trace writes the file json.dumps(parse_cycle_buffer(...),
ensure_ascii=False) writes, byte for byte, with `cycleabi decode
--upstream-compat`, without building the dicts; build_window is upstream's
window of invocations (profiler/profiler.py's _build_trace), and install()
makes the profiler's windows lazy and its export go through the program.
parse_cycle_buffer itself is as slow as upstream's by nature: the result is
half a million Python dicts for a large capture, whoever builds them.
merge_chrome_traces runs `cycleabi merge --upstream-compat` and returns
the merged trace as upstream's merge_chrome_traces (profiler/
trace_merger.py) returns it. The differences that remain are listed in the
repository's docs/python.md. cycleabi=True asks for cycleabi's own naming
(kernel families, GraphStage_N, args.graph_stage) instead of upstream's.
This file is written by hand.
"""

import importlib
import json
import math
import numbers
import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path

import numpy as np

import cycleabi_abi as abi

__all__ = ["build_window", "export_chrome_trace", "gate_profile_records", "install", "merge_chrome_traces",
           "parse_cycle_buffer", "UPSTREAM_TABLES"]

# What the upstream decoder it stands in for uses, at the latest upstream
# read (zhangfeiran/hyper-parallel profiler/profiling.py @7b1c95f9 and
# @c852d237): 72 slots (24 AIC, 48 AIV), the ABI's capacity limit, the
# runtime stage names and the MoE task-type table. install() replaces them
# with the installed module's own, so the output is that version's.
UPSTREAM_TABLES = {
    "CUBE_SLOT_COUNT": 24,
    "VECTOR_SLOT_COUNT": 48,
    "MAX_RECORDS_PER_CORE": 134217712,
    "DEFAULT_STAGE_NAMES": {0x10000: "WaitDependency", 0x10006: "TerminateTask",
                            0x10007: "TriggerEvent", 0x10008: "ReplicaW2Return"},
    "TASK_TYPE_NAMES": {0: "Terminate", 10: "BeginTaskGraph", 101: "AddCustom", 102: "SwiGLU",
                        103: "MatMul", 104: "GroupedMatMul", 105: "ShmemPutMemSignal",
                        106: "SwiGLUGrad", 107: "ShmemGetMem"},
}

# The ABI's own dtypes (gen/py), so an ABI change reaches the drop-in too.
_HEADER = abi.HEADER_DTYPE
_RECORD = abi.RECORD_DTYPE
_HEADER_FIELDS = ("entry_cycle", "record_count", "dropped_count", "core_type", "block_id",
                  "record_capacity", "reserved")
_CORE_NAMES = {1: "AIC", 2: "AIV"}
_INVALID_OWNER = 0xFFFFFFFF
_TASK_TYPE_BASE = 0x20000
_CONFIG_FIELDS = ("rank", "device_id", "cycle_frequency_mhz", "detailed_task_names", "kernel_name",
                  "owner_label", "stage_names", "soc_name", "task_stage_names", "cube_slot_count")
_POSITIONAL = _CONFIG_FIELDS[:-1] + ("aic_record_capacity", "aiv_record_capacity")


def _raw(buffer):
    """The buffer's bytes as a read-only uint8 array, without a copy where
    the object exports the buffer protocol (bytes, NumPy, a CPU tensor's
    .numpy()); objects with tobytes() only are copied, as upstream does."""
    if isinstance(buffer, np.ndarray):
        return np.ascontiguousarray(buffer).reshape(-1).view(np.uint8)
    try:
        return np.frombuffer(memoryview(buffer).cast("B"), dtype=np.uint8)
    except TypeError:
        pass
    if hasattr(buffer, "tobytes"):
        return np.frombuffer(buffer.tobytes(), dtype=np.uint8)
    return np.frombuffer(bytes(buffer), dtype=np.uint8)


def _check_capacity(capacity, core, limit):
    if capacity > limit:
        raise ValueError(f"{core} profile record capacity exceeds the {limit}-record limit: {capacity}")
    if capacity % 16 != 0:
        raise ValueError(f"{core} profile record capacity must be a multiple of 16: {capacity}")


def _buffer_bytes(tables, aic, aiv):
    return tables["CUBE_SLOT_COUNT"] * (64 + 32 * aic) + tables["VECTOR_SLOT_COUNT"] * (64 + 32 * aiv)


def _layout(raw, tables, aic, aiv):
    """The two capacities and the layout's size, as upstream resolves them."""
    limit = tables["MAX_RECORDS_PER_CORE"]
    if aic is None and aiv is None:
        aic = int(raw[24:28].view("<u4")[0])
        _check_capacity(aic, "AIC", limit)
        aiv_at = tables["CUBE_SLOT_COUNT"] * (64 + 32 * aic)
        if len(raw) < aiv_at + 64:
            raise ValueError("MegaKernel profile buffer is too small for the AIV header: "
                             f"expected at least {aiv_at + 64} bytes, got {len(raw)}")
        aiv = int(raw[aiv_at + 24:aiv_at + 28].view("<u4")[0])
        _check_capacity(aiv, "AIV", limit)
        need = _buffer_bytes(tables, aic, aiv)
        if len(raw) < need:
            raise ValueError("MegaKernel profile buffer is too small for its declared capacities: "
                             f"expected at least {need} bytes, got {len(raw)}")
        return aic, aiv, need
    if aic is None or aiv is None:
        raise ValueError("AIC and AIV profile capacities must be provided together")
    _check_capacity(aic, "AIC", limit)
    _check_capacity(aiv, "AIV", limit)
    need = _buffer_bytes(tables, aic, aiv)
    if len(raw) < need:
        raise ValueError("MegaKernel profile buffer is smaller than its Host-computed layout: "
                         f"expected at least {need} bytes, got {len(raw)}")
    return aic, aiv, need


def _records(raw, tables, aic, aiv):
    """Every live record, in slot then record order, with its slot's core
    type, block and entry cycle; the active entry cycles; the dropped count.
    Errors as upstream raises them, for the first slot that has one."""
    cube, vector = tables["CUBE_SLOT_COUNT"], tables["VECTOR_SLOT_COUNT"]
    aic_stride, aiv_stride = 64 + 32 * aic, 64 + 32 * aiv
    parts, entries, dropped = [], [], 0
    for slot in range(cube + vector):
        if slot < cube:
            core_type, block, offset, capacity = 1, slot, slot * aic_stride, aic
        else:
            core_type, block = 2, slot - cube
            offset, capacity = cube * aic_stride + block * aiv_stride, aiv
        h = raw[offset:offset + 64].view(_HEADER)[0]
        fields = [int(h[f]) for f in _HEADER_FIELDS]
        if not any(fields):
            continue
        entry, count, drop, got_type, got_block, got_capacity, reserved = fields
        if got_type != core_type or got_block != block:
            raise ValueError(f"Profile slot identity mismatch: slot={slot}, expected=({core_type}, {block}), "
                             f"got=({got_type}, {got_block})")
        if got_capacity != capacity:
            raise ValueError(f"Profile slot capacity mismatch: slot={slot}, expected={capacity}, got={got_capacity}")
        if reserved != 0:
            raise ValueError(f"Profile core header reserved field must be zero: slot={slot}, got={reserved}")
        if count > capacity:
            raise ValueError(f"Profile record count exceeds capacity: slot={slot}, count={count}, "
                             f"capacity={capacity}")
        dropped += drop
        if count == 0:
            continue
        if entry:
            entries.append(entry)
        recs = raw[offset + 64:offset + 64 + 32 * count].view(_RECORD)
        bad = np.flatnonzero(recs["end_cycle"] < recs["start_cycle"])
        if len(bad):
            i = int(bad[0])
            raise ValueError(f"Profile cycle interval is negative: slot={slot}, record={i}, "
                             f"start={int(recs['start_cycle'][i])}, end={int(recs['end_cycle'][i])}")
        parts.append((recs, core_type, block, entry))
    return parts, entries, dropped


def _times(start, end, anchor, mhz):
    """ts and dur as upstream computes them ((start - anchor) / mhz in
    Python ints and floats), as lists of floats. NumPy gives the same
    doubles while the differences fit a double exactly (or mhz is a float
    and they fit an int64); otherwise Python's own arithmetic does it."""
    exact = float(mhz) if isinstance(mhz, float) else None
    big = int(start.max()) >= 1 << 63 or anchor >= 1 << 63
    if not big:
        d = start.astype(np.int64) - np.int64(anchor)
        span = end - start
        fits = exact is not None or (int(np.abs(d).max()) <= 1 << 53 and int(span.max()) <= 1 << 53)
        if fits:
            m = np.float64(float(mhz))
            return (d.astype(np.float64) / m).tolist(), (span.astype(np.float64) / m).tolist()
    s, e = start.tolist(), end.tolist()
    return [(a - anchor) / mhz for a in s], [(b - a) / mhz for a, b in zip(s, e)]


def _upstream_stage(tables, stage_names, desc_id):
    """The stage part of upstream's _event_name for desc_id."""
    if desc_id in stage_names:
        return stage_names[desc_id]
    if desc_id >= _TASK_TYPE_BASE:
        t = desc_id - _TASK_TYPE_BASE
        return f"TaskType_{tables['TASK_TYPE_NAMES'].get(t, t)}"
    return f"DescId_{desc_id}"


def _cycleabi_stage(kernel_name, stage_names):
    """decode's name for a desc_id: the kernel family of kernel_name names
    task types and stage ids; unnamed graph stages are GraphStage_N."""
    import cycleabi_abi as abi
    family = abi.family(kernel_name) if hasattr(abi, "family") else None
    return lambda d: abi.desc_name(d, stage_names, family)


def _names(recs, stage, task_stages, prefixed, detailed, owner_label):
    """Every record's event name, as upstream's _event_name builds it:
    the stage name of its desc_id (computed once per desc_id), prefixed
    with its task's stage for the descriptors in prefixed, and with
    detailed names the task number and owner."""
    desc = recs["desc_id"]
    uniq, inverse = np.unique(desc, return_inverse=True)
    table = np.array([stage(int(d)) for d in uniq.tolist()] + [""], dtype=object)
    names = table[inverse].tolist()
    if task_stages:
        hit = np.flatnonzero(np.isin(desc, list(prefixed)) &
                             np.isin(recs["task_id"], np.array(list(task_stages), dtype=np.int64)))
        tasks = recs["task_id"]
        for i in hit.tolist():
            names[i] = f"{task_stages[int(tasks[i])]}_{names[i]}"
    if not detailed:
        return names
    out = []
    for n, s, o in zip(names, recs["stage_task_index"].tolist(), recs["owner_id"].tolist()):
        task = f"{n}_task{s + 1}"
        out.append(task if o == _INVALID_OWNER else f"{owner_label}{o}_{task}")
    return out


def _resolve_stage_names(tables, stage_names):
    resolved = dict(tables["DEFAULT_STAGE_NAMES"])
    for desc_id, name in (stage_names or {}).items():
        if isinstance(desc_id, bool) or not isinstance(desc_id, int):
            raise TypeError(f"stage_names keys must be integers, got {desc_id!r}")
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"stage_names values must be non-empty strings, got {name!r}")
        resolved[desc_id] = name
    return resolved


def _bind(args, kwargs):
    """The keyword form's values from either calling form: buffer, config
    (an object or mapping with _CycleTraceConfig's fields) and the two
    capacities; or buffer, rank, device_id, ... positionally or by name."""
    config = kwargs.pop("config", None)
    if config is None and args and not isinstance(args[0], numbers.Integral):
        config, args = args[0], args[1:]
    values = {}
    if config is not None:
        for f in _CONFIG_FIELDS:
            if isinstance(config, Mapping):
                if f in config:
                    values[f] = config[f]
            elif hasattr(config, f):
                values[f] = getattr(config, f)
        names = ("aic_record_capacity", "aiv_record_capacity")
    else:
        names = _POSITIONAL
    if len(args) > len(names):
        raise TypeError(f"parse_cycle_buffer takes at most {len(names) + 1} positional arguments")
    for f, v in zip(names, args):
        values[f] = v
    for f, v in kwargs.items():
        if f not in _POSITIONAL and f != "cube_slot_count":
            raise TypeError(f"parse_cycle_buffer got an unexpected keyword argument {f!r}")
        if f in values and config is None:
            raise TypeError(f"parse_cycle_buffer got multiple values for argument {f!r}")
        values[f] = v
    for f in ("rank", "device_id", "cycle_frequency_mhz", "detailed_task_names", "kernel_name",
              "owner_label", "stage_names", "soc_name"):
        if f not in values:
            raise TypeError(f"parse_cycle_buffer missing required argument: {f!r}")
    return values


def _checked(buffer, v, tables):
    """The checks parse_cycle_buffer makes before it builds anything, in
    upstream's order and words, and what they find: the tables in force,
    the raw bytes, the capacities, the layout's size, the slots' records,
    the active entry cycles, the dropped count and the stage names."""
    tables = dict(UPSTREAM_TABLES, **(tables or {}))
    mhz = v["cycle_frequency_mhz"]
    if mhz <= 0:
        raise ValueError(f"cycle_frequency_mhz must be positive, got {mhz}")
    cube = v.get("cube_slot_count")
    if cube is not None:
        # The hyper_multicore decoder's config: cube_slot_count AIC slots
        # (at least its 24), twice as many AIV slots.
        if cube < UPSTREAM_TABLES["CUBE_SLOT_COUNT"]:
            raise ValueError(f"profile Cube slot count must be at least {UPSTREAM_TABLES['CUBE_SLOT_COUNT']}, "
                             f"got {cube}")
        tables["CUBE_SLOT_COUNT"], tables["VECTOR_SLOT_COUNT"] = cube, 2 * cube
    stage_names = _resolve_stage_names(tables, v["stage_names"])
    raw = _raw(buffer)
    minimum = (tables["CUBE_SLOT_COUNT"] + tables["VECTOR_SLOT_COUNT"]) * 64
    if len(raw) < minimum:
        raise ValueError(f"MegaKernel profile buffer is too small: expected at least {minimum} bytes, "
                         f"got {len(raw)}")
    aic, aiv, need = _layout(raw, tables, v.get("aic_record_capacity"), v.get("aiv_record_capacity"))
    parts, entries, dropped = _records(raw, tables, aic, aiv)
    if not parts:
        raise ValueError("MegaKernel cycle profile buffer contains no records; verify that the current profiler "
                         "schedule is active and that the profiled operator completed")
    return tables, raw, aic, aiv, need, parts, entries, dropped, stage_names


def parse_cycle_buffer(buffer, *args, cycleabi=False, tables=None, **kwargs):
    """Decode one invocation's device buffer as upstream's _parse_cycle_buffer.

    Takes what it takes: parse_cycle_buffer(buffer, config, *,
    aic_record_capacity=None, aiv_record_capacity=None) with config a
    _CycleTraceConfig (or any object or mapping with its fields), or the
    keyword form parse_cycle_buffer(buffer, rank, device_id,
    cycle_frequency_mhz, detailed_task_names, kernel_name, owner_label,
    stage_names, soc_name, task_stage_names=None, aic_record_capacity=None,
    aiv_record_capacity=None). buffer is bytes, a NumPy array, anything
    with the buffer protocol or with tobytes(). Returns upstream's dict
    (traceEvents and megaKernelCycleTrace), raising ValueError where it
    raises. cycleabi=True names events as cycleabi decode does; tables
    (UPSTREAM_TABLES's keys) is the upstream version's constants."""
    v = _bind(args, kwargs)
    tables, raw, aic, aiv, need, parts, entries, dropped, stage_names = _checked(buffer, v, tables)
    mhz = v["cycle_frequency_mhz"]
    rank, device_id = v["rank"], v["device_id"]
    kernel_name, owner_label = v["kernel_name"], v["owner_label"]
    detailed = v["detailed_task_names"]
    task_stages = dict(v.get("task_stage_names") or {})
    device = rank if device_id is None else device_id
    recs = np.concatenate([p[0] for p in parts])
    sizes = [len(p[0]) for p in parts]
    core = np.repeat(np.array([p[1] for p in parts], dtype=np.int64), sizes)
    block = np.repeat(np.array([p[2] for p in parts], dtype=np.int64), sizes)
    entry = np.repeat(np.array([p[3] for p in parts], dtype=np.uint64), sizes)
    anchor = min(entries) if entries else int(recs["start_cycle"].min())
    order = np.lexsort((block, core, recs["start_cycle"]))  # stable, as sorted() is
    recs, core, block, entry = recs[order], core[order], block[order], entry[order]
    ts, dur = _times(recs["start_cycle"], recs["end_cycle"], anchor, mhz)

    events = [{"name": "process_name", "ph": "M", "pid": rank, "tid": 0,
               "args": {"name": f"{kernel_name} rank {rank} device {device}"}}]
    for index, (c, b) in enumerate((p[1], p[2]) for p in sorted(parts, key=lambda p: (p[1], p[2]))):
        tid = c * 1000 + b
        events.append({"name": "thread_name", "ph": "M", "pid": rank, "tid": tid,
                       "args": {"name": f"{_CORE_NAMES[c]}/{b}"}})
        events.append({"name": "thread_sort_index", "ph": "M", "pid": rank, "tid": tid,
                       "args": {"sort_index": index}})

    if cycleabi:
        import cycleabi_abi as abi
        stage = _cycleabi_stage(kernel_name, stage_names)
        prefixed = [d for d in (0x10000, 0x10006, 0x10007, 0x10008) if abi.task_stage_prefixed(d)]
    else:
        stage = lambda d: _upstream_stage(tables, stage_names, d)  # noqa: E731
        prefixed = (0x10000, 0x10007)
    names = _names(recs, stage, task_stages, prefixed, detailed, owner_label)
    graph_base = 0x30000
    columns = zip(recs["desc_id"].tolist(), recs["task_id"].tolist(), recs["stage_task_index"].tolist(),
                  recs["owner_id"].tolist(), recs["start_cycle"].tolist(), recs["end_cycle"].tolist(),
                  core.tolist(), block.tolist(), entry.tolist(), ts, dur, names)
    append = events.append
    for d, t, s, o, start, end, c, b, e, at, span, n in columns:
        a = {"rank": rank, "device_id": device, "core_type": _CORE_NAMES[c], "block_id": b, "task_id": t,
             "desc_id": d, "stage_task_index": s, "task_number": s + 1, "start_cycle": start,
             "end_cycle": end, "core_entry_cycle": e}
        if t in task_stages:
            a["task_stage"] = task_stages[t]
        if d >= _TASK_TYPE_BASE:
            if cycleabi and d >= graph_base:
                a["graph_stage"] = d - graph_base
            else:
                a["task_type"] = d - _TASK_TYPE_BASE
        if o != _INVALID_OWNER:
            a["owner_id"] = o
        append({"name": n, "cat": "MegaKernelInternal", "ph": "X", "pid": rank,
                "tid": c * 1000 + b, "ts": at, "dur": span, "args": a})
    return {
        "traceEvents": events,
        "megaKernelCycleTrace": {
            "schemaVersion": 1,
            "rank": rank,
            "deviceId": device,
            "socName": v["soc_name"],
            "cycleFrequencyMHz": mhz,
            "anchorCycle": anchor,
            "recordCapacityPerCore": {"AIC": aic, "AIV": aiv},
            "maxRecordCapacityPerCore": tables["MAX_RECORDS_PER_CORE"],
            "recordCount": len(recs),
            "droppedRecordCount": dropped,
            "profileBufferBytes": need,
            "detailedTaskNames": detailed,
            "kernelName": kernel_name,
            "ownerLabel": owner_label,
            "warnings": [] if dropped == 0 else [f"Device dropped {dropped} cycle trace records"],
        },
    }


def build_window(parsed, invocations, window_index, detailed_task_names):
    """The trace of a capture window as upstream's profiler builds it
    (profiler/profiler.py's _build_trace, @2640a41d): parsed holds each
    invocation's parse_cycle_buffer dict, invocations the matching
    {"invocationId", "step", "direction", "kernelName"} dicts. Each
    invocation's events move by (its anchor - the window's earliest
    anchor) / its MHz and gain invocation_id, step and direction; metadata
    events are written once per (name, pid, tid), then every duration event
    sorted by (ts, pid, tid)."""
    if not parsed:
        return {"traceEvents": [], "megaKernelCycleTrace": {
            "schemaVersion": 1, "windowIndex": window_index, "invocationCount": 0, "recordCount": 0,
            "droppedRecordCount": 0, "detailedTaskNames": detailed_task_names, "invocations": [], "warnings": []}}
    anchor = min(t["megaKernelCycleTrace"]["anchorCycle"] for t in parsed)
    meta, seen, spans, listed = [], set(), [], []
    records = dropped = 0
    for inv, trace in zip(invocations, parsed):
        m = trace["megaKernelCycleTrace"]
        shift = (m["anchorCycle"] - anchor) / m["cycleFrequencyMHz"]
        records += m["recordCount"]
        dropped += m["droppedRecordCount"]
        listed.append({"invocationId": inv["invocationId"], "step": inv["step"], "direction": inv["direction"],
                       "kernelName": inv["kernelName"], "rank": m["rank"], "deviceId": m["deviceId"],
                       "anchorCycle": m["anchorCycle"], "recordCount": m["recordCount"],
                       "droppedRecordCount": m["droppedRecordCount"]})
        extra = {"invocation_id": inv["invocationId"], "step": inv["step"], "direction": inv["direction"]}
        for e in trace["traceEvents"]:
            if e["ph"] == "M":
                key = (e["name"], e["pid"], e["tid"])
                if key not in seen:
                    seen.add(key)
                    meta.append(e)
                continue
            e = dict(e)
            e["ts"] += shift
            e["args"] = {**e.get("args", {}), **extra}
            spans.append(e)
    spans.sort(key=lambda e: (e["ts"], e["pid"], e["tid"]))
    return {"traceEvents": meta + spans, "megaKernelCycleTrace": {
        "schemaVersion": 1, "windowIndex": window_index, "anchorCycle": anchor, "invocationCount": len(parsed),
        "recordCount": records, "droppedRecordCount": dropped, "detailedTaskNames": detailed_task_names,
        "invocations": listed, "warnings": [] if dropped == 0 else [f"Device dropped {dropped} cycle trace records"]}}


# The fast path: `cycleabi decode --upstream-compat` writes the file that
# json.dumps(trace, ensure_ascii=False) of parse_cycle_buffer's dict (or of
# build_window's) writes, byte for byte, from the buffers and a request
# naming each one's configuration.
_INT64 = 1 << 63


def _is_int(v, lo=-_INT64, hi=_INT64):
    return isinstance(v, int) and not isinstance(v, bool) and lo <= v < hi


def _is_text(v):
    if not isinstance(v, str):
        return False
    try:
        v.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _names_map(m):
    """A stage or task-stage table as the request writes it, or None when
    the program cannot write its names as Python does (keys not 64-bit
    unsigned ints, names not strings)."""
    if m is None:
        return {}
    if not isinstance(m, Mapping):
        return None
    out = {}
    for k, v in m.items():
        if not _is_int(k, 0, 1 << 64) or not _is_text(v):
            return None
        out[str(k)] = v
    return out


def _request_config(v):
    """parse_cycle_buffer's bound values as the request's config, or None
    where a value is of a kind only the Python path writes as upstream
    does (a rank that is not an int, a name that is not a string, ...)."""
    mhz = v["cycle_frequency_mhz"]
    if not (_is_int(mhz, 1, 1 << 1000) or (isinstance(mhz, float) and math.isfinite(mhz))):
        return None
    device = v.get("device_id")
    stage = _names_map(v.get("stage_names"))
    task_stage = _names_map(v.get("task_stage_names"))
    soc = v["soc_name"]
    caps = [v.get("aic_record_capacity"), v.get("aiv_record_capacity")]
    cube = v.get("cube_slot_count")
    if not (_is_int(v["rank"]) and (device is None or _is_int(device)) and isinstance(v["detailed_task_names"], bool)
            and _is_text(v["kernel_name"]) and _is_text(v["owner_label"]) and (soc is None or _is_text(soc))
            and stage is not None and task_stage is not None and all(c is None or _is_int(c, 0) for c in caps)
            and (cube is None or _is_int(cube, 0, 1 << 20))):
        return None
    return {"rank": v["rank"], "device_id": device, "cycle_frequency_mhz": mhz,
            "detailed_task_names": v["detailed_task_names"], "kernel_name": v["kernel_name"],
            "owner_label": v["owner_label"], "stage_names": stage, "soc_name": soc,
            "task_stage_names": task_stage, "cube_slot_count": cube,
            "aic_record_capacity": caps[0], "aiv_record_capacity": caps[1]}


def _request_tables(tables):
    t = dict(UPSTREAM_TABLES, **(tables or {}))
    out = {k: t[k] for k in ("CUBE_SLOT_COUNT", "VECTOR_SLOT_COUNT", "MAX_RECORDS_PER_CORE")}
    for k in ("DEFAULT_STAGE_NAMES", "TASK_TYPE_NAMES"):
        m = _names_map(t[k])
        if m is None:
            return None
        out[k] = m
    if not all(_is_int(out[k], 0) for k in ("CUBE_SLOT_COUNT", "VECTOR_SLOT_COUNT", "MAX_RECORDS_PER_CORE")):
        return None
    return out


def _run_export(request, buffers, output):
    """Run `cycleabi decode --upstream-compat` on the buffers (written to a
    temporary folder) and the request; output "-" returns the trace's bytes."""
    with tempfile.TemporaryDirectory(prefix="cycleabi-export-") as tmp:
        files = []
        for i, b in enumerate(buffers):
            files.append(os.path.join(tmp, f"invocation{i}.bin"))
            with open(files[-1], "wb") as f:
                f.write(memoryview(b))
        req = os.path.join(tmp, "request.json")
        with open(req, "w", encoding="utf-8") as f:
            json.dump(request, f, ensure_ascii=False)
        cmd = [_program(), "decode", "--upstream-compat", *files, "--upstream-config", req, "-o", output]
        proc = subprocess.run(cmd, capture_output=True)
    err = proc.stderr.decode("utf-8", "replace").strip()
    if proc.returncode == 1:
        raise ValueError(err)
    if proc.returncode != 0:
        raise OSError(err or f"cycleabi decode exited with status {proc.returncode}")
    return proc.stdout


def export_chrome_trace(path, buffer, *args, tables=None, **kwargs):
    """Write the file json.dumps(parse_cycle_buffer(buffer, ...),
    ensure_ascii=False) writes, through `cycleabi decode --upstream-compat`,
    without building the dict in Python. Takes parse_cycle_buffer's
    arguments after the path; raises as it raises. Returns nothing: the
    dict is parse_cycle_buffer's to build (the slow part, by nature)."""
    if kwargs.get("cycleabi"):
        raise ValueError("export_chrome_trace writes upstream's names; cycleabi=True is parse_cycle_buffer's")
    values = _bind(args, dict(kwargs))
    checked = _checked(buffer, values, tables)
    raw = checked[1]
    config = _request_config(values)
    t = _request_tables(tables)
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    if config is None or t is None:
        trace = parse_cycle_buffer(buffer, *args, tables=tables, **kwargs)
        out.write_text(json.dumps(trace, ensure_ascii=False), encoding="utf-8")
        return
    _run_export({"tables": t, "invocations": [{"config": config}]}, [raw], os.fspath(out))


_DEFER = threading.local()  # on inside the patched _build_trace


def _deferred(buffer, args, kwargs, tables):
    """The patched profiler's parse inside its window build: the buffer
    checked as upstream checks it (raising as it raises, when it would),
    kept for the program with its config; None where only the Python path
    writes the values as upstream does."""
    values = _bind(args, dict(kwargs))
    raw = _checked(buffer, values, tables)[1]
    config = _request_config(values)
    if config is None:
        return None
    return _Deferred(raw, config)


def _lazy_window(profiler, invocations, tables):
    """upstream's _build_trace(invocations), deferred: a _LazyTrace whose
    file export_chrome_trace writes through the program; None where the
    Python path must build it (a runtime whose parse does more than return
    _parse_cycle_buffer's dict, values the program does not write)."""
    t = _request_tables(tables)
    window = {"windowIndex": getattr(profiler, "_window_index", None),
              "detailedTaskNames": getattr(profiler, "_detailed_task_names", None)}
    if t is None or not _is_int(window["windowIndex"]) or not isinstance(window["detailedTaskNames"], bool):
        return None
    _DEFER.on = True
    try:
        parsed = [inv.runtime.parse(inv.data, detailed_task_names=window["detailedTaskNames"]) for inv in invocations]
    finally:
        _DEFER.on = False
    listed, buffers = [], []
    for inv, p in zip(invocations, parsed):
        kernel = getattr(inv.runtime, "kernel_name", None)
        if not (isinstance(p, _Deferred) and _is_int(inv.invocation_id) and _is_int(inv.step)
                and _is_text(inv.direction) and _is_text(kernel)):
            return None
        listed.append({"config": p.config, "invocationId": inv.invocation_id, "step": inv.step,
                       "direction": inv.direction, "kernelName": kernel})
        buffers.append(p.buffer)
    return _LazyTrace({"tables": t, "window": window, "invocations": listed}, buffers)


def _install_fast_export(module, tables):
    """The profiler classes of module that build windows (_build_trace) and
    export them (export_chrome_trace): the window is built lazily, and
    exported through `cycleabi decode --upstream-compat`."""
    patched = []
    for name, cls in list(vars(module).items()):
        if not isinstance(cls, type) or getattr(cls, "__module__", None) != module.__name__:
            continue
        build, export = cls.__dict__.get("_build_trace"), cls.__dict__.get("export_chrome_trace")
        if not (callable(build) and callable(export)):
            continue
        # Installed again: wrap upstream's own methods, with the tables now.
        build, export = getattr(build, "__wrapped__", build), getattr(export, "__wrapped__", export)

        def _build_trace(self, invocations, _build=build):
            if invocations:
                lazy = _lazy_window(self, invocations, tables)
                if lazy is not None:
                    return lazy
            return _build(self, invocations)

        def export_chrome_trace(self, path, _export=export):
            trace = getattr(self, "_last_trace", None)
            if isinstance(trace, _LazyTrace) and trace.pending:
                out = Path(path)
                out.parent.mkdir(parents=True, exist_ok=True)
                _run_export(trace._request, trace._buffers, os.fspath(out))
                return trace
            return _export(self, path)
        for f, orig in ((_build_trace, build), (export_chrome_trace, export)):
            f.__doc__, f.__wrapped_by__, f.__wrapped__ = orig.__doc__, "cycleabi", orig
            f.__name__ = f.__qualname__ = orig.__name__
        cls._build_trace, cls.export_chrome_trace = _build_trace, export_chrome_trace
        patched += [f"{module.__name__}.{name}._build_trace", f"{module.__name__}.{name}.export_chrome_trace"]
    return patched


class _Deferred:
    """What the patched profiler's parse returns while it builds a window:
    the buffer (validated as upstream validates it) and the request's config."""

    __slots__ = ("buffer", "config")

    def __init__(self, buffer, config):
        self.buffer, self.config = buffer, config


_PENDING = object()


class _LazyTrace(dict):
    """upstream's window trace dict, built on first use. Until then it holds
    the buffers and the request that `cycleabi decode --upstream-compat`
    turns into the trace's file; any read (items, [], ==, json.dumps,
    copy, pickle, ...) builds the dict from that program's output."""

    def __init__(self, request, buffers):
        dict.__init__(self, traceEvents=_PENDING, megaKernelCycleTrace=_PENDING)
        self._request, self._buffers = request, buffers

    @property
    def pending(self):
        """Whether the dict is not built yet."""
        return self._request is not None

    def _load(self):
        if self._request is not None:
            data = _run_export(self._request, self._buffers, "-")
            dict.clear(self)
            dict.update(self, json.loads(data))
            self._request = self._buffers = None
        return self

    def __repr__(self):
        return dict.__repr__(self._load())

    def __eq__(self, other):
        if isinstance(other, _LazyTrace):
            other._load()
        return dict.__eq__(self._load(), other)

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None

    def __reduce__(self):
        return (dict, (dict(self._load()),))

    def __reduce_ex__(self, protocol):
        return self.__reduce__()

    def __copy__(self):
        return dict(self._load())

    def __deepcopy__(self, memo):
        import copy
        return copy.deepcopy(dict(self._load()), memo)

    def copy(self):
        return dict(self._load())


def _loading(name):
    method = getattr(dict, name)

    def call(self, *args, **kwargs):
        return method(self._load(), *args, **kwargs)
    call.__name__ = name
    return call


for _name in ("__getitem__", "__iter__", "__reversed__", "__or__", "__ror__", "__ior__", "__setitem__",
              "__delitem__", "get", "keys", "values", "items", "pop", "popitem",
              "setdefault", "update", "clear"):
    if hasattr(dict, _name):
        setattr(_LazyTrace, _name, _loading(_name))
del _name


# A Gate profile buffer (upstream's runtime/gate.py @ec0fa8dd): 24 AIC slots
# of capacity 0, then 48 AIV slots of capacity 16, one record per stage of
# the invocation's image on each worker that ran.
_GATE_WORKERS = 48
_GATE_CAPACITY = 16
_GATE_AIV_AT = 24 * abi.CORE_HEADER_SIZE
_GATE_BYTES = _GATE_AIV_AT + _GATE_WORKERS * (abi.CORE_HEADER_SIZE + _GATE_CAPACITY * abi.PROFILE_RECORD_SIZE)
_GATE_STAGE_BASE = 0x30000


def _stage_fields(stage):
    """A stage's logical name and source spans: upstream's stage object
    (logical_name, source_spans) or a (name, spans) pair."""
    if hasattr(stage, "logical_name"):
        return stage.logical_name, stage.source_spans
    name, spans = stage
    return name, spans


def gate_profile_records(buffer, stages, direction="forward"):
    """The records of one Gate invocation's profile buffer, as upstream's
    GateProfile.records() returns them: a tuple of dicts (direction, worker,
    stage: the logical name of the image's stage, start_cycle, end_cycle,
    source: its source spans as strings), worker by worker.

    buffer is the invocation's profile buffer (bytes, a NumPy array, a CPU
    tensor's .numpy(), anything with the buffer protocol); stages the
    image's stages in order (upstream's objects with logical_name and
    source_spans, or (name, spans) pairs). Raises ValueError, with
    upstream's words, on a buffer of another size, on any dropped record, a
    worker whose record count is not the number of stages, and a record
    whose descriptor, task, stage index or owner is not its own."""
    raw = _raw(buffer)
    if len(raw) != _GATE_BYTES:
        raise ValueError(f"Gate profile buffer must be {_GATE_BYTES} bytes, got {len(raw)}")
    stages = [_stage_fields(s) for s in stages]
    stride = abi.CORE_HEADER_SIZE + _GATE_CAPACITY * abi.PROFILE_RECORD_SIZE
    out = []
    for worker in range(_GATE_WORKERS):
        offset = _GATE_AIV_AT + worker * stride
        h = raw[offset:offset + abi.CORE_HEADER_SIZE].view(_HEADER)[0]
        count = int(h["record_count"])
        if not count:
            continue
        if (int(h["dropped_count"]) or count != len(stages) or int(h["record_capacity"]) != _GATE_CAPACITY
                or int(h["core_type"]) != 2 or int(h["block_id"]) != worker):
            raise ValueError(f"Invalid or dropped Gate profile records for worker {worker}")
        recs = raw[offset + abi.CORE_HEADER_SIZE:offset + abi.CORE_HEADER_SIZE
                   + count * abi.PROFILE_RECORD_SIZE].view(_RECORD)
        index = np.arange(count)
        if (np.any(recs["task_id"] != index) or np.any(recs["desc_id"] != _GATE_STAGE_BASE + index)
                or np.any(recs["stage_task_index"] != worker) or np.any(recs["owner_id"] != worker)
                or np.any(recs["end_cycle"] < recs["start_cycle"])):
            raise ValueError("Gate profile descriptor/worker identity mismatch")
        for i in range(count):
            name, spans = stages[i]
            out.append({"direction": direction, "worker": worker, "stage": name,
                        "start_cycle": int(recs["start_cycle"][i]), "end_cycle": int(recs["end_cycle"][i]),
                        "source": tuple(str(span) for span in spans)})
    return tuple(out)


def _program():
    from cycleabi import program  # the package's: the wheel's program, else PATH's
    return program()


def _check_merge_options(kernel_pattern, kernel_index, allow_host_wrapper):
    if not isinstance(kernel_index, int) or isinstance(kernel_index, bool) or kernel_index < 0:
        raise ValueError(f"kernel_index must be a non-negative integer, got {kernel_index!r}")
    if kernel_pattern is not None and not isinstance(kernel_pattern, str):
        raise TypeError(f"kernel_pattern must be a string or None, got {type(kernel_pattern).__name__}")
    if kernel_pattern == "":
        raise ValueError("kernel_pattern must not be empty")
    if not isinstance(allow_host_wrapper, bool):
        raise TypeError(f"allow_host_wrapper must be bool, got {type(allow_host_wrapper).__name__}")


def _trace_path(source, what, tmp):
    """A path merge reads: the path given, or the object written to tmp."""
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    if isinstance(source, (dict, list)):
        path = os.path.join(tmp, what + ".json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(source, f, ensure_ascii=False)
        return path
    raise TypeError(f"{what} must be a path, Chrome Trace object, or event list, got {type(source).__name__}")


def _upstream_warnings(report):
    """megaKernelTraceMerge's warnings in upstream's words (its merger's
    messages), from the report merge --upstream-compat wrote."""
    warnings = []
    if report.get("usedFallbackKernelSelection"):
        warnings.append(f"No outer kernel name matched inferred pattern {report['kernelPattern']!r}; "
                        "selected a contiguous device-kernel window by duration similarity, "
                        "so alignment is approximate")
    if any(not a.get("outerKernelIsDevice") for a in report.get("alignments", [])):
        warnings.append("Selected host-only outer event(s); alignment is approximate because Device kernel "
                        "events were unavailable")
    for a in report.get("alignments", []):
        if a["exceedsOuterKernelUs"] > 0:
            warnings.append(f"Invocation {a['invocationId']!r} internal events exceed outer kernel "
                            f"by {a['exceedsOuterKernelUs']:.3f} us")
    return warnings


def merge_chrome_traces(framework_trace, mega_kernel_trace, output, *, kernel_pattern=None, kernel_index=0,
                        outer_pid=None, allow_host_wrapper=False):
    """Merge a MegaKernel trace into a framework trace as upstream's
    merge_chrome_traces does, with `cycleabi merge --upstream-compat`.

    framework_trace is a path, a Chrome Trace object or an event list;
    mega_kernel_trace a path or an object; output the merged trace's path
    (its folder is made). Returns the merged trace object, its alignment
    diagnostics under megaKernelTraceMerge. Raises TypeError for an option
    or input of the wrong type, ValueError (with merge's message) for a
    trace that is malformed or cannot be aligned."""
    _check_merge_options(kernel_pattern, kernel_index, allow_host_wrapper)
    with tempfile.TemporaryDirectory(prefix="cycleabi-merge-") as tmp:
        fw = _trace_path(framework_trace, "framework_trace", tmp)
        mk = _trace_path(mega_kernel_trace, "mega_kernel_trace", tmp)
        out = os.fspath(output)
        parent = os.path.dirname(out)
        if parent:
            os.makedirs(parent, exist_ok=True)
        cmd = [_program(), "merge", fw, mk, "-o", out, "--upstream-compat", "--kernel-index", str(kernel_index)]
        if kernel_pattern is not None:
            cmd += ["--kernel-pattern", kernel_pattern]
        if outer_pid is not None:
            cmd += ["--outer-pid", str(outer_pid)]
        if allow_host_wrapper:
            cmd.append("--allow-host-wrapper")
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode == 1:
            raise ValueError(proc.stderr.strip())
        if proc.returncode != 0:
            raise OSError(proc.stderr.strip() or f"cycleabi merge exited with status {proc.returncode}")
    with open(out, encoding="utf-8") as f:
        merged = json.load(f)
    report = merged.get("megaKernelTraceMerge")
    if isinstance(report, dict) and isinstance(report.get("warnings"), list):
        warnings = _upstream_warnings(report)
        if warnings != report["warnings"]:
            report["warnings"] = warnings
            with open(out, "w", encoding="utf-8") as f:
                json.dump(merged, f, ensure_ascii=False)
    return merged


def _upstream_tables(module):
    """UPSTREAM_TABLES as an installed profiling module defines them."""
    tables = {}
    for key in UPSTREAM_TABLES:
        value = getattr(module, key, None)
        if value is not None:
            tables[key] = dict(value) if isinstance(value, Mapping) else int(value)
    return tables


_PROFILER = "hyper_parallel.core.multicore.profiler"


def install(package=_PROFILER):
    """Make an installed hyper-parallel's profiler parse and merge through
    cycleabi: its _parse_cycle_buffer and merge_chrome_traces names are
    rebound, wherever the profiler's modules hold them, to
    parse_cycle_buffer (with the installed module's own tables: slot
    counts, capacity limit, stage and task-type names) and
    merge_chrome_traces. Its profiler's window (a class with _build_trace
    and export_chrome_trace, upstream's TorchMegaKernelProfiler) is built
    lazily: at the window's end the buffers are checked as upstream checks
    them (raising as it raises) and kept; export_chrome_trace(path) writes
    the file through `cycleabi decode --upstream-compat`, in the bytes
    upstream's json.dumps writes, and returns the trace dict, which is
    built (by that program, read back with json.loads) only when something
    reads it. Nothing else of its workflow changes. Returns the names
    rebound, as "module.name"."""
    rebound = []
    names = [package] + [package + "." + m for m in ("profiling", "profiler", "trace_merger")]
    modules = []
    for name in names:
        try:
            modules.append(importlib.import_module(name))
        except ImportError:
            if name == package:
                raise
    tables = {}
    for m in modules:
        if m.__name__.endswith(".profiling"):
            tables = _upstream_tables(m)

    def _parse_cycle_buffer(buffer, *args, **kwargs):
        if getattr(_DEFER, "on", False):
            deferred = _deferred(buffer, args, kwargs, tables)
            if deferred is not None:
                return deferred
        return parse_cycle_buffer(buffer, *args, tables=tables, **kwargs)
    _parse_cycle_buffer.__doc__ = parse_cycle_buffer.__doc__
    _parse_cycle_buffer.__wrapped_by__ = "cycleabi"

    for m in list(sys.modules.values()):
        name = getattr(m, "__name__", "")
        if not (name == package or name.startswith(package + ".")):
            continue
        if callable(getattr(m, "_parse_cycle_buffer", None)):
            m._parse_cycle_buffer = _parse_cycle_buffer
            rebound.append(name + "._parse_cycle_buffer")
        if callable(getattr(m, "merge_chrome_traces", None)):
            m.merge_chrome_traces = merge_chrome_traces
            rebound.append(name + ".merge_chrome_traces")
        if name.endswith(".profiler") or name == package:
            rebound += _install_fast_export(m, tables)
    if not rebound:
        raise ImportError(f"{package} holds neither _parse_cycle_buffer nor merge_chrome_traces")
    rebound += _install_gate(package.rsplit(".", 1)[0] + ".runtime.gate")
    return sorted(rebound)


def _install_gate(name):
    """GateProfile.records of the runtime's gate module, where it is
    installed (it needs torch), decodes through gate_profile_records."""
    try:
        gate = importlib.import_module(name)
    except ImportError:
        return []
    profile = getattr(gate, "GateProfile", None)
    if profile is None or not callable(getattr(profile, "records", None)):
        return []

    def records(self):
        self.event.synchronize()
        buffer = self.buffer.cpu()
        buffer = buffer.numpy() if hasattr(buffer, "numpy") else buffer
        return gate_profile_records(buffer, self.image.stages, self.direction)
    records.__doc__ = gate_profile_records.__doc__
    records.__wrapped_by__ = "cycleabi"
    profile.records = records
    return [name + ".GateProfile.records"]
