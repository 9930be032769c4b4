package study

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/results"
)

const good = `study: "000"
title: t
seed: s.txt
language: fr
setup:
  tool: bombardier
  tool_version: "1.1.1"
  requests: 1000000
  connections: [512, 1024]
  pinning: together
  cores: 1
  os: linux
  servers: [{name: Node, target: node-http, runtime: "node v18"}]
  statistic: median
  runs: 3
runs: [runs/a]
claims:
  - id: doubling
    quote: "x4"
    english: "times four"
    unit: req/s
    test: {metric: rps, expect: about, value: 4, tolerance: 0.25, pairs: [{a: A, b: B}]}
`

func TestParsePositions(t *testing.T) {
	if _, err := Parse("study.yaml", []byte(good)); err != nil {
		t.Fatalf("a valid file: %v", err)
	}
	cases := []struct{ name, from, to, want string }{
		{"unknown key", "unit: req/s", "unit: req/s\n    units: x", "study.yaml:22:5: claims[0].units: unknown key"},
		{"bad oneof", "pinning: together", "pinning: shared", "study.yaml:10:12: setup.pinning: want one of apart, together, none"},
		{"missing required", "    unit: req/s\n", "", "study.yaml:18:5: claims[0].unit: missing"},
		{"french without english", `    english: "times four"` + "\n", "", "study.yaml:18:5: claims[0]: the study is in fr"},
		{"about without tolerance", ", tolerance: 0.25", "", "claims[0].test.tolerance: about needs"},
		{"not an integer", "cores: 1", "cores: one", "study.yaml:11:10: setup.cores: want an integer"},
		{"string as number", `study: "000"`, "study: 000", "study.yaml:1:8: study: want a string"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := strings.Replace(good, c.from, c.to, 1)
			_, err := Parse("study.yaml", []byte(in))
			var es matrix.Errors
			if !errors.As(err, &es) {
				t.Fatalf("want positioned errors, got %v", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %q, want it to contain %q", err, c.want)
			}
		})
	}
}

// cell is an ok cell whose trials read rps; pinning together, 1 core, c512.
func cell(target string, conns int, control bool, rps ...float64) *results.Cell {
	c := &results.Cell{Target: target, Scenario: "plaintext", CPUs: 1, Connections: conns, Pinning: "together",
		Control: control, Status: results.OK, Image: &results.Image{RuntimeVersion: "node v18.20.4"},
		Generator: &results.Generator{Name: "bombardier", Version: "v1.1.1"}}
	for _, r := range rps {
		c.Trials = append(c.Trials, results.Trial{Result: results.Result{RPS: r}})
	}
	c.Summary = &results.Summary{}
	return c
}

func run(name string, cells ...*results.Cell) *Run {
	r := &results.Run{Cells: cells}
	r.Matrix.Load = results.LoadSettings{Requests: 1000000, Trials: 3, Aggregate: results.AggregateMedian}
	r.Environment.StartedAt = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	r.Environment.HarnessVersion = "abc1234"
	r.Environment.OS, r.Environment.CPUModel, r.Environment.OnlineCPUs = "Debian GNU/Linux 12 (bookworm)", "AMD EPYC", 2
	return &Run{Name: name, Run: r}
}

func claimOn(expect string, value, tol float64, a, b string) *File {
	f, err := Parse("study.yaml", []byte(good))
	if err != nil {
		panic(err)
	}
	f.Claims[0].Test = &Test{Metric: "rps", Expect: expect, Value: value, Tolerance: tol, Pairs: []Pair{{A: a, B: b}}}
	return f
}

const (
	c1024 = "node-http/plaintext/1cpu/c1024/together"
	c512  = "node-http/plaintext/1cpu/c512/together"
)

// A run with a control of c512 that moved at most 5% (floor ×1.05).
func withFloor(a ...float64) *Run {
	return run("runs/a",
		cell("node-http", 1024, false, a...),
		cell("node-http", 512, false, 100, 100, 100),
		cell("node-http", 512, true, 100, 105, 96))
}

