// Package analysis builds the model a report renders from a results.json:
// each cell's row and its statistics, the A/A noise floors, what bounded a
// cell (typed, with its figures), the capacity curves and their knees, and
// the cross-checks between generators. It reads the file format
// (package results) and computes; it writes no English: package report
// turns the model into sentences, tables and charts.
package analysis

import (
	"fmt"
	"slices"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/webbench/webbench/harness/results"
	"github.com/webbench/webbench/harness/stats"
)

// GeneratorBoundShare is the share of its cores the load generator may use
// before a trial is flagged: past it the number measures bombardier.
const GeneratorBoundShare = 0.90

// CeilingBound is the share of the measured ceiling at which a cell is
// generator-bound: its number then measures bombardier, not the server.
const CeilingBound = 0.85

// MemoryNearLimit is the share of a container's memory limit past which
// its peak is flagged: the figures then measure the kernel's reclaim.
const MemoryNearLimit = 0.9

// JudgeBound records the cell's share of the load generator's ceiling
// (0: none measured) and which rules call it generator-bound.
//
// With the generator sharing the target's cores (pinning together or
// none), its CPU cannot say whether it bounded the cell — the server took
// the rest — so that rule does not apply (the runner flags no trial), and
// the ceiling is the generator's beside the fixed-response server on the
// same cores: a cell near it is bounded by the pair, which the message says.
func JudgeBound(s *results.Summary, ceiling float64, shared bool) {
	s.CeilingShare, s.Bounds = 0, nil
	if ceiling > 0 {
		s.CeilingShare = s.RPS / ceiling
		if s.CeilingShare >= CeilingBound {
			s.Bounds = append(s.Bounds, results.BoundCeiling)
			if shared {
				s.Bounds[len(s.Bounds)-1] = results.BoundSharedCeiling
			}
		}
	}
	if s.GeneratorBound > 0 {
		s.Bounds = append(s.Bounds, results.BoundLoadgenCPU)
	}
	s.BoundBy = BoundText(s) // for readers of results.json that know no code
}

// BoundText words the rules that call a summary generator-bound, from
// its codes and figures; a summary written before the codes keeps its
// own words (and, before those, its count of generator-bound trials).
func BoundText(s *results.Summary) []string {
	if len(s.Bounds) == 0 {
		if len(s.BoundBy) == 0 && s.GeneratorBound > 0 { // results written before bound_by
			return []string{cpuBoundText(s.GeneratorBound)}
		}
		return s.BoundBy
	}
	var out []string
	for _, b := range s.Bounds {
		switch b {
		case results.BoundCeiling, results.BoundSharedCeiling:
			what := "the load generator's ceiling"
			if b == results.BoundSharedCeiling {
				what = "the ceiling of the load generator sharing these cores with the fixed-response server"
			}
			out = append(out, fmt.Sprintf("at %.0f%% of %s (≥ %.0f%%)", 100*s.CeilingShare, what, 100*CeilingBound))
		case results.BoundLoadgenCPU:
			out = append(out, cpuBoundText(s.GeneratorBound))
		default:
			out = append(out, string(b)) // a code this harness does not know: shown as written
		}
	}
	return out
}

func cpuBoundText(trials int) string {
	return fmt.Sprintf("load generator CPU ≥ %.0f%% in %d trial(s)", 100*GeneratorBoundShare, trials)
}

// Headline is the one place that decides a cell's headline RPS from the
// statistics of its trials: the median, or the best of N.
func Headline(a results.Aggregate, rps stats.Summary) float64 {
	if a == results.AggregateBest {
		return rps.Max
	}
	return rps.Median
}

// Summarize computes the summary of trials under an aggregate (median or
// best); nil when there are none.
func Summarize(trials []results.Trial, aggregate results.Aggregate) *results.Summary {
	if len(trials) == 0 {
		return nil
	}
	var rps, p50, p99, cpu []float64
	var requests int64
	s := &results.Summary{}
	for _, t := range trials {
		requests += t.Requests + t.Errors
		rps = append(rps, t.RPS)
		p50 = append(p50, t.LatencyMS.P50)
		p99 = append(p99, t.LatencyMS.P99)
		cpu = append(cpu, t.TargetCPUCores)
		s.Errors += t.Errors
		s.TargetMemPeakMiB = max(s.TargetMemPeakMiB, t.TargetMemPeakMiB)
		if t.GeneratorBound {
			s.GeneratorBound++
		}
	}
	r := stats.Describe(rps)
	s.RPSMedian, s.RPSMin, s.RPSMax = r.Median, r.Min, r.Max
	if aggregate != results.AggregateBest {
		aggregate = results.AggregateMedian
	}
	s.Aggregate, s.RPS = aggregate, Headline(aggregate, r)
	if requests > 0 {
		s.ErrorRate = float64(s.Errors) / float64(requests)
	}
	if aggregate == results.AggregateBest {
		best := slices.IndexFunc(trials, func(t results.Trial) bool { return t.RPS == s.RPS })
		s.ErrorRate = trials[best].ErrorRate
	}
	s.LatencyP50Median, s.LatencyP99Median, s.TargetCPUCores = stats.Describe(p50).Median, stats.Describe(p99).Median, stats.Describe(cpu).Median
	s.Merged = Merged(trials)
	return s
}

// Merged is the latency of every request of the trials together: their
// HDR histograms (an open-loop generator's, see results.Schedule)
// merged, then read at each percentile. A cell's p99 is then the p99 of
// its requests, not a median of its trials' p99s, which hides a trial
// whose tail was long. It is nil unless every trial carries a histogram
// that decodes: a merge of some trials would describe other requests than
// the cell's.
func Merged(trials []results.Trial) *results.Latency {
	var all *hdrhistogram.Histogram
	for _, t := range trials {
		if t.OpenLoop == nil || t.OpenLoop.Histogram == "" {
			return nil
		}
		h, err := results.DecodeHistogram(t.OpenLoop.Histogram)
		if err != nil {
			return nil
		}
		if all == nil {
			all = h
			continue
		}
		if dropped := all.Merge(h); dropped > 0 {
			return nil
		}
	}
	if all == nil || all.TotalCount() == 0 {
		return nil
	}
	ms := func(q float64) float64 { return float64(all.ValueAtQuantile(q)) / 1000 }
	return &results.Latency{Mean: all.Mean() / 1000, P50: ms(50), P75: ms(75), P90: ms(90), P95: ms(95), P99: ms(99), P999: ms(99.9),
		P9999: ms(99.99), Max: float64(all.Max()) / 1000}
}
