# sessfs — see README.md. Every target works on a fresh clone.
GO      ?= go
BIN     := bin/sessfs
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
DEMO_STORE ?= $(CURDIR)/demo-store

.PHONY: build test test-short fuzz bench demo fmt vet clean

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/sessfs

# The whole suite, as CI runs it: vet, the race detector, then short fuzz runs.
test: vet
	$(GO) test -race -count=1 ./...
	$(MAKE) fuzz FUZZTIME=10s

FUZZTIME ?= 60s
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeLines$$' -fuzztime $(FUZZTIME) ./backing/
	$(GO) test -run '^$$' -fuzz '^FuzzValidateMessage$$' -fuzztime $(FUZZTIME) ./backing/
	$(GO) test -run '^$$' -fuzz '^FuzzMarkdown$$' -fuzztime $(FUZZTIME) ./render/

bench:
	$(GO) test -run '^$$' -bench . -benchtime 1x -count 1 ./backing/ | tee bench.txt
	$(GO) test -run '^$$' -bench 'Append' -count 1 ./backing/ | tee -a bench.txt

# A store made from the real sessions in ../shared/data, shown with the CLI.
demo: build
	@./scripts/demo.sh $(BIN) $(DEMO_STORE)

fmt:
	gofmt -w $$(git ls-files '*.go')

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo 'gofmt needed: make fmt'; exit 1; }

clean:
	rm -rf bin demo-store bench.txt
