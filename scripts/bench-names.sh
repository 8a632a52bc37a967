#!/usr/bin/env bash
# The names file's two readers side by side (BenchmarkNamesParse): the
# fast path (a stream of "id: name" lines) against the YAML parser that
# reads every other file, on block-YAML names files of 10k and 1M tasks.
# Prints the median ns/op, MB/s and B/op of each over RUNS runs (default
# 5) and the ratio of the medians.
#
#   ./scripts/bench-names.sh [RUNS]
set -euo pipefail
runs="${1:-5}"
cd "$(dirname "$0")/.."
go test -run '^$' -bench 'NamesParse' -benchmem -benchtime 3x -count "$runs" ./decode/kernelnames/ |
	awk '/^BenchmarkNamesParse/ {
		name = $1; sub(/-[0-9]+$/, "", name); sub(/^BenchmarkNamesParse\//, "", name)
		n[name]++; ns[name, n[name]] = $3; mbs[name, n[name]] = $5; bop[name, n[name]] = $7
	}
	function median(a, name, k,    i, j, t, v) {
		for (i = 1; i <= k; i++) v[i] = a[name, i]
		for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
		return v[int((k + 1) / 2)]
	}
	END {
		for (name in n) med[name] = median(ns, name, n[name])
		split("10k 1000k", sizes, " ")
		for (s = 1; s <= 2; s++) {
			f = "fast/" sizes[s]; y = "yaml/" sizes[s]
			printf "%-10s fast %12d ns/op %8.1f MB/s %12d B/op | yaml %12d ns/op %8.1f MB/s %12d B/op | yaml/fast %.1fx\n",
				sizes[s], med[f], median(mbs, f, n[f]), median(bop, f, n[f]),
				med[y], median(mbs, y, n[y]), median(bop, y, n[y]), med[y] / med[f]
		}
	}'
