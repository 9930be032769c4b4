package compare

import (
	"bytes"
	"fmt"
	"slices"
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
	// go-nethttp: every VM trial beats every laptop trial, and the U test
	// says so, but +29.7% lies within the default drift allowance: "~".
	g := lines["go-nethttp/plaintext/1cpu/c512"]
	if !g.Test[1].Significant || g.Delta[1] < 0.29 || g.Delta[1] > 0.30 || g.Beyond[1] {
		t.Errorf("go-nethttp: %+v", g)
	}
	// node-http: the two runs' trials interleave: not significant.
	n := lines["node-http:single/plaintext/1cpu/c512"]
	if n.Test[1].Significant || n.Beyond[1] {
		t.Errorf("node-http: %+v, want not significant", n.Test[1])
	}
	if c.Floor.Source != FloorDefault || c.Floor.Width != DefaultDrift || c.Floor.Controls != 0 {
		t.Errorf("floor %+v, want the default drift allowance", c.Floor)
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
	if _, err := Markdown(&b, load(t)); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/compare.md", b.Bytes())
}

// Runs measured by different load generators are compared as runs of
// different machines, and the comparison says so.
func TestDifferentGenerators(t *testing.T) {
	c := load(t)
	var b bytes.Buffer
	if _, err := Markdown(&b, c); err != nil {
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
	if _, err := Markdown(&b, c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "**The runs used different load generators.** Treat them as different machines") {
		t.Errorf("comparison of two generators' runs does not say so:\n%s", b.String())
	}
}

// Two runs of one server, same code and settings, are not called
// different. The pairs are committed runs of the same cells on one
// machine: study 003's fastcgi cells a day apart (fastcgi-node c400 moved
// +32.6%, p 0.002) and study 000's Xeon runs half an hour apart
// (node-http:single c512 moved −16.5%, beyond both runs' own A/A floors of
// ±7.3% and ±6.8%).
func TestAATwoRunsOfOneServer(t *testing.T) {
	pairs := [][2]string{
		{"../../studies/003-fastcgi/runs/2c-amd-epyc-fastcgi", "../../studies/003-fastcgi/runs/2c-amd-epyc-fastcgi-limits"},
		{"../../studies/000-hello/runs/2c-intel-xeon-hello", "../../studies/000-hello/runs/2c-intel-xeon-hello-connections"},
	}
	for _, pair := range pairs {
		for _, order := range [][2]string{pair, {pair[1], pair[0]}} {
			var runs []*results.Run
			for _, dir := range order {
				r, err := results.Read(dir)
				if err != nil {
					t.Fatal(err)
				}
				runs = append(runs, r)
			}
			c := Build([]string{"a", "b"}, runs)
			lines, pSignificant := 0, 0
			for _, sc := range c.Scenarios {
				for _, l := range sc.Lines {
					lines++
					if l.Test[1].Significant {
						pSignificant++
					}
					if l.Beyond[1] {
						t.Errorf("%s vs %s: %s %+.1f%% called beyond noise (floor %+v)", order[0], order[1], l.Cell, 100*l.Delta[1], c.Floor)
					}
				}
			}
			if lines == 0 || pSignificant == 0 {
				t.Errorf("%s vs %s: %d lines, %d with p < 0.05: the pair no longer tests what the U test alone gets wrong", order[0], order[1], lines, pSignificant)
			}
			if len(c.Problems) != 0 {
				t.Errorf("%s vs %s: problems %+v", order[0], order[1], c.Problems)
			}
		}
	}
}

// cell is a closed-loop cell whose trials have these RPS.
func cell(target string, cpus int, rps ...float64) *results.Cell {
	c := &results.Cell{Target: target, Scenario: "plaintext", CPUs: cpus, Connections: 64, Status: results.OK}
	for _, x := range rps {
		c.Trials = append(c.Trials, results.Trial{Result: results.Result{RPS: x, LatencyMS: results.Latency{P99: 5}}})
	}
	return c
}

func scaled(f float64, xs ...float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = f * x
	}
	return out
}

var six = []float64{1000, 1010, 990, 1005, 995, 1002}

func kinds(c *Comparison) []ProblemKind {
	var out []ProblemKind
	for _, p := range c.Problems {
		out = append(out, p.Kind)
	}
	return out
}

func gateOf(a, b *results.Run) *Comparison { return Build([]string{"a", "b"}, []*results.Run{a, b}) }

// Without a floor of their own, two runs are judged against the default
// drift allowance: a 60% slowdown fails, an 11% one does not, and the
// percentage stands beside "~".
func TestGateDefaultAllowance(t *testing.T) {
	a := &results.Run{Cells: []*results.Cell{cell("go", 1, six...)}}
	slow := gateOf(a, &results.Run{Cells: []*results.Cell{cell("go", 1, scaled(0.4, six...)...)}})
	if k := kinds(slow); !slices.Equal(k, []ProblemKind{Regressed}) || slow.Problems[0].Delta > -0.5 {
		t.Errorf("60%% slower: %v", slow.Problems)
	}
	near := gateOf(a, &results.Run{Cells: []*results.Cell{cell("go", 1, scaled(0.89, six...)...)}})
	if len(near.Problems) != 0 || !near.Scenarios[0].Lines[0].Test[1].Significant {
		t.Errorf("11%% slower, p %v: problems %v", near.Scenarios[0].Lines[0].Test[1], near.Problems)
	}
	var b bytes.Buffer
	if _, err := Markdown(&b, near); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| ~ -11.0% ") {
		t.Errorf("no percentage beside ~:\n%s", b.String())
	}
}

