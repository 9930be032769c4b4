// Package compare matches the cells of several runs (a laptop against a
// cloud VM, before against after a change) and says which differences are
// real: per cell each run's median with its confidence interval and the
// change against the first run, "~" beside the change when it does not
// clear the comparison's floor, and a geomean row per scenario.
//
// The floor is the drift two runs of the same cells show on one machine
// (recorded for the machine, else DefaultDrift), widened to the runs' own
// A/A controls when those are wider. The Mann-Whitney U test's p-value is
// not what decides: trials of one run cannot see the drift between runs.
// It decides only whether a cell can be told at all: with too few trials
// on a side for the test ever to reach significance, the cell reads
// "cannot tell" and is no regression. Fixed-rate cells are judged on their
// p99 latency, since their RPS is the rate offered, and on whether they
// held that rate. A gate (Problems) fails on regressions and on whatever
// it could not compare. It reads results.json only, each cell checked
// for figures that contradict each other (see Read).
package compare

import (
	"fmt"
	"slices"
	"sort"

	"github.com/webbench/webbench/harness/analysis"
	"github.com/webbench/webbench/harness/results"
	"github.com/webbench/webbench/harness/stats"
)

// Comparison is the model every output format renders.
type Comparison struct {
	Names     []string    `json:"runs"` // one per run, as given
	Env       []EnvRow    `json:"environment"`
	Floor     Floor       `json:"floor"` // what a difference between runs must exceed
	Scenarios []Scenario  `json:"scenarios"`
	Unmatched []Unmatched `json:"unmatched,omitempty"`
	// CannotTell is, per run, how many of its lines could not be told from
	// the first run's (see Line.Told): no verdict either way.
	CannotTell []int `json:"cannot_tell"`
	// Problems are what a gate fails on: regressions beyond the floor,
	// and whatever could not be compared (see ProblemKind).
	Problems []Problem `json:"problems,omitempty"`
}

// EnvRow is one environment fact side by side; Differs marks a fact that
// is not the same in every run.
type EnvRow struct {
	Field   string   `json:"field"`
	Values  []string `json:"values"`
	Differs bool     `json:"differs"`
}

// Metric is the figure a line compares.
type Metric string

const (
	// RPS, good answers per second, for cells driven as fast as they go.
	RPS Metric = "rps"
	// LatencyP99 for fixed-rate (open-loop) cells, whose RPS is the
	// offered rate and says nothing of the server.
	LatencyP99 Metric = "latency_p99_ms"
	// AchievedRate is the rate a fixed-rate cell held (see held): below
	// the rate asked, its latencies are not at that rate.
	AchievedRate Metric = "achieved_rps"
)

// HigherIsBetter says which way a change of the metric is a gain.
func (m Metric) HigherIsBetter() bool { return m != LatencyP99 }

// Scenario is the matched cells of one scenario judged on one metric.
type Scenario struct {
	Name     string    `json:"name"`
	Metric   Metric    `json:"metric"`
	Lines    []Line    `json:"cells"`
	Geomean  []float64 `json:"geomean"`       // per run, over the cells every run has
	GeoDelta []float64 `json:"geomean_delta"` // per run, against the first
}

// Line is one cell measured in every run.
type Line struct {
	Cell   string          `json:"cell"`   // the cell id without the scenario
	Stats  []stats.Summary `json:"values"` // per run, of the scenario's metric
	Delta  []float64       `json:"delta"`  // per run, median against the first run's (0 for the first)
	Beyond []bool          `json:"beyond"` // per run: the change clears the floor and the intervals part
	// Told is, per run, whether both sides have the trials for a verdict:
	// enough for the U test to be able to reach significance. A change
	// between runs of one or three trials each is no more than their
	// drift could make, and a single trial has no spread to bound it.
	Told []bool `json:"told"`
	// Test is the Mann-Whitney U test of each run's trials against the
	// first's. Its p-value does not decide (trials of one run cannot see
	// the drift between runs); whether it could ever reach significance
	// decides Told.
	Test []stats.Comparison `json:"test"`
	// Rate is a fixed-rate cell's rate asked (0 for a cell driven as fast
	// as it goes); Short, per run, how many of its trials fell short of
	// it (see held), and Achieved the median rate they achieved.
	Rate     int       `json:"rate,omitempty"`
	Short    []int     `json:"trials_short,omitempty"`
	Achieved []float64 `json:"achieved_rps,omitempty"`
}

// Unmatched is a cell present in some runs only.
type Unmatched struct {
	Cell string   `json:"cell"`
	In   []string `json:"in"`
}

type cellKey struct {
	scenario, id string
	metric       Metric
}

