"""Time the reference Python decoder on a capture, for the side-by-side figures of docs/performance.md.

usage: /usr/bin/time -v python3 scripts/ref-decode.py CAPTURE AIC_CAPACITY AIV_CAPACITY

Runs _parse_cycle_buffer from decode/testdata/reference/cycle_trace.py (the
reference's decoding functions) at 50 MHz and writes its trace to
/dev/null, the way `cycleabi decode CAPTURE --aic-capacity A --aiv-capacity V
-o /dev/null` does.
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "decode", "testdata", "reference"))
import cycle_trace as ref  # noqa: E402


def main():
    path, aic, aiv = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    with open(path, "rb") as f:
        data = f.read()
    config = ref._CycleTraceConfig(rank=0, device_id=0, cycle_frequency_mhz=50.0, detailed_task_names=False,
                                   kernel_name="MegaKernel", owner_label="Owner", stage_names={},
                                   soc_name="ascend910b")
    trace = ref._parse_cycle_buffer(data, config, aic_record_capacity=aic, aiv_record_capacity=aiv)
    with open(os.devnull, "w") as out:
        json.dump(trace, out)


if __name__ == "__main__":
    main()
