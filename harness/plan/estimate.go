package plan

import (
	"time"

	"github.com/webbench/webbench/harness/baseimage"
	"github.com/webbench/webbench/harness/buildtime"
	"github.com/webbench/webbench/harness/matrix"
)

// Inputs of a run's estimate, measured on this project's 2-core VM.
const (
	// VisitOverhead is one cell visit's wall time beyond warm-up and trials:
	// container start, readiness, verification and removal (`make overhead`
	// measured 1.5 s per cell).
	VisitOverhead = 1500 * time.Millisecond
	// GuessedRPS times a request-count load, whose duration is unknown until
	// it runs.
	GuessedRPS = 20000
)

// MaxEstimate is the largest estimate reported.
const MaxEstimate = 10000 * time.Hour

// Estimate is the expected wall time of running cells, counting container
// start, readiness, verification and removal as perVisitOverhead. With
// interleaved trials each trial is its own visit (fresh containers, its own
// warm-up). A request-count load has no known duration; it is counted at
// the given guess of requests/s. Skipped cells count nothing.
func Estimate(m *matrix.Matrix, cells []matrix.Cell, perVisitOverhead time.Duration, guessRPS float64, interleaved bool) time.Duration {
	return EstimateWith(m, cells, func(string) time.Duration { return perVisitOverhead }, guessRPS, interleaved)
}

// EstimateWith is Estimate with each target's own overhead per visit.
func EstimateWith(m *matrix.Matrix, cells []matrix.Cell, overhead func(target string) time.Duration, guessRPS float64, interleaved bool) time.Duration {
	// In float seconds: a large matrix must not overflow time.Duration.
	var total float64
	trials := float64(m.Load.Trials)
	for _, c := range cells {
		if c.Skip != "" {
			continue
		}
		visit := (overhead(c.Target) + m.Load.Warmup).Seconds()
		trial := m.Load.Duration
		if n := matrix.CellLoad(m, c).Requests; n > 0 {
			trial = time.Duration(float64(n) / guessRPS * float64(time.Second))
		}
		if interleaved && m.Load.Trials > 1 {
			total += trials * (visit + trial.Seconds())
		} else {
			total += visit + trials*trial.Seconds()
		}
	}
	return time.Duration(min(total, MaxEstimate.Seconds()) * float64(time.Second))
}

// BuildTime is how long building, by book, the stand-ins of the base
// image keys, images target images and the load generator takes: what
// an empty engine without a registry would build, counted without asking
// an engine what it has. A key with no stand-in counts nothing (it is
// pulled, or its targets are skipped). learned is false when a figure is
// a documented default.
func BuildTime(book *buildtime.Book, keys []string, images int) (total time.Duration, learned bool) {
	kinds := []buildtime.Kind{buildtime.Loadgen}
	for range images {
		kinds = append(kinds, buildtime.Image)
	}
	for _, k := range keys {
		if baseimage.HasStandIn(k) {
			kinds = append(kinds, baseimage.StandInKind(k))
		}
	}
	return book.Estimate(kinds)
}
