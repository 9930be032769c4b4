# Two commands set everything up on a fresh machine:
#   make matrix   run the default matrix (quick profile) → results/<label>/
#   make test     unit and end-to-end tests against the real Docker engine
GO      ?= go
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/webbench/webbench/harness/cli.Version=$(VERSION)
PROFILE ?= quick
ARGS    ?=

.PHONY: help all build tools test-tools matrix plan generators capacity protocols test unit study fidelity overhead steadiness two-engines clean fmt vet

all: build

## help: list these rules, one line each
help:
	@awk '/^## [a-z-]+:/ {sub(/^## /, ""); print "  " $$0}' $(MAKEFILE_LIST)

## build: bin/harness (and bin/figures, the measurement helper)
build:
	CGO_ENABLED=0 $(GO) build -ldflags '$(LDFLAGS)' -o bin/harness ./harness/cmd/harness
	CGO_ENABLED=0 $(GO) build -ldflags '$(LDFLAGS)' -o bin/figures ./harness/cmd/figures

## tools: what the harness needs from the host. debootstrap is only used where
## a base image cannot be pulled; it is installed on Debian-like hosts as root.
tools:
	@command -v debootstrap >/dev/null 2>&1 || { \
	  if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null) || exit 1; \
	  else echo "note: debootstrap not installed; it is needed only where base images cannot be pulled"; fi; }

## test-tools: what the tests need beyond tools: Debian's docker-registry,
## the local registry the end-to-end test of the pull path pushes to, and
## Debian's wrk, h2load and ab, which the load generators' adapters are
## tested against on the host.
test-tools: tools
	@command -v wrk >/dev/null 2>&1 && command -v h2load >/dev/null 2>&1 && command -v ab >/dev/null 2>&1 || { \
	  if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk nghttp2-client apache2-utils >/dev/null) || exit 1; \
	  else echo "note: wrk, h2load or ab missing; their adapters' tests need them"; fi; }
	@command -v docker-registry >/dev/null 2>&1 || { \
	  if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-registry >/dev/null) || exit 1; \
	    systemctl disable --now docker-registry >/dev/null 2>&1 || service docker-registry stop >/dev/null 2>&1 || true; \
	  else echo "note: docker-registry not installed; the registry test needs it"; fi; }
	@command -v ip >/dev/null 2>&1 && command -v nsenter >/dev/null 2>&1 || { \
	  if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iproute2 util-linux >/dev/null) || exit 1; \
	  else echo "note: ip (iproute2) or nsenter (util-linux) missing; the two-engine test needs them"; fi; }

## matrix: run the default matrix with the quick profile
matrix: build tools
	./bin/harness run --profile $(PROFILE) --force $(ARGS)

plan: build
	./bin/harness plan --profile $(PROFILE) $(ARGS)

## generators: the load generators side by side (profile generators: each
## cell measured by bombardier, wrk and h2load, interleaved) → results/<label>-generators/
generators: build tools
	./bin/harness run --profile generators --force $(ARGS)

## capacity: plaintext offered open-loop at a sweep of rates (profile
## capacity): each target's knee and its capacity at p99 ≤ 10 ms
## → results/<label>-capacity/
capacity: build tools
	./bin/harness run --profile capacity --force $(ARGS)



## protocols: what TLS and HTTP/2 cost go-nethttp (profile protocols: plaintext
## over http1, https, h2 and h2c, all by h2load, interleaved; each over http1)
## → results/<label>-protocols/
protocols: build tools
	./bin/harness run --profile protocols --force $(ARGS)










## study: render studies/$(STUDY)/README.md, every verdict computed from its
## committed runs (STUDY=000-hello, 002-serialization or 003-fastcgi); with
## PROFILE=P, first measure that study profile (studies/$(STUDY)/profiles.yaml)
## → results/<label>-P/, to move under studies/$(STUDY)/runs/ and name in study.yaml
STUDY ?= 000-hello
study: build
	$(if $(filter-out quick,$(PROFILE)),./bin/harness run -f matrix.yaml --profiles studies/$(STUDY)/profiles.yaml --profile $(PROFILE) $(ARGS) &&) ./bin/harness study studies/$(STUDY)

## test: unit and end-to-end tests (the end-to-end ones need Docker; with CI=true they never skip)
test: build test-tools
	@# the three fuzz targets side by side and beside the tests (whose
	@# end-to-end part asserts behaviour, never a timing): 10 s of wall time
	@$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime 10s ./harness/matrix > .fuzz-matrix.log 2>&1 & a=$$!; \
	$(GO) test -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime 10s ./harness/results > .fuzz-results.log 2>&1 & b=$$!; \
	$(GO) test -run '^$$' -fuzz '^FuzzRender$$' -fuzztime 10s ./harness/report > .fuzz-report.log 2>&1 & c=$$!; \
	$(GO) test -count=1 -timeout 40m ./...; rc=$$?; \
	for p in $$a $$b $$c; do wait $$p || rc=1; done; \
	if [ $$rc = 0 ]; then tail -n 2 .fuzz-*.log; else cat .fuzz-*.log; fi; rm -f .fuzz-*.log; exit $$rc

unit: build
	$(GO) test -count=1 -short ./...

## fidelity: harness RPS of go-nethttp/plaintext on 1 core ÷ the same server run bare under taskset
fidelity: build tools
	./bin/figures fidelity

## steadiness: the A/A floor of one core by itself: a fixed encoding/json
## workload pinned with taskset to core 0, 12 pairs of 15 s windows, a fresh
## process per window, then all in one process (12 minutes): is a run's noise
## the machine's, or the containers' and network's? Nothing else may run.
steadiness: build
	./bin/figures steadiness
	./bin/figures steadiness -reuse

## overhead: per-cell wall time beyond warm-up and trials, from a results folder (DIR=results/…)
overhead: build
	./bin/figures overhead $(DIR)

## two-engines: targets on a second engine in a network namespace (docker/engine2),
## the load generator on this one, across a veth pair → results/two-engines-netns/
## (root; builds on the second engine have no network, so only targets whose
## builds need none: Go's standard library, Node's)
TWO_ONLY    ?= go-nethttp,node-http
TWO_PROFILE ?=
two-engines: build tools
	@dir=$${TMPDIR:-/tmp}/webbench-engine2-9; \
	host=$$(docker/engine2/netns-engine.sh up 9 $$dir) || exit 1; \
	trap 'docker/engine2/netns-engine.sh down 9 '$$dir EXIT INT TERM; \
	./bin/harness run $(if $(TWO_PROFILE),--profile $(TWO_PROFILE)) --only '$(TWO_ONLY)' --control go-nethttp/plaintext --target-engine $$host \
	  --link "veth pair between two network namespaces of one VM (same cores, same kernel)" \
	  --out results/two-engines-netns --label two-engines-netns --force $(ARGS)

clean: build
	./bin/harness clean

fmt:
	gofmt -l -w harness docker assets.go

vet:
	$(GO) vet ./...
