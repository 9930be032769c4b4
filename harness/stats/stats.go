// Package stats says how sure each number is. It wraps golang.org/x/perf's
// benchmath, benchstat's statistics: medians with order-statistics
// confidence intervals (no distribution assumed) and the Mann-Whitney U
// test, plus the spread checks a reviewer asks for (coefficient of
// variation, a first trial far off the rest).
package stats

import (
	"fmt"
	"math"
	"slices"

	"golang.org/x/perf/benchmath"
)

// Confidence is the level of every interval the harness reports.
const Confidence = 0.95

// Alpha is the significance level of comparisons (benchstat's).
const Alpha = 0.05

// NoisyCV is the default coefficient of variation above which a cell is
// marked noisy.
const NoisyCV = 0.05

// FirstTrialOff is how far (as a fraction of the median of the others) the
// first trial may be from the rest before it is warned about.
const FirstTrialOff = 0.10

// Summary describes a set of trials of one quantity.
type Summary struct {
	N      int     `json:"n"`
	Median float64 `json:"median"`
	// Lo and Hi bound the median's confidence interval; HasCI is false when
	// there are too few trials for one (fewer than 6 at 95%).
	Lo         float64  `json:"ci_lo,omitempty"`
	Hi         float64  `json:"ci_hi,omitempty"`
	HasCI      bool     `json:"has_ci"`
	Confidence float64  `json:"ci_level,omitempty"`
	Min        float64  `json:"min"`
	Max        float64  `json:"max"`
	CV         float64  `json:"cv"` // standard deviation over mean; 0 for one trial
	Warnings   []string `json:"warnings,omitempty"`
}

// Describe summarizes values in the order they were measured (the order
// matters only for the first-trial check).
func Describe(values []float64) Summary {
	if len(values) == 0 {
		return Summary{}
	}
	s := Summary{N: len(values), Min: slices.Min(values), Max: slices.Max(values), CV: cv(values)}
	sorted := slices.Clone(values)
	sum := benchmath.AssumeNothing.Summary(benchmath.NewSample(sorted, &benchmath.DefaultThresholds), Confidence)
	s.Median = sum.Center
	if !math.IsInf(sum.Lo, 0) && !math.IsInf(sum.Hi, 0) {
		s.Lo, s.Hi, s.HasCI, s.Confidence = sum.Lo, sum.Hi, true, sum.Confidence
	}
	for _, w := range sum.Warnings {
		s.Warnings = append(s.Warnings, w.Error())
	}
	if len(values) >= 3 {
		rest := median(values[1:])
		if rest != 0 && math.Abs(values[0]-rest)/math.Abs(rest) > FirstTrialOff {
			s.Warnings = append(s.Warnings, fmt.Sprintf("first trial %.0f%% off the median of the others", 100*(values[0]-rest)/rest))
		}
	}
	return s
}

// Noisy reports whether the spread exceeds the threshold.
func (s Summary) Noisy(threshold float64) bool { return s.N > 1 && s.CV > threshold }

func cv(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	var mean float64
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if mean == 0 {
		return 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return math.Sqrt(ss/float64(len(xs)-1)) / math.Abs(mean)
}

// Comparison says whether two sets of trials differ.
type Comparison struct {
	P           float64 `json:"p"`
	Significant bool    `json:"significant"`
	// Testable is false when the samples are too small for the U test ever
	// to reach significance (fewer than 4 each at α = 0.05).
	Testable bool   `json:"testable"`
	Warning  string `json:"warning,omitempty"`
}

// Compare runs the Mann-Whitney U test on two sets of trials.
func Compare(a, b []float64) Comparison {
	th := &benchmath.Thresholds{CompareAlpha: Alpha}
	c := benchmath.AssumeNothing.Compare(benchmath.NewSample(slices.Clone(a), th), benchmath.NewSample(slices.Clone(b), th))
	out := Comparison{P: c.P, Significant: c.P < c.Alpha, Testable: true}
	for _, w := range c.Warnings {
		out.Warning = w.Error()
		out.Testable = out.Significant
	}
	return out
}

// Geomean is the geometric mean of positive values; 0 if there are none.
func Geomean(xs []float64) float64 {
	var logs float64
	n := 0
	for _, x := range xs {
		if x > 0 {
			logs += math.Log(x)
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return math.Exp(logs / float64(n))
}

// median of xs, the mean of the middle two for an even count.
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

// Sustained is the share of a fixed rate a trial must reach; below it the
// trial "could not sustain" the rate, and its latencies are not at that
// rate. The load generator's judge and the analysis apply it alike.
const Sustained = 0.99

// Sustains says whether done requests in seconds held rate requests/s.
func Sustains(done int64, seconds float64, rate int) bool {
	return seconds > 0 && float64(done)/seconds >= Sustained*float64(rate)
}
