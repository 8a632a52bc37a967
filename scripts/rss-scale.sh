#!/usr/bin/env bash
# Time and peak RSS of the commands whose memory issue 28 bounded, each at
# two sizes ten times apart (time should grow ten times, memory not):
#
#   dump      dump --records -1 of a capture whose every slot draws
#             warnings (benchcapture -unsorted 72 -warnings), to /dev/null
#   plan      analyze --plan of a dependency chain: task k waits on task
#             k-1, alternating AIC and AIV over 48 workers (3 records a
#             task), written by cycleabi synth
#   diff      diff of the analyze --plan --format json reports of two
#             such chains (synth seeds 1 and 2): each report's critical
#             path has five segments a task
#   validate  validate of a manifest of N captures (links to
#   vjson     examples/aiv_pipeline.npy, one rank each), as text and
#   decode    with --format json, and decode of it to /dev/null
#   report    report of a manifest of N ranks, each a link to one capture
#             of 500k records (benchcapture -unsorted 72: every core out of
#             order, all 72 cores with records), to /dev/null
#
# Prints the median of RUNS runs (default 3) per row: wall seconds, CPU
# seconds (user and system: the figure to compare for linearity on a busy
# machine) and peak RSS (GNU time's maximum resident set size).
#
#   ./scripts/rss-scale.sh [RUNS] [ROWS]     ROWS: dump,plan,diff,validate,vjson,decode,report (default all)
#
# Sizes: DUMP_RECORDS (default "300000 3000000"), CHAIN_TASKS ("40000
# 400000"), CAPTURES ("1000 10000"), RANKS ("64 256"; the capture's
# records: RANK_RECORDS, 500000). Everything is written to a temporary
# directory under TMPDIR (the 3M-record dump capture is 200 MB), removed
# on exit.
set -euo pipefail
runs="${1:-3}"
rows="${2:-dump,plan,diff,validate,vjson,decode,report}"
cd "$(dirname "$0")/.."
if [ ! -x /usr/bin/time ]; then
	echo "rss-scale: /usr/bin/time (GNU time) not found" >&2
	exit 2
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/cycleabi" ./cmd/cycleabi # as make build
go build -o "$tmp/benchcapture" ./decode/internal/benchgen/benchcapture

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

# measure NAME SIZE CMD...: runs CMD (output to /dev/null) and prints a row.
measure() {
	local name="$1" size="$2"
	shift 2
	: >"$tmp/times"
	for _ in $(seq "$runs"); do
		/usr/bin/time -a -o "$tmp/times" -f '%e %M %U %S' "$@" >/dev/null 2>"$tmp/stderr" ||
			{ cat "$tmp/stderr" >&2; exit 1; }
	done
	secs=$(cut -d' ' -f1 <"$tmp/times" | median)
	rss=$(cut -d' ' -f2 <"$tmp/times" | median)
	cpu=$(awk '{print $3 + $4}' <"$tmp/times" | median)
	awk -v n="$name" -v z="$size" -v s="$secs" -v c="$cpu" -v k="$rss" \
		'BEGIN { printf "%-9s %12s %9.2f %9.2f %14.1f\n", n, z, s, c, k / 1024 }'
}

printf '%-9s %12s %9s %9s %14s\n' row size "wall s" "cpu s" "peak RSS MiB"
if [[ ",$rows," == *,dump,* ]]; then
	for n in ${DUMP_RECORDS:-300000 3000000}; do
		"$tmp/benchcapture" -records "$n" -unsorted 72 -warnings -o "$tmp/dump.bin" >/dev/null
		cat "$tmp/dump.bin" >/dev/null # into the page cache
		measure dump "${n}rec" "$tmp/cycleabi" dump "$tmp/dump.bin" --records -1
		rm "$tmp/dump.bin"
	done
