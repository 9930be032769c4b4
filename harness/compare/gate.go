package compare

import (
	"fmt"
	"slices"

	"github.com/webbench/webbench/harness/axis"
	"github.com/webbench/webbench/harness/results"
)

// ProblemKind is why a gate fails.
type ProblemKind string

const (
	// Regressed: a cell worse in a later run beyond the floor, the
	// intervals apart, with the trials on both sides for a verdict (see
	// Line.Told); or a fixed-rate cell that held its rate in the first
	// run and fell short of it in a later one (Metric AchievedRate).
	Regressed ProblemKind = "regressed"
	// CellMissing: a cell ok in the first run is not in a later one at
	// all: it vanished from the matrix, or from the file.
	CellMissing ProblemKind = "missing"
	// CellFailed: a cell ok in the first run failed in a later one.
	CellFailed ProblemKind = "failed"
	// CellSkipped: a cell ok in the first run was skipped in a later one.
	CellSkipped ProblemKind = "skipped"
	// CellPartial: a run measured a cell in part (killed, interrupted or
	// still running): it is compared with nothing until a resume
	// finishes it.
	CellPartial ProblemKind = "partial"
	// NothingMeasured: a run has no ok cell (none at all, or every one
	// failed or skipped).
	NothingMeasured ProblemKind = "nothing-measured"
	// NotComparable: a later run measured cells, but none of the first
	// run's: another generator, other cores or connections…
	NotComparable ProblemKind = "not-comparable"
	// FloorTooWide: the floor is MaxGateFloor or wider, so no regression
	// can clear it.
	FloorTooWide ProblemKind = "floor-too-wide"
)

// Problem is one reason a gate fails, as data; the renderer words it.
type Problem struct {
	Kind   ProblemKind `json:"kind"`
	Run    string      `json:"run,omitempty"`
	Cell   string      `json:"cell,omitempty"`
	Metric Metric      `json:"metric,omitempty"`
	Delta  float64     `json:"delta,omitempty"` // Regressed: the change of the median
	// Regressed on AchievedRate: the rate asked, the median rate the later
	// run achieved, and how many of its trials fell short.
	Rate     int     `json:"rate,omitempty"`
	Achieved float64 `json:"achieved_rps,omitempty"`
	Short    int     `json:"trials_short,omitempty"`
	Trials   int     `json:"trials,omitempty"`
	Reason   string  `json:"reason,omitempty"`       // CellFailed, CellSkipped: the later run's reason
	Done     int     `json:"trials_done,omitempty"`  // CellPartial: the trials measured
	Asked    int     `json:"trials_asked,omitempty"` // CellPartial: the trials the load asks
	// NothingMeasured: the run's cells, and how many failed, skipped or
	// were measured in part.
	Cells   int `json:"cells,omitempty"`
	Failed  int `json:"failed,omitempty"`
	Skipped int `json:"skipped,omitempty"`
	Partial int `json:"partial,omitempty"`
	// NotComparable: the axes whose values differ between the two runs'
	// cells ("generator", "cpus", …), each with the two runs' values.
	Differs []AxisDiff `json:"differs,omitempty"`
	Width   float64    `json:"width,omitempty"` // FloorTooWide
}

// AxisDiff is one axis of the matrix whose values differ between the
// first run's ok cells and a later run's.
type AxisDiff struct {
	Axis  string   `json:"axis"`
	First []string `json:"first"`
	Later []string `json:"later"`
}

// gate lists what a gate fails on, run by run, then the floor.
func gate(c *Comparison, runs []*results.Run) []Problem {
	var out []Problem
	firstMeasured := true
	for i, run := range runs {
		out = append(out, partial(c.Names[i], run)...)
		if p, ok := nothingMeasured(c.Names[i], run); ok {
			out = append(out, p)
			firstMeasured = firstMeasured && i > 0
			continue
		}
		if i == 0 || !firstMeasured {
			continue
		}
		if p, ok := notComparable(c.Names[i], runs[0], run); ok {
			out = append(out, p)
			continue
		}
		out = append(out, lost(c.Names[i], runs[0], run)...)
		out = append(out, regressed(c, i)...)
	}
	if c.Floor.Width >= MaxGateFloor {
		out = append(out, Problem{Kind: FloorTooWide, Run: c.Floor.From, Width: c.Floor.Width})
	}
	return out
}

// partial lists the cells a run measured in part: their figures are no
// cell's result, so they are compared with nothing, and a gate over them
// does not pass.
func partial(name string, run *results.Run) []Problem {
	var out []Problem
	for _, cell := range run.Cells {
		if cell != nil && cell.Status == results.Partial {
			out = append(out, Problem{Kind: CellPartial, Run: name, Cell: cell.ID(), Done: len(cell.Trials), Asked: cell.TrialsAsked})
		}
	}
	return out
}

