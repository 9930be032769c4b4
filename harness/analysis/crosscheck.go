package analysis

import (
	"github.com/webbench/webbench/harness/results"

	"cmp"
	"math"
	"slices"

	"github.com/webbench/webbench/harness/cellid"
)

// CrossPair is one cell as two load generators measured it.
type CrossPair struct {
	Base, Cross *Row
	Ratio       float64 `json:"ratio"` // Cross's headline RPS over Base's
	// Verdict: "agree" (their intervals overlap, or the difference is
	// within the run's noise floor), "differ", or "?" (one trial).
	Verdict string `json:"verdict"`
}

// Crosscheck compares, in one scenario, what the cross-check generator
// measured with what another generator of the run measured, cell by cell.
type Crosscheck struct {
	Scenario string      `json:"scenario"`
	Base     string      `json:"base"`  // a generator of the run's axis
	Cross    string      `json:"cross"` // the cross-check's generator
	Pairs    []CrossPair `json:"pairs"`
	Agree    int         `json:"agree"`
	Differ   int         `json:"differ"`
	Unsure   int         `json:"unsure"`
	// Flips are pairs of targets whose order, in a group of cells (params,
	// cores, connections, keep-alive, rate), is not the same under both.
	Flips [][2]string `json:"flips,omitempty"`
}

// Crosschecks compares, for a run with a cross-check, every generator of
// its axis with the cross-check's, in one scenario; nil without one.
func Crosschecks(run *results.Run, scenario string) []Crosscheck {
	cross := run.Matrix.Crosscheck
	if cross == "" {
		return nil
	}
	name := func(r *Row) string { return cmp.Or(r.Generator, cellid.DefaultGenerator) }
	byGen := map[string]map[rowGroup]map[string]*Row{} // generator → group → target → row
	var gens []string
	rows := Rows(run, scenario)
	for _, r := range rows {
		if r.Control {
			continue
		}
		g := name(r)
		if byGen[g] == nil {
			byGen[g] = map[rowGroup]map[string]*Row{}
			if g != cross {
				gens = append(gens, g)
			}
		}
		k := rowGroup{proto: r.Protocol, params: r.Params, cpus: r.CPUs, conns: r.Connections, close: r.Close, rate: r.Rate, loadgens: r.Loadgens}
		if byGen[g][k] == nil {
			byGen[g][k] = map[string]*Row{}
		}
		byGen[g][k][r.Base] = r
	}
	noise := NoiseApplied(run)
	var out []Crosscheck
	for _, base := range gens {
		cc := Crosscheck{Scenario: scenario, Base: base, Cross: cross}
		for _, r := range rows { // in table order
			k := rowGroup{proto: r.Protocol, params: r.Params, cpus: r.CPUs, conns: r.Connections, close: r.Close, rate: r.Rate, loadgens: r.Loadgens}
			if r.Control || name(r) != base || byGen[cross][k][r.Base] == nil {
				continue
			}
			c := byGen[cross][k][r.Base]
			p := CrossPair{Base: r, Cross: c}
			if r.RPS > 0 {
				p.Ratio = c.RPS / r.RPS
			}
			switch significance(r.RPSStats, c.RPSStats) {
			case "?":
				p.Verdict = "?"
				cc.Unsure++
			case "~":
				p.Verdict = "agree"
				cc.Agree++
			default:
				if math.Abs(1-p.Ratio) < noise {
					p.Verdict = "agree"
					cc.Agree++
				} else {
					p.Verdict = "differ"
					cc.Differ++
				}
			}
			cc.Pairs = append(cc.Pairs, p)
		}
		cc.Flips = orderFlips(byGen[base], byGen[cross])
		out = append(out, cc)
	}
	return out
}

// orderFlips returns, sorted and once each, the pairs of targets whose order
// by RPS differs between base and cross in some group of cells.
func orderFlips(base, cross map[rowGroup]map[string]*Row) [][2]string {
	var flips [][2]string
	for k, rows := range base {
		var targets []string
		for t := range rows {
			if cross[k][t] != nil {
				targets = append(targets, t)
			}
		}
		for i, a := range targets {
			for _, b := range targets[i+1:] {
				before := cmp.Compare(rows[a].RPS, rows[b].RPS)
				after := cmp.Compare(cross[k][a].RPS, cross[k][b].RPS)
				if before != after {
					flip := [2]string{min(a, b), max(a, b)}
					flips = append(flips, flip)
				}
			}
		}
	}
	slices.SortFunc(flips, func(a, b [2]string) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
	return slices.Compact(flips) // one flip per pair of targets, whatever the groups
}
