#!/usr/bin/env python3
"""Run examples/cuda's toy MegaKernel under torch.profiler, so that its
capture can be merged into a real Kineto trace (cycleabi merge).

usage: harness.py LIBTOY_MOE TABLE CAPTURE KINETO_JSON

LIBTOY_MOE is toy_moe.cu built as a shared library (nvcc -shared
-Xcompiler -fPIC -DTOY_MOE_LIBRARY); TABLE the task table (go run
./examples/cuda/tasktable). The harness warms the kernel up, then profiles
one step: a torch matmul, the MegaKernel (recording into CAPTURE), another
matmul; and writes the profiler's Chrome trace to KINETO_JSON. The kernel
shows in it as void MegaKernel_toy_moe<true>(ToyParams).

Exit status: 0 done; 1 the kernel or the profiler failed; 3 no PyTorch, or
no CUDA device for it (scripts/gpu-check.sh reports the merge as skipped).
"""
import ctypes
import sys


def main():
    if len(sys.argv) != 5:
        sys.stderr.write(__doc__)
        return 2
    lib_path, table, capture, kineto = sys.argv[1:]
    try:
        import torch
        from torch.profiler import ProfilerActivity, profile, record_function
    except ImportError as e:
        print("skipped: PyTorch is not installed (%s)" % e)
        return 3
    if not torch.cuda.is_available():
        print("skipped: PyTorch %s sees no CUDA device" % torch.__version__)
        return 3
    lib = ctypes.CDLL(lib_path)
    lib.toy_moe_capture.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int]
    lib.toy_moe_capture.restype = ctypes.c_int
    x = torch.randn(1024, 1024, device="cuda")
    y = x @ x
    # Warm-up outside the profiler: the CUDA context, the module load.
    if lib.toy_moe_capture(table.encode(), capture.encode(), 1) != 0:
        return 1
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        with record_function("toy_moe_step"):
            y = x @ y
            rc = lib.toy_moe_capture(table.encode(), capture.encode(), 0)
            y = y @ x
            torch.cuda.synchronize()
    if rc != 0:
        return 1
    prof.export_chrome_trace(kineto)
    print("ok torch %s, %s, trace %s" % (torch.__version__, torch.cuda.get_device_name(0), kineto))
    return 0


if __name__ == "__main__":
    sys.exit(main())
