"""cycleabi.hyper_parallel's fast path against its Python path, byte for byte.

usage: python3 hyper_parallel_fast_check.py REPO LOG   (cycleabi on PATH,
logging each call's arguments to LOG)

Export: hp.export_chrome_trace (`cycleabi decode --upstream-compat`) writes
the bytes json.dumps(hp.parse_cycle_buffer(...), ensure_ascii=False) writes,
on the example capture and variants of it: configs, drops and records
before the anchor, capacities from the Host, the hyper_multicore layout
(cube_slot_count), int and float MHz, cycles past 2**63, names that need
escaping, another upstream version's tables; errors as the Python path's.
Window: install() on a stand-in of upstream's profiler (a
TorchMegaKernelProfiler that builds windows with _build_trace and writes
them with export_chrome_trace): the window is exported through the program
(LOG shows the call) without building the dict, in the bytes of
json.dumps(hp.build_window(...)), and the dict it returns, built when
first read, equals that. Prints one "ok NAME" a case.
"""

import json
import os
import struct
import sys
import tempfile

REPO, LOG = sys.argv[1], sys.argv[2]
sys.path[:0] = [os.path.join(REPO, "python"), os.path.join(REPO, "gen", "py")]
import numpy as np  # noqa: E402
import cycleabi.hyper_parallel as hp  # noqa: E402
from upstream_site import MERGER, upstream_site  # noqa: E402  (beside this script)

CAPTURE = open(os.path.join(REPO, "examples", "moe_layer.bin"), "rb").read()
AIC = int.from_bytes(CAPTURE[24:28], "little")
AIV_AT = 24 * (64 + 32 * AIC)
AIV = int.from_bytes(CAPTURE[AIV_AT + 24:AIV_AT + 28], "little")
STANDIN_TABLES = {"MAX_RECORDS_PER_CORE": 256, "TASK_TYPE_NAMES": {103: "MatMul"},
                  "DEFAULT_STAGE_NAMES": {0x10000: "WaitDependency", 0x10006: "TerminateTask",
                                          0x10007: "TriggerEvent"}}


def calls():
    if not os.path.exists(LOG):
        return []
    return [line for line in open(LOG).read().splitlines() if line]


def config(**kw):
    base = dict(rank=3, device_id=None, cycle_frequency_mhz=50.0, detailed_task_names=False, kernel_name="MegaMoe",
                owner_label="Expert", stage_names={0x30001: "GMM1"}, soc_name="Ascend910B2",
                task_stage_names={5: "Disp", 7: "Comb"})
    base.update(kw)
    return base


def drops():
    b = bytearray(CAPTURE)
    b[AIV_AT + 12:AIV_AT + 16] = (5).to_bytes(4, "little")  # AIV/0 dropped 5
    entry = int.from_bytes(b[AIV_AT:AIV_AT + 8], "little") + 10**6  # records before the anchor
    b[AIV_AT:AIV_AT + 8] = entry.to_bytes(8, "little")
    return bytes(b)


def multicore(cube):
    """The example's slots in the hyper_multicore layout: cube AIC slots,
    2·cube AIV slots, the extra ones never entered."""
    a, v = 64 + 32 * AIC, 64 + 32 * AIV
    out = bytearray(cube * a + 2 * cube * v)
    out[:24 * a] = CAPTURE[:24 * a]
    out[cube * a:cube * a + 48 * v] = CAPTURE[24 * a:24 * a + 48 * v]
    return bytes(out)


def far():
    """Cycles past 2**63 with an anchor near 0: differences no double holds
    ((2**63 + 12544) / 3 is not float(2**63 + 12544) / 3)."""
    b = bytearray(24 * 64 + 48 * (64 + 32 * 16))
    struct.pack_into("<QIIIIII", b, 0, 7, 0, 0, 1, 0, 0, 0)
    off = 24 * 64
    struct.pack_into("<QIIIIII", b, off, 5, 2, 1, 2, 0, 16, 0)
    struct.pack_into("<QQIIII", b, off + 64, (1 << 63) + 12549, (1 << 63) + 99999, 0x20000 + 103, 4, 0, 0xFFFFFFFF)
    struct.pack_into("<QQIIII", b, off + 96, (1 << 64) - 11, (1 << 64) - 1, 0x10000, 5, 1, 9)
    return bytes(b)


