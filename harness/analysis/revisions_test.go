package analysis

import (
	"testing"

	"github.com/webbench/webbench/harness/results"
)

// revCell is a cell of revision rev whose trial k answered rps[k]
// requests a second for 10 s, its target using cores of CPU.
func revCell(rev string, control bool, cores float64, rps ...float64) *results.Cell {
	c := &results.Cell{Target: "t", Scenario: "plaintext", CPUs: 1, Connections: 64, Status: results.OK, Control: control,
		Axes: []results.KV{{Name: "revision", Value: rev}}}
	for _, x := range rps {
		c.Trials = append(c.Trials, results.Trial{Result: results.Result{RPS: x, Requests: int64(10 * x), Seconds: 10}, TargetCPUCores: cores})
	}
	return c
}

// revRun is a run of revisions base and head: base, its A/A control, and
// head, each six trials.
func revRun(base, control, head *results.Cell) *results.Run {
	run := &results.Run{Cells: []*results.Cell{base, control, head}}
	run.Matrix.Axes = map[string][]string{"revision": {"base", "head"}}
	return run
}

var (
	steady = []float64{1000, 1010, 990, 1005, 995, 1000}
	tenOff = []float64{900, 909, 891, 904, 896, 900} // steady × 0.9, trial by trial
)

func readingOf(t *testing.T, run *results.Run) Regression {
	t.Helper()
	rs := Regressions(run)
	if len(rs) != 1 || rs[0].Cell != run.Cells[2] {
		t.Fatalf("Regressions = %+v, want one, of the head cell", rs)
	}
	return rs[0]
}

func TestRegressions(t *testing.T) {
	cases := []struct {
		name              string
		run               *results.Run
		reading, rps, cpu Reading
	}{
		{"identical", revRun(revCell("base", false, 0.5, steady...), revCell("base", true, 0.5, steady...), revCell("head", false, 0.5, steady...)),
			NoDifference, NoDifference, NoDifference},
		{"10% fewer requests a second", revRun(revCell("base", false, 0.5, steady...), revCell("base", true, 0.5, steady...), revCell("head", false, 0.5, tenOff...)),
			Slower, Slower, Slower}, // the same CPU for fewer answers: more per answer
		{"the same rate on 20% more CPU", revRun(revCell("base", false, 0.5, steady...), revCell("base", true, 0.5, steady...), revCell("head", false, 0.6, steady...)),
			Slower, NoDifference, Slower},
		{"10% more requests a second", revRun(revCell("base", false, 0.5, tenOff...), revCell("base", true, 0.5, tenOff...), revCell("head", false, 0.5, steady...)),
			Faster, Faster, Faster},
		// The A/A control moved ±15% by itself: 10% is within that.
		{"within the floor", revRun(revCell("base", false, 0.5, steady...), revCell("base", true, 0.5, 850, 1160, 860, 1150, 855, 1165), revCell("head", false, 0.5, tenOff...)),
			NoDifference, NoDifference, NoDifference},
	}
	for _, c := range cases {
		r := readingOf(t, c.run)
		if r.Reading != c.reading || r.RPSReads != c.rps || r.CPUReads != c.cpu {
			t.Errorf("%s: reading %s (rps %s, cpu %s), want %s (rps %s, cpu %s); rps %+v cpu %+v", c.name, r.Reading, r.RPSReads, r.CPUReads, c.reading, c.rps, c.cpu, r.RPS, r.CPU)
		}
	}
}

// Too few trials, or a cell or baseline that did not end ok, cannot tell.
func TestRegressionsCannotTell(t *testing.T) {
	few := revRun(revCell("base", false, 0.5, 1000, 1000, 1000), revCell("base", true, 0.5, 1000, 1000, 1000), revCell("head", false, 0.5, 500, 500, 500))
	failed := revRun(revCell("base", false, 0.5, steady...), revCell("base", true, 0.5, steady...), revCell("head", false, 0.5, tenOff...))
	failed.Cells[0].Status = results.Failed
	for name, run := range map[string]*results.Run{"three trials": few, "baseline failed": failed} {
		if r := readingOf(t, run); r.Reading != CannotTell || r.Why == "" {
			t.Errorf("%s: %s (%q), want cannot tell, saying why", name, r.Reading, r.Why)
		}
	}
	if rs := Regressions(&results.Run{Cells: []*results.Cell{revCell("base", false, 0.5, steady...)}}); rs != nil {
		t.Errorf("a run without two revisions: %+v", rs)
	}
}

// In a duet each head trial is paired with the baseline's reading beside
// it, not with the baseline's own trial of the round: a machine that ran
// 20% slower in some rounds slowed both sides of those duets alike.
func TestRegressionsPairBeside(t *testing.T) {
	drift := []float64{1000, 800, 1000, 800, 1000, 800}
	base, ctl, head := revCell("base", false, 0.5, steady...), revCell("base", true, 0.5, steady...), revCell("head", false, 0.5, drift...)
	for k := range head.Trials {
		b := base.Trials[k]
		b.RPS, b.Requests = drift[k], int64(10*drift[k])
		head.Trials[k].Beside = &results.Beside{Cell: base.ID(), Result: b.Result, TargetCPUCores: b.TargetCPUCores}
	}
	r := readingOf(t, revRun(base, ctl, head))
	if r.Reading != NoDifference || r.RPS.Ratio != 1 {
		t.Errorf("reading %s, ratio %.3f: want no difference, 1 (each pair saw the same machine)", r.Reading, r.RPS.Ratio)
	}
	head.Trials[1].Beside.Cell = "another/cell" // a reading beside another cell pairs nothing here
	if r := readingOf(t, revRun(base, ctl, head)); r.RPS.Ratio == 1 && r.RPS.Lo == 1 {
		t.Errorf("a reading beside another cell was paired: %+v", r.RPS)
	}
}

// Each later cell is read against its own baseline's A/A control: in a
// run of two schedules, a wide duet floor does not hide a 10% slowdown
// that the interleaved cells' tight floor shows.
func TestRegressionsOwnFloor(t *testing.T) {
	duet := func(c *results.Cell) *results.Cell {
		c.Axes = append(c.Axes, results.KV{Name: "schedule", Value: "duet"})
		return c
	}
	run := revRun(revCell("base", false, 0.5, steady...), revCell("base", true, 0.5, steady...), revCell("head", false, 0.5, tenOff...))
	run.Cells = append(run.Cells, duet(revCell("base", false, 0.5, steady...)), duet(revCell("base", true, 0.5, 850, 1160, 860, 1150, 855, 1165)),
		duet(revCell("head", false, 0.5, tenOff...)))
	got := map[string]Reading{}
	for _, r := range Regressions(run) {
		got[r.Cell.ID()] = r.RPSReads
	}
	want := map[string]Reading{"t/plaintext/1cpu/c64/revision=head": Slower, "t/plaintext/1cpu/c64/revision=head/schedule=duet": NoDifference}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s reads %q in requests/s, want %q (all: %v)", id, got[id], w, got)
		}
	}
}
