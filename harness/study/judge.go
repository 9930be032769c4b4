package study

import (
	"fmt"
	"math"
	"strings"

	"github.com/webbench/webbench/harness/results"
)

// Verdict is what the committed runs say of a claim. Only Confirmed and
// Contradicted judge the claim itself, and only when every item of the
// setup-match checklist matches and the difference lies beyond the run's
// A/A floor.
type Verdict string

// Verdicts, in the order a summary counts them.
const (
	Confirmed     Verdict = "confirmed"
	Contradicted  Verdict = "contradicted"
	WithinNoise   Verdict = "within noise"           // the setup matches; the difference does not clear the floor
	NotAsStated   Verdict = "not testable as stated" // the closest run differs in setup, or no measurement can test the wording
	NotHere       Verdict = "not testable here"      // a system this machine cannot run
	NotMeasured   Verdict = "not measured"           // no committed run has the cells
	verdictsCount         = 6
)

// Verdicts lists the kinds in summary order.
var Verdicts = []Verdict{Confirmed, Contradicted, WithinNoise, NotAsStated, NotHere, NotMeasured}

// Measure is one pair of a claim's test in the run that stands closest to
// the study's setup.
type Measure struct {
	Pair
	Run       *Run
	Ratio     Ratio
	Floor     Floor
	HasFloor  bool
	Checklist []Item
	Reads     Verdict  // what the figures say alone, against the floor
	Failed    string   // with expect fails: how cell A ended
	Drift     []string // other runs of A or B that disagree beyond both floors
	Also      []string // the other runs that hold the pair
}

// Missing is a pair no run measured, and why.
type Missing struct {
	Pair
	Why string
}

// Judgement is a claim's verdict and what it rests on.
type Judgement struct {
	Claim    *Claim
	Setup    Setup
	Verdict  Verdict
	Why      string
	Measures []Measure
	Missing  []Missing
}

// Judge computes every claim's verdict from the runs. No verdict is read
// from the file: study.yaml states claims and cells, never outcomes.
func Judge(f *File, runs []*Run) []Judgement {
	out := make([]Judgement, 0, len(f.Claims))
	for i := range f.Claims {
		out = append(out, judge(f, &f.Claims[i], runs))
	}
	return out
}

func judge(f *File, c *Claim, runs []*Run) Judgement {
	j := Judgement{Claim: c, Setup: merged(f.Setup, c.Setup)}
	if c.Test != nil {
		for _, p := range c.Test.Pairs {
			if m, ok := measure(j.Setup, c.Test, p, runs); ok {
				j.Measures = append(j.Measures, m)
			} else {
				j.Missing = append(j.Missing, Missing{Pair: p, Why: missing(p, runs)})
			}
		}
	}
	j.Verdict, j.Why = decide(c, j)
	return j
}

