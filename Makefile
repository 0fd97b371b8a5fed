# live-stories: `make demo` and `make test` do all set-up on a fresh Debian 12 machine.
SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
BIN := .build/release/render-stories

.PHONY: all deps test-deps build demo test sanitize bench clean

all: build

deps:
	@scripts/install-deps.sh

test-deps:
	@scripts/install-deps.sh --test

build: deps
	$(SWIFT) build -c release --product render-stories

# Renders samples/demo.json into out/demo/, with the report page to look at it in a browser.
demo: build
	$(BIN) render samples/demo.json --output out/demo --report
	@$(BIN) check out/demo/lifecycle.jsonl
	@echo "demo frames are in $(CURDIR)/out/demo/ (frame-000000.png …, lifecycle.jsonl, summary.json)"
	@echo "open $(CURDIR)/out/demo/report.html in a browser"
	$(BIN) render samples/room.json --output out/room --report
	@$(BIN) check out/room/lifecycle.jsonl --max-audio 4
	@echo "a live room is in $(CURDIR)/out/room/ (open report.html)"

test: test-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --disable-swift-testing

# The tests of the hand-written C (PNG writer, checksum, raster kernel) under AddressSanitizer,
# which sees what they cannot: a vector store a few bytes past a buffer. Its own build folder;
# leak checks are off because XCTest's runtime keeps a few allocations to the end.
sanitize: test-deps
	ASAN_OPTIONS=detect_leaks=0 $(SWIFT) test --sanitize=address --scratch-path .build-asan \
		--disable-swift-testing --filter 'PNGTests|PNGCoderTests|Adler32Tests|RasterizerTests|CubeGeometryTests'

# Figures, not pass/fail: time per frame of the demo.
bench: build
	bench/demo-frame-time.sh

clean:
	rm -rf .build .build-asan out