// Every cell of B failed: nothing measured, not "only in A".
func TestGateAllFailed(t *testing.T) {
	a := &results.Run{Cells: []*results.Cell{cell("go", 1, six...), cell("node", 1, six...)}}
	b := &results.Run{Cells: []*results.Cell{
		{Target: "go", Scenario: "plaintext", CPUs: 1, Connections: 64, Status: results.Failed, Reason: "exited"},
		{Target: "node", Scenario: "plaintext", CPUs: 1, Connections: 64, Status: results.Failed, Reason: "exited"},
	}}
	c := gateOf(a, b)
	if k := kinds(c); !slices.Equal(k, []ProblemKind{NothingMeasured}) || c.Problems[0].Failed != 2 || c.Problems[0].Run != "b" {
		t.Errorf("problems %+v", c.Problems)
	}
	// One failed, one ok: the failed one is named.
	b.Cells[1] = cell("node", 1, six...)
	if k := kinds(gateOf(a, b)); !slices.Equal(k, []ProblemKind{CellFailed}) {
		t.Errorf("one failed: %v", k)
	}
}

// A cell measured in part (a killed or running run's) is compared with
// nothing and fails the gate as partial, in either run: not as failed, and
// not as a finished cell whose figures could pass.
func TestGatePartial(t *testing.T) {
	a := &results.Run{Cells: []*results.Cell{cell("go", 1, six...), cell("node", 1, six...)}}
	part := cell("node", 1, six[:2]...)
	part.Status, part.TrialsAsked = results.Partial, 6
	b := &results.Run{Cells: []*results.Cell{cell("go", 1, six...), part}}
	c := gateOf(a, b)
	if k := kinds(c); !slices.Equal(k, []ProblemKind{CellPartial}) || c.Problems[0].Done != 2 || c.Problems[0].Asked != 6 || c.Problems[0].Run != "b" {
		t.Errorf("partial in b: %+v", c.Problems)
	}
	if s := c.Problems[0].String(); !strings.Contains(s, "measured in part in b (2 of 6 trials)") {
		t.Errorf("partial worded %q", s)
	}
	for _, sc := range c.Scenarios {
		for _, l := range sc.Lines {
			if strings.HasPrefix(l.Cell, "node/") && len(l.Delta) > 1 && l.Delta[1] != 0 {
				t.Errorf("the partial cell was compared: %+v", l)
			}
		}
	}
	c = gateOf(b, a)
	if k := kinds(c); !slices.Equal(k, []ProblemKind{CellPartial}) || c.Problems[0].Run != "a" {
		t.Errorf("partial in the first run: %+v", c.Problems)
	}
}

