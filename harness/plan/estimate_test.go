package plan

import (
	"testing"
	"time"

	"github.com/webbench/webbench/harness/buildtime"
	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/matrix"
)

// A run's estimate counts a visit's overhead and warm-up once per cell,
// or once per trial when trials interleave, and skipped cells not at all.
func TestEstimate(t *testing.T) {
	m := &matrix.Matrix{Load: matrix.Load{Duration: 10 * time.Second, Warmup: 3 * time.Second, Trials: 3}}
	cells := []matrix.Cell{{Key: cellid.Key{Target: "a"}}, {Key: cellid.Key{Target: "b"}}, {Key: cellid.Key{Target: "c"}, Skip: "too few cores"}}
	// 2 cells × (1 s + 3 s warm-up + 3 × 10 s).
	if got, want := Estimate(m, cells, time.Second, 1000, false), 2*34*time.Second; got != want {
		t.Errorf("Estimate = %v, want %v", got, want)
	}
	// 2 cells × 3 visits × (1 s + 3 s + 10 s).
	if got, want := Estimate(m, cells, time.Second, 1000, true), 2*3*14*time.Second; got != want {
		t.Errorf("interleaved Estimate = %v, want %v", got, want)
	}
	// b's own overhead of 5 s: 34 s + 38 s.
	own := func(target string) time.Duration {
		if target == "b" {
			return 5 * time.Second
		}
		return time.Second
	}
	if got, want := EstimateWith(m, cells, own, 1000, false), 72*time.Second; got != want {
		t.Errorf("EstimateWith = %v, want %v", got, want)
	}
	// A cell of 2000 requests at a guessed 1000/s: trials of 2 s.
	counted := []matrix.Cell{{Key: cellid.Key{Target: "a", Requests: 2000}}}
	if got, want := Estimate(m, counted, time.Second, 1000, false), 10*time.Second; got != want {
		t.Errorf("request-count Estimate = %v, want %v", got, want)
	}
}

// An absurd matrix's estimate stops at MaxEstimate rather than
// overflowing a time.Duration into a negative one.
func TestEstimateIsCapped(t *testing.T) {
	m := &matrix.Matrix{Load: matrix.Load{Duration: 1000 * time.Hour, Trials: 1000}}
	cells := make([]matrix.Cell, 1000)
	if got := Estimate(m, cells, 0, 1, false); got != MaxEstimate {
		t.Errorf("Estimate = %v, want the cap %v", got, MaxEstimate)
	}
}

// With no target image to build beside, the load generator and the
// stand-ins add up after the debootstrap; a key with no stand-in (sdk)
// counts nothing. An empty record gives the documented defaults.
func TestBuildTimeWithoutTargetImages(t *testing.T) {
	d := buildtime.Defaults
	got, learned := BuildTime(buildtime.Open(""), []string{"debian", "golang", "sdk"}, 0)
	if want := d[buildtime.Loadgen] + d[buildtime.Debootstrap] + d[buildtime.Toolchain]; got != want || learned {
		t.Errorf("BuildTime = %v (learned %v), want %v from the defaults", got, learned, want)
	}
}