EXPORTS = [
    ("plain", CAPTURE, config(), {}),
    ("detailed", CAPTURE, config(detailed_task_names=True), {}),
    ("device, no names", CAPTURE, config(rank=0, device_id=6, stage_names={}, task_stage_names=None), {}),
    ("int mhz", CAPTURE, config(cycle_frequency_mhz=1000), {}),
    ("int mhz 7", CAPTURE, config(cycle_frequency_mhz=7, detailed_task_names=True), {}),
    ("float mhz 1.3", CAPTURE, config(cycle_frequency_mhz=1.3), {}),
    ("no soc", CAPTURE, config(soc_name=None), {}),
    ("escaped names", CAPTURE, config(kernel_name='Mega"Moé\n\\', owner_label="Ex\tpert\u2028", detailed_task_names=True,
                                      stage_names={0x20000 + 103: "Mat\x01Mul"}, task_stage_names={5: "Dïsp"}), {}),
    ("drops, records before the anchor", drops(), config(), {}),
    ("host capacities", CAPTURE + bytes(4096), config(aic_record_capacity=AIC, aiv_record_capacity=AIV), {}),
    ("hyper_multicore layout", multicore(32), config(cube_slot_count=32), {}),
    ("cycles past 2**63, int mhz", far(), config(cycle_frequency_mhz=3, detailed_task_names=True), {}),
    ("cycles past 2**63, float mhz", far(), config(cycle_frequency_mhz=3.0), {}),
    ("another version's tables", CAPTURE, config(), {"tables": STANDIN_TABLES}),
]

