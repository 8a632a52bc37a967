#!/bin/sh
# The side-by-side figures of docs/python.md and docs/performance.md, on
# one 500,000-record capture (32 MB): upstream's buffer parsing (the
# transcription of its decoder, decode/testdata/reference) against
# cycleabi.hyper_parallel.parse_cycle_buffer, each writing its trace as
# upstream's export_chrome_trace does, and against
# cycleabi.hyper_parallel.export_chrome_trace (decode --upstream-compat);
# a stand-in of upstream's profiler ending a window and exporting it, as
# upstream runs it and after cycleabi.hyper_parallel.install(); then
# merge_chrome_traces of that trace into a framework trace (upstream's own
# merger is not in this repository: the drop-in against the program).
# Each line: the median of RUNS runs (default 3) of CPU (user + system),
# wall and peak RSS, from /usr/bin/time -v. The files of each pair are
# compared byte for byte.
#
# usage: scripts/bench-hyper-parallel.sh [RUNS]   (from the repository root)
set -eu
runs=${1:-3}
py=${PYTHON:-/usr/bin/python3}
tmp=${TMPDIR:-/tmp}/bench-hyper-parallel
mkdir -p "$tmp/bin"
go build -o "$tmp/bin/cycleabi" ./cmd/cycleabi
PATH="$tmp/bin:$PATH"; export PATH
go run ./decode/internal/benchgen/benchcapture -records 500000 -o "$tmp/b32.bin" >/dev/null
printf '[{"name":"MegaKernel_op","cat":"kernel","ph":"X","pid":1,"tid":2,"ts":1000.5,"dur":1e7,"args":{}}]' >"$tmp/fw.json"
printf '%-40s %9s %9s %10s\n' "median of $runs runs" "CPU s" "wall s" "peak MiB"
measure() {
	label=$1; shift
	: >"$tmp/runs.txt"
	i=0
	while [ "$i" -lt "$runs" ]; do
		/usr/bin/time -v "$@" 2>"$tmp/time.txt" >/dev/null
		awk -F': ' '/User time/{u=$2} /System time/{s=$2} /Elapsed \(wall/{w=$2} /Maximum resident/{m=$2}
			END{n=split(w, p, ":"); t=0; for (k=1; k<=n; k++) t=t*60+p[k]; printf "%.2f %.2f %.0f\n", u+s, t, m/1024}' \
			"$tmp/time.txt" >>"$tmp/runs.txt"
		i=$((i + 1))
	done
	med() { cut -d' ' -f"$1" "$tmp/runs.txt" | sort -n | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}'; }
	printf '%-40s %9s %9s %10s\n' "$label" "$(med 1)" "$(med 2)" "$(med 3)"
}
same() { cmp -s "$1" "$2" || { echo "$1 and $2 differ"; exit 1; }; }
measure "upstream parse + json.dumps" "$py" scripts/bench-hyper-parallel.py ref "$tmp/b32.bin" 13904 13904 "$tmp/ref.json"
measure "drop-in parse_cycle_buffer + json.dumps" "$py" scripts/bench-hyper-parallel.py dropin "$tmp/b32.bin" 13904 13904 "$tmp/dropin.json"
measure "drop-in export_chrome_trace" "$py" scripts/bench-hyper-parallel.py export "$tmp/b32.bin" 13904 13904 "$tmp/export.json"
measure "cycleabi decode (its own trace)" cycleabi decode "$tmp/b32.bin" -o "$tmp/decode.json"
same "$tmp/ref.json" "$tmp/dropin.json"; same "$tmp/ref.json" "$tmp/export.json"
measure "upstream profiler: window + export" "$py" scripts/bench-hyper-parallel.py window-ref "$tmp/b32.bin" 13904 13904 "$tmp/wref.json"
measure "install()'d profiler: window + export" "$py" scripts/bench-hyper-parallel.py window-install "$tmp/b32.bin" 13904 13904 "$tmp/wfast.json"
same "$tmp/wref.json" "$tmp/wfast.json"
echo "traces: each pair the same bytes"
measure "drop-in merge_chrome_traces" "$py" scripts/bench-hyper-parallel.py merge "$tmp/fw.json" "$tmp/dropin.json" "$tmp/merged.json"
measure "cycleabi merge --upstream-compat" cycleabi merge "$tmp/fw.json" "$tmp/dropin.json" --upstream-compat -o "$tmp/merged2.json"
# Upstream's own merger runs only where hyper-parallel is importable
# (PYTHONPATH=/path/to/hyper-parallel): this repository does not hold it.
if "$py" -c "import hyper_parallel.core.multicore.profiler" 2>/dev/null; then
	measure "upstream merge_chrome_traces" "$py" scripts/bench-hyper-parallel.py merge-upstream "$tmp/fw.json" "$tmp/dropin.json" "$tmp/merged-upstream.json"
	"$py" -c 'import json, sys; a, b = (json.load(open(p)) for p in sys.argv[1:]); sys.exit(a != b)' "$tmp/merged-upstream.json" "$tmp/merged.json" ||
		{ echo "upstream's merged trace and the drop-in's differ"; exit 1; }
	echo "merged: upstream's and the drop-in's equal as JSON"
else
	echo "upstream merge_chrome_traces: hyper-parallel is not importable by $py (set PYTHONPATH to a checkout of it to measure it)"
fi
