#!/usr/bin/env bash
# Peak RSS of `cycleabi decode` on the out-of-order worst case: a sparse
# capture (24 GiB apparent, 512 MiB on disk) whose only live slot, AIV/0,
# holds 16,777,216 records in random start order, decoded to /dev/null.
# decode sorts the slot in bounded runs spilled to TMPDIR (another 600 MiB
# of disk while it runs), so its memory must stay under 64 MiB.
#
#   ./scripts/rss-sparse.sh [RECORDS]    (default 16777216)
#
# Needs GNU time at /usr/bin/time. The capture goes to a temporary
# directory under TMPDIR, removed on exit.
set -euo pipefail
records="${1:-16777216}"
cd "$(dirname "$0")/.."
if [ ! -x /usr/bin/time ]; then
	echo "rss-sparse: /usr/bin/time (GNU time) not found" >&2
	exit 2
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/cycleabi" ./cmd/cycleabi # as make build
flags=$(go run ./decode/internal/benchgen/benchcapture -sparse -records "$records" -o "$tmp/sparse.bin")
echo "capture: $records records in AIV/0, $(du -k --apparent-size "$tmp/sparse.bin" | cut -f1) KiB apparent, $(du -k "$tmp/sparse.bin" | cut -f1) KiB on disk"
# $flags is several words on purpose.
# shellcheck disable=SC2086
/usr/bin/time -v -o "$tmp/time" "$tmp/cycleabi" decode "$tmp/sparse.bin" $flags -o /dev/null
grep -E 'Elapsed|Maximum resident' "$tmp/time"
rss=$(awk '/Maximum resident/ {print $NF}' "$tmp/time")
if [ "$rss" -ge $((64 * 1024)) ]; then
	echo "rss-sparse: peak RSS $((rss / 1024)) MiB is not under 64 MiB" >&2
	exit 1
fi
echo "peak RSS $((rss / 1024)) MiB < 64 MiB"
