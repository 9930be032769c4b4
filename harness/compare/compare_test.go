package compare

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/axis"
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
// different. The pairs are copies (testdata/aa) of runs of the same cells
// on one machine, committed by studies: study 003's fastcgi cells a day
// apart (fastcgi-node c400 moved
// +32.6%, p 0.002) and study 000's Xeon runs half an hour apart
// (node-http:single c512 moved −16.5%, beyond both runs' own A/A floors of
// ±7.3% and ±6.8%).
func TestAATwoRunsOfOneServer(t *testing.T) {
	pairs := [][2]string{
		{"testdata/aa/fastcgi", "testdata/aa/fastcgi-limits"},
		{"testdata/aa/hello", "testdata/aa/hello-connections"},
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
			// The runs' matrices differ in part: a cell of the first
			// missing from the second is named, nothing else.
			for _, p := range c.Problems {
				if p.Kind != CellMissing {
					t.Errorf("%s vs %s: problem %+v", order[0], order[1], p)
				}
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
	if s := c.Problems[0].String(); !strings.Contains(s, `measured in part in run "b" (2 of 6 trials)`) {
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

// B measured by another generator, at other core counts, or at another
// value of a declared axis, shares no cell with A: not comparable, naming
// the axis.
func TestGateNotComparable(t *testing.T) {
	a := &results.Run{Cells: []*results.Cell{cell("go", 1, six...)}}
	wrk := cell("go", 1, six...)
	wrk.Generator = &results.Generator{Name: "wrk"}
	axis.Register(axis.Axis{Name: "flavour", Doc: "d", Example: "[sour]", Default: "plain", Check: func(string) string { return "" }})
	t.Cleanup(func() { axis.Unregister("flavour") })
	sour := cell("go", 1, six...)
	sour.Axes = []results.KV{{Name: "flavour", Value: "sour"}}
	for name, tc := range map[string]struct {
		b    *results.Cell
		axis string
	}{"generator": {wrk, "generator"}, "cores": {cell("go", 2, six...), "cpus"}, "a declared axis": {sour, "flavour"}} {
		c := gateOf(a, &results.Run{Cells: []*results.Cell{tc.b}})
		if !slices.Equal(kinds(c), []ProblemKind{NotComparable}) || len(c.Problems[0].Differs) != 1 || c.Problems[0].Differs[0].Axis != tc.axis {
			t.Errorf("%s: %+v", name, c.Problems)
		}
	}
}

// B 5× slower with one trial a side (or three, with which the U test
// cannot reach significance either) cannot be told: no regression, the
// cell and the summary say so. With four a side the same change fails.
func TestGateOneTrial(t *testing.T) {
	for _, n := range []int{1, 3} {
		a := &results.Run{Cells: []*results.Cell{cell("go", 1, six[:n]...), cell("node", 1, six[:n]...)}}
		b := &results.Run{Cells: []*results.Cell{cell("go", 1, scaled(0.2, six[:n]...)...), cell("node", 1, scaled(0.5, six[:n]...)...)}}
		c := gateOf(a, b)
		if len(c.Problems) != 0 || c.CannotTell[1] != 2 || c.Scenarios[0].Lines[0].Told[1] {
			t.Errorf("5× slower, %d trial(s): problems %+v, cannot tell %v", n, c.Problems, c.CannotTell)
		}
		var md bytes.Buffer
		if _, err := Markdown(&md, c); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{fmt.Sprintf("| cannot tell: n=%d (-80.0%%) ", n), "**Cannot tell: 2 of 2 cells in run \"b\", against the first run."} {
			if !strings.Contains(md.String(), want) {
				t.Errorf("%d trial(s): no %q in\n%s", n, want, md.String())
			}
		}
		// A capped page counts every line, not only those it shows.
		md.Reset()
		if _, err := (Caps{Lines: 1, Problems: 1, Unmatched: 1}).markdown(&md, c); err != nil || !strings.Contains(md.String(), "2 of 2 cells") {
			t.Errorf("capped: %v\n%s", err, md.String())
		}
	}
	a := &results.Run{Cells: []*results.Cell{cell("go", 1, six[:4]...)}}
	c := gateOf(a, &results.Run{Cells: []*results.Cell{cell("go", 1, scaled(0.2, six[:4]...)...)}})
	if !slices.Equal(kinds(c), []ProblemKind{Regressed}) || c.CannotTell[1] != 0 || CannotTellText(c) != "" {
		t.Errorf("5× slower, 4 trials: %+v", c.Problems)
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
	fixed := func(p99 float64) *results.Cell { return fixedRate(p99, 1) }
	c := gateOf(&results.Run{Cells: []*results.Cell{fixed(2)}}, &results.Run{Cells: []*results.Cell{fixed(40)}})
	if !slices.Equal(kinds(c), []ProblemKind{Regressed}) || c.Problems[0].Metric != LatencyP99 || c.Scenarios[0].Metric != LatencyP99 {
		t.Errorf("p99 20× worse at a fixed rate: %+v", c.Problems)
	}
	if r := gateOf(&results.Run{Cells: []*results.Cell{fixed(40)}}, &results.Run{Cells: []*results.Cell{fixed(2)}}); len(r.Problems) != 0 {
		t.Errorf("p99 20× better: %+v", r.Problems)
	}
}

// fixedRate is a cell at 1,000 requests/s over 6 trials of 3 s each, with
// this p99 and this share of the rate achieved.
func fixedRate(p99, share float64) *results.Cell {
	c := cell("go", 1, six...)
	c.Rate = 1000
	for i := range c.Trials {
		tr := &c.Trials[i]
		tr.LatencyMS.P99 = p99 * (1 + 0.01*float64(i))
		tr.Seconds, tr.Requests = 3, int64(3*share*float64(c.Rate))
		tr.RPS = float64(tr.Requests) / tr.Seconds
	}
	return c
}

// A fixed-rate cell that held its rate in the first run and not in the
// second regresses, whatever its latency did; one that fell short in
// both, or held it in the second only, does not on that account.
func TestGateRateNotHeld(t *testing.T) {
	run := func(c *results.Cell) *results.Run { return &results.Run{Cells: []*results.Cell{c}} }
	c := gateOf(run(fixedRate(2, 1)), run(fixedRate(2, 0.4)))
	if !slices.Equal(kinds(c), []ProblemKind{Regressed}) {
		t.Fatalf("rate cut to 40%%: %+v", c.Problems)
	}
	p := c.Problems[0]
	if p.Metric != AchievedRate || p.Short != 6 || p.Trials != 6 || p.Rate != 1000 || p.Achieved != 400 || p.Delta > -0.59 || p.Delta < -0.61 {
		t.Errorf("rate cut to 40%%: %+v", p)
	}
	if want := `go/plaintext/1cpu/c64/r1000 in run "b": the fixed rate of 1,000/s not held: 400/s achieved (-60.0%), 6 of 6 trial(s) short of it, where the first run held it`; p.String() != want {
		t.Errorf("worded %q, want %q", p.String(), want)
	}
	if rs := c.Regressions(); len(rs) != 1 || rs[0].Metric != AchievedRate {
		t.Errorf("regressions %+v", rs)
	}
	for name, pair := range map[string][2]float64{"short in both": {0.5, 0.4}, "held in the second only": {0.4, 1}, "held in both": {1, 0.995}} {
		if c := gateOf(run(fixedRate(2, pair[0])), run(fixedRate(2, pair[1]))); len(c.Problems) != 0 {
			t.Errorf("%s: %+v", name, c.Problems)
		}
	}
}

// B without 10 of A's 11 cells fails the gate naming each: a cell that
// vanished is not a cell that passed.
func TestGateMissing(t *testing.T) {
	a, b := &results.Run{}, &results.Run{}
	for i := range 11 {
		a.Cells = append(a.Cells, cell(fmt.Sprintf("t%d", i), 1, six...))
	}
	b.Cells = append(b.Cells, cell("t0", 1, six...), cell("new", 1, six...))
	c := gateOf(a, b)
	if len(c.Problems) != 10 {
		t.Fatalf("problems %+v, want 10", c.Problems)
	}
	for i, p := range c.Problems {
		if want := fmt.Sprintf("t%d/plaintext/1cpu/c64", i+1); p.Kind != CellMissing || p.Cell != want || p.Run != "b" {
			t.Errorf("problem %d: %+v, want %s missing", i, p, want)
		}
	}
	if s := c.Problems[0].String(); s != `t1/plaintext/1cpu/c64: ok in the first run, not in run "b" at all` {
		t.Errorf("worded %q", s)
	}
	// A cell only the later run has is no problem.
	if c := gateOf(&results.Run{Cells: b.Cells[:1]}, b); len(c.Problems) != 0 {
		t.Errorf("a new cell: %+v", c.Problems)
	}
}

// A run labelled like one of its targets (the README's "mine") is called
// a run, quoted, wherever the comparison names it.
func TestRunNamedLikeTarget(t *testing.T) {
	twin, ctl := cell("mine", 1, six...), cell("mine", 1, scaled(1.5, six...)...)
	ctl.Control = true
	a := &results.Run{Cells: []*results.Cell{cell("mine", 1, six...)}}
	b := &results.Run{Cells: []*results.Cell{twin, ctl}}
	c := Build([]string{"theirs", "mine"}, []*results.Run{a, b})
	var md bytes.Buffer
	if _, err := Markdown(&md, c); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`the A/A control of run "mine"`, `| vs run "theirs" |`, `| run "mine" `, `# Comparison of runs "theirs", "mine"`} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("no %q in\n%s", want, md.String())
		}
	}
	for _, bad := range []string{"control of mine", "vs theirs", "only in mine"} {
		if strings.Contains(md.String(), bad) {
			t.Errorf("%q in\n%s", bad, md.String())
		}
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
	if len(c.Problems) != 10 || len(c.Unmatched) != 5 {
		t.Fatalf("%d problems, %d unmatched; want 10 (5 missing, 5 regressed) and 5", len(c.Problems), len(c.Unmatched))
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
	if n := strings.Count(md, "\n- **"); n != 1 {
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

// A results.json whose rps was tripled without its requests and seconds
// would move a ratio threefold: Read refuses it, naming the file, the
// cell, the trial and the figure. The committed runs read.
func TestReadRefusesContradiction(t *testing.T) {
	run, err := results.Read("testdata/laptop-4c")
	if err != nil {
		t.Fatal(err)
	}
	for i := range run.Cells[1].Trials {
		run.Cells[1].Trials[i].RPS *= 3
	}
	dir := t.TempDir()
	if err := results.Write(dir, run); err != nil {
		t.Fatal(err)
	}
	_, err = Read(dir)
	want := dir + "/results.json: cell 2 (node-http:single/plaintext/1cpu/c512): trial 1: rps 60000 where its other figures make it 20000"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("tripled rps: %v, want %q", err, want)
	}
	committed, _ := filepath.Glob("../../results/*/results.json")
	studies, _ := filepath.Glob("../../studies/*/runs/*/results.json")
	for _, f := range append(append(committed, studies...), "testdata/laptop-4c/results.json", "testdata/vm-16c/results.json") {
		if _, err := Read(filepath.Dir(f)); err != nil {
			t.Errorf("committed run refused: %v", err)
		}
	}
	if len(committed) == 0 || len(studies) == 0 {
		t.Errorf("no committed run found: %d, %d", len(committed), len(studies))
	}
}
