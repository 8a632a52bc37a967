"""One side of scripts/bench-hyper-parallel.sh: parse a capture and write its trace, or merge.

usage: python3 scripts/bench-hyper-parallel.py ref|dropin CAPTURE AIC AIV OUT
       python3 scripts/bench-hyper-parallel.py merge FRAMEWORK MEGAKERNEL OUT

ref runs _parse_cycle_buffer of decode/testdata/reference/cycle_trace.py (the
transcription of upstream's decoder) and dropin cycleabi.hyper_parallel's
parse_cycle_buffer, each followed by json.dumps of the trace to OUT, as
upstream's export_chrome_trace writes it. merge runs
cycleabi.hyper_parallel.merge_chrome_traces (cycleabi on PATH).
"""

import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(here, "..", d) for d in ("decode/testdata/reference", "python", "gen/py")]


def main():
    what = sys.argv[1]
    if what == "merge":
        import cycleabi.hyper_parallel as hp
        hp.merge_chrome_traces(sys.argv[2], sys.argv[3], sys.argv[4])
        return
    import cycle_trace as ref
    path, aic, aiv, out = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    data = open(path, "rb").read()
    config = ref._CycleTraceConfig(rank=0, device_id=0, cycle_frequency_mhz=50.0, detailed_task_names=False,
                                   kernel_name="MegaKernel", owner_label="Owner", stage_names={},
                                   soc_name="ascend910b")
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
