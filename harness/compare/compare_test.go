package compare

import (
	"bytes"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/internal/golden"
	"github.com/webbench/webbench/harness/results"
)

func load(t *testing.T) *Comparison { return loadRuns(t, "laptop-4c", "vm-16c") }

// loadRuns compares the recorded runs of testdata, in that order.
func loadRuns(t *testing.T, names ...string) *Comparison {
	t.Helper()
	var runs []*results.Run
	for _, n := range names {
		r, err := results.Read("testdata/" + n)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	return Build(names, runs)
}

func TestBuild(t *testing.T) {
	c := load(t)
	if len(c.Scenarios) != 1 || len(c.Scenarios[0].Lines) != 2 {
		t.Fatalf("scenarios = %+v", c.Scenarios)
	}
	lines := map[string]Line{}
	for _, l := range c.Scenarios[0].Lines {
		lines[l.Cell] = l
	}
	// go-nethttp: every VM trial beats every laptop trial: significant, +29.4%.
	g := lines["go-nethttp/plaintext/1cpu/c512"]
	if !g.Test[1].Significant || g.Delta[1] < 0.29 || g.Delta[1] > 0.30 {
		t.Errorf("go-nethttp: %+v", g)
	}
	// node-http: the two runs' trials interleave: not significant.
	n := lines["node-http:single/plaintext/1cpu/c512"]
	if n.Test[1].Significant {
		t.Errorf("node-http: %+v, want not significant", n.Test[1])
	}
	var unmatched []string
	for _, u := range c.Unmatched {
		unmatched = append(unmatched, u.Cell+" in "+strings.Join(u.In, ","))
	}
	if want := "go-fasthttp/plaintext/1cpu/c512 in vm-16c|mono-httplistener/plaintext/1cpu/c512 in laptop-4c"; strings.Join(unmatched, "|") != want {
		t.Errorf("unmatched = %v, want %s", unmatched, want)
	}
	differs := map[string]bool{}
	for _, e := range c.Env {
		differs[e.Field] = e.Differs
	}
	if !differs["base image debian"] || !differs["runtime node-http:single"] || differs["runtime go-nethttp"] || differs["load generator"] {
		t.Errorf("environment differences = %v", differs)
	}
	// geomean over the two matched cells.
	if gd := c.Scenarios[0].GeoDelta[1]; gd < 0.13 || gd > 0.14 {
		t.Errorf("geomean delta = %v", gd)
	}
}

func TestMarkdownGolden(t *testing.T) {
	var b bytes.Buffer
	if err := Markdown(&b, load(t)); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/compare.md", b.Bytes())
}

// A difference the U test calls significant is still not one when it is
// within a run's A/A noise floor.
func TestNoiseFloorHidesSmallDifferences(t *testing.T) {
	mk := func(scale float64, control bool) *results.Cell {
		c := &results.Cell{Target: "go", Scenario: "plaintext", CPUs: 1, Connections: 64, Status: results.OK, Control: control}
		for i := range 6 {
			c.Trials = append(c.Trials, results.Trial{Result: results.Result{RPS: scale * (1000 + float64(i))}})
		}
		return c
	}
	a := &results.Run{Cells: []*results.Cell{mk(1, false)}}
	b := &results.Run{Cells: []*results.Cell{mk(1.03, false)}}
	c := Build([]string{"a", "b"}, []*results.Run{a, b})
	if !c.Scenarios[0].Lines[0].Test[1].Significant {
		t.Fatal("a 3% shift of every trial is significant without a noise floor")
	}
	// b's control: its twin's trials over the control's range over ±5%.
	ctl := mk(1.03, true)
	for i := range ctl.Trials {
		ctl.Trials[i].RPS *= []float64{1, 1.05, 0.95, 1, 1.02, 0.98}[i]
	}
	b.Cells = append(b.Cells, ctl)
	c = Build([]string{"a", "b"}, []*results.Run{a, b})
	if c.NoiseFloor < 0.04 || c.Scenarios[0].Lines[0].Test[1].Significant {
		t.Errorf("noise floor %v, test %+v: want the 3%% difference called noise", c.NoiseFloor, c.Scenarios[0].Lines[0].Test[1])
	}
	// The same 3% the other way is a slowdown within the noise floor: no
	// regression, though every trial of one run beats every trial of the
	// other.
	if r := Build([]string{"b", "a"}, []*results.Run{b, a}).Regressions(); len(r) != 0 {
		t.Errorf("regressions %+v within the noise floor", r)
	}
	if r := Build([]string{"b", "a"}, []*results.Run{{Cells: b.Cells[:1]}, a}).Regressions(); len(r) != 1 {
		t.Errorf("regressions %+v without a noise floor, want the 3%% slowdown", r)
	}
}

// Runs measured by different load generators are compared as runs of
// different machines, and the comparison says so.
func TestDifferentGenerators(t *testing.T) {
	c := load(t)
	var b bytes.Buffer
	if err := Markdown(&b, c); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "different load generators") {
		t.Fatal("runs of one generator said to use different ones")
	}
	for i := range c.Env {
		if c.Env[i].Field == "load generator" {
			c.Env[i].Values[1], c.Env[i].Differs = "wrk 4.1.0-3+b2", true
		}
	}
	b.Reset()
	if err := Markdown(&b, c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "**The runs used different load generators.** Treat them as different machines") {
		t.Errorf("comparison of two generators' runs does not say so:\n%s", b.String())
	}
}

// From the faster run to the slower, go-nethttp is slower beyond doubt
// (every trial of one beats every trial of the other) and is the one
// regression; node-http's trials interleave and it is not. The other way
// round, nothing regressed.
func TestRegressions(t *testing.T) {
	got := loadRuns(t, "vm-16c", "laptop-4c").Regressions()
	if len(got) != 1 || got[0].Cell != "go-nethttp/plaintext/1cpu/c512" || got[0].Run != "laptop-4c" || got[0].Delta > -0.2 {
		t.Errorf("regressions %+v, want go-nethttp in laptop-4c", got)
	}
	if r := load(t).Regressions(); len(r) != 0 {
		t.Errorf("laptop to VM: regressions %+v, want none", r)
	}
}
