#!/usr/bin/env python3
"""The checks scripts/gpu-check.sh runs on what the cycleabi commands wrote.

usage:
  checks.py validate VALIDATE_JSON PLAN_JSON TABLE
      0 errors, no plan-mismatch warning, the capture's size and layout the
      plan's, and as many records as the task table has operations
  checks.py arrows TRACE_JSON          the trace's dependency arrows (flow starts)
  checks.py parquet EXPORT_DIR ANALYZE_JSON
      pyarrow reads the export's records; cycles per kind equal analyze's
      (exit 3 when pyarrow is not installed)
  checks.py merged MERGED_JSON TRACE_JSON KERNEL
      the merged Kineto trace holds every record and every arrow of the
      MegaKernel trace, under an outer kernel whose name holds KERNEL

Each prints one line, "ok DETAIL" or "FAIL DETAIL", and exits 0 or 1.
"""
import gzip
import json
import os
import sys


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def events(doc):
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def done(ok, detail):
    print(("ok " if ok else "FAIL ") + detail)
    sys.exit(0 if ok else 1)


def table_ops(path):
    with open(path) as f:
        return sum(1 for line in f if line.startswith("op "))


def check_validate(validate_json, plan_json, table):
    v, p = load(validate_json), load(plan_json)
    c = v["captures"][0]
    layout = c.get("layout") or {}
    caps = layout.get("capacities") or {}
    want = table_ops(table)
    problems = []
    if c["errors"] != 0:
        problems.append("%d errors" % c["errors"])
    if "plan-mismatch" in c.get("codes", {}):
        problems.append("plan-mismatch warnings")
    if c["buffer_size"] != p["buffer_size"]:
        problems.append("buffer %d bytes, plan %d" % (c["buffer_size"], p["buffer_size"]))
    if (layout.get("cube_slots"), caps.get("AIC"), caps.get("AIV")) != (
        p["cube_slot_count"], p["aic_record_capacity"], p["aiv_record_capacity"]):
        problems.append("layout %s, plan %s" % (layout, p))
    if c["records"] != want or c["dropped"] != 0:
        problems.append("%d records (%d dropped), the table has %d" % (c["records"], c["dropped"], want))
    done(not problems, "; ".join(problems) or "%d records, 0 errors, %d warnings, plan matched, %d bytes = plan" % (
        c["records"], c["warnings"], c["buffer_size"]))


def check_arrows(trace):
    n = sum(1 for e in events(load(trace)) if e.get("ph") == "s")
    done(n > 0, "%d arrows" % n)


def check_parquet(export_dir, analyze_json):
    try:
        import pyarrow.parquet as pq
    except ImportError:
        print("skipped: pyarrow is not installed")
        sys.exit(3)
    t = pq.read_table(os.path.join(export_dir, "records")).to_pydict()
    got = {}
    for kind, s, e in zip(t["kind"], t["start_cycle"], t["end_cycle"]):
        got[kind] = got.get(kind, 0) + (e - s)
    want = {}
    for core in load(analyze_json)["ranks"][0]["cores"]:
        for kind in ("compute", "wait", "trigger", "other"):
            want[kind] = want.get(kind, 0) + core.get(kind + "_cycles", 0)
    got = {k: got.get(k, 0) for k in want}
    done(got == want, "%d rows; cycles per kind %s%s" % (
        len(t["kind"]), got, "" if got == want else ", analyze says %s" % want))


def check_merged(merged, trace, kernel):
    m, t = events(load(merged)), events(load(trace))
    want_x = sum(1 for e in t if e.get("ph") == "X")
    want_s = sum(1 for e in t if e.get("ph") == "s")
    under = [e for e in m if e.get("ph") == "X" and kernel in str((e.get("args") or {}).get("parent_kernel", ""))]
    arrows = sum(1 for e in m if e.get("ph") == "s")
    outer = sorted({str(e["args"]["parent_kernel"]) for e in under})
    done(len(under) == want_x and arrows >= want_s, "%d of %d records and %d of %d arrows under %s" % (
        len(under), want_x, arrows, want_s, ", ".join(outer) or "no kernel"))


def main():
    cmds = {"validate": (check_validate, 3), "arrows": (check_arrows, 1),
            "parquet": (check_parquet, 2), "merged": (check_merged, 3)}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds or len(sys.argv) - 2 != cmds[sys.argv[1]][1]:
        sys.stderr.write(__doc__)
        sys.exit(2)
    cmds[sys.argv[1]][0](*sys.argv[2:])


if __name__ == "__main__":
    main()
