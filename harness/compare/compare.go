// Package compare matches the cells of several runs (a laptop against a
// cloud VM, before against after a change) and says, benchstat-style,
// which differences are real: per cell each run's median with its
// confidence interval, the change against the first run and the
// Mann-Whitney U test's p-value, "~" where the difference is not
// significant at α = 0.05, and a geomean row per scenario. It reads
// results.json only.
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
	Names      []string    `json:"runs"` // one per run, as given
	Env        []EnvRow    `json:"environment"`
	Scenarios  []Scenario  `json:"scenarios"`
	Unmatched  []Unmatched `json:"unmatched,omitempty"`
	NoiseFloor float64     `json:"noise_floor,omitempty"` // the largest A/A noise floor of the runs
}

// EnvRow is one environment fact side by side; Differs marks a fact that
// is not the same in every run.
type EnvRow struct {
	Field   string   `json:"field"`
	Values  []string `json:"values"`
	Differs bool     `json:"differs"`
}

// Scenario is the matched cells of one scenario.
type Scenario struct {
	Name     string    `json:"name"`
	Lines    []Line    `json:"cells"`
	Geomean  []float64 `json:"geomean_rps"`   // per run, over the cells every run has
	GeoDelta []float64 `json:"geomean_delta"` // per run, against the first
}

// Line is one cell measured in every run.
type Line struct {
	Cell  string             `json:"cell"`  // the cell id without the scenario
	Stats []stats.Summary    `json:"rps"`   // per run
	Delta []float64          `json:"delta"` // per run, median against the first run's (0 for the first)
	Test  []stats.Comparison `json:"test"`  // per run, against the first
}

// Unmatched is a cell present in some runs only.
type Unmatched struct {
	Cell string   `json:"cell"`
	In   []string `json:"in"`
}

// Build compares runs; names label them (usually their folders).
func Build(names []string, runs []*results.Run) *Comparison {
	c := &Comparison{Names: names, Env: environment(runs)}
	type key struct{ scenario, id string }
	cells := map[key][]*results.Cell{}
	var order []key
	for i, run := range runs {
		for _, cell := range run.Cells {
			if cell.Status != results.OK || len(cell.Trials) == 0 {
				continue
			}
			k := key{cell.Scenario, cell.ID()}
			if _, ok := cells[k]; !ok {
				cells[k] = make([]*results.Cell, len(runs))
				order = append(order, k)
			}
			cells[k][i] = cell
		}
	}
	// A difference within any run's A/A noise floor is not called one.
	var noise float64
	for _, run := range runs {
		noise = max(noise, analysis.Noise(run))
	}
	c.NoiseFloor = noise
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
		sc := byScenario[k.scenario]
		if sc == nil {
			sc = &Scenario{Name: k.scenario}
			byScenario[k.scenario] = sc
			scenarioOrder = append(scenarioOrder, k.scenario)
		}
		line := Line{Cell: k.id}
		base := rps(row[0])
		for _, cell := range row {
			x := rps(cell)
			s := stats.Describe(x)
			line.Stats = append(line.Stats, s)
			line.Delta = append(line.Delta, s.Median/line.Stats[0].Median-1)
			test := stats.Compare(base, x)
			if d := line.Delta[len(line.Delta)-1]; test.Significant && d < noise && d > -noise {
				test.Significant, test.Warning = false, "within the noise floor"
			}
			line.Test = append(line.Test, test)
		}
		sc.Lines = append(sc.Lines, line)
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
	sort.SliceStable(c.Unmatched, func(a, b int) bool { return c.Unmatched[a].Cell < c.Unmatched[b].Cell })
	return c
}

func rps(c *results.Cell) []float64 {
	out := make([]float64, len(c.Trials))
	for i, t := range c.Trials {
		out[i] = t.RPS
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

// Regression is a cell slower in a later run than in the first beyond
// doubt: see Regressions.
type Regression struct {
	Cell  string  `json:"cell"` // scenario and cell id
	Run   string  `json:"run"`
	Delta float64 `json:"delta"` // median against the first run's
}

// Regressions lists the cells slower in a later run than in the first
// beyond both their intervals and the noise floor: the difference is
// significant (Mann-Whitney U at α = 0.05, and larger than any run's A/A
// noise floor) and the later run's interval (95% CI, or min…max with fewer
// than 6 trials) lies wholly below the first run's.
func (c *Comparison) Regressions() []Regression {
	var out []Regression
	for _, sc := range c.Scenarios {
		for _, l := range sc.Lines {
			base := l.Stats[0]
			for i := 1; i < len(l.Stats); i++ {
				s := l.Stats[i]
				if l.Delta[i] < 0 && l.Test[i].Significant && upper(s) < lower(base) {
					out = append(out, Regression{Cell: l.Cell, Run: c.Names[i], Delta: l.Delta[i]})
				}
			}
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
