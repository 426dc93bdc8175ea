# pgbrain: `make demo` and `make test` do all of their own set-up.
GO      ?= go
BIN     := bin/pgbrain
PKGS    := ./...

.PHONY: all setup build demo test bench bench-large vet fuzz clean

all: build

## setup: install PostgreSQL (15, or the installed or distribution version), its headers and pgvector 0.8+ when missing; fetch Go modules
setup:
	@scripts/setup.sh

## build: compile bin/pgbrain
build: setup
	$(GO) build -o $(BIN) ./cmd/pgbrain

## demo: start the embedded cluster, import the sample brain and query it
demo: build
	@scripts/demo.sh $(BIN)

## test: vet and run every test against one ephemeral cluster (the packages
## that run goroutines under the race detector)
test:
	@PGBRAIN_SETUP_TESTS=1 scripts/setup.sh
	@scripts/test.sh

## bench: side-by-side measurements (see docs/performance.md)
bench: setup
	$(GO) run ./tools/bench $(BENCHFLAGS)

## bench-large: the scale suite with the 1,000,000-page point too (hours on
## a 2-core machine; see docs/performance.md)
bench-large: setup
	$(GO) run ./tools/bench -suite scale -scale 20000,200000,1000000 $(BENCHFLAGS)

## vet: gofmt, go vet, and the build-tagged testcontainers example
vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo 'gofmt: files above need formatting'; exit 1; }
	$(GO) vet $(PKGS)
	cd examples/testcontainers && $(GO) vet -tags testcontainers ./...

## fuzz: run every fuzz target for FUZZTIME each (default 20s)
fuzz:
	@scripts/fuzz.sh $${FUZZTIME:-20s}

## clean: stop and delete the demo's embedded cluster, and remove bin/
clean:
	@scripts/clean.sh
