# sessfs — see README.md. Every target works on a fresh clone.
GO      ?= go
BIN     := bin/sessfs
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
DEMO_STORE ?= $(CURDIR)/demo-store
DEMO_MNT   ?= $(CURDIR)/mnt
# The team's real sessions: data/, and formats-next/ for the agents whose
# sessions sessfs learnt to read last (that folder is laid out afresh each
# time, so they cannot move into data/ for good).
DEMO_DATA  ?= $(wildcard $(CURDIR)/../shared/data $(CURDIR)/../shared/formats-next)

.PHONY: build test test-long fuzz cover bench bench-quick bench-scale bench-go demo demo-reset fmt vet clean

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/sessfs

# The whole suite, as CI runs it: vet, every test with the race detector
# (integration/ mounts for real, and reruns its core on one CPU: see
# TestGOMAXPROCS1), then short fuzz runs. integration/ takes about 6
# minutes with the race detector on 2 cores: a loaded machine took it past
# go test's default 10-minute timeout, hence 20.
test: vet
	$(GO) test -race -count=1 -timeout 20m ./...
	$(MAKE) fuzz FUZZX=1

# The long mode: 50 random kill points for each crash test, about a minute
# of each fuzz target.
test-long: vet
	SESSFS_TEST_LONG=1 $(GO) test -count=1 -run 'TestCrash' -timeout 30m ./integration/
	$(MAKE) fuzz FUZZX=6

# Each fuzz target runs for a number of inputs, about 10 s of it on a
# 2-core machine, times FUZZX. Not for a time: a -fuzztime duration races
# Go's fuzz coordinator at its deadline, which then fails the target with
# "context deadline exceeded" and no failing input (go.dev/issue/75804,
# fixed in Go 1.27). testdata/fuzz keeps, named for what they hold, the
# inputs that reach code the seeds do not, and any input that finds a bug,
# renamed for it; the rest of what fuzzing explores stays in Go's cache.
FUZZX ?= 6
FUZZ  = $(GO) test -run '^$$' -fuzzminimizetime 5s
fuzz:
	$(FUZZ) -fuzz '^FuzzDecodeLines$$' -fuzztime $$((350000 * $(FUZZX)))x ./backing/filestore/
	$(FUZZ) -fuzz '^FuzzValidateMessage$$' -fuzztime $$((400000 * $(FUZZX)))x ./backing/
	$(FUZZ) -fuzz '^FuzzMarkdown$$' -fuzztime $$((300000 * $(FUZZX)))x ./render/
	$(FUZZ) -fuzz '^FuzzScanObject$$' -fuzztime $$((300000 * $(FUZZX)))x ./render/
	$(FUZZ) -fuzz '^FuzzRedact$$' -fuzztime $$((150000 * $(FUZZX)))x ./render/
	$(FUZZ) -fuzz '^FuzzHTML$$' -fuzztime $$((200000 * $(FUZZX)))x ./render/
	$(FUZZ) -fuzz '^FuzzAppendFraming$$' -fuzztime $$((50000 * $(FUZZX)))x ./fsnode/
	$(FUZZ) -fuzz '^FuzzDecode$$' -fuzztime $$((50000 * $(FUZZX)))x ./backing/importer/

# Statement coverage of the unit tests, the sessfs binary's runs by the CLI
# tests counted too (cmd/sessfs/main_test.go builds it with -cover), in
# bench/cover.out: go tool cover -html=bench/cover.out shows it.
cover:
	@mkdir -p bench
	$(GO) test -count=1 -coverprofile=bench/cover.out ./backing/... ./render/ ./fsnode/ ./cmd/...
	$(GO) tool cover -func=bench/cover.out | tail -1

# The mount against the native floor: one table of ratios (median of 5
# runs, min-max), also as JSON in bench/results.json. bench-quick is the
# same in under a minute, and fails when a row misses its target by more
# than 3x twice (measured again after a miss). bench-go: the store's own Go benchmarks (fork time from 1k to
# 1M messages, append rates next to native write+fsync).
bench:
	$(GO) run ./integration/bench -json bench/results.json

bench-quick:
	$(GO) run ./integration/bench -quick -check -json bench/results.json

