# Two commands set everything up on a fresh machine:
#   make matrix   run the default matrix (quick profile) → results/<label>/
#   make test     unit and end-to-end tests against the real Docker engine
# At most 12 rules, each with its "## rule:" line for make help (a test in
# harness/cli holds the file to that). One-off experiments are commands
# in docs/running.md, not rules.
GO      ?= go
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/webbench/webbench/harness/cli.Version=$(VERSION)
PROFILE ?= quick
ARGS    ?=

.PHONY: help build tools test-tools matrix plan study test unit clean fmt vet

## help: list these rules, one line each
help:
	@awk '/^## [a-z-]+:/ {sub(/^## /, ""); print "  " $$0}' $(MAKEFILE_LIST)

## build: bin/harness and bin/figures (the measurement helper of docs/running.md)
build:
	CGO_ENABLED=0 $(GO) build -ldflags '$(LDFLAGS)' -o bin/harness ./harness/cmd/harness
	CGO_ENABLED=0 $(GO) build -ldflags '$(LDFLAGS)' -o bin/figures ./harness/cmd/figures

## tools: install what the harness needs from the host (debootstrap, for stand-ins; as root on Debian)
# debootstrap is only used where a base image cannot be pulled.
tools:
	@command -v debootstrap >/dev/null 2>&1 || { \
	  if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null) || exit 1; \
	  else echo "note: debootstrap not installed; it is needed only where base images cannot be pulled"; fi; }

## test-tools: install what the tests need beyond tools (wrk, h2load, ab, docker-registry, iproute2)
# docker-registry is the local registry the end-to-end test of the pull
# path pushes to; wrk, h2load and ab are what the load generators'
# adapters are tested against on the host.
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

## matrix: run matrix.yaml's profile PROFILE (default quick; also generators, capacity, protocols, trials6, database) with ARGS
matrix: build tools
	./bin/harness run --profile $(PROFILE) --force $(ARGS)

## plan: list the cells, images and estimate of make matrix, without Docker
plan: build
	./bin/harness plan --profile $(PROFILE) $(ARGS)

## study: render studies/$(STUDY)/README.md from its runs; PROFILE=P first measures that study profile
# STUDY=000-hello, 002-serialization or 003-fastcgi; with PROFILE=P the
# study's profile (studies/$(STUDY)/profiles.yaml) is measured first →
# results/<label>-P/, to move under studies/$(STUDY)/runs/ and name in study.yaml
STUDY ?= 000-hello
study: build
	$(if $(filter-out quick,$(PROFILE)),./bin/harness run -f matrix.yaml --profiles studies/$(STUDY)/profiles.yaml --profile $(PROFILE) $(ARGS) &&) ./bin/harness study studies/$(STUDY)

## test: unit, fuzz and end-to-end tests (the end-to-end ones need Docker; with CI=true they never skip)
test: build test-tools
	@# the three fuzz targets side by side and beside the tests (whose
	@# end-to-end part asserts behaviour, never a timing): 10 s of wall time.
	@# The end-to-end package, the longest, starts at once in a go test of
	@# its own (./... would start it after the packages before it)
	@$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime 10s ./harness/matrix > .fuzz-matrix.log 2>&1 & a=$$!; \
	$(GO) test -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime 10s ./harness/results > .fuzz-results.log 2>&1 & b=$$!; \
	$(GO) test -run '^$$' -fuzz '^FuzzRender$$' -fuzztime 10s ./harness/report > .fuzz-report.log 2>&1 & c=$$!; \
	$(GO) test -count=1 -timeout 40m ./harness/e2e/ > .e2e.log 2>&1 & e=$$!; \
	$(GO) test -count=1 -timeout 40m $$($(GO) list ./... | grep -v '/harness/e2e$$'); rc=$$?; \
	for p in $$a $$b $$c $$e; do wait $$p || rc=1; done; cat .e2e.log; \
	if [ $$rc = 0 ]; then tail -n 2 .fuzz-*.log; else cat .fuzz-*.log; fi; rm -f .fuzz-*.log .e2e.log; exit $$rc

## unit: the unit tests only (-short: no Docker)
unit: build
	$(GO) test -count=1 -short ./...

## clean: remove what killed runs left on the engine (containers, networks)
clean: build
	./bin/harness clean

## fmt: gofmt the Go sources
fmt:
	gofmt -l -w harness docker assets.go

## vet: go vet every package
vet:
	$(GO) vet ./...
