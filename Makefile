# Two commands set everything up on a fresh machine:
#   make matrix   run the default matrix (quick profile) → results/<label>/
#   make test     unit and end-to-end tests against the real Docker engine
GO      ?= go
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/webbench/webbench/harness/cli.Version=$(VERSION)
PROFILE ?= quick
ARGS    ?=

.PHONY: all build tools test-tools matrix plan generators capacity hello-pinning hello-counts protocols fastcgi-limits serialization-long serialization-floor serialization-rounds serialization-blocked serialization-blocking serialization-visits serialization-asrun fastcgi-asrun test unit e2e fidelity overhead steadiness two-engines clean fmt vet

all: build

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

## hello-pinning: study 000's connection sweep with the load generator apart,
## on the target's own core (as the study ran) and unpinned
## → results/<label>-hello-pinning/
hello-pinning: build tools
	./bin/harness run --profile hello-pinning --force $(ARGS)

## hello-counts: study 000's -n 1,000,000 against -n 10,000,000 in one run
## (profile hello-counts: node-http:single with an A/A twin, c512, 1 core,
## 3 interleaved trials per count; every 10M cell over its 1M twin; about
## 45 minutes on this VM) → results/<label>-hello-counts/
hello-counts: build tools
	./bin/harness run --profile hello-counts --force $(ARGS)

## protocols: what TLS and HTTP/2 cost go-nethttp (profile protocols: plaintext
## over http1, https, h2 and h2c, all by h2load, interleaved; each over http1)
## → results/<label>-protocols/
protocols: build tools
	./bin/harness run --profile protocols --force $(ARGS)

## fastcgi-limits: study 003's topology measured against its own limit: nginx
## alone (return 200, no backend) beside fastcgi-go, -node and -php, c20 and
## c400 without keep-alive, by ab and bombardier → results/<label>-fastcgi-limits/
fastcgi-limits: build tools
	./bin/harness run --profile fastcgi-limits --force $(ARGS)

## serialization-long: study 002's pass-through route with 15 s trials, net/http's
## client against fasthttp's, with an A/A control → results/<label>-serialization-long/
serialization-long: build tools
	./bin/harness run --profile serialization-long --force $(ARGS)

## serialization-floor: study 002's A/A noise floor with 60 s trials (serial-go
## pass-through and its twin, 6 interleaved rounds; 57 minutes here)
## → results/<label>-serialization-floor/
serialization-floor: build tools
	./bin/harness run --profile serialization-floor --force $(ARGS)

## serialization-rounds: study 002's A/A noise floor with 12 rounds of 15 s
## (serial-go pass-through and its twin, every cell of a round shuffled
## freely with --unblocked, as first measured; 33 minutes here)
## → results/<label>-serialization-rounds/
serialization-rounds: build tools
	./bin/harness run --profile serialization-rounds --unblocked --force $(ARGS)

## serialization-blocked: as serialization-rounds, each A/A pair back to back
## in its round (the default order; 34 minutes here)
## → results/<label>-serialization-blocked/
serialization-blocked: build tools
	./bin/harness run --profile serialization-blocked --force $(ARGS)

## serialization-blocking: serialization-blocked, then serialization-rounds
## (free shuffle): the A/A floor with and without blocking, one after the
## other on one machine, in this order even under make -j (68 minutes here)
serialization-blocking: build tools
	./bin/harness run --profile serialization-blocked --force $(ARGS)
	./bin/harness run --profile serialization-rounds --unblocked --force $(ARGS)

## serialization-visits: as serialization-blocked, run --sequential: each
## cell's 12 trials in one visit, to set the noise inside a visit beside the
## noise between visits (28 minutes here) → results/<label>-serialization-visits/
serialization-visits: build tools
	./bin/harness run --profile serialization-visits --sequential --force $(ARGS)

## serialization-asrun: study 002 as it ran: one 120 s run per cell, no warm-up,
## client, upstream and bombardier unpinned on every core; Go's and .NET's clients
## (26 minutes here, .NET skipped) → results/<label>-serialization-asrun/
serialization-asrun: build tools
	./bin/harness run --profile serialization-asrun --force $(ARGS)

## fastcgi-asrun: study 003 as it ran: ApacheBench without -k unpinned beside
## nginx and its backends on every core, -c 20 -n 20000 and -c 400 -n 200000,
## best of 10, nginx alone in the same rounds (16 minutes here; profiles fastcgi-asrun20 and
## fastcgi-asrun400) → results/<label>-fastcgi-asrun20/ and -fastcgi-asrun400/
fastcgi-asrun: build tools
	./bin/harness run --profile fastcgi-asrun20 --force $(ARGS)
	./bin/harness run --profile fastcgi-asrun400 --force $(ARGS)

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
