// Package merge turns what several load generators measured in one trial
// of one cell into the trial's figures, exactly: counts are summed,
// latency is merged from full HDR histograms and its percentiles read from
// the merged distribution (percentiles are never averaged: the mean of two
// p99s is the p99 of no set of requests), and the rate is counted over the
// window in which every generator was sending. It also splits a cell's
// connections or rate among its generators.
//
// It knows nothing of Docker or of any tool: the runner hands it one Part
// per generator.
package merge

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// MinOverlap is the least share of every generator's window that the
// common window must cover: below it the generators did not load the
// target together, and the trial fails.
const MinOverlap = 0.95

// Quantiles are the percentiles a merged latency is read at.
var Quantiles = []float64{50, 75, 90, 95, 99, 99.9, 99.99}

// Window is when a generator really sent load: its first request's start
// to its last answer, on the clock the harness handed the start instant
// out by.
type Window struct{ Start, Stop time.Time }

// Duration is the window's length; zero when it is empty.
func (w Window) Duration() time.Duration { return max(w.Stop.Sub(w.Start), 0) }

// Series counts good answers per Step, from the generator's Window.Start:
// what lets its answers be counted over a window other than its own.
type Series struct {
	Step   time.Duration
	Counts []int64
}

// Part is one generator's share of a trial.
type Part struct {
	Generator string // the engine it ran on: how failures name it
	Window    Window
	Good      int64            // expected answers
	Errors    map[string]int64 // failed requests by kind (timeout, connect, 5xx, wrong answer, …)
	Bytes     int64            // bytes read
	// Latency is the full distribution of its requests' latencies (any
	// unit, the same in every part); nil when its tool cannot export one.
	Latency *hdrhistogram.Histogram
	// Series is nil when its tool counts only totals.
	Series *Series
}

// Merged is a trial's figures from all its generators.
type Merged struct {
	Generators int
	Good       int64
	Errors     map[string]int64 // by kind, summed
	Bytes      int64
	Common     Window        // when every generator was sending
	Overlap    float64       // Common over the longest generator window (0…1)
	Skew       time.Duration // latest start minus earliest
	// Rate is good answers per second within Common. RateExact says every
	// generator counted per interval (Series), so that the answers are
	// those inside Common, exact to one interval at each edge; otherwise
	// a generator's answers are prorated to Common from its own window.
	Rate      float64
	RateExact bool
	// Latency is read from Histogram, the merge of every part's; both are
	// nil when any generator lacks a full distribution (Missing names
	// them): percentiles of some generators' requests would describe
	// other requests than the trial's.
	Latency   *Latency
	Histogram *hdrhistogram.Histogram
	Missing   []string
}

// Latency is a merged distribution read at Quantiles, in the unit the
// histograms were recorded in.
type Latency struct {
	Count       int64
	Mean        float64
	Max         int64
	Percentiles []Percentile
}

// Percentile is the value at quantile Q (0…100).
type Percentile struct {
	Q     float64
	Value int64
}

// ErrNoParts is returned for a trial without generators.
var ErrNoParts = errors.New("no generators to merge")

// OverlapError is a trial whose generators' windows overlap by less than
// MinOverlap. Generator is the one whose window strays furthest from the
// others' (the median start and stop): the one that started late, stopped
// early or ran on another clock.
type OverlapError struct {
	Generator string
	Overlap   float64
	Common    Window
}

func (e *OverlapError) Error() string {
	return fmt.Sprintf("generator %s: the generators' windows overlap by %.1f%%, under %.0f%%",
		e.Generator, e.Overlap*100, MinOverlap*100)
}

// Trial merges a trial's parts. With an *OverlapError it still returns
// the merged counts and windows, for the record of the failed trial.
func Trial(parts []Part) (*Merged, error) {
	if len(parts) == 0 {
		return nil, ErrNoParts
	}
	seen := map[string]bool{}
	for _, p := range parts {
		if seen[p.Generator] {
			return nil, fmt.Errorf("generator %s: given twice", p.Generator)
		}
		seen[p.Generator] = true
		if p.Window.Stop.Before(p.Window.Start) {
			return nil, fmt.Errorf("generator %s: window stops at %s, before its start at %s",
				p.Generator, p.Window.Stop.Format(time.RFC3339Nano), p.Window.Start.Format(time.RFC3339Nano))
		}
	}
	m := &Merged{Generators: len(parts), Errors: map[string]int64{}}
	for _, p := range parts {
		m.Good += p.Good
		m.Bytes += p.Bytes
		for kind, n := range p.Errors {
			m.Errors[kind] += n
		}
	}
	m.Common, m.Overlap, m.Skew = common(parts)
	m.Rate, m.RateExact = rate(parts, m.Common)
	if err := m.mergeLatency(parts); err != nil {
		return nil, err
	}
	if m.Overlap < MinOverlap {
		return m, &OverlapError{Generator: straggler(parts), Overlap: m.Overlap, Common: m.Common}
	}
	return m, nil
}

