#!/usr/bin/env bash
# Run every Fuzz target of the module in turn, each for the given time.
# go test -fuzz takes one target per run, so we list them first.
# FUZZMINIMIZETIME bounds the minimisation of each new input (go's default
# of 60s would eat a short budget whole).
set -euo pipefail
fuzztime="${1:-30s}"
cd "$(dirname "$0")/.."
count=0
for pkg in $(go list ./...); do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		echo "== $pkg $target ($fuzztime)"
		go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime "${FUZZMINIMIZETIME:-3s}" "$pkg"
		count=$((count + 1))
	done
done
echo "fuzz: $count targets ran for $fuzztime each"
