# live-stories: `make demo` and `make test` do all set-up on a fresh Debian 12 machine.
SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
BIN := .build/release/render-stories

.PHONY: all deps test-deps build demo test bench clean

all: build

deps:
	@scripts/install-deps.sh

test-deps:
	@scripts/install-deps.sh --test

build: deps
	$(SWIFT) build -c release --product render-stories

# Renders samples/demo.json into out/demo/.
demo: build
	$(BIN) render samples/demo.json --output out/demo
	@$(BIN) check out/demo/lifecycle.jsonl
	@echo "demo frames are in $(CURDIR)/out/demo/ (frame-000000.png …, lifecycle.jsonl, summary.json)"

test: test-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --disable-swift-testing

# Figures, not pass/fail: time per frame of the demo.
bench: build
	bench/demo-frame-time.sh

clean:
	rm -rf .build out