func nothingMeasured(name string, run *results.Run) (Problem, bool) {
	p := Problem{Kind: NothingMeasured, Run: name}
	for _, cell := range run.Cells {
		if cell == nil {
			continue
		}
		p.Cells++
		switch {
		case cell.Status == results.OK && len(cell.Trials) > 0:
			return Problem{}, false
		case cell.Status == results.Skipped:
			p.Skipped++
		case cell.Status == results.Partial:
			p.Partial++
		default:
			p.Failed++
		}
	}
	return p, true
}

// lost lists the cells ok in the first run that a later one failed,
// skipped or does not have at all.
func lost(name string, first, later *results.Run) []Problem {
	byID := map[string]*results.Cell{}
	for _, cell := range later.Cells {
		if cell != nil {
			byID[cell.ID()] = cell
		}
	}
	var out []Problem
	for _, a := range first.Cells {
		if a == nil || a.Status != results.OK {
			continue
		}
		b := byID[a.ID()]
		switch {
		case b == nil:
			out = append(out, Problem{Kind: CellMissing, Run: name, Cell: a.ID()})
		case b.Status == results.OK && len(b.Trials) > 0, b.Status == results.Partial: // partial: said by partial
		case b.Status == results.Skipped:
			out = append(out, Problem{Kind: CellSkipped, Run: name, Cell: a.ID(), Reason: b.Reason})
		default:
			out = append(out, Problem{Kind: CellFailed, Run: name, Cell: a.ID(), Reason: b.Reason})
		}
	}
	return out
}

// regressed lists the lines worse in run i than in the first beyond
// doubt, and the fixed rates run i no longer held.
func regressed(c *Comparison, i int) []Problem {
	var out []Problem
	for _, sc := range c.Scenarios {
		for _, l := range sc.Lines {
			if l.Rate > 0 && l.Short[0] == 0 && l.Short[i] > 0 {
				out = append(out, Problem{Kind: Regressed, Run: c.Names[i], Cell: l.Cell, Metric: AchievedRate, Delta: l.Achieved[i]/l.Achieved[0] - 1,
					Rate: l.Rate, Achieved: l.Achieved[i], Short: l.Short[i], Trials: l.Stats[i].N})
			}
			worse := l.Delta[i] < 0
			if !sc.Metric.HigherIsBetter() {
				worse = l.Delta[i] > 0
			}
			if worse && l.Beyond[i] && l.Told[i] {
				out = append(out, Problem{Kind: Regressed, Run: c.Names[i], Cell: l.Cell, Metric: sc.Metric, Delta: l.Delta[i]})
			}
		}
	}
	return out
}

// notComparable says, when a later run shares no ok cell with the first,
// which axes of their cells differ.
func notComparable(name string, first, later *results.Run) (Problem, bool) {
	ids := map[string]bool{}
	for _, cell := range first.Cells {
		if cell != nil && cell.Status == results.OK {
			ids[cell.ID()] = true
		}
	}
	for _, cell := range later.Cells {
		if cell != nil && cell.Status == results.OK && ids[cell.ID()] {
			return Problem{}, false
		}
	}
	p := Problem{Kind: NotComparable, Run: name}
	axes := []cellAxis{
		{"target", func(c *results.Cell) string { return c.Key().TargetName() }},
		{"scenario", func(c *results.Cell) string { return c.Key().ScenarioName() }},
		{"generator", func(c *results.Cell) string { return c.GeneratorName() }},
		{"cpus", func(c *results.Cell) string { return fmt.Sprint(c.CPUs) }},
		{"connections", func(c *results.Cell) string { return fmt.Sprint(c.Connections) }},
		{"keep-alive", func(c *results.Cell) string { return fmt.Sprint(!c.Close) }},
		{"rate", func(c *results.Cell) string { return fmt.Sprint(c.Rate) }},
		{"protocol", func(c *results.Cell) string { return c.Protocol }},
		{"pinning", func(c *results.Cell) string { return c.Pinning }},
		{"requests", func(c *results.Cell) string { return fmt.Sprint(c.Requests) }},
		{"loadgens", func(c *results.Cell) string { return fmt.Sprint(c.Loadgens) }},
	}
	for _, a := range axis.All() {
		axes = append(axes, cellAxis{a.Name, func(c *results.Cell) string { return c.Key().Axis(a) }})
	}
	for _, ax := range axes {
		a, b := axisValues(first, ax.get), axisValues(later, ax.get)
		if !slices.Equal(a, b) {
			p.Differs = append(p.Differs, AxisDiff{Axis: ax.name, First: a, Later: b})
		}
	}
	return p, true
}

// cellAxis is one axis of a cell, as NotComparable names it, and how
// to read a cell's value of it.
type cellAxis struct {
	name string
	get  func(*results.Cell) string
}

// axisValues are the sorted distinct values of one axis over a run's ok
// cells.
func axisValues(run *results.Run, get func(*results.Cell) string) []string {
	var out []string
	for _, cell := range run.Cells {
		if cell != nil && cell.Status == results.OK && !slices.Contains(out, get(cell)) {
			out = append(out, get(cell))
		}
	}
	slices.Sort(out)
	return out
}
