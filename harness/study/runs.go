package study

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/webbench/webbench/harness/analysis"
	"github.com/webbench/webbench/harness/results"
	"github.com/webbench/webbench/harness/stats"
)

// Run is one committed run a study reads.
type Run struct {
	Name string // runs/<label>, as study.yaml names it
	*results.Run
}

// Dirty says the harness that measured the run was built from a tree with
// uncommitted changes, or from no commit at all: what measured it cannot
// be checked out again.
func (r *Run) Dirty() string {
	v := r.Environment.HarnessVersion
	switch {
	case strings.HasSuffix(v, "-dirty"):
		return "built from a dirty tree"
	case v == "" || v == "dev":
		return "built from no recorded commit"
	}
	return ""
}

// LoadRuns reads every run f names, relative to the study's folder dir.
func LoadRuns(dir string, f *File) ([]*Run, error) {
	var out []*Run
	for _, name := range f.Runs {
		r, err := results.Read(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("%s: runs: %w", filepath.Join(dir, "study.yaml"), err)
		}
		out = append(out, &Run{Name: name, Run: r})
	}
	return out, nil
}

// cell is the cell of r with id, nil when r has none. Controls are found
// by their own id, "… (control)".
func (r *Run) cell(id string) *results.Cell {
	for _, c := range r.Cells {
		if c != nil && c.ID() == id {
			return c
		}
	}
	return nil
}

// metrics read one figure of a trial.
var metrics = map[string]func(t results.Trial) float64{
	"rps":          func(t results.Trial) float64 { return t.RPS },
	"mbps":         func(t results.Trial) float64 { return perSecond(float64(t.BytesRead), t.Seconds) / 1e6 },
	"latency_mean": func(t results.Trial) float64 { return t.LatencyMS.Mean },
	"latency_max":  func(t results.Trial) float64 { return t.LatencyMS.Max },
	"errors":       func(t results.Trial) float64 { return float64(t.Errors) },
	"mem_peak":     func(t results.Trial) float64 { return t.TargetMemPeakMiB },
}

func perSecond(n, s float64) float64 {
	if s <= 0 {
		return 0
	}
	return n / s
}

// Ratio is A ÷ B in one metric: the median of trial-by-trial ratios with
// its 95% interval (min…max below six pairs), or, for a study that kept
// its best run, the best trial of A over the best trial of B (N 1).
type Ratio struct {
	Value, Lo, Hi float64
	N             int
	HasCI         bool
}

// ratio computes a ÷ b as statistic says; false when no trial pairs.
func ratio(a, b *results.Cell, metric, statistic string) (Ratio, bool) {
	get := metrics[metric]
	if statistic == "best" {
		ta, tb := best(a), best(b)
		if ta == nil || tb == nil || get(*tb) == 0 {
			return Ratio{}, false
		}
		v := get(*ta) / get(*tb)
		return Ratio{Value: v, Lo: v, Hi: v, N: 1}, true
	}
	pr, ok := analysis.PairedBy(a, b, get)
	return Ratio{Value: pr.Ratio, Lo: pr.Lo, Hi: pr.Hi, N: pr.N, HasCI: pr.HasCI}, ok
}

// best is the trial of c with the most good responses per second: the run
// a study that "kept the best" would have shown.
func best(c *results.Cell) *results.Trial {
	var b *results.Trial
	for i := range c.Trials {
		if b == nil || c.Trials[i].RPS > b.RPS {
			b = &c.Trials[i]
		}
	}
	return b
}

// Floor is what an A/A control of the run says about noise in one metric:
// Factor is how far from 1 the pair's interval reaches, as a factor, so a
// ratio r is beyond it when r > Factor or r < 1/Factor. It is symmetric:
// a ratio and its inverse read alike.
type Floor struct {
	Factor float64
	Cell   string // the controlled cell
	N      int
}

// Percent is the floor as the ±% the tables print.
func (f Floor) Percent() float64 { return 100 * (f.Factor - 1) }

// Beyond says whether r lies outside the floor.
func (f Floor) Beyond(r float64) bool { return math.Abs(math.Log(r)) > math.Log(f.Factor) }

// floor is the run's A/A floor in metric: the control of a or b when the
// run has one, else the widest of the run's controls; false without any.
func (r *Run) floor(metric, statistic, a, b string) (Floor, bool) {
	var out Floor
	for _, ctl := range r.Cells {
		if ctl == nil || !ctl.Control || ctl.Status != results.OK {
			continue
		}
		k := ctl.Key()
		k.Control = false
		twin := r.cell(k.ID())
		if twin == nil || twin.Status != results.OK {
			continue
		}
		pr, ok := ratio(twin, ctl, metric, statistic)
		if !ok || pr.Lo <= 0 {
			continue
		}
		f := Floor{Factor: math.Max(pr.Hi, 1/pr.Lo), Cell: twin.ID(), N: pr.N}
		if own := f.Cell == a || f.Cell == b; own {
			return f, true
		}
		if f.Factor > out.Factor {
			out = f
		}
	}
	return out, out.Factor > 0
}

// median is the median of the metric over c's trials.
func median(c *results.Cell, metric string) float64 {
	var xs []float64
	for _, t := range c.Trials {
		xs = append(xs, metrics[metric](t))
	}
	return stats.Describe(xs).Median
}
