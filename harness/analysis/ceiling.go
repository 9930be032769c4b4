package analysis

import (
	"slices"

	"github.com/webbench/webbench/harness/results"
	"github.com/webbench/webbench/harness/stats"
)

// CeilingBeaten is the share of a measured ceiling past which a cell
// resting on it proves it wrong. The ceiling rule allows the ceiling's own
// measurement CeilingBound of slack (a cell at 85% of it may be at the
// generator's limit); a cell past 1/CeilingBound of it (118%) is beyond
// that slack in the other direction: the generator drew more than its
// ceiling says it can, so the ceiling was measured low (a busy machine, a
// slow first visit) and no bound may rest on it.
const CeilingBeaten = 1 / CeilingBound

// BeatenCeiling is a measured ceiling that a cell on the same cores,
// connections and generator passed by CeilingBeaten or more: every
// generator bound that rests on it is unknown.
type BeatenCeiling struct {
	Ceiling results.Ceiling `json:"ceiling"`
	Cell    string          `json:"cell"`  // the cell that passed it by the most
	RPS     float64         `json:"rps"`   // that cell's good answers per second, median over its trials
	Share   float64         `json:"share"` // RPS over the ceiling's
}

// onCeiling says whether cell was judged against ce: the runner measures
// one ceiling per generator, cores, connections, keep-alive, pinning,
// protocol, pipeline and generator engines.
func onCeiling(ce results.Ceiling, cell *results.Cell) bool {
	return ce.GeneratorName() == cell.GeneratorName() && ce.CPUs == cell.CPUs && ce.Connections == cell.Connections && ce.Close == cell.Close &&
		ce.Pinning == cell.Pinning && ce.Protocol == cell.Protocol && ce.Pipeline == cell.Pipeline && ce.Loadgens == cell.Loadgens
}

// measuredCeiling is a ceiling with a figure: measured, and not merely
// "above the run's highest rate".
func measuredCeiling(ce results.Ceiling) bool { return ce.Error == "" && ce.AtLeast == 0 && ce.RPS > 0 }

// BeatenCeilings lists the run's measured ceilings that a cell resting on
// one beat by CeilingBeaten or more, in the order of the run's ceilings. A
// cell counts whether it ended ok or failed: what its trials drew is what
// the generator could draw (a fixed-rate cell that failed to hold a rate
// above the ceiling may still have drawn more than it).
func BeatenCeilings(run *results.Run) []BeatenCeiling {
	var out []BeatenCeiling
	for _, ce := range run.Ceilings {
		if b, ok := beaten(run, ce); ok {
			out = append(out, b)
		}
	}
	return out
}

// beaten is ce beaten by the fastest cell on it; false when no cell beat it.
func beaten(run *results.Run, ce results.Ceiling) (BeatenCeiling, bool) {
	if !measuredCeiling(ce) {
		return BeatenCeiling{}, false
	}
	best := BeatenCeiling{Ceiling: ce}
	for _, c := range run.Cells {
		if c == nil || (c.Status != results.OK && c.Status != results.Failed) || !onCeiling(ce, c) {
			continue
		}
		if rps := medianRPS(c.Trials); rps > best.RPS {
			best.Cell, best.RPS = c.ID(), rps
		}
	}
	best.Share = best.RPS / ce.RPS
	return best, best.Share >= CeilingBeaten
}

// medianRPS is the median over trials of good answers per second, the
// figure a cell's ceiling share is of.
func medianRPS(trials []results.Trial) float64 {
	xs := make([]float64, len(trials))
	for i, t := range trials {
		xs[i] = t.RPS
	}
	return stats.Describe(xs).Median
}

// ceilingBeatenFor says whether the ceiling cell's summary s was judged
// against was beaten; it looks only when s has a ceiling rule to void.
func ceilingBeatenFor(run *results.Run, cell *results.Cell, s *results.Summary) bool {
	if s == nil || !slices.ContainsFunc(s.Bounds, isCeilingRule) {
		return false
	}
	for _, ce := range run.Ceilings {
		if onCeiling(ce, cell) {
			_, ok := beaten(run, ce)
			return ok
		}
	}
	return false
}

func isCeilingRule(w results.Why) bool {
	return w == results.BoundCeiling || w == results.BoundSharedCeiling
}

// generatorRules words the rules that call a cell generator-bound, from
// its summary s, less the ceiling's where it does not hold: when the
// ceiling was beaten (void then says that a rule rested on it), or, for
// the ceiling measured on the server's own cores, when the server used
// ServerBoundShare of them or more: its own CPU says it was at its limit,
// which the fixed-response server on the same cores may have been too.
// Summaries written before the rules' codes keep their words.
func generatorRules(s *results.Summary, ceilingBeaten, serverSaturated bool) (rules []string, void bool) {
	if s == nil {
		return nil, false
	}
	if len(s.Bounds) == 0 {
		return BoundText(s), false
	}
	kept := slices.DeleteFunc(slices.Clone(s.Bounds), func(w results.Why) bool {
		return ceilingBeaten && isCeilingRule(w) || serverSaturated && w == results.BoundCeiling
	})
	void = ceilingBeaten && len(kept) < len(s.Bounds)
	if len(kept) == 0 {
		return nil, void
	}
	cp := *s
	cp.Bounds = kept
	return BoundText(&cp), void
}