with tempfile.TemporaryDirectory() as tmp:
    for name, buf, cfg, extra in EXPORTS:
        want = json.dumps(hp.parse_cycle_buffer(buf, **cfg, **extra), ensure_ascii=False).encode("utf-8")
        path = os.path.join(tmp, "sub", "export.json")
        before = len(calls())
        for form in (buf, np.frombuffer(buf, dtype=np.uint8)):
            hp.export_chrome_trace(path, form, **cfg, **extra)
            got = open(path, "rb").read()
            if got != want:
                at = next((i for i, (x, y) in enumerate(zip(got, want)) if x != y), min(len(got), len(want)))
                raise AssertionError(f"export {name}: differs at byte {at}:\n python {want[at - 150:at + 100]!r}\n"
                                     f" program {got[at - 150:at + 100]!r}")
        assert len(calls()) == before + 2, f"export {name}: the program was not run"
        print("ok export", name)

    def error(fn):
        try:
            fn()
        except (ValueError, TypeError) as e:
            return type(e).__name__ + ": " + str(e)
        return "no error"
    bad = bytearray(CAPTURE)
    bad[AIV_AT + 28:AIV_AT + 32] = (1).to_bytes(4, "little")
    for name, buf, cfg in [("reserved", bytes(bad), config()), ("empty", bytes(len(CAPTURE)), config()),
                           ("mhz", CAPTURE, config(cycle_frequency_mhz=0.0)),
                           ("short", CAPTURE[:1000], config())]:
        want = error(lambda: hp.parse_cycle_buffer(buf, **cfg))
        got = error(lambda: hp.export_chrome_trace(os.path.join(tmp, "bad.json"), buf, **cfg))
        assert want == got and want != "no error", (name, want, got)
        print("ok export refuses", name)

    # install(): a stand-in of upstream's profiler package (profiler.py
    # @2640a41d's structure: a profiler that keeps each invocation's bytes,
    # builds the window's trace in _build_trace when the window ends, and
    # writes it in export_chrome_trace). Upstream's own parse raises if it
    # runs; its window build is build_window over the parses.
    root = upstream_site(tmp, {
        "profiler/__init__.py":
        "from hyper_parallel.core.multicore.profiler.profiler import mega_kernel_profile, merge_chrome_traces\n",
        "profiler/trace_merger.py": MERGER,
        "profiler/profiling.py":
        "MAX_RECORDS_PER_CORE = 256\n"
        "TASK_TYPE_NAMES = {103: 'MatMul'}\n"
        "DEFAULT_STAGE_NAMES = {0x10000: 'WaitDependency', 0x10006: 'TerminateTask', 0x10007: 'TriggerEvent'}\n"
        "def _parse_cycle_buffer(*a, **k):\n    raise RuntimeError('upstream parse ran')\n"
        "class _PreparedMegaKernelRuntime:\n"
        "    def __init__(self, kernel_name, rank, device_id, **config):\n"
        "        self.kernel_name, self.rank, self.device_id, self.config = kernel_name, rank, device_id, config\n"
        "    def parse(self, buffer, *, detailed_task_names):\n"
        "        return _parse_cycle_buffer(buffer=buffer, rank=self.rank, device_id=self.device_id,\n"
        "            detailed_task_names=detailed_task_names, kernel_name=self.kernel_name, **self.config)\n",
        "profiler/profiler.py":
        "import json\n"
        "from pathlib import Path\n"
        "from cycleabi.hyper_parallel import build_window\n"
        "from hyper_parallel.core.multicore.profiler.profiling import _PreparedMegaKernelRuntime\n"
        "from hyper_parallel.core.multicore.profiler.trace_merger import merge_chrome_traces\n"
        "class _RawInvocation:\n"
        "    def __init__(self, runtime, data, direction, step, invocation_id):\n"
        "        self.runtime, self.data, self.direction, self.step = runtime, data, direction, step\n"
        "        self.invocation_id = invocation_id\n"
        "class TorchMegaKernelProfiler:\n"
        "    def __init__(self, detailed_task_names=False):\n"
        "        self._detailed_task_names, self._raw_invocations = detailed_task_names, []\n"
        "        self._last_trace, self._window_index = None, 0\n"
        "    def export_chrome_trace(self, path):\n"
        "        if self._last_trace is None:\n"
        "            raise RuntimeError('no completed MegaKernel capture window is available')\n"
        "        out = Path(path)\n"
        "        out.parent.mkdir(parents=True, exist_ok=True)\n"
        "        out.write_text(json.dumps(self._last_trace, ensure_ascii=False), encoding='utf-8')\n"
        "        return self._last_trace\n"
        "    def _finalize_window(self):\n"
        "        self._last_trace = self._build_trace(self._raw_invocations)\n"
        "        self._raw_invocations = []\n"
        "        self._window_index += 1\n"
        "    def _build_trace(self, invocations):\n"
        "        parsed = [i.runtime.parse(i.data, detailed_task_names=self._detailed_task_names) for i in invocations]\n"
        "        return build_window(parsed, [{'invocationId': i.invocation_id, 'step': i.step, 'direction': i.direction,\n"
        "            'kernelName': i.runtime.kernel_name} for i in invocations], self._window_index,\n"
        "            self._detailed_task_names)\n"
        "def mega_kernel_profile(*, detailed_task_names=False):\n"
        "    return TorchMegaKernelProfiler(detailed_task_names)\n",
    })
    sys.path.insert(0, root)
    rebound = hp.install()
    for want in ("hyper_parallel.core.multicore.profiler.profiler.TorchMegaKernelProfiler._build_trace",
                 "hyper_parallel.core.multicore.profiler.profiler.TorchMegaKernelProfiler.export_chrome_trace"):
        assert want in rebound, rebound
    from hyper_parallel.core.multicore.profiler import profiler as PP, profiling as PG
    assert hp.install() == rebound, "a second install() patched the profiler twice"

    def runtime(kernel, rank, device_id, **cfg):
        base = dict(cycle_frequency_mhz=50.0, owner_label="Expert", stage_names={0x30001: "GMM1"},
                    soc_name="Ascend910B2", task_stage_names={5: "Disp"})
        base.update(cfg)
        return PG._PreparedMegaKernelRuntime(kernel, rank, device_id, **base)

    windows = [
        ("three invocations, two ranks, drops", False, [
            (runtime("MegaMoe", 0, None), CAPTURE, "forward", 3, 0),
            (runtime("MegaMoeGrad", 0, None, cycle_frequency_mhz=1000), drops(), "backward", 3, 1),
            (runtime("MegaMoe", 1, 6, task_stage_names=None), CAPTURE, "forward", 4, 2)]),
        ("detailed, host capacities, hyper_multicore layout", True, [
            (runtime("MegaMoe", 2, 2, aic_record_capacity=AIC, aiv_record_capacity=AIV), CAPTURE + bytes(64),
             "forward", 0, 7),
            (runtime("MegaMoe", 2, 2, cube_slot_count=32, cycle_frequency_mhz=7), multicore(32), "forward", 0, 8)]),
        ("one invocation", False, [(runtime("HyperMegaMoe", 5, None), CAPTURE, "forward", 9, 0)]),
    ]
    for name, detailed, invs in windows:
        prof = PP.mega_kernel_profile(detailed_task_names=detailed)
        prof._window_index = 2
        prof._raw_invocations = [PP._RawInvocation(*i) for i in invs]
        parsed = [hp.parse_cycle_buffer(data, tables=STANDIN_TABLES, rank=rt.rank, device_id=rt.device_id,
                                        detailed_task_names=detailed, kernel_name=rt.kernel_name, **rt.config)
                  for rt, data, *_ in invs]
        want_trace = hp.build_window(parsed, [{"invocationId": i, "step": s, "direction": d, "kernelName": rt.kernel_name}
                                              for rt, _, d, s, i in invs], 2, detailed)
        want = json.dumps(want_trace, ensure_ascii=False).encode("utf-8")
        before = len(calls())
        prof._finalize_window()
        trace = prof._last_trace
        assert isinstance(trace, dict) and type(trace).__name__ == "_LazyTrace" and trace.pending, type(trace)
        assert len(calls()) == before, "the window was built at the window's end"
        path = os.path.join(tmp, "w", "window.json")
        got_trace = prof.export_chrome_trace(path)
        assert got_trace is trace and trace.pending, "export built the dict"
        assert len(calls()) == before + 1 and "decode --upstream-compat" in calls()[-1], calls()[-1:]
        got = open(path, "rb").read()
        if got != want:
            at = next((i for i, (x, y) in enumerate(zip(got, want)) if x != y), min(len(got), len(want)))
            raise AssertionError(f"window {name}: differs at byte {at}:\n python {want[at - 150:at + 100]!r}\n"
                                 f" program {got[at - 150:at + 100]!r}")
        assert trace["megaKernelCycleTrace"]["windowIndex"] == 2 and not trace.pending
        assert trace == want_trace and json.loads(json.dumps(trace)) == want_trace
        assert len(calls()) == before + 2, "the dict was not built by the program"
        prof.export_chrome_trace(path)  # the built dict: upstream's own export
        assert open(path, "rb").read() == want, "the built dict does not write the file the program wrote"
        print("ok window", name)

    prof = PP.mega_kernel_profile()
    prof._finalize_window()
    prof.export_chrome_trace(os.path.join(tmp, "empty.json"))
    assert json.load(open(os.path.join(tmp, "empty.json"))) == hp.build_window([], [], 0, False)
    print("ok window empty")

    prof = PP.mega_kernel_profile()
    prof._raw_invocations = [PP._RawInvocation(runtime("MegaMoe", 0, None), bytes(bad), "forward", 0, 0)]
    want = error(lambda: hp.parse_cycle_buffer(bytes(bad), **config(rank=0, task_stage_names={5: "Disp"})))
    got = error(prof._finalize_window)
    assert got == want and want != "no error", (got, want)
    print("ok window refuses at the window's end, as upstream")

    # A trace nobody reads is never built; one that is read, as any dict.
    prof = PP.mega_kernel_profile()
    prof._raw_invocations = [PP._RawInvocation(runtime("MegaMoe", 0, None), CAPTURE, "forward", 0, 0)]
    prof._finalize_window()
    import copy
    import pickle
    t = prof._last_trace
    assert len(t) == 2 and "traceEvents" in t and t.pending
    for how, f in [("copy", copy.copy), ("deepcopy", copy.deepcopy), ("pickle", lambda x: pickle.loads(pickle.dumps(x))),
                   ("dict", dict), ("items", lambda x: dict(x.items()))]:
        got = f(t)
        assert type(got) is dict and got["megaKernelCycleTrace"]["recordCount"] > 0, how
    print("ok window lazy dict", " ".join(rebound))
