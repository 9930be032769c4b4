package results

import (
	"math"

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
}

// NoiseFloors computes the noise floor of every ok cell that has an ok
// control, in the order of the run.
func NoiseFloors(run *Run) []NoiseFloor {
	twins := map[string]*Cell{}
	for _, c := range run.Cells {
		if c != nil && !c.Control && c.Status == OK {
			twins[c.ID()] = c
		}
	}
	var out []NoiseFloor
	for _, ctl := range run.Cells {
		if ctl == nil || !ctl.Control || ctl.Status != OK {
			continue
		}
		k := ctl.Key()
		k.Control = false
		a := twins[k.ID()]
		if a == nil {
			continue
		}
		var ratios []float64
		for i := range min(len(a.Trials), len(ctl.Trials)) {
			if ctl.Trials[i].RPS > 0 {
				ratios = append(ratios, a.Trials[i].RPS/ctl.Trials[i].RPS)
			}
		}
		if len(ratios) == 0 {
			continue
		}
		s := stats.Describe(ratios)
		nf := NoiseFloor{Cell: a.ID(), N: s.N, Ratio: s.Median, Lo: s.Min, Hi: s.Max, HasCI: s.HasCI}
		if s.HasCI {
			nf.Lo, nf.Hi = s.Lo, s.Hi
		}
		nf.Floor = math.Max(math.Abs(nf.Hi-1), math.Abs(1-nf.Lo))
		out = append(out, nf)
	}
	return out
}

// Noise is the largest noise floor of the run: 0 when it had no control.
func Noise(run *Run) float64 {
	var f float64
	for _, nf := range NoiseFloors(run) {
		f = math.Max(f, nf.Floor)
	}
	return f
}
