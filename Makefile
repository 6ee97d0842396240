# The commands of the README. Every target installs what it needs first.

CORPUS ?= ../shared/corpus/p4c
FUZZ_SECONDS ?= 60
P4BPF := target/release/p4bpf

.PHONY: build demo test conformance fuzz bench

build:
	cargo build --release

# The P4 router examples/l3_router.p4 at XDP between two hosts in network
# namespaces, driven through the CLI (README: "The demo, step by step");
# `make demo EXAMPLE=v1model_router` runs the v1model router instead.
EXAMPLE ?= l3_router
demo:
	scripts/install-deps.sh demo
	cargo build --release
	P4BPF=$(P4BPF) EXAMPLE=$(EXAMPLE) scripts/demo.sh

test:
	scripts/install-deps.sh test
	cargo test --workspace

# Generated programs against hand-written C (bench/): ns/packet, instruction
# counts, stack; writes bench/RESULTS.md and bench/ratios.svg. Needs root.
# BENCH_ARGS=--no-matrix for the six study programs alone.
BENCH_ARGS ?=
bench:
	scripts/install-deps.sh demo
	cargo build --release
	$(P4BPF) bench bench $(BENCH_ARGS)

conformance: build
	$(P4BPF) conformance $(CORPUS) --out conformance/frontend.md

# Coverage-guided fuzzing of the front end for FUZZ_SECONDS (e.g.
# `make fuzz FUZZ_SECONDS=1800`), seeded with our example and diagnostics
# programs and, when present, the corpus's samples (read, never copied).
# Needs the nightly toolchain; installs cargo-fuzz if missing. Inputs that
# crash land in fuzz/artifacts/frontend/.
FUZZ_SEEDS := $(abspath examples crates/cli/tests/diagnostics $(wildcard $(CORPUS)/p4_16_samples))

fuzz:
	command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz
	mkdir -p fuzz/corpus/frontend
	cd fuzz && cargo +nightly fuzz run frontend corpus/frontend $(FUZZ_SEEDS) \
		-- -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10
