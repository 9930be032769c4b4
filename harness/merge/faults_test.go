package merge

import (
	"errors"
	"testing"
	"time"
)

// Each generator is held to its own share of the rate: one that fell
// behind fails the trial, named, even when the others' sum would pass the
// whole rate; of two behind, the one that held the least of its share.
func TestBehind(t *testing.T) {
	held := Pace{Generator: "a", Rate: 200, Sent: 800, Seconds: 4}
	if err := Behind([]Pace{held, {Generator: "b", Rate: 200, Sent: 796, Seconds: 4}}); err != nil {
		t.Errorf("both within %v of their share: %v", 0.99, err)
	}
	// 200 + 197/s of 400/s is 99.25%: the sum sustains the rate, b alone
	// (98.5% of its share) does not.
	var behind *BehindError
	err := Behind([]Pace{held, {Generator: "b", Rate: 200, Sent: 788, Seconds: 4}})
	if !errors.As(err, &behind) || behind.Generator != "b" || behind.Rate != 200 || behind.Held != 197 ||
		err.Error() != "generator b: could not sustain its share of the rate, 200/s (held 197.0/s)" {
		t.Errorf("b at 197/s of 200/s: %v", err)
	}
	err = Behind([]Pace{{Generator: "a", Rate: 300, Sent: 600, Seconds: 4}, {Generator: "b", Rate: 100, Sent: 100, Seconds: 4}, held})
	if !errors.As(err, &behind) || behind.Generator != "b" {
		t.Errorf("a at 50%%, b at 25%% of its share: %v, want b named", err)
	}
	if err := Behind([]Pace{{Generator: "a", Sent: 10, Seconds: 1}, {Generator: "b", Sent: 1, Seconds: 1}}); err != nil {
		t.Errorf("no rate: %v", err)
	}
}

// A clock is judged wrong only when its reading proves it: the whole
// span its round trip allows lies beyond the tolerance. The same clock
// read over a slow engine passes; a clock seconds off fails, named, ahead
// or behind.
func TestClocks(t *testing.T) {
	tol := ClockTolerance(4*time.Second, 2*time.Second)
	if tol != 100*time.Millisecond {
		t.Fatalf("tolerance for 4 s trials %v, want 5%% of 4 s shared by two clocks: 100ms", tol)
	}
	if got := ClockTolerance(10*time.Minute, 2*time.Second); got != time.Second {
		t.Errorf("tolerance for 10 min trials %v, want half the 2 s lead", got)
	}
	read := func(gen string, off, rtt time.Duration) Reading {
		sent := t0
		return Reading{Generator: gen, Sent: sent, Got: sent.Add(rtt), Said: sent.Add(rtt / 2).Add(off)}
	}
	same := read("a", 0, 3*time.Millisecond)
	if off, within := same.Offset(); off != 0 || within != 1500*time.Microsecond {
		t.Errorf("offset %v ± %v", off, within)
	}
	// The same clock, read when the engine took 900 ms to answer, and the
	// reply came at the very start of it: 450 ms off by the midpoint, but
	// within what the round trip allows.
	slow := Reading{Generator: "b", Sent: t0, Got: t0.Add(900 * time.Millisecond), Said: t0.Add(time.Millisecond)}
	if err := Clocks([]Reading{same, slow}, tol); err != nil {
		t.Errorf("one clock, a slow engine: %v", err)
	}
	var clock *ClockError
	err := Clocks([]Reading{same, read("b", -3*time.Second, 4*time.Millisecond)}, tol)
	if !errors.As(err, &clock) || clock.Generator != "b" || clock.Offset != -3*time.Second ||
		err.Error() != "generator b: its machine's clock is 3s behind the harness's (±2ms), more than the 100ms that lets the generators start together: synchronise the clocks (NTP)" {
		t.Errorf("b 3 s behind: %v", err)
	}
	err = Clocks([]Reading{read("a", 250*time.Millisecond, time.Millisecond), read("b", 2*time.Second, time.Millisecond), same}, tol)
	if !errors.As(err, &clock) || clock.Generator != "b" || clock.Offset != 2*time.Second {
		t.Errorf("a 250 ms, b 2 s ahead: %v, want b, the furthest", err)
	}
	if err := Clocks([]Reading{read("a", 90*time.Millisecond, time.Millisecond)}, tol); err != nil {
		t.Errorf("90 ms ahead within 100 ms: %v", err)
	}
}
