# The decoding half of the Python reference decoder, cycle_trace.py
# from hyper-parallel, transcribed line for line
# with its indentation restored. Only imports from modules not in hand are
# replaced (MIN_CUBE_WORKER_CAPACITY is the schema's MinCubeSlots, 24).
# decode's TestReferenceDecoder runs it next to the Go decoder.
#
# Copyright 2026 Huawei Technologies Co., Ltd
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
# http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
import struct
from typing import Any

MIN_CUBE_WORKER_CAPACITY = 24

CUBE_SLOT_COUNT = MIN_CUBE_WORKER_CAPACITY
VECTOR_SLOT_COUNT = 2 * CUBE_SLOT_COUNT
CORE_SLOT_COUNT = CUBE_SLOT_COUNT + VECTOR_SLOT_COUNT
RECORD_CAPACITY_ALIGNMENT = 16
CORE_HEADER = struct.Struct("<QIIIIII32x")
PROFILE_RECORD = struct.Struct("<QQIIII")
MAX_RECORDS_PER_CORE = ((0xFFFFFFFF - CORE_HEADER.size) // PROFILE_RECORD.size
                        // RECORD_CAPACITY_ALIGNMENT * RECORD_CAPACITY_ALIGNMENT)
INVALID_OWNER_ID = 0xFFFFFFFF
TASK_TYPE_DESC_BASE = 0x20000
GRAPH_STAGE_DESC_BASE = 0x30000

DEFAULT_STAGE_NAMES = {
    0x10000: "WaitDependency",
    0x10006: "TerminateTask",
    0x10007: "TriggerEvent",
}
TASK_TYPE_NAMES = {
    0: "Terminate",
    10: "BeginTaskGraph",
    101: "AddCustom",
    102: "SwiGLU",
    103: "MatMul",
    104: "GroupedMatMul",
    105: "ShmemPutMemSignal",
    106: "SwiGLUGrad",
    107: "MhcPost",
    108: "MhcNormCast",
    109: "MhcProjection",
    110: "MhcMapping",
    111: "RmsNorm",
    112: "MhcInputMix",
    113: "RmsNormGrad",
    114: "MhcGradPrevA",
    115: "MhcGradMapping",
    116: "MhcGradPhiRms",
    117: "MhcGradPrevXAndPost",
    118: "MhcPostGrad",
    119: "MhcGradPrevAAndMapping",
    141: "ShmemGetMem",
}
CORE_TYPE_NAMES = {
    1: "AIC",
    2: "AIV",
}


@dataclass(frozen=True)
class _CycleTraceConfig:
    """Resolved hardware and display metadata used while decoding one buffer."""

    rank: int
    device_id: int | None
    cycle_frequency_mhz: float
    detailed_task_names: bool
    kernel_name: str
    owner_label: str
    stage_names: Mapping[int, str]
    soc_name: str
    task_stage_names: Mapping[int, str] | None = None
    cube_slot_count: int = CUBE_SLOT_COUNT


def _profile_buffer_bytes_for_capacities(
    aic_record_capacity: int, aiv_record_capacity: int, cube_slot_count: int = CUBE_SLOT_COUNT,
) -> int:
    aic_stride = CORE_HEADER.size + aic_record_capacity * PROFILE_RECORD.size
    aiv_stride = CORE_HEADER.size + aiv_record_capacity * PROFILE_RECORD.size
    return cube_slot_count * aic_stride + 2 * cube_slot_count * aiv_stride


def _resolve_stage_names(stage_names: Mapping[int, str] | None) -> dict[int, str]:
    """Merge validated kernel-specific names with the common runtime stages."""
    resolved_stage_names = dict(DEFAULT_STAGE_NAMES)
    if stage_names is None:
        return resolved_stage_names
    for desc_id, stage_name in stage_names.items():
        if isinstance(desc_id, bool) or not isinstance(desc_id, int):
            raise TypeError(f"stage_names keys must be integers, got {desc_id!r}")
        if not isinstance(stage_name, str) or not stage_name.strip():
            raise ValueError(f"stage_names values must be non-empty strings, got {stage_name!r}")
        resolved_stage_names[desc_id] = stage_name
    return resolved_stage_names


def _as_bytes(buffer: Any, cube_slot_count: int = CUBE_SLOT_COUNT) -> bytes:
    """Convert an array-like profile buffer to validated immutable bytes."""
    if hasattr(buffer, "tobytes"):
        raw_buffer = buffer.tobytes()
    else:
        raw_buffer = bytes(buffer)
    minimum_buffer_bytes = 3 * cube_slot_count * CORE_HEADER.size
    if len(raw_buffer) < minimum_buffer_bytes:
        raise ValueError(
            f"MegaKernel profile buffer is too small: expected at least {minimum_buffer_bytes} bytes, "
            f"got {len(raw_buffer)}"
        )
    return raw_buffer


def _validate_record_capacity(record_capacity: int, core_name: str) -> None:
    if record_capacity < 0:
        raise ValueError(f"{core_name} profile record capacity must be nonnegative: {record_capacity}")
    if record_capacity > MAX_RECORDS_PER_CORE:
        raise ValueError(
            f"{core_name} profile record capacity exceeds the {MAX_RECORDS_PER_CORE}-record limit: "
            f"{record_capacity}"
        )
    if record_capacity % RECORD_CAPACITY_ALIGNMENT != 0:
        raise ValueError(
            f"{core_name} profile record capacity must be a multiple of {RECORD_CAPACITY_ALIGNMENT}: "
            f"{record_capacity}"
        )


def _profile_layout_from_buffer(
    raw_buffer: bytes, cube_slot_count: int = CUBE_SLOT_COUNT,
) -> tuple[int, int, int]:
    """Read AIC/AIV capacities from the first initialized header of each slot region."""
    aic_header = CORE_HEADER.unpack_from(raw_buffer, 0)
    aic_record_capacity = aic_header[5]
    _validate_record_capacity(aic_record_capacity, "AIC")
    aic_stride = CORE_HEADER.size + aic_record_capacity * PROFILE_RECORD.size
    aiv_region_offset = cube_slot_count * aic_stride
    if len(raw_buffer) < aiv_region_offset + CORE_HEADER.size:
        raise ValueError(
            f"MegaKernel profile buffer is too small for the AIV header: "
            f"expected at least {aiv_region_offset + CORE_HEADER.size} bytes, got {len(raw_buffer)}"
        )
    aiv_header = CORE_HEADER.unpack_from(raw_buffer, aiv_region_offset)
    aiv_record_capacity = aiv_header[5]
    _validate_record_capacity(aiv_record_capacity, "AIV")
    required_buffer_bytes = _profile_buffer_bytes_for_capacities(
        aic_record_capacity,
        aiv_record_capacity,
        cube_slot_count,
    )
    if len(raw_buffer) < required_buffer_bytes:
        raise ValueError(
            f"MegaKernel profile buffer is too small for its declared capacities: "
            f"expected at least {required_buffer_bytes} bytes, got {len(raw_buffer)}"
        )
    return aic_record_capacity, aiv_record_capacity, required_buffer_bytes


def _profile_slot_layouts(
    aic_record_capacity: int, aiv_record_capacity: int, cube_slot_count: int = CUBE_SLOT_COUNT,
):
    aic_stride = CORE_HEADER.size + aic_record_capacity * PROFILE_RECORD.size
    aiv_stride = CORE_HEADER.size + aiv_record_capacity * PROFILE_RECORD.size
    for block_id in range(cube_slot_count):
        yield 1, block_id, block_id * aic_stride, aic_record_capacity
    aiv_region_offset = cube_slot_count * aic_stride
    for block_id in range(2 * cube_slot_count):
        yield 2, block_id, aiv_region_offset + block_id * aiv_stride, aiv_record_capacity


def _thread_id(core_type: int, block_id: int) -> int:
    return core_type * 1000 + block_id


def _event_name(
    desc_id: int,
    task_id: int,
    stage_task_index: int,
    owner_id: int,
    detailed_task_names: bool,
    owner_label: str,
    stage_names: Mapping[int, str],
    task_stage_names: Mapping[int, str],
) -> str:
    """Build a stage-only or detailed task name while retaining raw IDs in event args."""
    if desc_id in stage_names:
        stage_name = stage_names[desc_id]
    elif desc_id >= TASK_TYPE_DESC_BASE:
        task_type = desc_id - TASK_TYPE_DESC_BASE
        stage_name = f"TaskType_{TASK_TYPE_NAMES.get(task_type, task_type)}"
    else:
        stage_name = f"DescId_{desc_id}"
    task_stage_name = task_stage_names.get(task_id)
    if desc_id in (0x10000, 0x10007) and task_stage_name is not None:
        stage_name = f"{task_stage_name}_{stage_name}"
    if not detailed_task_names:
        return stage_name
    task_name = f"{stage_name}_task{stage_task_index + 1}"
    if owner_id == INVALID_OWNER_ID:
        return task_name
    return f"{owner_label}{owner_id}_{task_name}"


def _resolve_buffer_layout(
    raw_buffer: bytes,
    aic_record_capacity: int | None,
    aiv_record_capacity: int | None,
    cube_slot_count: int = CUBE_SLOT_COUNT,
) -> tuple[int, int, int]:
    """Resolve and validate the two per-core capacities and total buffer size."""
    if aic_record_capacity is None and aiv_record_capacity is None:
        return _profile_layout_from_buffer(raw_buffer, cube_slot_count)
    if aic_record_capacity is None or aiv_record_capacity is None:
        raise ValueError("AIC and AIV profile capacities must be provided together")
    _validate_record_capacity(aic_record_capacity, "AIC")
    _validate_record_capacity(aiv_record_capacity, "AIV")
    required_buffer_bytes = _profile_buffer_bytes_for_capacities(
        aic_record_capacity,
        aiv_record_capacity,
        cube_slot_count,
    )
    if len(raw_buffer) < required_buffer_bytes:
        raise ValueError(
            "MegaKernel profile buffer is smaller than its Host-computed layout: "
            f"expected at least {required_buffer_bytes} bytes, got {len(raw_buffer)}"
        )
    return aic_record_capacity, aiv_record_capacity, required_buffer_bytes


def _validate_profile_slot_header(
    slot: int,
    core_type: int,
    block_id: int,
    expected_core_type: int,
    expected_block_id: int,
    header_capacity: int,
    record_capacity: int,
    record_count: int,
    reserved: int,
) -> None:
    """Validate the identity, layout, and count fields of one Device slot."""
    if core_type != expected_core_type or block_id != expected_block_id:
        raise ValueError(
            f"Profile slot identity mismatch: slot={slot}, expected=({expected_core_type}, {expected_block_id}), "
            f"got=({core_type}, {block_id})"
        )
    if header_capacity != record_capacity:
        raise ValueError(
            f"Profile slot capacity mismatch: slot={slot}, expected={record_capacity}, got={header_capacity}"
        )
    if reserved != 0:
        raise ValueError(f"Profile core header reserved field must be zero: slot={slot}, got={reserved}")
    if record_count > record_capacity:
        raise ValueError(
            f"Profile record count exceeds capacity: slot={slot}, count={record_count}, "
            f"capacity={record_capacity}"
        )


def _decode_slot_records(
    raw_buffer: bytes,
    slot: int,
    slot_offset: int,
    record_count: int,
    core_type: int,
    block_id: int,
    entry_cycle: int,
) -> list[dict[str, int]]:
    """Decode all cycle records stored after one validated core header."""
    records = []
    record_offset = slot_offset + CORE_HEADER.size
    for record_index in range(record_count):
        record = PROFILE_RECORD.unpack_from(raw_buffer, record_offset + record_index * PROFILE_RECORD.size)
        if record[1] < record[0]:
            raise ValueError(
                f"Profile cycle interval is negative: slot={slot}, record={record_index}, "
                f"start={record[0]}, end={record[1]}"
            )
        records.append(
            {
                "start_cycle": record[0],
                "end_cycle": record[1],
                "desc_id": record[2],
                "task_id": record[3],
                "stage_task_index": record[4],
                "owner_id": record[5],
                "core_type": core_type,
                "block_id": block_id,
                "entry_cycle": entry_cycle,
            }
        )
    return records


def _decode_profile_slot(
    raw_buffer: bytes,
    slot: int,
    layout: tuple[int, int, int, int],
) -> tuple[list[dict[str, int]], int | None, int]:
    """Decode one initialized slot and return records, entry cycle, and drops."""
    expected_core_type, expected_block_id, slot_offset, record_capacity = layout
    header = CORE_HEADER.unpack_from(raw_buffer, slot_offset)
    if not any(header):
        return [], None, 0
    entry_cycle, record_count, dropped_count, core_type, block_id, header_capacity, reserved = header
    _validate_profile_slot_header(
        slot,
        core_type,
        block_id,
        expected_core_type,
        expected_block_id,
        header_capacity,
        record_capacity,
        record_count,
        reserved,
    )
    if record_count == 0:
        return [], None, dropped_count
    return (
        _decode_slot_records(
            raw_buffer,
            slot,
            slot_offset,
            record_count,
            core_type,
            block_id,
            entry_cycle,
        ),
        entry_cycle or None,
        dropped_count,
    )


def _decode_cycle_records(
    raw_buffer: bytes,
    aic_record_capacity: int,
    aiv_record_capacity: int,
    cube_slot_count: int = CUBE_SLOT_COUNT,
) -> tuple[list[dict[str, int]], list[int], int]:
    """Decode all initialized AIC/AIV slots and aggregate drop counters."""
    raw_records = []
    active_entry_cycles = []
    dropped_records = 0
    for slot, layout in enumerate(_profile_slot_layouts(aic_record_capacity, aiv_record_capacity, cube_slot_count)):
        records, entry_cycle, dropped_count = _decode_profile_slot(raw_buffer, slot, layout)
        dropped_records += dropped_count
        if entry_cycle is not None:
            active_entry_cycles.append(entry_cycle)
        raw_records.extend(records)
    return raw_records, active_entry_cycles, dropped_records


def _thread_metadata_events(
    rank: int,
    device_id: int,
    kernel_name: str,
    raw_records: list[dict[str, int]],
) -> list[dict[str, Any]]:
    """Build process and thread metadata for all cores that emitted records."""
    trace_events = [
        {
            "name": "process_name",
            "ph": "M",
            "pid": rank,
            "tid": 0,
            "args": {"name": f"{kernel_name} rank {rank} device {device_id}"},
        }
    ]
    used_threads = sorted({(record["core_type"], record["block_id"]) for record in raw_records})
    for sort_index, (core_type, block_id) in enumerate(used_threads):
        thread_id = _thread_id(core_type, block_id)
        trace_events.extend(
            [
                {
                    "name": "thread_name",
                    "ph": "M",
                    "pid": rank,
                    "tid": thread_id,
                    "args": {"name": f"{CORE_TYPE_NAMES[core_type]}/{block_id}"},
                },
                {
                    "name": "thread_sort_index",
                    "ph": "M",
                    "pid": rank,
                    "tid": thread_id,
                    "args": {"sort_index": sort_index},
                },
            ]
        )
    return trace_events


def _duration_trace_event(
    record: Mapping[str, int],
    *,
    rank: int,
    device_id: int,
    anchor_cycle: int,
    cycle_frequency_mhz: float,
    detailed_task_names: bool,
    owner_label: str,
    stage_names: Mapping[int, str],
    task_stage_names: Mapping[int, str],
) -> dict[str, Any]:
    """Convert one raw cycle record into a Chrome Trace duration event."""
    desc_id = record["desc_id"]
    task_id = record["task_id"]
    args = {
        "rank": rank,
        "device_id": device_id,
        "core_type": CORE_TYPE_NAMES[record["core_type"]],
        "block_id": record["block_id"],
        "task_id": task_id,
        "desc_id": desc_id,
        "stage_task_index": record["stage_task_index"],
        "task_number": record["stage_task_index"] + 1,
        "start_cycle": record["start_cycle"],
        "end_cycle": record["end_cycle"],
        "core_entry_cycle": record["entry_cycle"],
    }
    if task_id in task_stage_names:
        args["task_stage"] = task_stage_names[task_id]
    if desc_id >= TASK_TYPE_DESC_BASE:
        args["task_type"] = desc_id - TASK_TYPE_DESC_BASE
    if record["owner_id"] != INVALID_OWNER_ID:
        args["owner_id"] = record["owner_id"]
    return {
        "name": _event_name(
            desc_id,
            task_id,
            record["stage_task_index"],
            record["owner_id"],
            detailed_task_names,
            owner_label,
            stage_names,
            task_stage_names,
        ),
        "cat": "MegaKernelInternal",
        "ph": "X",
        "pid": rank,
        "tid": _thread_id(record["core_type"], record["block_id"]),
        "ts": (record["start_cycle"] - anchor_cycle) / cycle_frequency_mhz,
        "dur": (record["end_cycle"] - record["start_cycle"]) / cycle_frequency_mhz,
        "args": args,
    }


def _parse_cycle_buffer(
    buffer: Any,
    config: _CycleTraceConfig,
    *,
    aic_record_capacity: int | None = None,
    aiv_record_capacity: int | None = None,
) -> dict[str, Any]:
    """Decode a device cycle buffer with already resolved hardware and display metadata."""
    if config.cycle_frequency_mhz <= 0:
        raise ValueError(f"cycle_frequency_mhz must be positive, got {config.cycle_frequency_mhz}")
    resolved_stage_names = _resolve_stage_names(config.stage_names)
    resolved_task_stage_names = dict(config.task_stage_names or {})
    if config.cube_slot_count < CUBE_SLOT_COUNT:
        raise ValueError(f"profile Cube slot count must be at least {CUBE_SLOT_COUNT}, got {config.cube_slot_count}")
    raw_buffer = _as_bytes(buffer, config.cube_slot_count)
    aic_record_capacity, aiv_record_capacity, required_buffer_bytes = _resolve_buffer_layout(
        raw_buffer,
        aic_record_capacity,
        aiv_record_capacity,
        config.cube_slot_count,
    )
    raw_records, active_entry_cycles, dropped_records = _decode_cycle_records(
        raw_buffer,
        aic_record_capacity,
        aiv_record_capacity,
        config.cube_slot_count,
    )
    if not raw_records:
        raise ValueError(
            "MegaKernel cycle profile buffer contains no records; verify that the current profiler schedule is active "
            "and that the profiled operator completed"
        )
    anchor_cycle = (
        min(active_entry_cycles) if active_entry_cycles else min(record["start_cycle"] for record in raw_records)
    )
    resolved_device_id = config.rank if config.device_id is None else config.device_id
    trace_events = _thread_metadata_events(config.rank, resolved_device_id, config.kernel_name, raw_records)
    for record in sorted(
        raw_records,
        key=lambda item: (item["start_cycle"], item["core_type"], item["block_id"]),
    ):
        trace_events.append(_duration_trace_event(
            record,
            rank=config.rank,
            device_id=resolved_device_id,
            anchor_cycle=anchor_cycle,
            cycle_frequency_mhz=config.cycle_frequency_mhz,
            detailed_task_names=config.detailed_task_names,
            owner_label=config.owner_label,
            stage_names=resolved_stage_names,
            task_stage_names=resolved_task_stage_names,
        ))
    return {
        "traceEvents": trace_events,
        "megaKernelCycleTrace": {
            "schemaVersion": 1,
            "rank": config.rank,
            "deviceId": resolved_device_id,
            "socName": config.soc_name,
            "cycleFrequencyMHz": config.cycle_frequency_mhz,
            "anchorCycle": anchor_cycle,
            "recordCapacityPerCore": {
                "AIC": aic_record_capacity,
                "AIV": aiv_record_capacity,
            },
            "maxRecordCapacityPerCore": MAX_RECORDS_PER_CORE,
            "recordCount": len(raw_records),
            "droppedRecordCount": dropped_records,
            "profileBufferBytes": required_buffer_bytes,
            "detailedTaskNames": config.detailed_task_names,
            "kernelName": config.kernel_name,
            "ownerLabel": config.owner_label,
            "warnings": ([] if dropped_records == 0 else [f"Device dropped {dropped_records} cycle trace records"]),
        },
    }
