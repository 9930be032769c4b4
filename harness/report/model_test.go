package report

import (
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
}

// Cells at a fixed rate get a table of their own that leads with latency,
// says whether the rate was held, and warns of coordinated omission; they
// stay out of the open-loop table, its ratios and its charts.
func TestFixedRateTable(t *testing.T) {
	open := cell("a", 1, 1000)
	held := cell("a", 1, 500)
	held.Rate = 500
	missed := cell("a", 1, 800)
	missed.Rate, missed.Warnings = 1000, []string{"trial 1: could not sustain 1,000 requests/s: achieved 800"}
	run := &results.Run{Cells: []*results.Cell{open, held, missed}, FinishedAt: &time.Time{}}
	var b strings.Builder
	if err := markdown(&b, run, nil); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{"### plaintext at a fixed rate", "| a      | 1     | 512   | 500   |", "**no** (1 of 1 trials)", "coordinated omission"} {
		if !strings.Contains(md, want) {
			t.Errorf("README lacks %q:\n%s", want, md)
		}
	}
	main := md[:strings.Index(md, "### plaintext at a fixed rate")]
	if strings.Count(main, "| a ") != 1 {
		t.Errorf("the open-loop table holds fixed-rate rows:\n%s", main)
	}
	charts, err := Charts(run)
	if err != nil || len(charts) == 0 {
		t.Fatalf("charts: %v", err)
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
		if !strings.Contains(b.String(), want) {
			t.Errorf("README lacks %q:\n%s", want, b.String())
		}
	}
}