// common is the window every part was sending in, its share of the
// longest part's window, and the skew of the starts.
func common(parts []Part) (w Window, overlap float64, skew time.Duration) {
	w = parts[0].Window
	first, longest := w.Start, time.Duration(0)
	for _, p := range parts {
		if p.Window.Start.After(w.Start) {
			w.Start = p.Window.Start
		}
		if p.Window.Stop.Before(w.Stop) {
			w.Stop = p.Window.Stop
		}
		if p.Window.Start.Before(first) {
			first = p.Window.Start
		}
		longest = max(longest, p.Window.Duration())
	}
	if w.Stop.Before(w.Start) {
		w.Stop = w.Start
	}
	if longest > 0 {
		overlap = float64(w.Duration()) / float64(longest)
	}
	return w, overlap, w.Start.Sub(first)
}

// straggler names the part whose start and stop lie furthest from the
// median start and stop; of equals, the latest to start, then the first
// given.
func straggler(parts []Part) string {
	starts, stops := make([]time.Time, len(parts)), make([]time.Time, len(parts))
	for i, p := range parts {
		starts[i], stops[i] = p.Window.Start, p.Window.Stop
	}
	mStart, mStop := median(starts), median(stops)
	best, bestDev := 0, time.Duration(-1)
	for i, p := range parts {
		dev := abs(p.Window.Start.Sub(mStart)) + abs(p.Window.Stop.Sub(mStop))
		if dev > bestDev || dev == bestDev && p.Window.Start.After(parts[best].Window.Start) {
			best, bestDev = i, dev
		}
	}
	return parts[best].Generator
}

func median(ts []time.Time) time.Time {
	s := slices.SortedFunc(slices.Values(ts), time.Time.Compare)
	lo, hi := s[(len(s)-1)/2], s[len(s)/2]
	return lo.Add(hi.Sub(lo) / 2)
}

func abs(d time.Duration) time.Duration { return max(d, -d) }

// rate is the good answers per second within w, and whether every part
// counted them per interval.
func rate(parts []Part, w Window) (float64, bool) {
	if w.Duration() <= 0 {
		return 0, false
	}
	exact := true
	var good float64
	for _, p := range parts {
		if p.Series != nil && p.Series.Step > 0 {
			good += p.Series.within(p.Window.Start, w)
			continue
		}
		exact = false
		if d := p.Window.Duration(); d > 0 {
			good += float64(p.Good) * float64(w.Duration()) / float64(d)
		}
	}
	return good / w.Duration().Seconds(), exact
}

// within counts the series' answers inside w, the intervals w cuts
// prorated by the part of them inside it.
func (s *Series) within(start time.Time, w Window) float64 {
	var n float64
	for i, c := range s.Counts {
		from := start.Add(time.Duration(i) * s.Step)
		to := from.Add(s.Step)
		in := earlier(to, w.Stop).Sub(later(from, w.Start))
		if in > 0 {
			n += float64(c) * float64(in) / float64(s.Step)
		}
	}
	return n
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// mergeLatency merges every part's histogram into one wide and fine
// enough for all (the lowest of their lowest values, the highest of their
// highest, the most significant digits), and reads it.
func (m *Merged) mergeLatency(parts []Part) error {
	lo, hi, digits := int64(0), int64(0), int64(0)
	for _, p := range parts {
		h := p.Latency
		if h == nil {
			m.Missing = append(m.Missing, p.Generator)
			continue
		}
		if lo == 0 || h.LowestTrackableValue() < lo {
			lo = h.LowestTrackableValue()
		}
		hi, digits = max(hi, h.HighestTrackableValue()), max(digits, h.SignificantFigures())
	}
	if len(m.Missing) > 0 {
		return nil
	}
	all := hdrhistogram.New(lo, hi, int(digits))
	for _, p := range parts {
		if dropped := all.Merge(p.Latency); dropped > 0 {
			return fmt.Errorf("generator %s: %d latencies did not fit the merged histogram", p.Generator, dropped)
		}
	}
	m.Histogram = all
	if all.TotalCount() == 0 {
		return nil
	}
	l := &Latency{Count: all.TotalCount(), Mean: all.Mean(), Max: all.Max()}
	for _, q := range Quantiles {
		l.Percentiles = append(l.Percentiles, Percentile{Q: q, Value: all.ValueAtQuantile(q)})
	}
	m.Latency = l
	return nil
}

// Kinds lists the error kinds in m, sorted: for rendering in a stable
// order.
func (m *Merged) Kinds() []string { return slices.Sorted(maps.Keys(m.Errors)) }
