# cycleabi — see README.md. Every target runs from a fresh clone.
GO        ?= go
FUZZTIME  ?= 30s
# CI's fuzz budget per target; keeps the whole CI under 15 minutes.
CI_FUZZTIME ?= 10s

.PHONY: all build wheel wheels release test-arm64 demo examples docs check-docs generate check-generated check-abi abi-drill test checks test-race test-long drill-browser drill-wheel drill-gpu-script drill-recipes drill-sizes drill-scale vet fmt-check go-test cpp-test bench gpu-check gpu-check-bin fuzz ci clean

all: test

## build: build/cycleabi (every command, export included) and build/abigen, linked statically (CGO_ENABLED=0): the binaries the benchmarks measure
build:
	CGO_ENABLED=0 $(GO) build -o build/ ./cmd/cycleabi ./cmd/abigen

## wheel: dist/cycleabi-VERSION-py3-none-manylinux_..._ARCH.whl for this machine's architecture: the static cycleabi and the Python package (import cycleabi), for pip install (docs/python.md)
wheel:
	$(GO) run ./scripts/wheel -o dist -arch $$($(GO) env GOARCH)

## wheels: the wheels of both platforms, x86_64 and aarch64
wheels:
	$(GO) run ./scripts/wheel -o dist -arch amd64,arm64

## release: check the tree is a release (clean, CHANGELOG.md's newest entry is internal/buildinfo/VERSION with the schema's ABI, gen/ current, no tag elsewhere), then build its wheels into dist (docs/development.md#releasing)
release:
	$(GO) run ./scripts/release -o dist

## demo: plan the shipped MoE schedule, simulate its capture into build/demo, validate it, decode it to trace.json (with dependency arrows), analyze it, write its report.html, and merge the trace into the example Kineto trace
# The capture is simulated with --capacity-scale 0.8 on purpose: the busiest
# cores run out of room, so validate and decode warn about dropped records.
# The committed examples/moe_layer.bin is never rewritten (make examples does that).
DEMO_DIR ?= build/demo
demo:
	$(GO) run ./cmd/cycleabi plan examples/moe_layer.yaml
	@mkdir -p $(DEMO_DIR)
	$(GO) run ./cmd/cycleabi synth examples/moe_layer.yaml --capacity-scale 0.8 --seed 1 -o $(DEMO_DIR)/moe_layer.bin
	@echo "demo: the capture drops records on purpose (--capacity-scale 0.8): the warnings below are expected"
	$(GO) run ./cmd/cycleabi validate $(DEMO_DIR)/moe_layer.bin
	$(GO) run ./cmd/cycleabi decode $(DEMO_DIR)/moe_layer.bin --plan examples/moe_layer.yaml --names examples/moe_layer.names.yaml -o trace.json
	$(GO) run ./cmd/cycleabi analyze $(DEMO_DIR)/moe_layer.bin --plan examples/moe_layer.yaml --names examples/moe_layer.names.yaml --top 5
	$(GO) run ./cmd/cycleabi report $(DEMO_DIR)/moe_layer.bin --plan examples/moe_layer.yaml --names examples/moe_layer.names.yaml -o report.html
	@echo "report.html written: open it in any browser (one self-contained page, no network)"
	@echo "trace.json written: open it in https://ui.perfetto.dev (Open trace file)"
	$(GO) run ./cmd/cycleabi merge examples/moe_layer.kineto.json trace.json -o trace.merged.json
	@echo "trace.merged.json written: the MegaKernel's cores under its kernel in the example torch-profiler step"

## examples: regenerate the example schedules, names file and capture (then review the diff)
examples:
	$(GO) test ./examples -update

## generate: regenerate gen/go, gen/cpp, gen/doc and gen/py from abi/schema.yaml
generate:
	$(GO) run ./cmd/abigen

## docs: regenerate docs/cli, a page per command, from the commands' own help (then review the diff)
docs:
	$(GO) test ./cmd/internal/cli -run '^TestCLIDocs$$' -count=1 -update

