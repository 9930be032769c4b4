package analysis

import (
	"github.com/webbench/webbench/harness/results"

	"math"
	"testing"
)

func cell(target string, cpus int, rps ...float64) *results.Cell {
	c := &results.Cell{Target: target, Scenario: "plaintext", CPUs: cpus, Connections: 512, Status: results.OK}
	for _, x := range rps {
		c.Trials = append(c.Trials, results.Trial{Result: results.Result{RPS: x}})
	}
	c.Summary = Summarize(c.Trials, "median")
	return c
}

func TestRowsSignificance(t *testing.T) {
	run := &results.Run{Cells: []*results.Cell{
		cell("a", 1, 100, 101, 102, 99, 100, 101), // CI 99…102
		cell("b", 1, 90, 91, 92, 89, 90, 91),      // CI 89…92: clearly slower
		cell("c", 1, 98, 100, 103, 97, 99, 101),   // overlaps a
		cell("d", 1, 50),                          // one trial
	}}
	rows := Rows(run, "plaintext")
	got := map[string]*Row{}
	for _, r := range rows {
		got[r.Target] = r
	}
	if rows[0].Target != "a" || got["a"].Versus != "" || got["a"].VsFastest != 1 {
		t.Errorf("fastest row = %+v", rows[0])
	}
	if got["b"].Versus != "" || math.Abs(got["b"].VsFastest-90.5/100.5) > 1e-12 {
		t.Errorf("b: %q %v, want a significant 0.9", got["b"].Versus, got["b"].VsFastest)
	}
	if got["c"].Versus != "~" {
		t.Errorf("c: %q, want ~ (intervals overlap)", got["c"].Versus)
	}
	if got["d"].Versus != "?" {
		t.Errorf("d: %q, want ? (one trial)", got["d"].Versus)
	}
}

// An unpinned cell's tables show the cores its target could run on (every
// core of its recorded cpuset), not the cpus value that names the cell;
// apart and together cells show their cpus value.
func TestCores(t *testing.T) {
	for _, tc := range []struct {
		pinning, cpuset string
		cpus, want      int
	}{
		{"", "0", 1, 1},
		{"together", "0", 1, 1},
		{"none", "0-1", 1, 2},
		{"none", "0-3", 2, 4},
		{"none", "", 1, 1}, // results that predate the recorded cpuset
	} {
		c := cell("go", tc.cpus, 100)
		c.Pinning, c.CPUSet = tc.pinning, tc.cpuset
		if got := RowOf(&results.Run{Cells: []*results.Cell{c}}, c).Cores; got != tc.want {
			t.Errorf("pinning %q cpuset %q cpus %d: row shows %d cores, want %d", tc.pinning, tc.cpuset, tc.cpus, got, tc.want)
		}
		ceil := results.Ceiling{CPUs: tc.cpus, Pinning: tc.pinning, CPUSet: tc.cpuset}
		if got := ceil.Cores(); got != tc.want {
			t.Errorf("pinning %q cpuset %q cpus %d: ceiling shows %d cores, want %d", tc.pinning, tc.cpuset, tc.cpus, got, tc.want)
		}
	}
}

func TestScaling(t *testing.T) {
	run := &results.Run{Cells: []*results.Cell{
		cell("dotnet", 1, 10000), cell("dotnet", 4, 46000),
		cell("node", 1, 5000), cell("node", 4, 16500),
	}}
	sc := ScalingRows(Rows(run, "plaintext"))
	if len(sc) != 2 {
		t.Fatalf("scaling rows = %+v", sc)
	}
	for _, s := range sc {
		p := s.Points[1]
		switch s.Target {
		case "dotnet":
			if p.CPUs != 4 || math.Abs(p.SpeedUp-4.6) > 1e-12 || math.Abs(p.Efficiency-1.15) > 1e-12 {
				t.Errorf("dotnet: %+v", p)
			}
		case "node":
			if math.Abs(p.SpeedUp-3.3) > 1e-12 || math.Abs(p.Efficiency-0.825) > 1e-12 {
				t.Errorf("node: %+v", p)
			}
		}
	}
	if ScalingRows(Rows(&results.Run{Cells: []*results.Cell{cell("x", 1, 1)}}, "plaintext")) != nil {
		t.Error("a single core count made a scaling table")
	}
}

