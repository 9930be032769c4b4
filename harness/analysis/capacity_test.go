package analysis

import (
	"github.com/webbench/webbench/harness/results"

	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// rateCell is a fixed-rate cell whose trials answered rps good requests a
// second for 10 s with the given p99s (ms).
func rateCell(rate int, rps float64, p99s ...float64) *results.Cell {
	c := &results.Cell{Target: "t", Scenario: "s", CPUs: 1, Connections: 16, Rate: rate, Status: results.OK, Generator: &results.Generator{Name: "openloop"}}
	for _, p := range p99s {
		c.Trials = append(c.Trials, results.Trial{Result: results.Result{Requests: int64(rps * 10), Seconds: 10, RPS: rps,
			LatencyMS: results.Latency{P50: p / 2, P99: p, Max: p * 2}, OpenLoop: &results.Schedule{}}})
	}
	return c
}

// Capacity at p99 ≤ 10 ms is, per trial, the highest rate that trial held
// within it: trials 1 and 3 reach 4,000/s, trial 2 only 2,000/s (its p99
// at 4,000 is 12 ms), and 8,000/s is neither sustained nor within it. The
// knee is the last rate before the latency turns up: 2,000/s (1.2 ms, then
// 8 ms at 4,000/s).
func TestCapacityAtObjective(t *testing.T) {
	run := &results.Run{Matrix: results.Settings{SLO: []results.Objective{{Percentile: "p99", Max: results.Duration(10 * time.Millisecond)}}}, Cells: []*results.Cell{
		rateCell(1000, 1000, 1, 1.1, 0.9),
		rateCell(2000, 2000, 1.2, 1.3, 1.1),
		rateCell(4000, 4000, 5, 12, 8),
		rateCell(8000, 5000, 300, 250, 280),
	}}
	run.Cells[3].Status, run.Cells[3].Reason = results.Failed, "could not sustain 8,000/s (held 5,000/s)"
	curves := Curves(run, "s")
	if len(curves) != 1 {
		t.Fatalf("%d curves, want 1", len(curves))
	}
	c := curves[0]
	if want := []float64{4000, 2000, 4000}; !reflect.DeepEqual(c.TrialCapacity, want) {
		t.Errorf("capacity per trial %v, want %v", c.TrialCapacity, want)
	}
	if c.Capacity == nil || c.Capacity.Median != 4000 {
		t.Errorf("capacity %+v, want median 4000", c.Capacity)
	}
	if c.Knee != 2000 {
		t.Errorf("knee at %d/s, want 2000", c.Knee)
	}
	if got := []int{c.Points[0].Met, c.Points[2].Met, c.Points[3].Met}; !reflect.DeepEqual(got, []int{3, 2, 0}) {
		t.Errorf("trials within the objective at 1,000, 4,000 and 8,000/s: %v, want [3 2 0]", got)
	}
	if c.Points[3].Achieved != 5000 || c.CapacityUnsure != "" {
		t.Errorf("last point %+v, note %q", c.Points[3], c.CapacityUnsure)
	}
	// With the generator's ceiling measured at 4,500 rps on these cores
	// and connections, 4,000/s and above may be the generator's: marked,
	// and the capacity says so.
	run.Ceilings = []results.Ceiling{{Generator: "openloop", CPUs: 1, Connections: 16, RPS: 4500, Rate: 8000}}
	c = Curves(run, "s")[0]
	if got := []bool{c.Points[1].Bound, c.Points[2].Bound, c.Points[3].Bound}; !reflect.DeepEqual(got, []bool{false, true, true}) {
		t.Errorf("generator-bound at 2,000, 4,000, 8,000/s: %v, want [false true true]", got)
	}
	if !strings.Contains(c.CapacityUnsure, "may be the generator's") {
		t.Errorf("capacity note %q", c.CapacityUnsure)
	}
	// A cell that drew 6,000/s from the server beat that ceiling by 33%
	// (failed or not, the generator drew it): no rate is marked by it, and
	// the capacity says whose it is cannot be told.
	for i := range run.Cells[3].Trials {
		run.Cells[3].Trials[i].RPS, run.Cells[3].Trials[i].Requests = 6000, 60000
	}
	c = Curves(run, "s")[0]
	if slices.ContainsFunc(c.Points, func(p CurvePoint) bool { return p.Bound }) || c.Ceiling != 0 || c.CeilingBeaten != 4500 {
		t.Errorf("under a beaten ceiling: points %+v, ceiling %v, beaten %v", c.Points, c.Ceiling, c.CeilingBeaten)
	}
	if !strings.Contains(c.CapacityUnsure, "was beaten") {
		t.Errorf("capacity note %q", c.CapacityUnsure)
	}
}

// A percentile the generator did not report never meets an objective,
// and a rate not sustained in good answers does not either.
func TestMeets(t *testing.T) {
	slo := []results.Objective{{Percentile: "p99.9", Max: results.Duration(time.Second)}}
	tr := results.Trial{Result: results.Result{Requests: 1000, Seconds: 1, LatencyMS: results.Latency{P99: 1}}}
	if Meets(tr, 1000, slo) {
		t.Error("met p99.9 ≤ 1 s without a p99.9")
	}
	tr.LatencyMS.P999 = 2
	if !Meets(tr, 1000, slo) {
		t.Error("p99.9 2 ms did not meet ≤ 1 s")
	}
	tr.Errors, tr.Requests = 500, 500
	if Meets(tr, 1000, slo) {
		t.Error("met at 1,000/s with 500 good answers a second")
	}
}

// A curve that stays within 2× has no knee; one that turns up has it at
// its last rate before the turn.
func TestKnee(t *testing.T) {
	pts := func(ms ...float64) []CurvePoint {
		var out []CurvePoint
		for i, m := range ms {
			out = append(out, CurvePoint{Rate: 1000 << i, LatencyMS: m})
		}
		return out
	}
	for _, c := range []struct {
		ms   []float64
		want int
	}{
		{[]float64{1, 1.2, 1.5, 1.9}, 0},
		{[]float64{1, 1.1, 1.2, 1.5, 3, 200}, 16000},
		{[]float64{1, 1, 300}, 2000},
		{[]float64{1, 300}, 0},
	} {
		if got := Knee(pts(c.ms...)); got != c.want {
			t.Errorf("Knee(%v) = %d, want %d", c.ms, got, c.want)
		}
	}
}

// A rate that failed counts: when the latencies alone stay within 2×, the
// knee is the last rate below the first failed one; a knee the latencies
// show stands; a curve whose lowest rate failed has none.
func TestKneeCountsFailedRates(t *testing.T) {
	ok := func(rate int, ms float64) CurvePoint { return CurvePoint{Rate: rate, LatencyMS: ms} }
	failed := func(rate int) CurvePoint { return CurvePoint{Rate: rate, Failed: true} }
	for _, c := range []struct {
		pts  []CurvePoint
		want int
	}{
		{[]CurvePoint{ok(1000, 17), ok(2000, 18), ok(4000, 20), failed(8000)}, 4000},
		{[]CurvePoint{ok(1000, 17), ok(2000, 18), failed(4000), ok(8000, 19)}, 2000},
		{[]CurvePoint{ok(1000, 1), ok(2000, 1.1), ok(4000, 300), failed(8000)}, 2000},
		{[]CurvePoint{failed(1000), ok(2000, 1), ok(4000, 1)}, 0},
		{[]CurvePoint{ok(1000, 1), ok(2000, 1.2), ok(4000, 1.5)}, 0},
	} {
		if got := Knee(c.pts); got != c.want {
			t.Errorf("Knee(%+v) = %d, want %d", c.pts, got, c.want)
		}
	}
}

// A rate whose cell failed before any trial is a point of its curve, in
// rate order, so that the knee sees it.
func TestCurvesKeepTriallessFailures(t *testing.T) {
	trial := func(ms float64) []results.Trial {
		return []results.Trial{{Result: results.Result{Requests: 1000, Seconds: 1, LatencyMS: results.Latency{P99: ms}}}}
	}
	cell := func(rate int, status results.Status, trials []results.Trial) *results.Cell {
		return &results.Cell{Target: "a", Scenario: "s", CPUs: 1, Connections: 8, Rate: rate, Status: status, Trials: trials}
	}
	run := &results.Run{Cells: []*results.Cell{
		cell(1000, results.OK, trial(17)), cell(4000, results.Failed, nil), cell(2000, results.OK, trial(18)),
	}}
	curves := Curves(run, "s")
	if len(curves) != 1 {
		t.Fatalf("%d curves", len(curves))
	}
	var rates []int
	for _, p := range curves[0].Points {
		rates = append(rates, p.Rate)
	}
	if !slices.Equal(rates, []int{1000, 2000, 4000}) || !curves[0].Points[2].Failed || curves[0].Knee != 2000 {
		t.Errorf("points %+v, knee %d: want 1000, 2000, 4000 (failed), knee 2000", curves[0].Points, curves[0].Knee)
	}
}