// B empty, or every cell skipped: nothing measured.
func TestGateEmptyOrSkipped(t *testing.T) {
	a := &results.Run{Cells: []*results.Cell{cell("go", 1, six...)}}
	if c := gateOf(a, &results.Run{}); !slices.Equal(kinds(c), []ProblemKind{NothingMeasured}) || c.Problems[0].Cells != 0 {
		t.Errorf("empty: %+v", c.Problems)
	}
	skipped := &results.Run{Cells: []*results.Cell{{Target: "go", Scenario: "plaintext", CPUs: 1, Connections: 64, Status: results.Skipped, Reason: "no image"}}}
	if c := gateOf(a, skipped); !slices.Equal(kinds(c), []ProblemKind{NothingMeasured}) || c.Problems[0].Skipped != 1 {
		t.Errorf("skipped: %+v", c.Problems)
	}
}

// B measured by another generator, or at other core counts, shares no
// cell with A: not comparable, naming the axis.
func TestGateNotComparable(t *testing.T) {
	a := &results.Run{Cells: []*results.Cell{cell("go", 1, six...)}}
	wrk := cell("go", 1, six...)
	wrk.Generator = &results.Generator{Name: "wrk"}
	for name, tc := range map[string]struct {
		b    *results.Cell
		axis string
	}{"generator": {wrk, "generator"}, "cores": {cell("go", 2, six...), "cpus"}} {
		c := gateOf(a, &results.Run{Cells: []*results.Cell{tc.b}})
		if !slices.Equal(kinds(c), []ProblemKind{NotComparable}) || len(c.Problems[0].Differs) != 1 || c.Problems[0].Differs[0].Axis != tc.axis {
			t.Errorf("%s: %+v", name, c.Problems)
		}
	}
}

// B 5× slower with one trial a side still fails: the floor, not the U
// test (which cannot reach significance), decides.
func TestGateOneTrial(t *testing.T) {
	a := &results.Run{Cells: []*results.Cell{cell("go", 1, 1000)}}
	c := gateOf(a, &results.Run{Cells: []*results.Cell{cell("go", 1, 200)}})
	if !slices.Equal(kinds(c), []ProblemKind{Regressed}) {
		t.Errorf("5× slower, 1 trial: %+v", c.Problems)
	}
}

// B 50% slower with a noisy control of its own: a floor of ±344% clears
// nothing, and the gate fails saying so.
func TestGateFloorTooWide(t *testing.T) {
	a := &results.Run{Cells: []*results.Cell{cell("go", 1, 1000, 1000, 1000)}}
	twin := cell("go", 1, 500, 500, 500)
	ctl := cell("go", 1, 500, 112.6, 500)
	ctl.Control = true
	c := gateOf(a, &results.Run{Cells: []*results.Cell{twin, ctl}})
	if c.Floor.Source != FloorControls || c.Floor.Width < 3.4 {
		t.Fatalf("floor %+v, want B's control's ±344%%", c.Floor)
	}
	if !slices.Contains(kinds(c), FloorTooWide) || slices.Contains(kinds(c), Regressed) {
		t.Errorf("problems %+v", c.Problems)
	}
}

// Fixed-rate cells are judged on latency: RPS is the offered rate, the
// same in both runs, while p99 grew 20×.
func TestGateFixedRateLatency(t *testing.T) {
	fixed := func(p99 float64) *results.Cell {
		c := cell("go", 1, 1000, 1000, 1000)
		c.Rate = 1000
		for i := range c.Trials {
			c.Trials[i].LatencyMS.P99 = p99 * (1 + 0.01*float64(i))
		}
		return c
	}
	c := gateOf(&results.Run{Cells: []*results.Cell{fixed(2)}}, &results.Run{Cells: []*results.Cell{fixed(40)}})
	if !slices.Equal(kinds(c), []ProblemKind{Regressed}) || c.Problems[0].Metric != LatencyP99 || c.Scenarios[0].Metric != LatencyP99 {
		t.Errorf("p99 20× worse at a fixed rate: %+v", c.Problems)
	}
	if r := gateOf(&results.Run{Cells: []*results.Cell{fixed(40)}}, &results.Run{Cells: []*results.Cell{fixed(2)}}); len(r.Problems) != 0 {
		t.Errorf("p99 20× better: %+v", r.Problems)
	}
}

