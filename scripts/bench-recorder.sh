#!/usr/bin/env bash
# Nanoseconds per record on the host: the generated cycleabi::Recorder's
# Record against the free AppendRecord (docs/cpp-header.md), built with
# $CXX (default g++) at -O2 and run RUNS times (default 5); prints each run,
# the medians and their ratio.
#
#   ./scripts/bench-recorder.sh [RUNS]
set -euo pipefail
runs="${1:-5}"
cd "$(dirname "$0")/.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"${CXX:-g++}" -std=c++11 -O2 -Wall -Wextra -Werror -I gen/cpp -o "$tmp/recorder_bench" scripts/recorderbench/recorder_bench.cpp
"$tmp/recorder_bench" "$runs"