# Issue 18's table at scale (not in CI): SIZE of sessions made of the real
# Claude Code sessions' lines in ../shared (one long session of a fifth of
# SIZE, the rest 50–500 lines each), imported and mounted by the sessfs
# binary, each row against the same work done natively on the sources;
# also as JSON in bench/scale.json. SIZE takes K, M or G (decimal); about
# 10 minutes at 1G on 2 cores, and 4× SIZE of free disk in bench/.
SIZE ?= 1G
bench-scale:
	$(GO) run ./integration/bench -scale $(SIZE) -json bench/scale.json

bench-go:
	$(GO) test -run '^$$' -bench 'Fork' -benchtime 100x -count 1 ./backing/filestore/
	$(GO) test -run '^$$' -bench 'Append' -count 1 ./backing/filestore/

# The real sessions of DEMO_DATA (or a sample session when there are none)
# in ./demo-store, mounted at ./mnt until Ctrl-C. The store is kept from one run to the next, with whatever was added to it: each run
# imports again, which stores only what the sources gained. demo-reset
# starts over. Needs only sh, grep, sed and head (no python).
demo: build
	@if mountpoint -q "$(DEMO_MNT)" 2>/dev/null; then echo "$(DEMO_MNT) is still mounted: run $(BIN) umount $(DEMO_MNT)"; exit 1; fi
	@mkdir -p "$(DEMO_MNT)"
	@if [ -f "$(DEMO_STORE)/FORMAT" ]; then echo "Using $(DEMO_STORE) as you left it (make demo-reset starts over)."; fi
	@# A demo store an earlier sessfs wrote is upgraded to this one's format.
	@if [ -f "$(DEMO_STORE)/FORMAT" ]; then $(BIN) migrate --store "$(DEMO_STORE)" | grep -v 'nothing to do$$' || true; fi
	@if [ -n "$(DEMO_DATA)" ]; then \
		$(BIN) import --store "$(DEMO_STORE)" $(DEMO_DATA) 2>&1 >/dev/null | grep -v 'nothing new$$' || true; \
	elif $(BIN) new --store "$(DEMO_STORE)" --title "A sample session" sample >/dev/null 2>&1; then \
		$(BIN) append --store "$(DEMO_STORE)" sample "What is sessfs?"; \
		$(BIN) append --store "$(DEMO_STORE)" --role assistant sample "A filesystem of agent sessions."; \
	fi
	@$(BIN) ls --store "$(DEMO_STORE)"
	@s=$$($(BIN) ls --store "$(DEMO_STORE)" --json | sed -n 's/^    "name": "\(.*\)",$$/\1/p' | head -n 1); \
	m='$(patsubst $(CURDIR)/%,%,$(DEMO_MNT))'; \
	echo; echo "Mounted at $$m (Ctrl-C unmounts). In another shell, try:"; \
	echo "  ls $$m"; \
	echo "  cat '$$m/$$s/transcript.md'"; \
	echo "  echo hi >> '$$m/$$s/append'"; \
	echo "  mkdir '$$m/$$s/branches/try'"; \
	echo "  grep -l session $$m/*/transcript.md"; echo
	@$(BIN) mount --store "$(DEMO_STORE)" "$(DEMO_MNT)"

# Starts the demo over: deletes the demo store (only if it is one), then
# runs demo.
demo-reset:
	@if mountpoint -q "$(DEMO_MNT)" 2>/dev/null; then echo "$(DEMO_MNT) is still mounted: run $(BIN) umount $(DEMO_MNT)"; exit 1; fi
	@if [ -e "$(DEMO_STORE)" ] && [ ! -f "$(DEMO_STORE)/FORMAT" ]; then echo "$(DEMO_STORE) is not a sessfs store: not deleting it"; exit 1; fi
	rm -rf "$(DEMO_STORE)"
	@$(MAKE) --no-print-directory demo

fmt:
	gofmt -w $$(git ls-files '*.go')

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo 'gofmt needed: make fmt'; exit 1; }

# Build outputs only: the demo store holds what you added to it (make
# demo-reset deletes it).
clean:
	rm -rf bin bench
	-rmdir $(DEMO_MNT) 2>/dev/null