func TestVerdicts(t *testing.T) {
	cases := []struct {
		name       string
		f          *File
		r          *Run
		want       Verdict
		wantReason string
	}{
		{"about 4, measured 4", claimOn("about", 4, 0.25, c1024, c512), withFloor(400, 410, 390), Confirmed, ""},
		{"about 4, measured 0.9", claimOn("about", 4, 0.25, c1024, c512), withFloor(90, 91, 89), Contradicted, ""},
		{"greater, within the floor", claimOn("greater", 0, 0, c1024, c512), withFloor(103, 102, 104), WithinNoise, ""},
		{"greater, beyond it", claimOn("greater", 0, 0, c1024, c512), withFloor(120, 121, 119), Confirmed, ""},
		{"less, beyond it the other way", claimOn("less", 0, 0, c1024, c512), withFloor(120, 121, 119), Contradicted, ""},
		{"no control", claimOn("greater", 0, 0, c1024, c512),
			run("runs/a", cell("node-http", 1024, false, 120), cell("node-http", 512, false, 100)), NotAsStated, "A/A control"},
		{"a cell no run has", claimOn("greater", 0, 0, "nope/plaintext/1cpu/c1/together", c512), withFloor(1, 1, 1), NotMeasured, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j := Judge(c.f, []*Run{c.r})[0]
			if j.Verdict != c.want || !strings.Contains(j.Why, c.wantReason) {
				t.Errorf("got %s (%s), want %s (%s)", j.Verdict, j.Why, c.want, c.wantReason)
			}
		})
	}
}

// Every setup item that differs makes the claim not testable as stated,
// however far the ratio lies beyond the floor.
func TestChecklistMismatch(t *testing.T) {
	edits := map[string]func(r *Run){
		ItemLoad:      func(r *Run) { r.Matrix.Load.Requests = 0; r.Matrix.Load.Duration = results.Duration(4 * time.Second) },
		ItemPinning:   func(r *Run) { r.Cells[0].Pinning, r.Cells[1].Pinning, r.Cells[2].Pinning = "", "", "" },
		ItemCores:     func(r *Run) { r.Cells[0].CPUs, r.Cells[1].CPUs, r.Cells[2].CPUs = 2, 2, 2 },
		ItemServers:   func(r *Run) { r.Cells[0].Image.RuntimeVersion = "node v8.9.4" },
		ItemStatistic: func(r *Run) { r.Matrix.Load.Aggregate = results.AggregateBest },
		ItemTool:      func(r *Run) { r.Cells[0].Generator = &results.Generator{Name: "wrk"} },
		ItemOS:        func(r *Run) { r.Environment.OS = "FreeBSD 14" },
	}
	for name, edit := range edits {
		t.Run(name, func(t *testing.T) {
			r := withFloor(400, 410, 390)
			edit(r)
			f := claimOn("about", 4, 0.25, c1024, c512)
			f.Setup.Runs = 3
			j := Judge(f, []*Run{r})[0]
			if name == ItemOS {
				// no run's machine ran the study's system: nothing here can meet it
				if j.Verdict != NotHere || !strings.Contains(j.Why, "os: the study ran linux") {
					t.Errorf("got %s (%s), want not testable here naming os", j.Verdict, j.Why)
				}
				return
			}
			if name == ItemPinning || name == ItemCores || name == ItemTool {
				// the cell's id changes with these: the pair is no longer there
				if j.Verdict != NotMeasured {
					t.Errorf("got %s, want not measured", j.Verdict)
				}
				return
			}
			if j.Verdict != NotAsStated || !strings.Contains(j.Why, name) {
				t.Errorf("got %s (%s), want not testable as stated naming %s", j.Verdict, j.Why, name)
			}
		})
	}
}

// The floor reads a ratio and its inverse alike.
func TestFloorSymmetric(t *testing.T) {
	f := Floor{Factor: 1.75}
	for _, r := range []float64{0.576, 1 / 0.576, 1.74, 1 / 1.74} {
		if f.Beyond(r) != f.Beyond(1/r) {
			t.Errorf("%.3f and its inverse read differently", r)
		}
	}
	if f.Beyond(0.576) {
		t.Errorf("0.576 is within a ±75%% floor read symmetrically (1/0.576 = %.3f)", 1/0.576)
	}
	r := withFloor(1, 1, 1)
	got, ok := floorFor(r, "rps", "median", c512, "")
	// twin ÷ control: 1, 100/105, 100/96; 100/105 read as its inverse is the widest
	if !ok || math.Abs(got.Factor-1.05) > 1e-9 {
		t.Errorf("floor %v, want 1.05 (100/105 read as its inverse)", got)
	}
}

