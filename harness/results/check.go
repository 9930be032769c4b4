package results

import (
	"fmt"
	"math"
	"slices"

	"github.com/webbench/webbench/harness/cpuset"
)

// MaxRPSPerCore bounds what a results.json may claim a load generator drew
// from one of its cores: no HTTP client makes ten million requests a
// second on one core (the fastest here draw a few hundred thousand), so a
// figure past it was not measured.
const MaxRPSPerCore = 10_000_000

// Inconsistency is a figure of a cell or a ceiling that the file's other
// figures contradict: what a resume must not keep (a forged or damaged
// file's errors ten times the requests with an error rate of 0, a p99
// below the p50, ceilings of 1e9 were copied verbatim).
type Inconsistency struct {
	Trial int     // 1-based; 0: the cell's summary, or a ceiling
	Field string  // the figure's JSON name: "error_rate", "latency_ms.p99"
	Got   float64 // what the file says
	Want  float64 // what the other figures make it; NaN when they only bound it
}

func (e *Inconsistency) Error() string {
	at := "summary"
	if e.Trial > 0 {
		at = fmt.Sprintf("trial %d", e.Trial)
	}
	if math.IsNaN(e.Want) {
		return fmt.Sprintf("%s: %s %g is impossible beside its other figures", at, e.Field, e.Got)
	}
	return fmt.Sprintf("%s: %s %g where its other figures make it %g", at, e.Field, e.Got, e.Want)
}

func bad(trial int, field string, got, want float64) error {
	return &Inconsistency{Trial: trial, Field: field, Got: got, Want: want}
}

// near says whether got is want within a relative tolerance rel.
func near(got, want, rel float64) bool {
	return math.Abs(got-want) <= rel*math.Abs(want)+1e-9
}

// Check says whether c's figures agree with each other: each trial's
// derived figures (its rate, error rate, latency order, histogram) with
// its counts, and the summary with the trials. Derived figures are not
// trusted as written: a file anyone can edit is kept only where it is
// consistent. Check does not decide whether a cell belongs to a matrix.
func (c *Cell) Check() error {
	cores := 1
	if set, err := cpuset.Parse(c.LoadgenCPUSet); err == nil && len(set) > 0 {
		cores = len(set)
	}
	for i, t := range c.Trials {
		if err := t.check(i+1, cores); err != nil {
			return err
		}
	}
	if c.Summary != nil && len(c.Trials) > 0 {
		return c.Summary.check(c.Trials)
	}
	return nil
}

// check is one trial's consistency with itself; n numbers it.
func (t *Trial) check(n, cores int) error {
	switch {
	case !(t.Seconds > 0) || math.IsInf(t.Seconds, 0):
		return bad(n, "seconds", t.Seconds, math.NaN())
	case t.Requests < 0:
		return bad(n, "requests", float64(t.Requests), math.NaN())
	case t.Errors < 0:
		return bad(n, "errors", float64(t.Errors), math.NaN())
	case !near(t.RPS, float64(t.Requests)/t.Seconds, 0.01) && math.Abs(t.RPS-float64(t.Requests)/t.Seconds) > 1:
		return bad(n, "rps", t.RPS, float64(t.Requests)/t.Seconds)
	case t.RPS > float64(MaxRPSPerCore*cores):
		return bad(n, "rps", t.RPS, math.NaN())
	}
	if want := errorRate(t.Errors, t.Requests+t.Errors); !near(t.ErrorRate, want, 1e-6) {
		return bad(n, "error_rate", t.ErrorRate, want)
	}
	return checkLatency(t.LatencyMS, n, t.OpenLoop)
}

func errorRate(errors, all int64) float64 {
	if all == 0 {
		return 0
	}
	return float64(errors) / float64(all)
}

