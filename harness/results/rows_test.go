package results

import (
	"math"
	"testing"
)

func cell(target string, cpus int, rps ...float64) *Cell {
	c := &Cell{Target: target, Scenario: "plaintext", CPUs: cpus, Connections: 512, Status: OK}
	for _, x := range rps {
		c.Trials = append(c.Trials, Trial{Result: Result{RPS: x}})
	}
	c.Summary = Summarize(c.Trials, "median")
	return c
}

func TestRowsSignificance(t *testing.T) {
	run := &Run{Cells: []*Cell{
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

func TestScaling(t *testing.T) {
	run := &Run{Cells: []*Cell{
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
	if ScalingRows(Rows(&Run{Cells: []*Cell{cell("x", 1, 1)}}, "plaintext")) != nil {
		t.Error("a single core count made a scaling table")
	}
}