// A cross-check pairs each cell with its twin measured by the cross-check's
// generator, says whether they agree, and names targets whose order flips.
func TestCrosschecks(t *testing.T) {
	by := func(c *results.Cell, gen string) *results.Cell { c.Generator = &results.Generator{Name: gen}; return c }
	run := &results.Run{Matrix: results.Settings{Crosscheck: "wrk"}, Cells: []*results.Cell{
		cell("a", 1, 100, 101, 99, 100, 102, 98), by(cell("a", 1, 80, 81, 79, 80, 82, 78), "wrk"),
		cell("b", 1, 90, 91, 89, 90, 92, 88), by(cell("b", 1, 90, 91, 89, 90, 92, 88), "wrk"),
	}}
	ccs := Crosschecks(run, "plaintext")
	if len(ccs) != 1 {
		t.Fatalf("%d cross-checks, want 1 (bombardier against wrk)", len(ccs))
	}
	cc := ccs[0]
	if cc.Base != "bombardier" || cc.Cross != "wrk" || len(cc.Pairs) != 2 || cc.Agree != 1 || cc.Differ != 1 {
		t.Errorf("cross-check %+v", cc)
	}
	for _, p := range cc.Pairs {
		want := map[string]string{"a": "differ", "b": "agree"}[p.Base.Base]
		if p.Verdict != want {
			t.Errorf("%s: %s (ratio %.2f), want %s", p.Base.Base, p.Verdict, p.Ratio, want)
		}
	}
	if len(cc.Flips) != 1 || cc.Flips[0] != [2]string{"a", "b"} {
		t.Errorf("flips %v, want a and b (a is faster by bombardier, slower by wrk)", cc.Flips)
	}
	if Crosschecks(&results.Run{Cells: run.Cells}, "plaintext") != nil {
		t.Error("a run without a cross-check has one")
	}
}

// A floor of ±100% or more is not applied as if it measured something:
// with an A/A control that moved by 2.2× against itself, a target at a
// fifth of the fastest, the two intervals far apart, is slower, not "~".
// Below that width the floor still marks a difference within it.
func TestRowsFloorTooWide(t *testing.T) {
	ctl := cell("a", 1, 46200, 29500, 49300, 46000, 47000, 21000)
	ctl.Control = true
	run := &results.Run{Cells: []*results.Cell{
		cell("a", 1, 46200, 46900, 47100, 45900, 46300, 46600),
		cell("b", 1, 10100, 9710, 10400, 10000, 10200, 10300),
		ctl,
	}}
	if f := Noise(run); f < MaxNoiseFloor {
		t.Fatalf("the control's floor is ±%.0f%%, want ±%.0f%% or wider for this test", 100*f, 100*MaxNoiseFloor)
	}
	if NoiseApplied(run) != 0 || !Build(run).FloorTooWide {
		t.Errorf("a floor of ±%.0f%% is applied", 100*Noise(run))
	}
	for _, r := range Rows(run, "plaintext") {
		if r.Target == "b" && r.Versus != "" {
			t.Errorf("b at %.3f× of a, intervals apart: %q, want a difference", r.VsFastest, r.Versus)
		}
	}
	// A control within ±15%: the floor applies, and b, 10% slower, is noise.
	narrow := cell("a", 1, 40000, 53000, 41000, 52000, 40500, 52500)
	narrow.Control = true
	run.Cells[1], run.Cells[2] = cell("b", 1, 41600, 41700, 41800, 41500, 41600, 41700), narrow
	for _, r := range Rows(run, "plaintext") {
		if r.Target == "b" && r.Versus != "~" {
			t.Errorf("b, 10%% slower within a floor of ±%.0f%%: %q, want ~", 100*NoiseApplied(run), r.Versus)
		}
	}
}