## check-docs: fail with a diff when docs/cli is not what the commands' help says
check-docs:
	$(GO) test ./cmd/internal/cli -run '^TestCLIDocs$$' -count=1
	git diff --exit-code -- docs/cli/

## check-generated: fail with a diff when gen/ is not what abi/schema.yaml generates
check-generated:
	$(GO) run ./cmd/abigen -check
	git diff --exit-code -- gen/

# ABI_BASE is the commit whose schema check-abi compares with: HEAD checks
# uncommitted edits; CI passes the commit before the change (HEAD~1).
ABI_BASE ?= HEAD

## check-abi: classify abi/schema.yaml's changes since ABI_BASE; fail on a breaking change without a version raise
check-abi:
	@git rev-parse -q --verify '$(ABI_BASE)^{commit}' >/dev/null || { echo "check-abi: $(ABI_BASE) is not a commit"; exit 2; }
	@if git cat-file -e '$(ABI_BASE):abi/schema.yaml' 2>/dev/null; then \
		$(GO) run ./cmd/abigen diff 'git:$(ABI_BASE):abi/schema.yaml' abi/schema.yaml; \
	else echo "check-abi: $(ABI_BASE) has no abi/schema.yaml; nothing to compare"; fi

## abi-drill: apply ABI changes to a temporary copy of the repo and check everything follows (docs/changing-the-abi.md)
abi-drill:
	$(GO) run ./scripts/abidrill

## test: the everyday loop, a few minutes on 2 cores (docs/testing.md): vet, gofmt, generated-file and docs/cli drift, the ABI diff, and go test -short ./... (the drills and the checks at scale are left to make ci)
test: checks go-test

