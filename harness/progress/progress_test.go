package progress

import (
	"bytes"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/results"
)

// A reason that repeats over many cells is printed once; the later cells
// point to it.
func TestLinesSayAReasonOnce(t *testing.T) {
	var b bytes.Buffer
	l := &Lines{w: &b}
	l.Start(3, 0)
	reason := "base image aspnet (mcr.microsoft.com/dotnet/aspnet:10.0) unavailable: no registry reachable: cannot pull"
	for _, tg := range []string{"a", "b"} {
		l.Done(&results.Cell{Target: tg, Scenario: "s", CPUs: 1, Connections: 8, Status: results.Skipped, Reason: reason}, 1)
	}
	l.Done(&results.Cell{Target: "c", Scenario: "s", CPUs: 1, Connections: 8, Status: results.Failed, Reason: "verify: wrong body"}, 1)
	out := b.String()
	if strings.Count(out, "no registry reachable") != 1 || !strings.Contains(out, "[2/3] b/s/1cpu/c8 skipped: the same reason as above") ||
		!strings.Contains(out, "[3/3] c/s/1cpu/c8 failed: verify: wrong body") {
		t.Errorf("progress lines:\n%s", out)
	}
}

// A cell's visit that leaves it measured in part (interleaved order: one
// trial per round) says so, with the trials asked, not "ok".
func TestLinesSayPartial(t *testing.T) {
	c := &results.Cell{Target: "a", Scenario: "s", CPUs: 1, Connections: 8, Status: results.Partial, TrialsAsked: 3,
		Trials: []results.Trial{{Result: results.Result{RPS: 1000, LatencyMS: results.Latency{P99: 2}}}}, Summary: &results.Summary{RPS: 1000}}
	if got, want := Summary(c), "a/s/1cpu/c8 partial, trial 1 of 3: 1,000 rps, p99 2.00 ms"; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
}
