package analysis

import (
	"github.com/webbench/webbench/harness/results"

	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/webbench/webbench/harness/stats"
)

// Curve is one target's fixed-rate cells of a scenario (one params value,
// core count, connection count, keep-alive setting and generator), from
// the lowest rate to the highest: its latency against its throughput, its
// knee, and its capacity at the run's latency objective.
type Curve struct {
	Target      string       `json:"target"` // as the tables label it: target[:variant] (generator)
	Params      string       `json:"params,omitempty"`
	CPUs        int          `json:"cpus"`
	Cores       int          `json:"-"` // as Row.Cores: every core of its cpuset, unpinned
	Connections int          `json:"connections"`
	Close       bool         `json:"connection_close,omitempty"`
	OpenLoop    bool         `json:"open_loop"`
	Percentile  string       `json:"percentile"` // the latency the curve plots: the objective's highest, or p99
	Points      []CurvePoint `json:"points"`
	// Knee is the offered rate past which latency rises fastest relative
	// to the range tried (see Knee); 0 when it stays within 2× over it.
	Knee int `json:"knee_rate,omitempty"`
	// Capacity is, per trial, the highest offered rate that trial
	// sustained within the objective (0: none), summarised over trials.
	// It is absent without an objective.
	Capacity *stats.Summary `json:"capacity,omitempty"`
	Ceiling  float64        `json:"ceiling_rps,omitempty"` // the generator's, on these cores and connections; 0: none measured, or beaten
	// CeilingBeaten is the ceiling measured on these cores and connections
	// when a cell beat it (see BeatenCeilings): no rate is judged by it.
	CeilingBeaten  float64   `json:"ceiling_beaten_rps,omitempty"`
	TrialCapacity  []float64 `json:"trial_capacity,omitempty"`
	CapacityUnsure string    `json:"capacity_note,omitempty"` // why the capacity may be understated
}

// CurvePoint is one rate of a curve.
type CurvePoint struct {
	Rate      int     `json:"rate"`
	Achieved  float64 `json:"achieved_rps"` // median over trials of good answers per second
	LatencyMS float64 `json:"latency_ms"`   // at the curve's percentile: merged over trials, or their median
	Met       int     `json:"met_trials"`   // trials that sustained the rate within the objective
	Trials    int     `json:"trials"`
	// Bound is set when the rate is at or above CeilingBound of the
	// generator's measured ceiling: what it shows may be the generator's.
	Bound bool `json:"generator_bound,omitempty"`
	// Failed: the rate's cell failed (could not sustain it, the server
	// died…), with or without a trial to show for it.
	Failed bool `json:"failed,omitempty"`
}

