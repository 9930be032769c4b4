package analysis

import (
	"github.com/webbench/webbench/harness/results"

	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// trialOf is a trial whose histogram holds n latencies of each value (µs).
func trialOf(t *testing.T, values map[int64]int64) results.Trial {
	t.Helper()
	h := hdrhistogram.New(1, 60_000_000, 3)
	for v, n := range values {
		if err := h.RecordValues(v, n); err != nil {
			t.Fatal(err)
		}
	}
	enc, err := h.EncodeV2()
	if err != nil {
		t.Fatal(err)
	}
	return results.Trial{Result: results.Result{OpenLoop: &results.Schedule{Histogram: string(enc)}}}
}

// A cell whose one trial of three had a long tail: the median of the
// trials' p99s (1 ms) hides it; the merged histogram's p99 is the tail
// (2% of all requests took 300 ms), within the histogram's precision.
func TestMergedAcrossTrials(t *testing.T) {
	quick := map[int64]int64{1000: 1000}
	tail := map[int64]int64{1000: 940, 300_000: 60}
	trials := []results.Trial{trialOf(t, quick), trialOf(t, tail), trialOf(t, quick)}
	m := Merged(trials)
	if m == nil {
		t.Fatal("no merged latency")
	}
	near := func(got, want float64) bool { return got >= want && got <= want*1.001 }
	if !near(m.P50, 1) || !near(m.P99, 300) || !near(m.Max, 300) || !near(m.P90, 1) {
		t.Errorf("merged p50 %.3f, p90 %.3f, p99 %.3f, max %.3f ms; want 1, 1, 300, 300", m.P50, m.P90, m.P99, m.Max)
	}
	if want := (2940*1.0 + 60*300) / 3000; m.Mean < want*0.999 || m.Mean > want*1.001 {
		t.Errorf("merged mean %.3f ms, want %.3f", m.Mean, want)
	}
	// One trial without a histogram: no merge of the others is shown as
	// the cell's.
	if Merged(append(trials, results.Trial{})) != nil {
		t.Error("merged although a trial has no histogram")
	}
}