// Build compares runs; names label them (usually their folders). A
// difference is called one only past the comparison's Floor.
func Build(names []string, runs []*results.Run, opts ...Option) *Comparison {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	c := &Comparison{Names: names, Env: environment(runs), Floor: floor(names, runs, o)}
	cells, order := okCells(runs)
	byScenario := map[string]*Scenario{}
	var scenarioOrder []string
	for _, k := range order {
		row := cells[k]
		var in []string
		for i, cell := range row {
			if cell != nil {
				in = append(in, names[i])
			}
		}
		if len(in) != len(runs) {
			c.Unmatched = append(c.Unmatched, Unmatched{Cell: k.id, In: in})
			continue
		}
		name := k.scenario + "\x00" + string(k.metric)
		sc := byScenario[name]
		if sc == nil {
			sc = &Scenario{Name: k.scenario, Metric: k.metric}
			byScenario[name] = sc
			scenarioOrder = append(scenarioOrder, name)
		}
		sc.Lines = append(sc.Lines, c.line(k, row))
	}
	for _, name := range scenarioOrder {
		sc := byScenario[name]
		for i := range runs {
			var medians []float64
			for _, l := range sc.Lines {
				medians = append(medians, l.Stats[i].Median)
			}
			sc.Geomean = append(sc.Geomean, stats.Geomean(medians))
			sc.GeoDelta = append(sc.GeoDelta, sc.Geomean[i]/sc.Geomean[0]-1)
		}
		c.Scenarios = append(c.Scenarios, *sc)
	}
	c.CannotTell = make([]int, len(runs))
	for _, sc := range c.Scenarios {
		for _, l := range sc.Lines {
			for i := 1; i < len(runs); i++ {
				if !l.Told[i] {
					c.CannotTell[i]++
				}
			}
		}
	}
	sort.SliceStable(c.Unmatched, func(a, b int) bool { return c.Unmatched[a].Cell < c.Unmatched[b].Cell })
	c.Problems = gate(c, runs)
	return c
}

// okCells are the ok cells with trials of every run by key, in order of
// first appearance; a key's slice has one entry per run, nil where the
// run lacks it.
func okCells(runs []*results.Run) (map[cellKey][]*results.Cell, []cellKey) {
	cells := map[cellKey][]*results.Cell{}
	var order []cellKey
	for i, run := range runs {
		for _, cell := range run.Cells {
			if cell == nil || cell.Status != results.OK || len(cell.Trials) == 0 {
				continue
			}
			k := cellKey{cell.Scenario, cell.ID(), metricOf(cell)}
			if _, ok := cells[k]; !ok {
				cells[k] = make([]*results.Cell, len(runs))
				order = append(order, k)
			}
			cells[k][i] = cell
		}
	}
	return cells, order
}

// metricOf is what a cell is judged on: a fixed-rate cell's latency.
func metricOf(c *results.Cell) Metric {
	if c.Rate > 0 {
		return LatencyP99
	}
	return RPS
}

// line compares one cell across the runs.
func (c *Comparison) line(k cellKey, row []*results.Cell) Line {
	line := Line{Cell: k.id}
	base := values(row[0], k.metric)
	for _, cell := range row {
		x := values(cell, k.metric)
		s := stats.Describe(x)
		line.Stats = append(line.Stats, s)
		d := s.Median/line.Stats[0].Median - 1
		line.Delta = append(line.Delta, d)
		line.Beyond = append(line.Beyond, c.Floor.Beyond(d+1) && apart(line.Stats[0], s))
		test := stats.Compare(base, x)
		line.Test = append(line.Test, test)
		line.Told = append(line.Told, test.Testable)
	}
	if k.metric == LatencyP99 {
		line.Rate = row[0].Rate
		for _, cell := range row {
			short, rates := held(cell)
			line.Short = append(line.Short, short)
			line.Achieved = append(line.Achieved, stats.Describe(rates).Median)
		}
	}
	return line
}

// held is how many of a fixed-rate cell's trials fell short of its rate,
// and the rate each achieved: requests sent and done, whatever their
// answer, per second, as a run's tables count them (analysis.RowOf), at
// the share analysis.Sustained. A cell's RPS alone is its good answers.
func held(c *results.Cell) (short int, rates []float64) {
	for _, t := range c.Trials {
		done := t.Requests + t.Errors - t.ErrorKinds["unsent"]
		if !analysis.Sustains(done, t.Seconds, c.Rate) {
			short++
		}
		if t.Seconds > 0 {
			rates = append(rates, float64(done)/t.Seconds)
		}
	}
	return short, rates
}

// apart reports whether two summaries' intervals (95% CI, or min…max)
// do not overlap.
func apart(a, b stats.Summary) bool { return upper(b) < lower(a) || lower(b) > upper(a) }

func values(c *results.Cell, m Metric) []float64 {
	out := make([]float64, len(c.Trials))
	for i, t := range c.Trials {
		if m == LatencyP99 {
			out[i] = t.LatencyMS.P99
		} else {
			out[i] = t.RPS
		}
	}
	return out
}