// decide turns the measures into the claim's verdict.
func decide(c *Claim, j Judgement) (Verdict, string) {
	switch {
	case c.NotTestableHere != "":
		return NotHere, c.NotTestableHere
	case c.Untestable != "":
		return NotAsStated, c.Untestable
	case c.Test == nil:
		return NotMeasured, "no committed run has cells that test it"
	case len(j.Measures) == 0:
		return NotMeasured, "no committed run holds its cells"
	}
	var off []string
	for _, m := range j.Measures {
		for _, it := range m.Checklist {
			if !it.OK && !contains(off, it.Name) {
				off = append(off, it.Name)
			}
		}
	}
	switch {
	case len(off) > 0:
		return NotAsStated, "the closest run differs from the study in " + strings.Join(off, ", ")
	case len(j.Missing) > 0:
		return NotAsStated, fmt.Sprintf("%d of its %d pairs were not measured", len(j.Missing), len(c.Test.Pairs))
	}
	reads := map[Verdict]int{}
	for _, m := range j.Measures {
		reads[m.Reads]++
	}
	switch {
	case reads[Contradicted] > 0:
		return Contradicted, "every setup item matches, and the difference is beyond the run's A/A floor"
	case reads[Confirmed] == len(j.Measures):
		return Confirmed, "every setup item matches, and the difference is beyond the run's A/A floor"
	}
	return WithinNoise, "every setup item matches, but the difference does not clear the run's A/A floor"
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// measure finds the run that holds the pair and stands closest to the
// setup (most checklist items matching, then the latest), and reads it.
func measure(s Setup, t *Test, p Pair, runs []*Run) (Measure, bool) {
	var best *Measure
	var also []string
	for _, r := range runs {
		m, ok := read(s, t, p, r)
		if !ok {
			continue
		}
		also = append(also, r.Name)
		if best == nil || score(m) > score(*best) || score(m) == score(*best) && r.Environment.StartedAt.After(best.Run.Environment.StartedAt) {
			best = &m
		}
	}
	if best == nil {
		return Measure{}, false
	}
	for _, name := range also {
		if name != best.Run.Name {
			best.Also = append(best.Also, name)
		}
	}
	best.Drift = drift(t.Metric, best, runs)
	return *best, true
}

func score(m Measure) int {
	n := 0
	for _, it := range m.Checklist {
		if it.OK && !it.NotStated {
			n++
		}
	}
	return n
}

// read measures the pair in one run; false when the run lacks a cell or,
// except for expect fails, either cell is not ok.
func read(s Setup, t *Test, p Pair, r *Run) (Measure, bool) {
	a, b := r.cell(p.A), r.cell(p.B)
	if a == nil || b == nil || b.Status != results.OK || a.Status == results.Skipped {
		return Measure{}, false
	}
	m := Measure{Pair: p, Run: r}
	// The floor is the control's trial-by-trial interval even where the
	// study kept its best run: one best-over-best ratio is one draw.
	m.Floor, m.HasFloor = r.floor(t.Metric, "median", p.A, p.B)
	if t.Expect == "fails" {
		m.Failed = failure(a)
		m.Reads = readsFails(a, b, r.Matrix.Load.MaxErrorRate)
	} else {
		if a.Status != results.OK {
			return Measure{}, false
		}
		ratio, ok := ratio(a, b, t.Metric, s.Statistic)
		if !ok {
			return Measure{}, false
		}
		m.Ratio = ratio
		if m.HasFloor {
			m.Reads = intervalAgrees(t, ratio, reads(t, ratio.Value, m.Floor))
		}
	}
	m.Checklist = checklist(s, r, a, b, m.Floor, m.HasFloor)
	return m, true
}

func failure(c *results.Cell) string {
	switch {
	case c.Status == results.Failed:
		return "failed: " + c.Reason
	case c.Summary != nil && c.Summary.Errors > 0:
		return fmt.Sprintf("ok, with %d failed requests", c.Summary.Errors)
	}
	return "ok, no failed request"
}

// readsFails: A fails when the cell failed, or when the trials behind its
// headline (the best one, where the study kept its best) had more errors
// than the run allows; B must have none of that.
func readsFails(a, b *results.Cell, limit float64) Verdict {
	aFails := a.Status == results.Failed || a.Summary != nil && a.Summary.ErrorRate > limit
	bClean := b.Summary != nil && b.Summary.ErrorRate <= limit
	switch {
	case aFails && bClean:
		return Confirmed
	case !aFails:
		return Contradicted
	}
	return WithinNoise
}

// reads holds ratio r to the claim: beyond the floor on the claim's side
// confirms it, beyond it on the other side contradicts it.
func reads(t *Test, r float64, f Floor) Verdict {
	v := t.Value
	if v == 0 {
		v = 1
	}
	switch t.Expect {
	case "greater", "less":
		above := f.Beyond(r/v) && r > v
		below := f.Beyond(r/v) && r < v
		if t.Expect == "less" {
			above, below = below, above
		}
		switch {
		case above:
			return Confirmed
		case below:
			return Contradicted
		}
		return WithinNoise
	}
	// about v within ±tolerance
	off := math.Abs(math.Log(r / v))
	tol := math.Log(1 + t.Tolerance)
	switch {
	case off > tol+math.Log(f.Factor):
		return Contradicted
	case off <= tol && (v != 1 && f.Beyond(r) || v == 1 && f.Factor <= 1+t.Tolerance):
		return Confirmed
	}
	return WithinNoise
}

// intervalAgrees keeps a greater or less reading only when the ratio's own
// interval lies on that side of the claim's value too: a median beyond the
// A/A floor whose pairs spread across the value (1.12×, 0.84…1.34) is
// within noise. Without an interval (a best-over-best ratio is one draw)
// the floor alone decides.
func intervalAgrees(t *Test, r Ratio, v Verdict) Verdict {
	if !r.HasCI || t.Expect != "greater" && t.Expect != "less" || v == WithinNoise {
		return v
	}
	val := t.Value
	if val == 0 {
		val = 1
	}
	if r.Lo > val || r.Hi < val {
		return v
	}
	return WithinNoise
}

// missing says why no run measured the pair: the cells' own reasons where
// a run skipped or failed them.
func missing(p Pair, runs []*Run) string {
	var why []string
	for _, r := range runs {
		for _, id := range []string{p.A, p.B} {
			if c := r.cell(id); c != nil && c.Status != results.OK && c.Reason != "" {
				why = append(why, fmt.Sprintf("%s %s in %s: %s", id, c.Status, r.Name, firstLine(c.Reason)))
			}
		}
		if len(why) > 0 {
			return strings.Join(why, "; ")
		}
	}
	return "no committed run has both cells"
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 160 {
		s = s[:157] + "…"
	}
	return s
}

// drift lists the other runs where cell A or B, measured ok, reads a
// median beyond both runs' A/A floors from the measure's own run.
func drift(metric string, m *Measure, runs []*Run) []string {
	var out []string
	for _, id := range []string{m.A, m.B} {
		here := m.Run.cell(id)
		for _, r := range runs {
			other := r.cell(id)
			if r == m.Run || other == nil || other.Status != results.OK || here.Status != results.OK {
				continue
			}
			f1, ok1 := m.Run.floor(metric, "median", id, "")
			f2, ok2 := r.floor(metric, "median", id, "")
			x, y := median(here, metric), median(other, metric)
			if !ok1 || !ok2 || x <= 0 || y <= 0 {
				continue
			}
			wide := Floor{Factor: math.Max(f1.Factor, f2.Factor)}
			if wide.Beyond(y / x) {
				out = append(out, fmt.Sprintf("%s reads %s in %s against %s here (%+.1f%%), beyond both runs' floors (±%.1f%%, ±%.1f%%)",
					id, num(y), r.Name, num(x), 100*(y/x-1), f2.Percent(), f1.Percent()))
			}
		}
	}
	return out
}
