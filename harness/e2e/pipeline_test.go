package e2e

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/cli"
	"github.com/webbench/webbench/harness/results"
)

// pipelined is TechEmpower's pipelined plaintext over go-fasthttp: 16
// requests in flight on each of 8 connections, by wrk (over HTTP/1.1) and
// h2load (-m 16, here over HTTP/1.1 too: go-fasthttp serves no HTTP/2),
// and by bombardier, which cannot pipeline. One trial of 1 s, no warm-up.
const pipelined = `version: 1
images: {debian: debian:bookworm-slim, golang: golang:1.26-bookworm}
load: {duration: 1s, warmup: 0s, trials: 1, timeout: 2s, ready_timeout: 30s}
connections: [8]
generator: [wrk, h2load, bombardier]
targets:
  go-fasthttp: {build: ROOT/targets/go-fasthttp, port: 8080, scenarios: [pipelined]}
scenarios:
  pipelined:
    path: /plaintext
    pipeline: 16
    expect: {status: 200, content_type: text/plain, body: "Hello, World!"}
`

// A pipelined scenario runs ok with wrk and h2load, records its depth in
// the cell, its scenario and its ceiling, names it in the README row, and
// skips bombardier with the reason. Each tool counts answers, not writes:
// closed-loop, the requests in flight are RPS × mean latency (Little's
// law), and with 16 per connection that is 16 × 8, where a tool counting
// one per batch would read 8 (wrk times a batch once, so its mean is a
// batch's; h2load's is a request's: the product is the same). A quarter
// of 16 × 8 is asked, four times what counting writes would read: the
// generator's core also spends time between an answer and the next write,
// which no latency holds.
func TestPipelinedPlaintext(t *testing.T) {
	eng := connect(t)
	out := t.TempDir()
	code, text := runCLI(context.Background(), t, "run", "-f", writeRooted(t, pipelined), "--out", out)
	if code != cli.ExitOK {
		t.Fatalf("run exit %d:\n%s", code, text)
	}
	noLeftovers(t, eng)
	run, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Matrix.Scenarios) != 1 || run.Matrix.Scenarios[0].Pipeline != 16 {
		t.Errorf("scenarios recorded %+v, want pipelined with pipeline 16", run.Matrix.Scenarios)
	}
	cells := cellsByID(run)
	readme, _ := os.ReadFile(out + "/README.md")
	for _, gen := range []string{"wrk", "h2load"} {
		c := cells["go-fasthttp/pipelined/1cpu/c8/"+gen]
		if c == nil || c.Status != results.OK || c.Pipeline != 16 || len(c.Trials) != 1 {
			t.Errorf("%s: %+v, want ok with pipeline 16 recorded", gen, c)
			continue
		}
		tr := c.Trials[0]
		inFlight := tr.RPS * tr.LatencyMS.Mean / 1000
		t.Logf("%s: %.0f rps, mean %.3f ms: %.1f requests in flight", gen, tr.RPS, tr.LatencyMS.Mean, inFlight)
		if tr.ErrorRate > 0 || inFlight < 4*8 {
			t.Errorf("%s: %.1f requests in flight (RPS %.0f × mean %.3f ms), want about 16 × 8: it counted writes, not answers",
				gen, inFlight, tr.RPS, tr.LatencyMS.Mean)
		}
		if !strings.Contains(string(readme), "go-fasthttp ("+gen+") (pipeline 16)") {
			t.Errorf("README names no go-fasthttp (%s) (pipeline 16) row:\n%s", gen, readme)
		}
	}
	if c := cells["go-fasthttp/pipelined/1cpu/c8"]; c == nil || c.Status != results.Skipped || !strings.Contains(c.Reason, "cannot pipeline") {
		t.Errorf("bombardier: %+v, want skipped: cannot pipeline", c)
	}
	for _, ce := range run.Ceilings {
		if ce.Pipeline != 16 {
			t.Errorf("ceiling of %s measured at pipeline %d, want the cells' 16", ce.GeneratorName(), ce.Pipeline)
		}
	}
}
