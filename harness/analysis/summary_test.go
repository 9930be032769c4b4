package analysis

import (
	"github.com/webbench/webbench/harness/results"

	"slices"
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	tr := func(rps, p99 float64, errs int64, mem float64, bound bool) results.Trial {
		return results.Trial{Result: results.Result{RPS: rps, Errors: errs, LatencyMS: results.Latency{P50: p99 / 2, P99: p99}},
			TargetCPUCores: 1, TargetMemPeakMiB: mem, GeneratorBound: bound}
	}
	trials := []results.Trial{tr(300, 9, 1, 10, false), tr(100, 3, 0, 30, true), tr(200, 6, 2, 20, false)}
	s := Summarize(trials, "median")
	if s.RPS != 200 || s.RPSMedian != 200 || s.RPSMin != 100 || s.RPSMax != 300 || s.LatencyP99Median != 6 || s.Errors != 3 ||
		s.TargetMemPeakMiB != 30 || s.GeneratorBound != 1 {
		t.Errorf("summary = %+v", s)
	}
	if b := Summarize(trials, "best"); b.RPS != 300 || b.Aggregate != "best" || b.RPSMedian != 200 {
		t.Errorf("best-of summary = %+v", b)
	}
	if Summarize(nil, "median") != nil {
		t.Error("summary of no trials")
	}
	if even := Summarize(trials[:2], "median"); even.RPSMedian != 200 {
		t.Errorf("median of two trials = %v, want their mean 200", even.RPSMedian)
	}
}

// The noise floor pairs trial k of a cell with trial k of its control and
// reaches as far from 1 as the ratios' interval does.
func TestNoiseFloor(t *testing.T) {
	cell := func(control bool, rps ...float64) *results.Cell {
		c := &results.Cell{Target: "go", Scenario: "plaintext", CPUs: 1, Connections: 64, Status: results.OK, Control: control}
		for _, x := range rps {
			c.Trials = append(c.Trials, results.Trial{Result: results.Result{RPS: x}})
		}
		return c
	}
	run := &results.Run{Cells: []*results.Cell{
		cell(false, 100, 110, 90, 100, 105, 95),
		cell(true, 100, 100, 100, 100, 100, 100),
		{Target: "other", Scenario: "plaintext", Status: results.OK},
	}}
	nfs := NoiseFloors(run)
	if len(nfs) != 1 {
		t.Fatalf("noise floors %+v", nfs)
	}
	nf := nfs[0]
	if nf.Cell != "go/plaintext/1cpu/c64" || nf.N != 6 || nf.Ratio != 1 || !nf.HasCI || nf.Lo != 0.9 || nf.Hi != 1.1 {
		t.Errorf("noise floor %+v", nf)
	}
	if f := Noise(run); f < 0.0999 || f > 0.1001 {
		t.Errorf("Noise = %v, want 0.1", f)
	}
	if Noise(&results.Run{Cells: run.Cells[:1]}) != 0 {
		t.Error("a run without a control has a noise floor")
	}
	if id := run.Cells[1].ID(); id != "go/plaintext/1cpu/c64 (control)" {
		t.Errorf("control id %q", id)
	}
	if nf.Apart != 0 {
		t.Errorf("apart %v without start times, want 0", nf.Apart)
	}
	// Apart: the median of the seconds between a pair's two starts,
	// whichever ran first; a pair with a start missing is left out.
	at := func(s int) *time.Time { t := time.Date(2026, 12, 4, 20, 0, s, 0, time.UTC); return &t }
	for i, gap := range []struct{ a, b *time.Time }{{at(0), at(20)}, {at(50), at(20)}, {at(0), at(40)}, {at(0), nil}} {
		run.Cells[0].Trials[i].StartedAt, run.Cells[1].Trials[i].StartedAt = gap.a, gap.b
	}
	if nf := NoiseFloors(run)[0]; nf.Apart != 30 {
		t.Errorf("apart %v s, want the median of 20, 30 and 40 s: 30", nf.Apart)
	}
}

// Why a cell is generator-bound is recorded as codes (results.Why), and
// worded from them and the summary's figures; a summary written before
// the codes keeps its own words, and one before those its count.
func TestJudgeBoundCodes(t *testing.T) {
	s := &results.Summary{RPS: 950, GeneratorBound: 2}
	JudgeBound(s, 1000, true)
	if want := []results.Why{results.BoundSharedCeiling, results.BoundLoadgenCPU}; !slices.Equal(s.Bounds, want) {
		t.Errorf("bounds %v, want %v", s.Bounds, want)
	}
	if got := BoundText(s); len(got) != 2 || got[0] != "at 95% of the ceiling of the load generator sharing these cores with the fixed-response server (≥ 85%)" ||
		got[1] != "load generator CPU ≥ 90% in 2 trial(s)" || !slices.Equal(s.BoundBy, got) {
		t.Errorf("worded %q, bound_by %q", got, s.BoundBy)
	}
	JudgeBound(s, 2000, false)
	if want := []results.Why{results.BoundLoadgenCPU}; !slices.Equal(s.Bounds, want) {
		t.Errorf("below the ceiling: bounds %v, want %v", s.Bounds, want)
	}
	old := &results.Summary{BoundBy: []string{"as an older harness worded it"}, GeneratorBound: 1}
	if got := BoundText(old); !slices.Equal(got, old.BoundBy) {
		t.Errorf("an older summary worded %q", got)
	}
	if got := BoundText(&results.Summary{GeneratorBound: 3}); !slices.Equal(got, []string{"load generator CPU ≥ 90% in 3 trial(s)"}) {
		t.Errorf("a summary before bound_by worded %q", got)
	}
}
