.PHONY: test build
build:
	cargo build --release
test:
	cargo test --workspace
