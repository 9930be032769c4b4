package analysis

import (
	"github.com/webbench/webbench/harness/axis"
	"github.com/webbench/webbench/harness/results"

	"sort"
	"strings"

	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/stats"
)

// rowGroup is the cells a row is compared with: same generator, pinning,
// protocol, params, cores, connections, keep-alive, rate, request count
// generator engines and schedule.
type rowGroup struct {
	gen, pin    string
	proto       string
	params      string
	cpus, conns int
	close       bool
	rate        int
	requests    int64
	loadgens    int
	schedule    string
}

func groupOf(r *Row) rowGroup {
	return rowGroup{r.Generator, r.Pinning, r.Protocol, r.Params, r.CPUs, r.Connections, r.Close, r.Rate, r.Requests, r.Loadgens, r.Schedule}
}

// scheduleOf is c's value of the schedule axis, "" for the default.
func scheduleOf(c *results.Cell) string {
	if v := c.Key().Axis(axis.Schedule); v != axis.Schedule.Default {
		return v
	}
	return ""
}

// Rows builds the rows of every ok cell of a scenario, sorted by params
// (in matrix order), cores, connections, then headline RPS descending, an
// A/A control right after its twin. The fastest of each group is picked
// among the cells that are not controls: a control is the same server as
// its twin, measured again to show the noise, not a competitor. Each
// full-speed row of a group but a control gets its rank (see RankTrials).
func Rows(run *results.Run, scenario string) []*Row {
	rows, before := scenarioRows(run, scenario, func(c *results.Cell) bool { return c.Status == results.OK })
	twins := pairBounds(run, rows)
	rank := func(r *Row) float64 { // a control ranks with its twin
		if t := twins[r]; t != nil && r.Control {
			return t.RPS
		}
		return r.RPS
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		switch {
		case a.Rate != b.Rate:
			return a.Rate < b.Rate
		case rank(a) != rank(b):
			return rank(a) > rank(b)
		case a.Control != b.Control && twins[a] == b:
			return b.Control
		}
		return a.Target < b.Target
	})
	sort.SliceStable(rows, func(i, j int) bool { return before(rows[i], rows[j]) })
	fastest := map[rowGroup]*Row{}
	for _, r := range rows {
		g := groupOf(r)
		if f := fastest[g]; !r.Control && (f == nil || r.RPS > f.RPS) {
			fastest[g] = r
		}
	}
	noise := NoiseApplied(run)
	for _, r := range rows {
		f := fastest[groupOf(r)]
		if r.Control || f == nil {
			continue
		}
		if f.RPS > 0 {
			r.VsFastest = r.RPS / f.RPS
		}
		if f != r {
			r.Versus = significance(r.RPSStats, f.RPSStats)
			if r.Versus == "" && 1-r.VsFastest < noise {
				r.Versus = "~" // within the machine's noise floor
			}
		}
	}
	rankRows(rows, run.Matrix.Order == results.Interleaved, noise)
	return rows
}

// FullSpeed keeps the rows measured as fast as the generator could (no
// fixed rate): the ones whose RPS, ceiling share and scaling mean
// something. (Fixed-rate rows, which the open-loop generator measures,
// have tables of their own.)
func FullSpeed(rows []*Row) []*Row {
	var out []*Row
	for _, r := range rows {
		if r.Rate == 0 {
			out = append(out, r)
		}
	}
	return out
}

// RateRows are the scenario's cells measured at a fixed rate, failed ones
// too when they have trials (a rate not sustained fails its cell, and what
// the server did at it is the finding), sorted by params, cores,
// connections, target, generator, then rate.
func RateRows(run *results.Run, scenario string) []*Row {
	rows, before := scenarioRows(run, scenario, func(c *results.Cell) bool {
		return c.Rate > 0 && (c.Status == results.OK || c.Status == results.Failed)
	})
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.Target != b.Target {
			return a.Target < b.Target
		}
		return a.Rate < b.Rate
	})
	sort.SliceStable(rows, func(i, j int) bool { return before(rows[i], rows[j]) })
	return rows
}

// scenarioRows are the rows of the scenario's cells that keep picks (and
// have trials), with the order every table of a scenario shares: params
// in matrix order, cores, connections, keep-alive on before off. Callers
// sort by their own keys first, then stably by before.
func scenarioRows(run *results.Run, scenario string, keep func(*results.Cell) bool) ([]*Row, func(a, b *Row) bool) {
	var rows []*Row
	order := map[string]int{}
	for _, c := range run.Cells {
		if c.Scenario != scenario {
			continue
		}
		if _, ok := order[c.ParamText()]; !ok {
			order[c.ParamText()] = len(order)
		}
		if keep(c) && len(c.Trials) > 0 {
			rows = append(rows, RowOf(run, c))
		}
	}
	before := func(a, b *Row) bool {
		switch {
		case order[a.Params] != order[b.Params]:
			return order[a.Params] < order[b.Params]
		case a.CPUs != b.CPUs:
			return a.CPUs < b.CPUs
		case a.Connections != b.Connections:
			return a.Connections < b.Connections
		}
		return !a.Close && b.Close
	}
	return rows, before
}

