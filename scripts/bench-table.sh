#!/usr/bin/env bash
# The table of docs/performance.md, measured side by side in one run:
# each row's two commands (cycleabi against cp, cat, the Python reference
# decoder, the tree before the speed work, or itself on one core) run
# alternately RUNS times on the same generated captures; it prints the
# medians of wall time, CPU time and peak RSS, and their ratio.
#
#   ./scripts/bench-table.sh [RUNS] [ROWS]
#
# ROWS is a comma-separated subset of decode,ref,big,gz,perfetto,validate,ranks
# (default all). The reference row needs Python with NumPy: /usr/bin/python3,
# or $CYCLEABI_PYTHON. The gz row compares against cycleabi built from
# $BENCH_BASE (default 04be627, the tree before issue 14's work). The big row
# writes a 2 GB capture and its ~10 GB trace (twice, for cp) to $TMPDIR;
# BENCH_BIG_RECORDS sets its size (0 skips it).
set -euo pipefail
runs="${1:-5}"
rows="${2:-decode,ref,big,gz,perfetto,validate,ranks}"
cd "$(dirname "$0")/.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/cycleabi" ./cmd/cycleabi # as make build
base=()
if [[ ",$rows," == *,gz,* ]]; then
	rev="${BENCH_BASE:-04be627}"
	mkdir "$tmp/base"
	git archive "$rev" | tar -x -C "$tmp/base"
	(cd "$tmp/base" && CGO_ENABLED=0 go build -o "$tmp/cycleabi-base" ./cmd/cycleabi)
	base=(-base "$tmp/cycleabi-base")
fi
mkdir "$tmp/work"
go run ./decode/internal/benchgen/benchtable -cycleabi "$tmp/cycleabi" "${base[@]}" \
	-python "${CYCLEABI_PYTHON:-/usr/bin/python3}" -runs "$runs" -rows "$rows" \
	-big-records "${BENCH_BIG_RECORDS:-31250000}" -dir "$tmp/work"
