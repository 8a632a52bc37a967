#!/usr/bin/env python3
"""Time gen/py's read_capture and Capture.records() on one capture.

usage: python3 scripts/py-read.py CAPTURE [CUBE_SLOTS AIC_CAPACITY AIV_CAPACITY]

Prints the time find_layout takes alone (on a memory map of the file,
in the page cache), then the record count, the seconds each step took and the peak
RSS of the process (NumPy itself is about 30 MiB of it). The figures of docs/performance.md come
from a capture written by
  go run ./decode/internal/benchgen/benchcapture -records 500000 -o /tmp/b32.bin
"""
import os
import resource
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gen", "py"))
import cycleabi_abi as abi  # noqa: E402

layout = [int(a) for a in sys.argv[2:5]]
buf = abi.np.memmap(sys.argv[1], dtype=abi.np.uint8, mode="r")
found = []
for _ in range(7):
    t = time.perf_counter()
    abi.find_layout(buf, 0, *layout[:1], capacities=layout[1:] or None)
    found.append(time.perf_counter() - t)
print("find_layout %.2f ms (median of 7)" % (sorted(found)[3] * 1e3))
del buf
t0 = time.perf_counter()
capture = abi.read_capture(sys.argv[1], *layout)
t1 = time.perf_counter()
records = capture.records()
t2 = time.perf_counter()
print("%d records: read_capture %.3f s, records() %.3f s, peak RSS %.1f MiB"
      % (len(records), t1 - t0, t2 - t1, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0))