// Failing lists the failed cells of a scenario, in the order of the run:
// the tables show them as rows that say "fails", as study 003 did.
func Failing(run *results.Run, scenario string) []*results.Cell {
	var out []*results.Cell
	for _, c := range run.Cells {
		if c != nil && c.Scenario == scenario && c.Status == results.Failed {
			out = append(out, c)
		}
	}
	return out
}

// significance says whether two cells' RPS differ: their 95% intervals
// (or, with too few trials for one, their min…max ranges) must not
// overlap. One trial tells nothing.
func significance(a, b stats.Summary) string {
	if a.N < 2 || b.N < 2 {
		return "?"
	}
	alo, ahi, blo, bhi := a.Min, a.Max, b.Min, b.Max
	if a.HasCI && b.HasCI {
		alo, ahi, blo, bhi = a.Lo, a.Hi, b.Lo, b.Hi
	}
	if ahi < blo || bhi < alo {
		return ""
	}
	return "~"
}

// RowOf is c as a table row (its statistics computed from its trials).
func RowOf(run *results.Run, c *results.Cell) *Row {
	var rps, p50, p75, p90, p95, p99, mean, mbps []float64
	r := &Row{cell: c,
		Identity: Identity{ID: c.ID(), Target: c.Key().TargetName(), Scenario: c.Scenario, Params: c.ParamText(), CPUs: c.CPUs, Connections: c.Connections, Close: c.Close, Rate: c.Rate},
		Setup: Setup{Pinning: c.Pinning, Protocol: c.Protocol, Requests: c.Requests, Loadgens: c.Loadgens, Schedule: scheduleOf(c), Negotiated: c.Negotiated, Cores: c.Cores(), Placement: c.Placement,
			ServiceCPUSets: c.ServiceCPUSets}}
	if g := c.GeneratorName(); g != cellid.DefaultGenerator {
		r.Generator = g
	}
	r.Base, r.Control = c.Key().TargetName(), c.Control
	for _, t := range c.Trials {
		if c.Rate > 0 && !Sustains(t.Requests+t.Errors-t.ErrorKinds["unsent"], t.Seconds, c.Rate) {
			r.Unsustained++
		}
	}
	cpu := map[string][]float64{}
	for _, t := range c.Trials {
		for name, u := range t.Services {
			if r.Services == nil {
				r.Services = map[string]results.ServiceUsage{}
			}
			cpu[name] = append(cpu[name], u.CPUCores)
			r.Services[name] = results.ServiceUsage{MemPeakMiB: max(r.Services[name].MemPeakMiB, u.MemPeakMiB)}
		}
	}
	for name, xs := range cpu {
		u := r.Services[name]
		u.CPUCores = stats.Describe(xs).Median
		r.Services[name] = u
	}
	for _, t := range c.Trials {
		rps = append(rps, t.RPS)
		p50, p75, p90 = append(p50, t.LatencyMS.P50), append(p75, t.LatencyMS.P75), append(p90, t.LatencyMS.P90)
		p95, p99 = append(p95, t.LatencyMS.P95), append(p99, t.LatencyMS.P99)
		mean = append(mean, t.LatencyMS.Mean)
		r.MaxMS = max(r.MaxMS, t.LatencyMS.Max)
		if t.Seconds > 0 {
			mbps = append(mbps, float64(t.BytesRead)/t.Seconds/1e6)
		}
	}
	r.RPSStats, r.P50, r.P99 = stats.Describe(rps), stats.Describe(p50), stats.Describe(p99)
	r.MeanMS, r.MBps = stats.Describe(mean).Median, stats.Describe(mbps).Median
	r.P75, r.P90, r.P95 = stats.Describe(p75).Median, stats.Describe(p90).Median, stats.Describe(p95).Median
	r.Noisy = r.RPSStats.Noisy(NoisyCV)
	r.Merged = Merged(c.Trials)
	var cores []float64
	for _, t := range c.Trials {
		cores = append(cores, t.TargetCPUCores)
	}
	r.TargetCPU = stats.Describe(cores).Median // a failed cell has no summary; its trials have their CPU
	r.OpenLoop = len(c.Trials) > 0 && c.Trials[0].OpenLoop != nil
	r.Aggregate = results.AggregateMedian
	if s := c.Summary; s != nil {
		r.GeneratorBound, r.Errors, r.TargetCPU, r.PeakMiB = s.GeneratorBound, s.Errors, s.TargetCPUCores, s.TargetMemPeakMiB
		r.ErrorRate, r.CeilingShare, r.BoundBy = s.ErrorRate, s.CeilingShare, BoundText(s) // worded from the codes when the file has them
		if r.ErrorRate == 0 && s.Errors > 0 {                                              // results written before error_rate: derive it
			r.ErrorRate = legacyErrorRate(c.Trials, s.Aggregate, s.RPS)
		}
		if s.Aggregate != "" {
			r.Aggregate = s.Aggregate
		}
	}
	r.RPS = Headline(r.Aggregate, r.RPSStats)
	judgeBound(r, c, evidence{trials: c.Trials, targetCPU: r.TargetCPU, summary: c.Summary, beaten: ceilingBeatenFor(run, c, c.Summary)})
	footprint(&r.Footprint, c)
	r.Target = c.Label()
	return r
}