## checks: vet, gofmt, generated-file and docs/cli drift and the ABI diff, no test run
checks: vet fmt-check check-generated check-docs check-abi

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# Each go test run goes through scripts/testskips, which prints what go
# test would (a test a timeout stops included, with its panic), keeps each
# test that skipped with its reason, and ends the target with one line
# naming them, whether the run passed or not. The tests -short leaves to
# make ci (internal/testkit/short) are counted on that line, not named.
# A timeout is a package's whole run: each is set well above the slowest
# package's time here (docs/testing.md), so a slow machine is no failure.
TESTSKIPS := build/testskips
$(TESTSKIPS): $(wildcard scripts/testskips/*.go)
	@mkdir -p build && $(GO) build -o $@ ./scripts/testskips
# gotest LABEL, RECORD, ARGS: go test -json ARGS through testskips into
# RECORD, then the summary line, then go test's exit status.
gotest = rc=0; GO='$(GO)' $(TESTSKIPS) run -record $(2) -- $(3) || rc=$$?; $(TESTSKIPS) summary -label '$(1)' $(2); exit $$rc

go-test: $(TESTSKIPS)
	@: > build/skips-test.jsonl
	@$(call gotest,make test,build/skips-test.jsonl,-short -timeout 8m ./...)

## test-race: every test of make test under the race detector (make ci)
test-race: $(TESTSKIPS)
	@: > build/skips-race.jsonl
	@$(call gotest,make test-race,build/skips-race.jsonl,-race -short -timeout 20m ./...)

## test-long: every test without -short and without the race detector: the drills (browser, wheel and pip, GPU script, doc recipes, protoc, sizes) and the checks at scale (make ci)
test-long: $(TESTSKIPS)
	@: > build/skips-long.jsonl
	@$(call gotest,make test-long,build/skips-long.jsonl,-count=1 -timeout 20m ./...)

# The drills, each alone: what make test-long runs among the rest.
## drill-browser: the report's pages rendered by headless Chromium (the cards, the 1,024-rank page)
drill-browser: $(TESTSKIPS)
	@: > build/skips-drill.jsonl
	@$(call gotest,make drill-browser,build/skips-drill.jsonl,-count=1 -timeout 10m -run 'InChromium' ./cmd/internal/cli/)
## drill-wheel: both wheels built, checked and pip-installed into a fresh venv
drill-wheel: $(TESTSKIPS)
	@: > build/skips-drill.jsonl
	@$(call gotest,make drill-wheel,build/skips-drill.jsonl,-count=1 -timeout 15m ./scripts/wheel/)
## drill-gpu-script: make gpu-check's script driven with a stand-in nvcc
drill-gpu-script: $(TESTSKIPS)
	@: > build/skips-drill.jsonl
	@$(call gotest,make drill-gpu-script,build/skips-drill.jsonl,-count=1 -timeout 10m -run '^TestGPUCheckScript$$' ./scripts/)
## drill-recipes: every runnable shell block of docs/*.md, run as written
drill-recipes: $(TESTSKIPS)
	@: > build/skips-drill.jsonl
	@$(call gotest,make drill-recipes,build/skips-drill.jsonl,-count=1 -timeout 10m ./tests/recipes/)
## drill-sizes: the programs' sizes and what they link
drill-sizes: $(TESTSKIPS)
	@: > build/skips-drill.jsonl
	@$(call gotest,make drill-sizes,build/skips-drill.jsonl,-count=1 -timeout 10m ./tests/imports/)
## drill-scale: the memory bounds, size goals and mutants at scale (60k-task chains, 65,536 stages, the 32 MB capture, 256-rank exports, every schema mutant)
drill-scale: $(TESTSKIPS)
	@: > build/skips-drill.jsonl
	@$(call gotest,make drill-scale,build/skips-drill.jsonl,-count=1 -timeout 15m -run 'Memory|SizeGoal|ManyRanks|OneBuffer|Mutations' ./analyze/ ./dump/ ./decode/perfetto/ ./tests/duckdb/ ./internal/yamlpos/ ./internal/abigen/schema/)

## test-arm64: the core packages' tests built for linux/arm64 and run under qemu-user (qemu-aarch64), -short
# The packages a capture goes through, from the generated ABI to the export.
ARM64_PKGS ?= ./gen/go/abi/... ./capture/... ./validate/... ./decode/... ./analyze/... ./export/...
QEMU_AARCH64 ?= $(shell command -v qemu-aarch64 || command -v qemu-aarch64-static)
test-arm64:
	@if [ -z "$(QEMU_AARCH64)" ]; then echo "test-arm64: no qemu-aarch64 on PATH (apt-get install qemu-user)"; exit 2; fi
	GOOS=linux GOARCH=arm64 CGO_ENABLED=0 $(GO) test -short -count=1 -exec $(QEMU_AARCH64) $(ARM64_PKGS)

## cpp-test: the C++ header with every compiler on PATH, and the C++/Go agreement checks
# CYCLEABI_REQUIRE_CXX turns "no C++ compiler on PATH" from a skip into a failure.
cpp-test:
	CYCLEABI_REQUIRE_CXX=1 $(GO) test -count=1 ./internal/abigen/cppgen/... ./tests/...

## bench: throughput and memory of the layout search, decode, validate, plan, synth, merge, the JSON reader, export and analyze of a JSON trace (docs/json-traces.md), the start cost (docs/performance.md), the scale rows of docs/memory.md, and ns per record of the C++ Recorder against AppendRecord (docs/cpp-header.md)
bench:
	./scripts/bench-table.sh 5
	./scripts/start-cost.sh 200
	$(GO) test -run '^$$' -bench . -benchmem -cpu 1 -count 5 ./capture/ ./decode/... ./internal/jsontext/ ./validate/ ./plan/ ./synth/
	./scripts/rss-decode.sh 5
	./scripts/rss-validate.sh 5
	$(GO) test -run '^$$' -bench Merge -benchmem -count 3 ./tracemerge/
	$(GO) test -run '^$$' -bench . -benchmem -count 5 ./internal/jsonread/
	./scripts/rss-merge.sh 3
	./scripts/rss-merge.sh 3 0 1000000
	./scripts/rss-sparse.sh
	./scripts/rss-export.sh 5
	./scripts/bench-recorder.sh 9
	./scripts/rss-scale.sh 3
	./scripts/rss-names.sh 3
	./scripts/bench-names.sh 5
	./scripts/rss-trace.sh 3
	./scripts/rss-hostile.sh

## gpu-check: on a machine with an NVIDIA GPU and nvcc, the recorder on real silicon: examples/cuda in every publish mode, the whole chain, ns per Record, the slowdown and the live reader (docs/cuda.md); says so and checks nothing without nvcc
gpu-check:
	./scripts/gpu-check.sh

## gpu-check-bin: build/gpu/, the static programs gpu-check runs (cycleabi, tasktable), for a GPU machine without Go (GPU_CHECK_BIN=build/gpu make gpu-check there)
gpu-check-bin:
	CGO_ENABLED=0 $(GO) build -o build/gpu/ ./cmd/cycleabi ./examples/cuda/tasktable

## fuzz: run every Fuzz target in turn for FUZZTIME each
fuzz:
	./scripts/fuzz.sh $(FUZZTIME)

## ci: what CI runs (.ci/run): the checks, every test under the race detector (-short), every test without it and without -short (the drills and the checks at scale), the arm64 tests, the ABI-change drill and the fuzz budget, then one line naming what was skipped
# CYCLEABI_REQUIRE_CHROMIUM turns "no chromium on PATH" (the report's browser test) from a skip into a failure.
ci: export CYCLEABI_REQUIRE_CHROMIUM := 1
# CYCLEABI_REQUIRE_PY turns "no Python with NumPy" from a skip into a failure
# in every test CI runs (the gen/py checks).
ci: export CYCLEABI_REQUIRE_PY := 1
# CYCLEABI_REQUIRE_PROTOC turns "no protoc on PATH" (the drift check of the
# generated Perfetto types, decode/perfetto/internal/perfettopb) from a skip into a failure.
ci: export CYCLEABI_REQUIRE_PROTOC := 1
# CYCLEABI_REQUIRE_DUCKDB turns "no DuckDB" (node and `npm ci` in
# tests/duckdb: the export's documented queries) and a missing reader of
# the export's files (hyparquet, polars) from a skip into a failure.
ci: export CYCLEABI_REQUIRE_DUCKDB := 1
# CYCLEABI_REQUIRE_VENV and CYCLEABI_REQUIRE_QEMU turn "no python3 -m venv"
# (the wheel's pip install test) and "no qemu-aarch64" (running its aarch64
# programs) from skips into failures.
ci: export CYCLEABI_REQUIRE_VENV := 1
ci: export CYCLEABI_REQUIRE_QEMU := 1
# CYCLEABI_REQUIRE_CXX turns "no C++ compiler on PATH" from a skip into a failure.
ci: export CYCLEABI_REQUIRE_CXX := 1
ci: checks $(TESTSKIPS)
	@: > build/skips-race.jsonl; : > build/skips-long.jsonl
	@rc=0; \
	GO='$(GO)' $(TESTSKIPS) run -record build/skips-race.jsonl -- -race -short -timeout 20m ./... || rc=1; \
	GO='$(GO)' $(TESTSKIPS) run -record build/skips-long.jsonl -- -count=1 -timeout 20m ./... || rc=1; \
	$(MAKE) --no-print-directory test-arm64 || rc=1; \
	$(MAKE) --no-print-directory abi-drill || rc=1; \
	if git rev-parse -q --verify 'HEAD~1^{commit}' >/dev/null; then $(MAKE) --no-print-directory check-abi ABI_BASE=HEAD~1 || rc=1; fi; \
	./scripts/fuzz.sh $(CI_FUZZTIME) || rc=1; \
	$(TESTSKIPS) summary -label 'make ci' build/skips-race.jsonl build/skips-long.jsonl; \
	exit $$rc

clean:
	rm -f trace.json trace.json.gz trace.merged.json trace.pftrace report.html
	rm -rf build/demo dist
