package analysis

import (
	"github.com/webbench/webbench/harness/results"

	"math"

	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/stats"
)

// NoiseFloor is what an A/A control says about the machine: one cell
// measured twice as independent, interleaved cells. Ratio is the median of
// the paired ratios (trial k of the cell over trial k of its control, run
// in the same round), Lo…Hi its 95% interval (min…max below six pairs).
type NoiseFloor struct {
	Cell  string  `json:"cell"`
	N     int     `json:"pairs"`
	Ratio float64 `json:"ratio"`
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
	HasCI bool    `json:"has_ci"`
	// Floor is how far from 1 the interval reaches: differences smaller
	// than this share are noise on this machine.
	Floor float64 `json:"floor"`
	// Apart is the median number of seconds between the starts of a
	// pair's two trials (0: the trials' start times were not recorded):
	// the longer, the more of the machine's drift the pair took in.
	Apart float64 `json:"apart_s,omitempty"`
}

// NoiseFloors computes the noise floor of every ok cell that has an ok
// control, in the order of the run.
func NoiseFloors(run *results.Run) []NoiseFloor {
	twins := okCells(run)
	var out []NoiseFloor
	for _, ctl := range run.Cells {
		if ctl == nil || !ctl.Control || ctl.Status != results.OK {
			continue
		}
		k := ctl.Key()
		k.Control = false
		a := twins[k.ID()]
		if a == nil {
			continue
		}
		pr, ok := Paired(a, ctl)
		if !ok {
			continue
		}
		nf := NoiseFloor{Cell: a.ID(), N: pr.N, Ratio: pr.Ratio, Lo: pr.Lo, Hi: pr.Hi, HasCI: pr.HasCI}
		nf.Floor = pr.Floor()
		nf.Apart = apart(a, ctl)
		out = append(out, nf)
	}
	return out
}

// apart is the median of the seconds between the starts of trial k of a
// and of b, over the pairs whose start times were both recorded; 0 when none.
func apart(a, b *results.Cell) float64 {
	var gaps []float64
	for i := range min(len(a.Trials), len(b.Trials)) {
		if ta, tb := a.Trials[i].StartedAt, b.Trials[i].StartedAt; ta != nil && tb != nil {
			gaps = append(gaps, math.Abs(ta.Sub(*tb).Seconds()))
		}
	}
	if len(gaps) == 0 {
		return 0
	}
	return stats.Describe(gaps).Median
}

// Noise is the largest noise floor of the run: 0 when it had no control.
func Noise(run *results.Run) float64 {
	var f float64
	for _, nf := range NoiseFloors(run) {
		f = math.Max(f, nf.Floor)
	}
	return f
}

// MaxNoiseFloor is the widest noise floor a run's own comparisons are
// judged by: at ±100% a halving reads as noise, so a floor that wide says
// the machine was too busy to separate anything a user would call a
// difference, not where differences start. (compare's gate refuses such
// a floor for the same reason.)
const MaxNoiseFloor = 1.0

// NoiseApplied is the noise floor a run's comparisons apply: Noise, or 0
// when it is MaxNoiseFloor or wider. Such a floor is not applied as if it
// measured something: only the cells' own intervals then tell a
// difference from noise, and the report says at its top that the run
// cannot separate anything smaller than its floor.
func NoiseApplied(run *results.Run) float64 {
	if f := Noise(run); f < MaxNoiseFloor {
		return f
	}
	return 0
}

// PairedRatio is cell a over cell b, trial by trial: the median of the
// ratios of trial k of a to trial k of b (run in the same round when trials
// are interleaved), with its 95% interval, or min…max below six pairs.
type PairedRatio struct {
	N      int
	Ratio  float64
	Lo, Hi float64
	HasCI  bool
}

// Floor is how far from 1 the interval reaches, the noise floor an A/A
// pair's ratio gives.
func (p PairedRatio) Floor() float64 { return math.Max(math.Abs(p.Hi-1), math.Abs(1-p.Lo)) }

// Paired computes a ÷ b from their trials; false when no trial pairs.
func Paired(a, b *results.Cell) (PairedRatio, bool) {
	return PairedBy(a, b, func(t results.Trial) float64 { return t.RPS })
}

// pair is the trial pair i of a and b: trial i of each, or in a duet one
// side's trial i and the other's trial measured beside it (results.Beside).
func pair(a, b *results.Cell, i int) (x, y results.Trial) {
	x, y = a.Trials[i], b.Trials[i]
	switch {
	case x.Beside != nil && x.Beside.Cell == b.ID():
		y = x.Beside.Trial()
	case y.Beside != nil && y.Beside.Cell == a.ID():
		x = y.Beside.Trial()
	}
	return x, y
}

// PairedBy is Paired in another figure of a trial than its RPS.
func PairedBy(a, b *results.Cell, get func(results.Trial) float64) (PairedRatio, bool) {
	var ratios []float64
	for i := range min(len(a.Trials), len(b.Trials)) {
		x, y := pair(a, b, i)
		if d := get(y); d > 0 {
			ratios = append(ratios, get(x)/d)
		}
	}
	if len(ratios) == 0 {
		return PairedRatio{}, false
	}
	s := stats.Describe(ratios)
	pr := PairedRatio{N: s.N, Ratio: s.Median, Lo: s.Min, Hi: s.Max, HasCI: s.HasCI}
	if s.HasCI {
		pr.Lo, pr.Hi = s.Lo, s.Hi
	}
	return pr, true
}

// Relative is one row of a ratio table: a cell over its baseline.
type Relative struct {
	Cell, Base *results.Cell
	PairedRatio
}

// Relatives lists, for rel, every ok cell (controls aside) that has an ok
// baseline: the cell differing from it only in rel's dimension, set to
// rel's value. Cells that are their own baseline are left out.
func Relatives(run *results.Run, rel cellid.Relative) []Relative {
	byID := okCells(run)
	var out []Relative
	for _, c := range run.Cells {
		if c == nil || c.Control || c.Status != results.OK {
			continue
		}
		key := c.Key()
		base := byID[rel.Base(key).ID()]
		if base == nil || base == c {
			continue
		}
		if pr, ok := Paired(c, base); ok {
			out = append(out, Relative{Cell: c, Base: base, PairedRatio: pr})
		}
	}
	return out
}

// NoiseReach is how far the run's A/A controls moved a ratio in each
// direction: down is the largest 1 − Lo, up the largest Hi − 1 over its
// noise floors (0 and 0 without a control).
func NoiseReach(run *results.Run) (down, up float64) {
	for _, nf := range NoiseFloors(run) {
		down, up = math.Max(down, 1-nf.Lo), math.Max(up, nf.Hi-1)
	}
	return down, up
}

// okCells are the run's ok cells, controls aside, by id.
func okCells(run *results.Run) map[string]*results.Cell {
	out := map[string]*results.Cell{}
	for _, c := range run.Cells {
		if c != nil && !c.Control && c.Status == results.OK {
			out[c.ID()] = c
		}
	}
	return out
}