// A machine floor, narrower than the default, calls a 20% slowdown one;
// the runs' own controls widen it only when wider.
func TestMachineFloor(t *testing.T) {
	a := &results.Run{Cells: []*results.Cell{cell("go", 1, six...)}}
	b := &results.Run{Cells: []*results.Cell{cell("go", 1, scaled(0.8, six...)...)}}
	if c := gateOf(a, b); len(c.Problems) != 0 {
		t.Errorf("20%% slower within the default allowance: %+v", c.Problems)
	}
	c := Build([]string{"a", "b"}, []*results.Run{a, b}, WithMachineFloor(Floor{Width: 0.1, From: "x and y"}))
	if c.Floor.Source != FloorMachine || !slices.Equal(kinds(c), []ProblemKind{Regressed}) {
		t.Errorf("machine floor ±10%%: floor %+v, problems %+v", c.Floor, c.Problems)
	}
	d, err := Drift(a, b)
	if err != nil || d < 0.24 || d > 0.26 {
		t.Errorf("drift %v, %v: want 1/0.8 − 1", d, err)
	}
	other := &results.Run{Environment: results.Environment{CPUModel: "other"}, Cells: b.Cells}
	if _, err := Drift(a, other); err == nil {
		t.Error("drift between two machines accepted")
	}
}

// A comparison of more cells, gate problems or unmatched cells than its
// caps shows the first of each and says at its top what it left out (the
// command says it on stderr); the geomean is still of every cell.
func TestMarkdownCapped(t *testing.T) {
	a, b := &results.Run{}, &results.Run{}
	for i := range 5 {
		a.Cells = append(a.Cells, cell(fmt.Sprintf("t%d", i), 1, six...), cell(fmt.Sprintf("only%d", i), 1, six...))
		b.Cells = append(b.Cells, cell(fmt.Sprintf("t%d", i), 1, scaled(0.4, six...)...))
	}
	c := gateOf(a, b)
	if len(c.Problems) != 5 || len(c.Unmatched) != 5 {
		t.Fatalf("%d problems, %d unmatched; want 5 of each", len(c.Problems), len(c.Unmatched))
	}
	var whole bytes.Buffer
	if left, err := Markdown(&whole, c); err != nil || len(left) != 0 {
		t.Fatalf("within the default caps: left %q, %v", left, err)
	}
	var capped bytes.Buffer
	left, err := Caps{Lines: 2, Problems: 1, Unmatched: 3}.markdown(&capped, c)
	if err != nil {
		t.Fatal(err)
	}
	md := capped.String()
	top, _, _ := strings.Cut(md, "## Environment")
	if len(left) != 3 || !strings.Contains(top, "**Not all of this comparison is shown.**") || !strings.Contains(top, "3 of the 5 compared cells are left out") {
		t.Errorf("left %q; top of the page:\n%s", left, top)
	}
	if n := strings.Count(md, "| t"); n != 2 {
		t.Errorf("%d cell lines shown, want 2:\n%s", n, md)
	}
	if n := strings.Count(md, "- **regressed**"); n != 1 {
		t.Errorf("%d problems listed, want 1:\n%s", n, md)
	}
	if n := strings.Count(md, ": only in "); n != 3 {
		t.Errorf("%d unmatched cells listed, want 3:\n%s", n, md)
	}
	geo := func(s string) string {
		_, g, _ := strings.Cut(s, "**geomean**")
		g, _, _ = strings.Cut(g, "\n")
		return g
	}
	if geo(md) != geo(whole.String()) {
		t.Errorf("the capped geomean %q is not every cell's %q", geo(md), geo(whole.String()))
	}
}
