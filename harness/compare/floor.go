package compare

import (
	"fmt"
	"math"

	"github.com/webbench/webbench/harness/analysis"
	"github.com/webbench/webbench/harness/results"
)

// FloorSource says where the floor a comparison judged by came from.
type FloorSource string

const (
	// FloorControls: the runs' own A/A controls, the widest of their
	// floors, because it is wider than the drift allowance.
	FloorControls FloorSource = "controls"
	// FloorMachine: the drift measured between two earlier runs of the
	// same cells on the same machine (see Drift).
	FloorMachine FloorSource = "machine"
	// FloorDefault: DefaultDrift, the drift measured on this project's VM.
	FloorDefault FloorSource = "default"
)

// DefaultDrift is the allowance for drift between two runs of the same
// cells on one machine when nothing better is recorded: between committed
// runs of the same cells on this project's 2-core VM, medians moved by
// −16% to +33%. Either run may be the first, so the allowance is read both
// ways: a ratio r and 1/r are noise alike, here 1/1.33 … 1.33 (−25% …
// +33%).
const DefaultDrift = 0.33

// MaxGateFloor is the widest floor a gate can judge by: at ±100% a halving
// reads as noise, so such a floor clears nothing a user would call a
// regression (see Problem, FloorTooWide). It is the run's own limit, so a
// run's README and compare call the same floors too wide.
const MaxGateFloor = analysis.MaxNoiseFloor

// Floor is what a difference between runs must exceed to be called one: a
// ratio of medians r is beyond noise when r > 1+Width or r < 1/(1+Width).
type Floor struct {
	Width  float64     `json:"width"`
	Source FloorSource `json:"source"`
	From   string      `json:"from,omitempty"` // the run whose control, or the runs whose drift, gave it
	// Controls is the widest A/A floor of the runs' own controls (0: they
	// have none). A control's twin runs in the same rounds, seconds apart:
	// it sees the noise within a run, not the drift between runs, so it
	// sets the floor only when it is the wider.
	Controls     float64 `json:"controls,omitempty"`
	ControlsFrom string  `json:"controls_from,omitempty"`
}

// Beyond reports whether a ratio of medians (later ÷ first) lies outside
// the floor.
func (f Floor) Beyond(ratio float64) bool {
	return ratio > 1+f.Width || ratio < 1/(1+f.Width)
}

// Option sets how Build judges.
type Option func(*options)

type options struct{ machine *Floor }

// WithMachineFloor judges by the drift recorded for the runs' machine (see
// Drift) in place of DefaultDrift.
func WithMachineFloor(f Floor) Option {
	return func(o *options) { f.Source = FloorMachine; o.machine = &f }
}

// floor picks the floor of a comparison: the drift allowance (the
// machine's, else DefaultDrift), widened to the runs' own A/A controls
// when those are wider.
func floor(names []string, runs []*results.Run, o options) Floor {
	f := Floor{Width: DefaultDrift, Source: FloorDefault}
	if o.machine != nil {
		f = *o.machine
	}
	for i, run := range runs {
		if n := analysis.Noise(run); n > f.Controls {
			f.Controls, f.ControlsFrom = n, names[i]
		}
	}
	if f.Controls > f.Width {
		f.Width, f.Source, f.From = f.Controls, FloorControls, f.ControlsFrom
	}
	return f
}

// Drift is the widest drift between two runs of the same cells, the
// machine floor they record: over the cells ok in both (controls
// included), the largest of r and 1/r, less one, where r is the ratio of
// their medians. It fails when the runs share no cell or were measured on
// different machines (CPU model or online CPUs).
func Drift(a, b *results.Run) (float64, error) {
	ea, eb := a.Environment, b.Environment
	if ea.CPUModel != eb.CPUModel || ea.OnlineCPUs != eb.OnlineCPUs {
		return 0, fmt.Errorf("the runs were measured on different machines (%s, %d cpus; %s, %d cpus)", ea.CPUModel, ea.OnlineCPUs, eb.CPUModel, eb.OnlineCPUs)
	}
	c := Build([]string{"a", "b"}, []*results.Run{a, b})
	var drift float64
	n := 0
	for _, sc := range c.Scenarios {
		for _, l := range sc.Lines {
			r := l.Delta[1] + 1
			if r <= 0 || math.IsInf(r, 0) || math.IsNaN(r) {
				continue
			}
			drift = math.Max(drift, math.Max(r, 1/r)-1)
			n++
		}
	}
	if n == 0 {
		return 0, fmt.Errorf("the runs share no ok cell")
	}
	return drift, nil
}

// SameMachine reports whether every run was measured on the machine of m
// (its CPU model and online CPUs), as a machine floor requires.
func SameMachine(m results.Environment, runs []*results.Run) bool {
	for _, r := range runs {
		if r.Environment.CPUModel != m.CPUModel || r.Environment.OnlineCPUs != m.OnlineCPUs {
			return false
		}
	}
	return true
}
