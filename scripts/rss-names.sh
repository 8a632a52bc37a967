#!/usr/bin/env bash
# Time and peak RSS of `cycleabi decode --names` with names files of 1M
# and 10M tasks (block YAML and JSON, 18 to 226 MB), on the small example
# capture: what the names file costs. The table of tasks is 4 bytes a task
# for dense task ids (8 for sparse ones), held in pages that grow without
# copying; the file is read as a stream. Prints the median of RUNS runs
# (default 3): wall seconds, ns per task, peak RSS.
#
#   ./scripts/rss-names.sh [RUNS]
set -euo pipefail
runs="${1:-3}"
cd "$(dirname "$0")/.."
if [ ! -x /usr/bin/time ]; then
	echo "rss-names: /usr/bin/time (GNU time) not found" >&2
	exit 2
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/cycleabi" ./cmd/cycleabi # as make build

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

printf '%-14s %12s %8s %10s %14s\n' "names file" bytes "wall s" "ns/task" "peak RSS MiB"
for n in 1000000 10000000; do
	awk -v n="$n" 'BEGIN { print "tasks:"; for (i = 0; i < n; i++) printf "  %d: Stage_%d\n", i, i % 40 }' >"$tmp/names.yaml"
	awk -v n="$n" 'BEGIN { printf "{\"tasks\": {"; for (i = 0; i < n; i++) printf "%s\"%d\": \"Stage_%d\"", (i ? ", " : ""), i, i % 40; print "}}" }' >"$tmp/names.json"
	for kind in yaml json; do
		f="$tmp/names.$kind"
		size=$(stat -c %s "$f")
		cat "$f" >/dev/null # into the page cache
		: >"$tmp/times"
		for _ in $(seq "$runs"); do
			/usr/bin/time -a -o "$tmp/times" -f '%e %M' "$tmp/cycleabi" decode examples/moe_layer.bin --names "$f" -o /dev/null 2>/dev/null
		done
		secs=$(cut -d' ' -f1 <"$tmp/times" | median)
		rss=$(cut -d' ' -f2 <"$tmp/times" | median)
		awk -v name="$((n / 1000000))M $kind" -v b="$size" -v s="$secs" -v n="$n" -v k="$rss" \
			'BEGIN { printf "%-14s %12d %8.2f %10.0f %14.1f\n", name, b, s, s * 1e9 / n, k / 1024 }'
	done
done
