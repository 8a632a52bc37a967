"""One side of scripts/bench-hyper-parallel.sh: parse a capture and write its trace, or merge.

usage: python3 scripts/bench-hyper-parallel.py ref|dropin|export CAPTURE AIC AIV OUT
       python3 scripts/bench-hyper-parallel.py window-ref|window-install CAPTURE AIC AIV OUT
       python3 scripts/bench-hyper-parallel.py merge FRAMEWORK MEGAKERNEL OUT
       python3 scripts/bench-hyper-parallel.py merge-upstream FRAMEWORK MEGAKERNEL OUT

ref runs _parse_cycle_buffer of decode/testdata/reference/cycle_trace.py (the
transcription of upstream's decoder) and dropin cycleabi.hyper_parallel's
parse_cycle_buffer, each followed by json.dumps of the trace to OUT, as
upstream's export_chrome_trace writes it; export writes the same file with
cycleabi.hyper_parallel.export_chrome_trace (`cycleabi decode
--upstream-compat`, no dicts). window-ref and window-install run a stand-in
of upstream's profiler (profiler/profiler.py @2640a41d: the window's end
parses each invocation's buffer and builds the window's trace, then
export_chrome_trace(path) writes json.dumps of it) on one invocation:
window-ref as upstream runs it (the reference decoder, build_window,
json.dumps), window-install after cycleabi.hyper_parallel.install(). merge
runs cycleabi.hyper_parallel.merge_chrome_traces (cycleabi on PATH).
"""

import json
import os
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(here, "..", d) for d in ("decode/testdata/reference", "python", "gen/py")]

# The stand-in of upstream's profiler package: its runtime's parse calls
# the profiling module's _parse_cycle_buffer (upstream's decoder, here the
# reference transcription) and its profiler builds windows in _build_trace.
STANDIN = {
    "__init__.py": "",
    "profiling.py": (
        "from cycle_trace import _parse_cycle_buffer, CUBE_SLOT_COUNT, MAX_RECORDS_PER_CORE\n"
        "from cycle_trace import DEFAULT_STAGE_NAMES, TASK_TYPE_NAMES\n"
        "class _PreparedMegaKernelRuntime:\n"
        "    def __init__(self, kernel_name, config, aic, aiv):\n"
        "        self.kernel_name, self.config, self.aic, self.aiv = kernel_name, config, aic, aiv\n"
        "    def parse(self, buffer, *, detailed_task_names):\n"
        "        return _parse_cycle_buffer(buffer, self.config, aic_record_capacity=self.aic,\n"
        "                                   aiv_record_capacity=self.aiv)\n"),
    "profiler.py": (
        "import json\n"
        "from pathlib import Path\n"
        "from cycleabi.hyper_parallel import build_window\n"
        "class TorchMegaKernelProfiler:\n"
        "    def __init__(self):\n"
        "        self._detailed_task_names, self._window_index, self._last_trace = False, 0, None\n"
        "    def export_chrome_trace(self, path):\n"
        "        Path(path).write_text(json.dumps(self._last_trace, ensure_ascii=False), encoding='utf-8')\n"
        "        return self._last_trace\n"
        "    def _build_trace(self, invocations):\n"
        "        parsed = [i.runtime.parse(i.data, detailed_task_names=False) for i in invocations]\n"
        "        return build_window(parsed, [{'invocationId': i.invocation_id, 'step': i.step,\n"
        "            'direction': i.direction, 'kernelName': i.runtime.kernel_name} for i in invocations], 0, False)\n"),
}


class _Invocation:
    def __init__(self, runtime, data):
        self.runtime, self.data, self.direction, self.step, self.invocation_id = runtime, data, "forward", 0, 0


def window(install, data, config, aic, aiv, out):
    with tempfile.TemporaryDirectory() as tmp:
        pkg = os.path.join(tmp, "hyper_parallel", "core", "multicore", "profiler")
        os.makedirs(pkg)
        for d in ("hyper_parallel", "hyper_parallel/core", "hyper_parallel/core/multicore"):
            open(os.path.join(tmp, d, "__init__.py"), "w").close()
        for name, text in STANDIN.items():
            with open(os.path.join(pkg, name), "w") as f:
                f.write(text)
        sys.path.insert(0, tmp)
        from hyper_parallel.core.multicore.profiler import profiler, profiling
        if install:
            import cycleabi.hyper_parallel as hp
            hp.install()
        prof = profiler.TorchMegaKernelProfiler()
        runtime = profiling._PreparedMegaKernelRuntime("MegaKernel", config, aic, aiv)
        prof._last_trace = prof._build_trace([_Invocation(runtime, data)])  # the window's end
        prof.export_chrome_trace(out)


def main():
    what = sys.argv[1]
    if what == "merge":
        import cycleabi.hyper_parallel as hp
        hp.merge_chrome_traces(sys.argv[2], sys.argv[3], sys.argv[4])
        return
    if what == "merge-upstream":
        # hyper-parallel's own merger, where it is importable (PYTHONPATH
        # naming a checkout of it): this repository does not hold it.
        from hyper_parallel.core.multicore.profiler import merge_chrome_traces
        merge_chrome_traces(sys.argv[2], sys.argv[3], sys.argv[4])
        return
    import cycle_trace as ref
    path, aic, aiv, out = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    data = open(path, "rb").read()
    config = ref._CycleTraceConfig(rank=0, device_id=0, cycle_frequency_mhz=50.0, detailed_task_names=False,
                                   kernel_name="MegaKernel", owner_label="Owner", stage_names={},
                                   soc_name="ascend910b")
    if what.startswith("window-"):
        window(what == "window-install", data, config, aic, aiv, out)
        return
    if what == "export":
        import cycleabi.hyper_parallel as hp
        hp.export_chrome_trace(out, data, config, tables=hp._upstream_tables(ref),
                               aic_record_capacity=aic, aiv_record_capacity=aiv)
        return
    if what == "ref":
        trace = ref._parse_cycle_buffer(data, config, aic_record_capacity=aic, aiv_record_capacity=aiv)
    else:
        import cycleabi.hyper_parallel as hp
        trace = hp.parse_cycle_buffer(data, config, tables=hp._upstream_tables(ref),
                                      aic_record_capacity=aic, aiv_record_capacity=aiv)
    with open(out, "w", encoding="utf-8") as f:
        f.write(json.dumps(trace, ensure_ascii=False))


if __name__ == "__main__":
    main()
