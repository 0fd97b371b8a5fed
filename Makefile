# live-stories: `make demo` and `make test` do all set-up on a fresh Debian 12 machine.
SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
BIN := .build/release/render-stories

.PHONY: all deps test-deps build demo test tsan sanitize fuzz bench clean

all: build

deps:
	@scripts/install-deps.sh

test-deps:
	@scripts/install-deps.sh --test

# The release build (Swift's runtime linked statically; why, in the script): the same command
# for the benches and the Dockerfile.
build: deps
	SWIFT=$(SWIFT) scripts/build-release.sh

# Renders samples/demo.json into out/demo/, with the report page to look at it in a browser.
demo: build
	$(BIN) render samples/demo.json --output out/demo --report
	@$(BIN) check out/demo/lifecycle.jsonl
	@echo "demo frames are in $(CURDIR)/out/demo/ (frame-000000.png …, lifecycle.jsonl, summary.json)"
	@echo "open $(CURDIR)/out/demo/report.html in a browser"
	$(BIN) render samples/room.json --output out/room --report
	@$(BIN) check out/room/lifecycle.jsonl --max-audio 4
	@echo "a live room is in $(CURDIR)/out/room/ (open report.html)"

# Tests/test-plan.txt names the slow classes, those `make tsan` runs and those `make sanitize`
# leaves out, each with why; scripts/test-plan.sh turns a group into the regex `swift test` takes
# (matched against `Target.Class/testName`). `make test` runs the others with --skip and the slow
# ones with --filter, so every test runs exactly once; docs/testing.md says how to choose.
plan = $(shell scripts/test-plan.sh $(1))
# Before the tests, the shape of the code (issue 62): no function over 60 lines, no file over 400
# in Sources/, and docs/ARCHITECTURE.md's import table equal to Package.swift's.
test: test-deps
	@python3 scripts/check-shape.py
	@python3 scripts/check-architecture.py
	$(SWIFT) build --build-tests
	@$(SWIFT) test --skip-build list > .build/test-list.txt && scripts/test-plan.sh --check .build/test-list.txt
	@start=$$(date +%s); $(SWIFT) test --skip-build --disable-swift-testing --skip '$(call plan,slow)'; status=$$?; \
		echo "fast tests: $$(( $$(date +%s) - start )) s"; exit $$status
	@start=$$(date +%s); $(SWIFT) test --skip-build --disable-swift-testing --filter '$(call plan,slow)'; status=$$?; \
		echo "slow tests (servers, browser, cluster): $$(( $$(date +%s) - start )) s"; exit $$status

# The sanitizer and fuzz builds leave out the studio (its target, its tests and Hummingbird,
# which would add minutes to each build): Package.swift reads this (docs/studio.md).
NO_STUDIO := LIVE_STORIES_NO_STUDIO=1

# ThreadSanitizer over the tests whose code runs threads (`tsan` in Tests/test-plan.txt), and
# every `render-stories` those tests start. Its own build folder. Tests/Sanitizers/tsan.supp says
# why each suppression is a false report. A report makes the test process (or the render-stories
# it runs) exit 66, so the step fails.
tsan: test-deps
	$(NO_STUDIO) $(SWIFT) build --build-tests --sanitize=thread --scratch-path .build-tsan
	$(NO_STUDIO) TSAN_OPTIONS="suppressions=$(CURDIR)/Tests/Sanitizers/tsan.supp halt_on_error=0 history_size=4" \
		$(SWIFT) test --skip-build --sanitize=thread --scratch-path .build-tsan --disable-swift-testing \
		--filter '$(call plan,tsan)'

# AddressSanitizer with leak checks over the test suite, and over every render-stories the
# tests run, but the `no-asan` entries of Tests/test-plan.txt (each with where its code runs under
# ASan instead; what each cost is in docs/testing.md). Its own build folder.
# Tests/Sanitizers/lsan.supp names the allocations that XCTest's runtime keeps to the end (not
# leaks of ours).
sanitize: test-deps
	$(NO_STUDIO) $(SWIFT) build --build-tests --sanitize=address --scratch-path .build-asan
	$(NO_STUDIO) ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS="suppressions=$(CURDIR)/Tests/Sanitizers/lsan.supp print_suppressions=0" \
		$(SWIFT) test --skip-build --sanitize=address --scratch-path .build-asan --disable-swift-testing \
		--skip '$(call plan,no-asan)'

# libFuzzer over the parsers, the PNG coder and the deflate bit writer, FUZZ_SECONDS each.
# A crash writes its input under Tests/Fuzz/crashes/ and fails the run.
FUZZ_SECONDS ?= 60
fuzz: test-deps
	$(NO_STUDIO) scripts/fuzz.sh $(FUZZ_SECONDS)

# Figures, not pass/fail: time per frame of the demo.
bench: build
	bench/demo-frame-time.sh

clean:
	rm -rf .build .build-asan .build-tsan .build-fuzz out
