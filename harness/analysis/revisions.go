package analysis

import (
	"math"

	"github.com/webbench/webbench/harness/axis"
	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/results"
)

// Reading is what a revision's cell shows against the baseline's.
type Reading string

// The readings of a later revision's cell.
const (
	Slower       Reading = "slower"
	Faster       Reading = "faster"
	NoDifference Reading = "no difference shown"
	CannotTell   Reading = "cannot tell"
)

// Regression is one cell of a later revision against its twin of the
// baseline revision, measured in the same run: requests per second and
// the target's CPU time per answer, each a paired ratio (head ÷ base,
// trial k over trial k) read against how far the run's A/A controls moved
// that figure by themselves.
type Regression struct {
	Cell, Base *results.Cell // Base nil: the baseline's twin did not measure
	RPS, CPU   PairedRatio   // CPU: N 0 where the trials hold no CPU figures
	// RPSReads and CPUReads are what each figure shows; Reading is the
	// cell's: slower when either is, else faster when either is, else
	// no difference shown, or cannot tell.
	RPSReads, CPUReads, Reading Reading
	Why                         string // why it cannot tell
}

// Regressions reads every cell of a later revision of run against its
// twin of the first revision (the revision axis's baseline), controls
// aside, in the order of the run. A cell or a baseline that did not end
// ok cannot tell.
func Regressions(run *results.Run) []Regression {
	revs := run.Matrix.Axes[axis.Revision.Name]
	if len(revs) < 2 {
		return nil
	}
	base := cellid.Relative{Axis: axis.Revision.Name, Value: revs[0]}
	byID := map[string]*results.Cell{}
	for _, c := range run.Cells {
		if c != nil && !c.Control {
			byID[c.ID()] = c
		}
	}
	var whole floors
	whole.rpsDown, whole.rpsUp = NoiseReach(run)
	if Noise(run) >= MaxNoiseFloor {
		whole.rpsDown, whole.rpsUp = 0, 0 // too wide to apply: the intervals alone tell
	}
	whole.cpuDown, whole.cpuUp = cpuReach(run)
	var out []Regression
	for _, c := range run.Cells {
		if c == nil || c.Control || c.Key().Axis(axis.Revision) == revs[0] {
			continue
		}
		r := Regression{Cell: c, Base: byID[base.Base(c.Key()).ID()]}
		r.read(floorsOf(run, r.Base, whole))
		out = append(out, r)
	}
	return out
}

// floorsOf are the floors a cell whose baseline is base is read against:
// how far base's own A/A control moved each figure by itself, when the run
// measured one (a run of several targets or schedules has one a
// baseline), else whole, the run's (how far any of its controls did).
func floorsOf(run *results.Run, base *results.Cell, whole floors) floors {
	if base == nil || base.Status != results.OK {
		return whole
	}
	k := base.Key()
	k.Control = true
	var ctl *results.Cell
	for _, c := range run.Cells {
		if c != nil && c.Control && c.Status == results.OK && c.ID() == k.ID() {
			ctl = c
		}
	}
	if ctl == nil {
		return whole
	}
	pr, ok := Paired(base, ctl)
	if !ok {
		return whole
	}
	var f floors
	if pr.Floor() < MaxNoiseFloor { // else too wide to apply: the intervals alone tell
		f.rpsDown, f.rpsUp = math.Max(0, 1-pr.Lo), math.Max(0, pr.Hi-1)
	}
	if cp, ok := cpuPaired(base, ctl); ok {
		f.cpuDown, f.cpuUp = math.Max(0, 1-cp.Lo), math.Max(0, cp.Hi-1)
	}
	return f
}

// floors are how far the run's A/A controls moved each figure by
// themselves, each way.
type floors struct{ rpsDown, rpsUp, cpuDown, cpuUp float64 }

// read sets r's readings: each figure's interval clear of 1, on one side,
// by more than the A/A controls moved it that way.
func (r *Regression) read(f floors) {
	switch {
	case r.Cell.Status != results.OK:
		r.Reading, r.Why = CannotTell, "the cell did not end ok: "+string(r.Cell.Status)
		return
	case r.Base == nil || r.Base.Status != results.OK:
		r.Reading, r.Why = CannotTell, "its baseline did not end ok"
		return
	}
	r.RPS, _ = Paired(r.Cell, r.Base)
	r.CPU, _ = cpuPaired(r.Cell, r.Base)
	if !r.RPS.HasCI {
		r.Reading, r.Why = CannotTell, "too few trial pairs for an interval"
		return
	}
	r.RPSReads = direction(r.RPS, f.rpsDown, f.rpsUp, false)
	r.CPUReads = NoDifference
	if r.CPU.HasCI {
		r.CPUReads = direction(r.CPU, f.cpuDown, f.cpuUp, true)
	}
	switch {
	case r.RPSReads == Slower || r.CPUReads == Slower:
		r.Reading = Slower
	case r.RPSReads == Faster || r.CPUReads == Faster:
		r.Reading = Faster
	default:
		r.Reading = NoDifference
	}
}

// direction reads a paired ratio whose interval clears 1 by more than
// the floor on that side: below 1 is slower, above faster (the other way
// round when higher is worse, as with CPU time per answer).
func direction(p PairedRatio, below, above float64, higherIsWorse bool) Reading {
	lower, higher := Slower, Faster
	if higherIsWorse {
		lower, higher = Faster, Slower
	}
	switch {
	case p.Hi < 1 && 1-p.Hi > below:
		return lower
	case p.Lo > 1 && p.Lo-1 > above:
		return higher
	}
	return NoDifference
}

// cpuPerAnswer is a trial's target CPU time per answer, in µs; 0 where
// the trial holds no CPU figure.
func cpuPerAnswer(t results.Trial) float64 {
	if t.Requests <= 0 || t.TargetCPUCores <= 0 {
		return 0
	}
	return t.TargetCPUCores * t.Seconds / float64(t.Requests) * 1e6
}

// cpuReach is how far the run's A/A controls moved the CPU time per
// answer by themselves, down and up, as NoiseReach is for requests per
// second.
func cpuReach(run *results.Run) (down, up float64) {
	twins := okCells(run)
	for _, ctl := range run.Cells {
		if ctl == nil || !ctl.Control || ctl.Status != results.OK {
			continue
		}
		k := ctl.Key()
		k.Control = false
		if a := twins[k.ID()]; a != nil {
			if pr, ok := cpuPaired(a, ctl); ok {
				down, up = math.Max(down, 1-pr.Lo), math.Max(up, pr.Hi-1)
			}
		}
	}
	return down, up
}

// cpuPaired is a ÷ b in CPU time per answer, over the trial pairs that
// both hold a CPU figure.
func cpuPaired(a, b *results.Cell) (PairedRatio, bool) {
	var x, y results.Cell
	for i := range min(len(a.Trials), len(b.Trials)) {
		if s, t := pair(a, b, i); cpuPerAnswer(s) > 0 && cpuPerAnswer(t) > 0 {
			s.Beside, t.Beside = nil, nil // the pair is made
			x.Trials, y.Trials = append(x.Trials, s), append(y.Trials, t)
		}
	}
	return PairedBy(&x, &y, cpuPerAnswer)
}