// environment lists what explains many "regressions": the machine, the
// engine, the base images and runtime versions.
func environment(runs []*results.Run) []EnvRow {
	field := func(name string, get func(*results.Run) string) EnvRow {
		r := EnvRow{Field: name}
		for _, run := range runs {
			r.Values = append(r.Values, get(run))
		}
		for _, v := range r.Values {
			r.Differs = r.Differs || v != r.Values[0]
		}
		return r
	}
	rows := []EnvRow{
		field("label", func(r *results.Run) string { return r.Environment.Label }),
		field("cpu model", func(r *results.Run) string { return r.Environment.CPUModel }),
		field("online cpus", func(r *results.Run) string { return fmt.Sprint(r.Environment.OnlineCPUs) }),
		field("kernel", func(r *results.Run) string { return r.Environment.Kernel }),
		field("docker", func(r *results.Run) string { return r.Environment.DockerVersion }),
		field("network mode", func(r *results.Run) string { return string(r.Environment.NetworkMode) }),
		field("harness", func(r *results.Run) string { return r.Environment.HarnessVersion }),
		field("load generator", func(r *results.Run) string { return r.Environment.LoadGenerator }),
		field("profile", func(r *results.Run) string { return r.Matrix.Profile }),
		field("started", func(r *results.Run) string { return r.Environment.StartedAt.UTC().Format("2006-01-02 15:04") }),
	}
	if slices.ContainsFunc(runs, func(r *results.Run) bool { return len(r.Environment.Machines) > 0 }) {
		// Two engines: the fields above are the targets' machine's.
		rows = append(rows,
			field("load generator's machine", func(r *results.Run) string {
				m, ok := r.Environment.Machine(results.RoleLoadgen)
				if !ok {
					return "the targets' machine"
				}
				return fmt.Sprintf("%s: %s, %d cpus, kernel %s, docker %s", m.Engine, m.CPUModel, m.OnlineCPUs, m.Kernel, m.DockerVersion)
			}),
			field("link between them", func(r *results.Run) string { return r.Environment.Link }))
	}
	rows = append(rows, imageRows(runs, field)...)
	return append(rows, runtimeRows(runs, field)...)
}

// imageRows are the base images, side by side.
func imageRows(runs []*results.Run, field func(string, func(*results.Run) string) EnvRow) []EnvRow {
	var rows []EnvRow
	var keys []string
	for _, run := range runs {
		for k := range run.Images {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		rows = append(rows, field("base image "+k, func(r *results.Run) string {
			b := r.Images[k]
			switch {
			case b == nil:
				return "—"
			case b.Used == "":
				return "unavailable"
			case b.StandIn:
				return b.Used + " (stand-in)"
			}
			return b.Used
		}))
	}
	return rows
}

// runtimeRows are the targets' runtime versions, side by side.
func runtimeRows(runs []*results.Run, field func(string, func(*results.Run) string) EnvRow) []EnvRow {
	var rows []EnvRow
	runtimes := map[string]bool{}
	for _, run := range runs {
		for _, c := range run.Cells {
			if c.Image != nil && c.Image.RuntimeVersion != "" {
				runtimes[c.Key().TargetName()] = true
			}
		}
	}
	for _, t := range slices.Sorted(func(yield func(string) bool) {
		for k := range runtimes {
			if !yield(k) {
				return
			}
		}
	}) {
		rows = append(rows, field("runtime "+t, func(r *results.Run) string {
			for _, c := range r.Cells {
				if c.Key().TargetName() == t && c.Image != nil && c.Image.RuntimeVersion != "" {
					return c.Image.RuntimeVersion
				}
			}
			return "—"
		}))
	}
	return rows
}

// Regression is a cell worse in a later run than in the first beyond
// doubt: see Regressions.
type Regression struct {
	Cell   string  `json:"cell"` // scenario and cell id
	Run    string  `json:"run"`
	Metric Metric  `json:"metric"`
	Delta  float64 `json:"delta"` // median against the first run's
}

// Regressions lists the cells worse in a later run than in the first
// beyond doubt: slower (or, for a fixed-rate cell, slower to answer) past
// the comparison's floor, with the two runs' intervals (95% CI, or min…max
// with fewer than 6 trials) apart and the trials to tell (Line.Told); and
// the fixed-rate cells that no longer held their rate (AchievedRate).
func (c *Comparison) Regressions() []Regression {
	var out []Regression
	for _, p := range c.Problems {
		if p.Kind == Regressed {
			out = append(out, Regression{Cell: p.Cell, Run: p.Run, Metric: p.Metric, Delta: p.Delta})
		}
	}
	return out
}

// lower and upper are a summary's interval: its 95% CI, or min…max.
func lower(s stats.Summary) float64 {
	if s.HasCI {
		return s.Lo
	}
	return s.Min
}

func upper(s stats.Summary) float64 {
	if s.HasCI {
		return s.Hi
	}
	return s.Max
}