// A hand-written not_testable_here is checked against the runs: where
// they measured the pair on a setup this machine meets, it is an error at
// its line; where they skipped a cell, the verdict is derived from the
// skip and its reason, with the figures measured instead.
func TestNotTestableHereChecked(t *testing.T) {
	in := strings.Replace(good, `    unit: req/s`, `    unit: req/s`+"\n"+`    not_testable_here: "no .NET SDK"`, 1)
	f, err := Parse("study.yaml", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	f.Claims[0].Test = &Test{Metric: "rps", Expect: "greater", Pairs: []Pair{{A: c1024, B: c512}}}
	js := Judge(f, []*Run{withFloor(120, 121, 119)})
	if err := Errors(js); err == nil || !strings.Contains(err.Error(), "study.yaml:22:24: claims[0].not_testable_here: claim doubling: the runs contradict it") {
		t.Errorf("a reason the runs contradict: %v", err)
	}
	r := withFloor(120, 121, 119)
	r.Cells = append(r.Cells, &results.Cell{Target: "aspnetcore", Scenario: "plaintext", CPUs: 1, Connections: 512, Pinning: "together",
		Status: results.Skipped, Reason: "base image aspnet unavailable"})
	f.Claims[0].Test.Pairs = append(f.Claims[0].Test.Pairs, Pair{A: "aspnetcore/plaintext/1cpu/c512/together", B: c512})
	j := Judge(f, []*Run{r})[0]
	if j.Verdict != NotHere || !strings.Contains(j.Why, "skipped in runs/a: base image aspnet unavailable") || len(j.Measures) != 1 || j.Err != nil {
		t.Errorf("got %s (%s) with %d measures, err %v; want not testable here from the skip, the other pair measured instead", j.Verdict, j.Why, len(j.Measures), j.Err)
	}
}

// Without a control a figure has no floor, so it reads nothing.
func TestNoFloorNoReading(t *testing.T) {
	r := run("runs/a", cell("node-http", 1024, false, 400, 410, 390), cell("node-http", 512, false, 100, 100, 100))
	j := Judge(claimOn("about", 4, 0.25, c1024, c512), []*Run{r})[0]
	if len(j.Measures) != 1 || j.Measures[0].Reads != "" {
		t.Errorf("reads %q without a floor", j.Measures[0].Reads)
	}
}

// A generator-bound trial, or a tool version other than the study's (or
// none recorded), is a checklist mismatch.
func TestGeneratorAndVersionItems(t *testing.T) {
	r := withFloor(400, 410, 390)
	r.Cells[0].Summary.GeneratorBound = 1
	j := Judge(claimOn("about", 4, 0.25, c1024, c512), []*Run{r})[0]
	if j.Verdict != NotAsStated || !strings.Contains(j.Why, ItemGenerator) {
		t.Errorf("generator-bound: %s (%s)", j.Verdict, j.Why)
	}
	f := claimOn("about", 4, 0.25, c1024, c512)
	r = withFloor(400, 410, 390)
	r.Cells[0].Generator.Version = ""
	j = Judge(f, []*Run{r})[0]
	if j.Verdict != NotAsStated || !strings.Contains(j.Why, ItemTool) {
		t.Errorf("no recorded version: %s (%s)", j.Verdict, j.Why)
	}
}

// A median beyond the A/A floor whose own interval reaches across the
// claim's value reads within noise (study 002's fasthttp server at
// records=500: 1.12×, 0.84…1.34, floor ±10.8%); with the interval on the
// claim's side it reads as the floor says, and a best-over-best ratio,
// which has no interval, is read by the floor alone.
func TestIntervalAgrees(t *testing.T) {
	greater := &Test{Expect: "greater"}
	floor := Floor{Factor: 1.108}
	for _, tc := range []struct {
		r    Ratio
		want Verdict
	}{
		{Ratio{Value: 1.12, Lo: 0.84, Hi: 1.34, N: 6, HasCI: true}, WithinNoise},
		{Ratio{Value: 1.12, Lo: 1.02, Hi: 1.34, N: 6, HasCI: true}, Confirmed},
		{Ratio{Value: 0.80, Lo: 0.70, Hi: 1.05, N: 6, HasCI: true}, WithinNoise},
		{Ratio{Value: 0.80, Lo: 0.70, Hi: 0.85, N: 6, HasCI: true}, Contradicted},
		{Ratio{Value: 1.12, Lo: 1.02, Hi: 1.34, N: 4}, Confirmed}, // min…max below six pairs
		{Ratio{Value: 1.12, Lo: 0.90, Hi: 1.34, N: 4}, WithinNoise},
		{Ratio{Value: 1.12, Lo: 1.12, Hi: 1.12, N: 1}, Confirmed},
	} {
		if got := intervalAgrees(greater, tc.r, reads(greater, tc.r.Value, floor)); got != tc.want {
			t.Errorf("%+v against > 1 beyond ±10.8%%: %s, want %s", tc.r, got, tc.want)
		}
	}
}