fi
if [[ ",$rows," == *,plan,* || ",$rows," == *,diff,* ]]; then
	for n in ${CHAIN_TASKS:-40000 400000}; do
		awk -v n="$n" 'BEGIN {
			printf "{\"num_workers\": 48, \"tasks\": ["
			for (k = 0; k < n; k++) {
				printf "%s{\"task_type\": \"%s\", \"trigger_event\": %d", (k ? ", " : ""), (k % 2 ? "AddCustom" : "MatMul"), k
				if (k > 0) printf ", \"dependent_event\": %d", k - 1
				printf "}"
			}
			printf "], \"cube_task_indices\": ["
			for (k = 0; k < n; k += 2) printf "%s%d", (k ? ", " : ""), k
			printf "], \"vector_task_indices\": ["
			for (k = 1; k < n; k += 2) printf "%s%d", (k > 1 ? ", " : ""), k
			printf "]}\n"
		}' >"$tmp/chain.json"
		"$tmp/cycleabi" synth "$tmp/chain.json" -o "$tmp/chain.bin" >/dev/null 2>&1
		if [[ ",$rows," == *,plan,* ]]; then
			measure plan "${n}tasks" "$tmp/cycleabi" analyze "$tmp/chain.bin" --plan "$tmp/chain.json"
		fi
		if [[ ",$rows," == *,diff,* ]]; then
			"$tmp/cycleabi" synth "$tmp/chain.json" --seed 2 -o "$tmp/chain2.bin" >/dev/null 2>&1
			"$tmp/cycleabi" analyze "$tmp/chain.bin" --plan "$tmp/chain.json" --format json -o "$tmp/a.json"
			"$tmp/cycleabi" analyze "$tmp/chain2.bin" --plan "$tmp/chain.json" --format json -o "$tmp/b.json"
			measure diff "${n}tasks" "$tmp/cycleabi" diff "$tmp/a.json" "$tmp/b.json"
			rm "$tmp/chain2.bin" "$tmp/a.json" "$tmp/b.json"
		fi
	done
fi
if [[ ",$rows," == *,validate,* || ",$rows," == *,vjson,* || ",$rows," == *,decode,* ]]; then
	for n in ${CAPTURES:-1000 10000}; do
		mkdir -p "$tmp/many"
		: >"$tmp/many/window.yaml"
		for i in $(seq 0 $((n - 1))); do
			ln -sf "$PWD/examples/aiv_pipeline.npy" "$tmp/many/c$i.npy"
			echo "- {capture: c$i.npy, rank: $i}" >>"$tmp/many/window.yaml"
		done
		if [[ ",$rows," == *,validate,* ]]; then
			measure validate "${n}caps" "$tmp/cycleabi" validate --invocation-manifest "$tmp/many/window.yaml"
		fi
		if [[ ",$rows," == *,vjson,* ]]; then
			measure vjson "${n}caps" "$tmp/cycleabi" validate --invocation-manifest "$tmp/many/window.yaml" --format json
		fi
		if [[ ",$rows," == *,decode,* ]]; then
			measure decode "${n}caps" "$tmp/cycleabi" decode --invocation-manifest "$tmp/many/window.yaml" -o /dev/null
		fi
		rm -rf "$tmp/many"
	done
fi
if [[ ",$rows," == *,report,* ]]; then
	"$tmp/benchcapture" -records "${RANK_RECORDS:-500000}" -unsorted 72 -o "$tmp/rank.bin" >/dev/null
	for n in ${RANKS:-64 256}; do
		mkdir -p "$tmp/ranks"
		: >"$tmp/ranks/window.yaml"
		for i in $(seq 0 $((n - 1))); do
			ln -sf "$tmp/rank.bin" "$tmp/ranks/c$i.bin"
			echo "- {capture: c$i.bin, rank: $i}" >>"$tmp/ranks/window.yaml"
		done
		measure report "${n}ranks" "$tmp/cycleabi" report --invocation-manifest "$tmp/ranks/window.yaml" -o /dev/null
		rm -rf "$tmp/ranks"
	done
fi