// Curves builds the fixed-rate curves of a scenario: one per group of two
// or more rates.
func Curves(run *results.Run, scenario string) []*Curve {
	type key struct {
		target, params string
		cpus, conns    int
		close          bool
	}
	byKey := map[key]*Curve{}
	var order []key
	trials := map[key][][]results.Trial{} // per point, its trials
	pct := "p99"
	if n := len(run.Matrix.SLO); n > 0 {
		pct = run.Matrix.SLO[n-1].Percentile
	}
	for _, r := range RateRows(run, scenario) {
		k := key{r.Target, r.Params, r.CPUs, r.Connections, r.Close}
		c := byKey[k]
		cell := cellOf(run, r.ID)
		if c == nil {
			c = &Curve{Target: r.Target, Params: r.Params, CPUs: r.CPUs, Cores: r.Cores, Connections: r.Connections, Close: r.Close, OpenLoop: r.OpenLoop, Percentile: pct}
			c.Ceiling, c.CeilingBeaten = ceilingOf(run, cell)
			byKey[k] = c
			order = append(order, k)
		}
		lat := latencyAt(r.Merged, pct)
		if r.Merged == nil {
			var xs []float64
			for _, t := range cell.Trials {
				xs = append(xs, latencyAt(&t.LatencyMS, pct))
			}
			lat = stats.Describe(xs).Median
		}
		p := CurvePoint{Rate: r.Rate, Achieved: goodRate(cell.Trials), LatencyMS: lat, Trials: len(cell.Trials),
			Bound: c.Ceiling > 0 && float64(r.Rate) >= CeilingBound*c.Ceiling, Failed: cell.Status == results.Failed}
		for _, t := range cell.Trials {
			if Meets(t, r.Rate, run.Matrix.SLO) {
				p.Met++
			}
		}
		c.Points = append(c.Points, p)
		trials[k] = append(trials[k], cell.Trials)
	}
	for _, cell := range run.Cells {
		// A rate whose cell failed before any trial is still a rate tried,
		// and the one its knee must not be blind to.
		k := key{cell.Key().TargetName(), cell.ParamText(), cell.CPUs, cell.Connections, cell.Close}
		if c := byKey[k]; c != nil && cell.Scenario == scenario && cell.Rate > 0 && cell.Status == results.Failed && len(cell.Trials) == 0 {
			c.Points = append(c.Points, CurvePoint{Rate: cell.Rate, Failed: true})
			trials[k] = append(trials[k], nil)
		}
	}
	var out []*Curve
	for _, k := range order {
		c := byKey[k]
		sortByRate(c.Points, trials[k])
		if len(c.Points) < 2 {
			continue
		}
		c.Knee = Knee(c.Points)
		if len(run.Matrix.SLO) > 0 {
			c.capacity(trials[k], run.Matrix.SLO)
		}
		out = append(out, c)
	}
	return out
}

// sortByRate orders a curve's points, and their trials alike, by rate.
func sortByRate(points []CurvePoint, trials [][]results.Trial) {
	idx := make([]int, len(points))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return points[idx[a]].Rate < points[idx[b]].Rate })
	ps, ts := slices.Clone(points), slices.Clone(trials)
	for i, j := range idx {
		points[i], trials[i] = ps[j], ts[j]
	}
}

// capacity sets the curve's capacity: for each trial index, the highest
// rate whose trial of that index met the objective.
func (c *Curve) capacity(points [][]results.Trial, slo []results.Objective) {
	n := 0
	for _, ts := range points {
		n = max(n, len(ts))
	}
	for i := range n {
		best := 0.0
		for j, ts := range points {
			if i < len(ts) && Meets(ts[i], c.Points[j].Rate, slo) {
				best = max(best, float64(c.Points[j].Rate))
			}
		}
		c.TrialCapacity = append(c.TrialCapacity, best)
	}
	s := stats.Describe(c.TrialCapacity)
	c.Capacity = &s
	switch last := c.Points[len(c.Points)-1]; {
	case c.CeilingBeaten > 0 && s.Median >= CeilingBound*c.CeilingBeaten:
		c.CapacityUnsure = fmt.Sprintf("the load generator's ceiling on these cores and connections (%.0f rps) was beaten by a cell: whether the capacity is the generator's or the server's is unknown", c.CeilingBeaten)
	case c.Ceiling > 0 && s.Median >= CeilingBound*c.Ceiling:
		c.CapacityUnsure = fmt.Sprintf("at or above %.0f%% of the load generator's ceiling (%.0f rps): the capacity may be the generator's, not the server's", 100*CeilingBound, c.Ceiling)
	case last.Met > 0:
		c.CapacityUnsure = fmt.Sprintf("met the objective at the highest rate tried (%d/s): the capacity may be higher", last.Rate)
	}
}

// Meets says whether trial t, at rate, sustained the rate with good answers
// (at least Sustained of it) and kept every percentile of the objective
// within its bound. A percentile the generator did not report does not
// meet it: an objective is met on a figure, never assumed.
func Meets(t results.Trial, rate int, slo []results.Objective) bool {
	if !Sustains(t.Requests, t.Seconds, rate) {
		return false
	}
	for _, o := range slo {
		v := latencyAt(&t.LatencyMS, o.Percentile)
		if v == 0 || v > float64(time.Duration(o.Max))/float64(time.Millisecond) {
			return false
		}
	}
	return true
}

