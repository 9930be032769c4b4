package report

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webbench/webbench/harness/results"
)

func cell(target string, cpus int, rps ...float64) *results.Cell {
	c := &results.Cell{Target: target, Scenario: "plaintext", CPUs: cpus, Connections: 512, Status: results.OK}
	for _, x := range rps {
		c.Trials = append(c.Trials, results.Trial{Result: results.Result{RPS: x}})
	}
	c.Summary = results.Summarize(c.Trials, "median")
	return c
}

// Study 000's finding read off the table: passing from 4 cores to 1 costs
// one server 4.6× and the other 3.3×.
// With an A/A control whose pairs spread ±12%, b's 10% deficit is noise.
func TestRowsNoiseFloor(t *testing.T) {
	ctl := cell("a", 1, 100, 90, 112, 100, 101, 100)
	ctl.Control = true
	run := &results.Run{Cells: []*results.Cell{
		cell("a", 1, 100, 101, 102, 99, 100, 101),
		cell("b", 1, 90, 91, 92, 89, 90, 91),
		ctl,
	}}
	got := map[string]*results.Row{}
	for _, r := range results.Rows(run, "plaintext") {
		got[r.Target] = r
	}
	if got["b"] == nil || got["b"].Versus != "~" {
		t.Errorf("b: %+v, want ~ (within the noise floor)", got["b"])
	}
	if c := got["a (control)"]; c == nil || c.ID != "a/plaintext/1cpu/c512 (control)" {
		t.Errorf("control row %+v", c)
	}
	var b strings.Builder
	if err := markdown(&b, run, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "- Noise floor (A/A control: `a/plaintext/1cpu/c512` measured twice, 6 paired trials)") ||
		!strings.Contains(b.String(), "differences smaller than ±") {
		t.Errorf("README header lacks the noise floor:\n%s", b.String())
	}
	if strings.Contains(b.String(), "within one visit") {
		t.Errorf("an interleaved run's floor is said to be within one visit:\n%s", b.String())
	}
	// Run cell by cell, each side's trials share one visit: the floor
	// covers the noise within it, and says so.
	run.Matrix.Order = results.Sequential
	b.Reset()
	if err := markdown(&b, run, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "are noise on this machine, within one visit: trials run cell by cell") {
		t.Errorf("a sequential run's noise floor does not say it is within one visit:\n%s", b.String())
	}
}

// rateCell is a fixed-rate cell of generator gen whose one trial answered
// rps a second for 10 s, at p99 p99 ms, using cpu cores.
func rateCell(gen string, rate int, rps, p99, cpu float64) *results.Cell {
	c := cell("a", 1, rps)
	c.Rate, c.Generator = rate, &results.Generator{Name: gen}
	tr := &c.Trials[0]
	tr.Requests, tr.Seconds, tr.TargetCPUCores = int64(rps*10), 10, cpu
	tr.LatencyMS = results.Latency{P50: p99 / 4, P90: p99 / 2, P99: p99, Max: 2 * p99}
	if gen == "openloop" {
		tr.OpenLoop = &results.Schedule{}
	}
	c.Summary = results.Summarize(c.Trials, "median")
	return c
}

// Cells at a fixed rate get a table of their own that leads with latency,
// says whether the rate was held and which loop measured it (a
// closed-loop generator's cells are marked: their latencies omit
// queueing), shows the target's cores at that load, and stay out of the
// open-loop table, its ratios and its charts. A target measured at
// several rates gets its knee and, with an objective, its capacity.
func TestFixedRateTable(t *testing.T) {
	missed := rateCell("openloop", 8000, 6000, 400, 1)
	missed.Status, missed.Reason = results.Failed, "could not sustain 8,000/s (held 6,000/s)"
	run := &results.Run{Cells: []*results.Cell{
		cell("a", 1, 1000),
		rateCell("bombardier", 500, 500, 0.5, 0.05),
		rateCell("openloop", 1000, 1000, 1, 0.1),
		rateCell("openloop", 2000, 2000, 1.5, 0.2),
		rateCell("openloop", 4000, 4000, 30, 0.5),
		missed,
	}, FinishedAt: &time.Time{}}
	run.Matrix.SLO = []results.Objective{{Percentile: "p99", Max: results.Duration(10 * time.Millisecond)}}
	var b strings.Builder
	if err := markdown(&b, run, nil); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{"### plaintext at a fixed rate",
		"| a            | closed, rate-limited | 1     | 512   | 500   | 0.125  | 0.250  | 0.500  | —        | 1.00   | 500          | 0%     | 0.0500    | yes",
		"| a (openloop) | open                 | 1     | 512   | 4,000 | 7.50   | 15.0   | 30.0   | —        | 60.0   | 4,000        | 0%     | 0.500     | yes",
		"| a (openloop) | open                 | 1     | 512   | 8,000 |", "**no** (1 of 1 trials)",
		"**closed, rate-limited: latencies omit queueing.**",
		"### plaintext: capacity at p99 ≤ 10ms",
		"| a (openloop) | open | 1     | 512   | 1,000…8,000/s (4) | 2,000/s | 2,000/s           | 2,000…2,000       | 1/1 1/1 0/1 0/1",
	} {
		if !strings.Contains(squash(md), squash(want)) {
			t.Errorf("README lacks %q:\n%s", want, md)
		}
	}
	main := md[:strings.Index(md, "### plaintext at a fixed rate")]
	if strings.Count(main, "| a ") != 1 {
		t.Errorf("the open-loop table holds fixed-rate rows:\n%s", main)
	}
	charts, err := Charts(run)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, c := range charts {
		files = append(files, c.File)
	}
	if !slices.Contains(files, "latency-vs-rps-plaintext.svg") {
		t.Errorf("charts %v lack the latency curve", files)
	}
}

// A multi-service target's CPU and memory are shown by service.
func TestServiceTable(t *testing.T) {
	c := cell("fcgi", 1, 1000, 1100)
	c.Trials[0].Services = map[string]results.ServiceUsage{"nginx": {CPUCores: 0.3, MemPeakMiB: 5}, "backend": {CPUCores: 0.6, MemPeakMiB: 40}}
	c.Trials[1].Services = map[string]results.ServiceUsage{"nginx": {CPUCores: 0.5, MemPeakMiB: 6}, "backend": {CPUCores: 0.4, MemPeakMiB: 30}}
	run := &results.Run{Cells: []*results.Cell{c}, FinishedAt: &time.Time{}}
	var b strings.Builder
	if err := markdown(&b, run, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### plaintext: CPU and memory by service", "| fcgi   | 1     | 512   | backend | 0.500              | 40.0     |", "| nginx   | 0.400              | 6.00     |"} {
		if !strings.Contains(squash(b.String()), squash(want)) {
			t.Errorf("README lacks %q:\n%s", want, b.String())
		}
	}
}
