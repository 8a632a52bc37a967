#!/bin/sh
# The side-by-side figures of docs/python.md: upstream's buffer parsing
# (the transcription of its decoder, decode/testdata/reference) against
# cycleabi.hyper_parallel.parse_cycle_buffer on one 500,000-record capture
# (32 MB), each writing its trace as upstream's export_chrome_trace does;
# then merge_chrome_traces of that trace into a framework trace. CPU, wall
# and peak memory from /usr/bin/time -v.
#
# usage: scripts/bench-hyper-parallel.sh [RUNS]   (from the repository root)
set -eu
runs=${1:-1}
py=${PYTHON:-/usr/bin/python3}
tmp=${TMPDIR:-/tmp}/bench-hyper-parallel
mkdir -p "$tmp/bin"
go build -o "$tmp/bin/cycleabi" ./cmd/cycleabi
PATH="$tmp/bin:$PATH"; export PATH
go run ./decode/internal/benchgen/benchcapture -records 500000 -o "$tmp/b32.bin" >/dev/null
printf '[{"name":"MegaKernel_op","cat":"kernel","ph":"X","pid":1,"tid":2,"ts":1000.5,"dur":1e7,"args":{}}]' >"$tmp/fw.json"
measure() {
	label=$1; shift
	i=0
	while [ "$i" -lt "$runs" ]; do
		/usr/bin/time -v "$@" 2>"$tmp/time.txt" >/dev/null
		awk -v l="$label" -F': ' '/User time/{u=$2} /System time/{s=$2} /Elapsed \(wall/{w=$2} /Maximum resident/{m=$2}
			END{printf "%-34s wall %s  cpu %.2f s  peak %.0f MiB\n", l, w, u+s, m/1024}' "$tmp/time.txt"
		i=$((i + 1))
	done
}
measure "upstream parse + export" "$py" scripts/bench-hyper-parallel.py ref "$tmp/b32.bin" 13904 13904 "$tmp/ref.json"
measure "drop-in parse + export" "$py" scripts/bench-hyper-parallel.py dropin "$tmp/b32.bin" 13904 13904 "$tmp/dropin.json"
cmp -s "$tmp/ref.json" "$tmp/dropin.json" && echo "traces: the same bytes" || { echo "traces differ"; exit 1; }
measure "drop-in merge_chrome_traces" "$py" scripts/bench-hyper-parallel.py merge "$tmp/fw.json" "$tmp/dropin.json" "$tmp/merged.json"
measure "cycleabi merge --upstream-compat" cycleabi merge "$tmp/fw.json" "$tmp/dropin.json" --upstream-compat -o "$tmp/merged2.json"
