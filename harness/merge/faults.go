package merge

import (
	"fmt"
	"time"

	"github.com/webbench/webbench/harness/stats"
)

// Pace is what one generator of a fixed-rate trial was asked to hold and
// what it did: Sent requests (answered or not; never those it failed to
// send) in Seconds, against its share Rate of the trial's rate.
type Pace struct {
	Generator string
	Rate      int
	Sent      int64
	Seconds   float64
}

// Held is the rate the generator held, requests/s.
func (p Pace) Held() float64 {
	if p.Seconds <= 0 {
		return 0
	}
	return float64(p.Sent) / p.Seconds
}

// BehindError is a generator that fell behind its share of a rate: the
// others may have made up the sum, but its requests were not sent at the
// rate the trial names, so neither were the trial's.
type BehindError struct {
	Generator string
	Rate      int     // its share, requests/s
	Held      float64 // what it held
}

func (e *BehindError) Error() string {
	return fmt.Sprintf("generator %s: could not sustain its share of the rate, %d/s (held %.1f/s)", e.Generator, e.Rate, e.Held)
}

// Behind judges each generator against its own share by
// stats.Sustained, as a single generator is judged against the whole
// rate, and returns a *BehindError for the one furthest behind (by the
// share of its rate it held), nil when every one held its share or no
// share is a rate.
func Behind(paces []Pace) error {
	var worst *BehindError
	worstShare := 0.0
	for _, p := range paces {
		if p.Rate <= 0 || stats.Sustains(p.Sent, p.Seconds, p.Rate) {
			continue
		}
		if share := p.Held() / float64(p.Rate); worst == nil || share < worstShare {
			worst, worstShare = &BehindError{Generator: p.Generator, Rate: p.Rate, Held: p.Held()}, share
		}
	}
	if worst == nil {
		return nil
	}
	return worst
}

// Reading is one read of a generator machine's clock: what it said, and
// when the harness asked (Sent) and had the answer (Got), on the
// harness's clock. The machine's offset from the harness's clock lies
// between Said−Got and Said−Sent, however long the way there and back.
type Reading struct {
	Generator       string
	Said, Sent, Got time.Time
}

// Offset is the reading's best estimate of the machine's offset (its
// clock minus the harness's, from the middle of the round trip) and
// how far the true offset may lie from it (half the round trip).
func (r Reading) Offset() (offset, within time.Duration) {
	half := r.Got.Sub(r.Sent) / 2
	return r.Said.Sub(r.Sent.Add(half)), half
}

// ClockTolerance is how far a generator's clock may be off the harness's
// for a trial of duration d, when the start instant is handed out lead
// ahead: two generators each within it start at most twice it apart, and
// that is the most that still lets their windows overlap by MinOverlap;
// and a clock ahead by more than half the lead would find the instant
// already past when the exec reaches it, and start at once.
func ClockTolerance(d, lead time.Duration) time.Duration {
	return min(time.Duration((1-MinOverlap)*float64(d)/2), lead/2)
}

// ClockError is a generator whose clock is off the harness's by more
// than the tolerance, even at the most favourable end of what its
// reading allows: it cannot start together with the others at an
// instant read on each machine's own clock.
type ClockError struct {
	Generator string
	Offset    time.Duration // best estimate: its clock minus the harness's
	Within    time.Duration // half the reading's round trip
	Tolerance time.Duration
}

func (e *ClockError) Error() string {
	way := "ahead of"
	if e.Offset < 0 {
		way = "behind"
	}
	return fmt.Sprintf("generator %s: its machine's clock is %s %s the harness's (±%s), more than the %s that lets the generators start together: synchronise the clocks (NTP)",
		e.Generator, abs(e.Offset).Round(time.Millisecond), way, e.Within.Round(time.Microsecond), e.Tolerance)
}

// Clocks returns a *ClockError for the generator whose clock is surely
// furthest beyond tolerance from the harness's, nil when none is: a
// reading whose round trip allows an offset within tolerance passes, so a
// slow engine is never taken for a wrong clock.
func Clocks(readings []Reading, tolerance time.Duration) error {
	var worst *ClockError
	worstSure := time.Duration(0)
	for _, r := range readings {
		off, within := r.Offset()
		if sure := abs(off) - within; sure > tolerance && sure > worstSure {
			worst, worstSure = &ClockError{Generator: r.Generator, Offset: off, Within: within, Tolerance: tolerance}, sure
		}
	}
	if worst == nil {
		return nil
	}
	return worst
}