// latencyAt reads one percentile ("p99", "p99.9") of l in ms; 0 when l
// does not have it.
func latencyAt(l *results.Latency, percentile string) float64 {
	if l == nil {
		return 0
	}
	switch strings.TrimPrefix(percentile, "p") {
	case "50":
		return l.P50
	case "75":
		return l.P75
	case "90":
		return l.P90
	case "95":
		return l.P95
	case "99":
		return l.P99
	case "99.9":
		return l.P999
	case "99.99":
		return l.P9999
	}
	return 0
}

// goodRate is the median over trials of good answers per second.
func goodRate(trials []results.Trial) float64 {
	var xs []float64
	for _, t := range trials {
		if t.Seconds > 0 {
			xs = append(xs, float64(t.Requests)/t.Seconds)
		}
	}
	return stats.Describe(xs).Median
}

// ceilingOf is the load generator's measured ceiling where cell ran (see
// onCeiling); 0 when none was measured or it sustained every rate asked.
// A ceiling a cell beat is no ceiling: it comes back as beaten instead.
func ceilingOf(run *results.Run, cell *results.Cell) (ceiling, beatenAt float64) {
	for _, ce := range run.Ceilings {
		if onCeiling(ce, cell) && measuredCeiling(ce) {
			if _, ok := beaten(run, ce); ok {
				return 0, ce.RPS
			}
			return ce.RPS, 0
		}
	}
	return 0, 0
}

// cellOf is the first cell of id (the measured one, not its control).
func cellOf(run *results.Run, id string) *results.Cell {
	for _, c := range run.Cells {
		if c.ID() == id {
			return c
		}
	}
	return &results.Cell{}
}

// KneeRise is how much a curve's latency must rise over the rates tried
// for it to have a knee.
const KneeRise = 2.0

// Knee is the rate at a curve's knee, after Kneedle (Satopää et al.,
// 2011) on a curve that rises: log rates (a sweep is geometric) and log
// latencies are each scaled to [0, 1] over the range tried, and the knee is
// the point farthest below the chord from the first point to the last, the
// last rate before the latency turns up. It is 0 with fewer than three points, or when the
// latency stays within KneeRise× over the range (no knee was reached). A
// rate that failed is the steepest turn of all: when the latency alone
// shows no knee, the knee is the last rate below the first failed one
// that did not fail (0 when the lowest rate failed).
func Knee(points []CurvePoint) int {
	knee := kneedle(points)
	if knee > 0 {
		return knee
	}
	firstFailed := 0
	for _, p := range points {
		if p.Failed && (firstFailed == 0 || p.Rate < firstFailed) {
			firstFailed = p.Rate
		}
	}
	for _, p := range points {
		if !p.Failed && p.Rate < firstFailed {
			knee = max(knee, p.Rate)
		}
	}
	return knee
}

// kneedle is the knee of the points' latencies alone (see Knee).
func kneedle(points []CurvePoint) int {
	ps := make([]CurvePoint, 0, len(points))
	for _, p := range points {
		if p.LatencyMS > 0 {
			ps = append(ps, p)
		}
	}
	if len(ps) < 3 {
		return 0
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].Rate < ps[j].Rate })
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range ps {
		lo, hi = min(lo, p.LatencyMS), max(hi, p.LatencyMS)
	}
	if hi < KneeRise*lo {
		return 0
	}
	x0, x1 := math.Log(float64(ps[0].Rate)), math.Log(float64(ps[len(ps)-1].Rate))
	best, knee := 0.0, 0
	for _, p := range ps[1 : len(ps)-1] {
		x := (math.Log(float64(p.Rate)) - x0) / (x1 - x0)
		y := (math.Log(p.LatencyMS) - math.Log(lo)) / (math.Log(hi) - math.Log(lo))
		if d := x - y; d > best {
			best, knee = d, p.Rate
		}
	}
	return knee
}