// footprint sets what c's target costs beside its speed, and what it runs
// on; its CPU and peak memory, which the cell's summary holds, are set by
// RowOf.
func footprint(f *Footprint, c *results.Cell) {
	f.StartupS = stats.Describe(c.Startup).Median
	if c.Image != nil && len(c.Image.Sizes) > 0 {
		f.ImageMiB = map[string]float64{}
		for svc, n := range c.Image.Sizes {
			f.ImageMiB[svc] = float64(n) / (1 << 20)
		}
	}
	if c.Image != nil {
		f.Runtime = c.Image.RuntimeVersion
	}
	var us []float64
	for _, t := range c.Trials {
		if t.Requests > 0 && t.TargetCPUCores > 0 {
			us = append(us, t.TargetCPUCores*t.Seconds/float64(t.Requests)*1e6)
		}
	}
	f.CPUPerAnswerStats = stats.Describe(us)
	f.CPUPerAnswer = f.CPUPerAnswerStats.Median
	if n := len(c.Trials); n > 0 {
		f.SteadyMiB = c.Trials[n-1].TargetMemSteadyMiB
	}
}

// legacyErrorRate is the error rate of the trials behind the headline in
// results written before error_rate, when "requests" counted every
// response and "errors" the requests that got none.
func legacyErrorRate(trials []results.Trial, agg results.Aggregate, headline float64) float64 {
	var errs, all int64
	for _, t := range trials {
		if agg == results.AggregateBest && t.RPS != headline {
			continue
		}
		errs, all = errs+t.Errors, all+t.Requests+t.Errors
		if agg == results.AggregateBest {
			break
		}
	}
	if all == 0 {
		return 0
	}
	return float64(errs) / float64(all)
}

// Stats is how sure one figure of a cell is, over its trials (see
// stats.Summary): the model's own name, so that a renderer reads it
// without the statistics package.
type Stats = stats.Summary

// Sustained is the share of a fixed rate a trial must reach (see
// stats.Sustained).
const Sustained = stats.Sustained

// Sustains says whether done requests in seconds held rate requests/s.
func Sustains(done int64, seconds float64, rate int) bool { return stats.Sustains(done, seconds, rate) }

// NoisyCV is the coefficient of variation past which a cell's trials are
// called noisy.
const NoisyCV = stats.NoisyCV

// Scaling is one target's RPS at each core count of a scenario (for one
// params value and connection count).
type Scaling struct {
	Target      string         `json:"target"`
	Params      string         `json:"params,omitempty"`
	Connections int            `json:"connections"`
	Close       bool           `json:"connection_close,omitempty"`
	Points      []ScalingPoint `json:"points"`
}

// ScalingPoint is one core count: speed-up is RPS over the RPS on the
// fewest cores measured, efficiency is speed-up over the core ratio.
type ScalingPoint struct {
	CPUs           int     `json:"cpus"`
	RPS            float64 `json:"rps"`
	SpeedUp        float64 `json:"speed_up"`
	Efficiency     float64 `json:"efficiency"`
	GeneratorBound bool    `json:"generator_bound"`
}

// ScalingRows builds the scaling table of a scenario's rows; nil when the
// run measured a single core count.
func ScalingRows(rows []*Row) []Scaling {
	cpus := map[int]bool{}
	for _, r := range rows {
		cpus[r.CPUs] = true
	}
	if len(cpus) < 2 {
		return nil
	}
	type key struct {
		target, params string
		conns          int
		close          bool
	}
	idx := map[key]int{}
	var out []Scaling
	for _, r := range rows {
		k := key{r.Target, r.Params, r.Connections, r.Close}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, Scaling{Target: r.Target, Params: r.Params, Connections: r.Connections, Close: r.Close})
		}
		out[i].Points = append(out[i].Points, ScalingPoint{CPUs: r.CPUs, RPS: r.RPS, GeneratorBound: len(r.BoundBy) > 0})
	}
	for i := range out {
		pts := out[i].Points
		sort.Slice(pts, func(a, b int) bool { return pts[a].CPUs < pts[b].CPUs })
		base := pts[0]
		for j := range pts {
			if base.RPS > 0 {
				pts[j].SpeedUp = pts[j].RPS / base.RPS
				pts[j].Efficiency = pts[j].SpeedUp / (float64(pts[j].CPUs) / float64(base.CPUs))
			}
		}
	}
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].Params != out[b].Params {
			return false // keep params in matrix order
		}
		if out[a].Connections != out[b].Connections {
			return out[a].Connections < out[b].Connections
		}
		return strings.Compare(out[a].Target, out[b].Target) < 0
	})
	return out
}