// checkLatency says whether l's percentiles rise with the percentile, stay within
// the maximum, and, where the trial carries its histogram, are the
// histogram's. A figure the generator does not report (0) is skipped.
func checkLatency(l Latency, n int, sched *Schedule) error {
	pcts := []struct {
		name string
		v    float64
	}{{"p50", l.P50}, {"p75", l.P75}, {"p90", l.P90}, {"p95", l.P95}, {"p99", l.P99}, {"p99_9", l.P999}, {"p99_99", l.P9999}}
	prev := 0.0
	for _, p := range pcts {
		switch {
		case p.v == 0:
			continue
		case p.v < prev || l.Max > 0 && p.v > l.Max:
			return bad(n, "latency_ms."+p.name, p.v, math.NaN())
		}
		prev = p.v
	}
	if l.Max > 0 && l.Mean > l.Max {
		return bad(n, "latency_ms.mean", l.Mean, math.NaN())
	}
	if sched == nil || sched.Histogram == "" {
		return nil
	}
	h, err := DecodeHistogram(sched.Histogram)
	if err != nil {
		return bad(n, "open_loop.hdr_histogram", 0, math.NaN())
	}
	// The histogram's precision (3 digits) plus a microsecond.
	if want := float64(h.ValueAtQuantile(99)) / 1000; l.P99 != 0 && math.Abs(l.P99-want) > 0.002*want+0.001 {
		return bad(n, "latency_ms.p99", l.P99, want)
	}
	return nil
}

// check says whether s is what its trials make it: the sums, extremes and
// counts exactly, the medians within the trials' range, and the headline
// the median or the best as its aggregate says.
func (s *Summary) check(trials []Trial) error {
	var errs, all int64
	var rps, p50, p99 []float64
	bound, mem := 0, 0.0
	for _, t := range trials {
		errs, all = errs+t.Errors, all+t.Requests+t.Errors
		rps, p50, p99 = append(rps, t.RPS), append(p50, t.LatencyMS.P50), append(p99, t.LatencyMS.P99)
		mem = max(mem, t.TargetMemPeakMiB)
		if t.GeneratorBound {
			bound++
		}
	}
	within := func(x float64, xs []float64) bool { return x >= slices.Min(xs) && x <= slices.Max(xs) }
	headline := s.RPSMedian
	rate := errorRate(errs, all)
	if s.Aggregate == AggregateBest {
		headline = s.RPSMax
		if i := slices.Index(rps, s.RPS); i >= 0 {
			rate = trials[i].ErrorRate
		}
	}
	for _, f := range []struct {
		field     string
		got, want float64
		ok        bool
	}{
		{"errors", float64(s.Errors), float64(errs), s.Errors == errs},
		{"generator_bound_trials", float64(s.GeneratorBound), float64(bound), s.GeneratorBound == bound},
		{"rps_min", s.RPSMin, slices.Min(rps), s.RPSMin == slices.Min(rps)},
		{"rps_max", s.RPSMax, slices.Max(rps), s.RPSMax == slices.Max(rps)},
		{"rps_median", s.RPSMedian, math.NaN(), within(s.RPSMedian, rps)},
		{"rps", s.RPS, headline, s.RPS == headline},
		{"error_rate", s.ErrorRate, rate, near(s.ErrorRate, rate, 1e-6)},
		{"latency_ms_p50_median", s.LatencyP50Median, math.NaN(), within(s.LatencyP50Median, p50)},
		{"latency_ms_p99_median", s.LatencyP99Median, math.NaN(), within(s.LatencyP99Median, p99)},
		{"target_mem_peak_mib", s.TargetMemPeakMiB, mem, s.TargetMemPeakMiB == mem},
		{"ceiling_share", s.CeilingShare, math.NaN(), s.CeilingShare >= 0 && !math.IsInf(s.CeilingShare, 0)},
	} {
		if !f.ok {
			return bad(0, f.field, f.got, f.want)
		}
	}
	return nil
}

// Check says whether a ceiling's figures agree: its headline within its
// trials, its rate per CPU-second its headline over its CPU, and no more
// than MaxRPSPerCore on each of its cores.
func (ce *Ceiling) Check() error {
	cores := max(1, ce.Cores())
	switch {
	case ce.RPS < 0 || math.IsNaN(ce.RPS) || ce.RPS > float64(MaxRPSPerCore*cores):
		return bad(0, "ceiling_rps", ce.RPS, math.NaN())
	case len(ce.TrialRPS) > 0 && (ce.RPS < slices.Min(ce.TrialRPS) || ce.RPS > slices.Max(ce.TrialRPS)):
		return bad(0, "ceiling_rps", ce.RPS, math.NaN())
	case ce.RPSPerCPU > 0 && ce.LoadgenCPU > 0 && !near(ce.RPSPerCPU, ce.RPS/ce.LoadgenCPU, 0.01):
		return bad(0, "rps_per_cpu_second", ce.RPSPerCPU, ce.RPS/ce.LoadgenCPU)
	}
	return nil
}
