package runner

import (
	"fmt"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/webbench/webbench/harness/latency"
	"github.com/webbench/webbench/harness/loadgen"
	"github.com/webbench/webbench/harness/merge"
	"github.com/webbench/webbench/harness/results"
)

// mergedResult is a fleet's run as one tool's result, from m, the merge
// of runs. Its rate is m's, over the common window, and its seconds are
// the good answers over that rate (so that rate × seconds is its count,
// as results.json holds every trial to). Its latency percentiles and mean
// are the merged distribution's, or absent when any generator had none;
// its maximum is the largest any generator saw, which is exact either way.
func mergedResult(m *merge.Merged, runs []memberRun) (loadgen.Result, error) {
	out := loadgen.Result{Requests: m.Good, BytesRead: m.Bytes, RPS: m.Rate, StatusCodes: map[string]int64{}}
	longest := 0.0
	for _, r := range runs {
		for class, n := range r.res.StatusCodes {
			out.StatusCodes[class] += n
		}
		out.Errors += r.res.Errors
		out.LatencyMS.Max = max(out.LatencyMS.Max, r.res.LatencyMS.Max)
		longest = max(longest, r.res.Seconds)
	}
	if len(m.Errors) > 0 {
		out.ErrorKinds = m.Errors
	}
	if n := out.Requests + out.Errors; n > 0 {
		out.ErrorRate = float64(out.Errors) / float64(n)
	}
	out.Seconds = longest
	if m.Rate > 0 {
		out.Seconds = float64(m.Good) / m.Rate
	}
	if l := m.Latency; l != nil {
		ms := func(us int64) float64 { return float64(us) / 1000 }
		at := map[float64]float64{}
		for _, p := range l.Percentiles {
			at[p.Q] = ms(p.Value)
		}
		out.LatencyMS = latency.Latency{Mean: l.Mean / 1000, P50: at[50], P75: at[75], P90: at[90], P95: at[95], P99: at[99],
			P999: at[99.9], P9999: at[99.99], Max: ms(l.Max)}
	}
	var err error
	out.OpenLoop, err = schedules(runs, m.Histogram)
	return out, err
}

// schedules adds up the open-loop figures of runs that all have them,
// with the merged histogram h (nil: none); nil when any run has none.
func schedules(runs []memberRun, h *hdrhistogram.Histogram) (*loadgen.OpenLoopFigures, error) {
	out := &loadgen.OpenLoopFigures{}
	lateMS := 0.0
	for _, r := range runs {
		o := r.res.OpenLoop
		if o == nil {
			return nil, nil
		}
		out.Scheduled, out.Sent, out.Late, out.Unsent = out.Scheduled+o.Scheduled, out.Sent+o.Sent, out.Late+o.Late, out.Unsent+o.Unsent
		out.LateMaxMS = max(out.LateMaxMS, o.LateMaxMS)
		lateMS += o.LateMeanMS * float64(o.Late)
	}
	if out.Late > 0 {
		out.LateMeanMS = lateMS / float64(out.Late)
	}
	if h != nil && h.TotalCount() > 0 {
		enc, err := h.EncodeV2()
		if err != nil {
			return nil, fmt.Errorf("encode the merged histogram: %w", err)
		}
		out.Histogram = string(enc)
	}
	return out, nil
}

// spreadOf records how the runs of fleet f went, from their merge m and
// the start instant at; each generator's CPU is the runner's to add.
func spreadOf(f *fleet, m *merge.Merged, runs []memberRun, at time.Time) *results.Spread {
	sp := &results.Spread{StartAt: at.UTC(), SkewMS: roundTo(float64(m.Skew)/float64(time.Millisecond), 3),
		Overlap: roundTo(m.Overlap, 4), CommonSeconds: roundTo(m.Common.Duration().Seconds(), 3), NoLatency: m.Missing}
	for i, r := range runs {
		sp.Generators = append(sp.Generators, results.GeneratorTrial{Engine: f.members[i].engine,
			StartedAt: r.w.Start.UTC(), StoppedAt: r.w.Stop.UTC(), Requests: r.res.Requests, Errors: r.res.Errors,
			Seconds: roundTo(r.res.Seconds, 3), RPS: roundTo(r.res.RPS, 1)})
		if i < len(f.clocks) {
			off, within := f.clocks[i].Offset()
			g := &sp.Generators[i]
			g.ClockOffsetMS, g.ClockWithinMS = roundTo(float64(off)/float64(time.Millisecond), 3), roundTo(float64(within)/float64(time.Millisecond), 3)
		}
	}
	return sp
}
