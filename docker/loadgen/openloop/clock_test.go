package main

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// fakeClock is a run's time in the tests of what the generator computes
// from its schedule: it moves only when a connection sleeps (by the time
// asked, plus oversleep, a timer's lateness) and while fakeServer holds
// an answer, so every latency and lateness is known exactly, whatever the
// machine's load.
type fakeClock struct {
	mu        sync.Mutex
	now       time.Time
	oversleep time.Duration
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(d time.Duration) {
	if d > 0 {
		c.advance(d + c.oversleep)
	}
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// fakeServer answers the n-th request it receives (from 1) 200 after
// hold(n) on clk, and keeps its own record of when, after start, each
// request arrived.
type fakeServer struct {
	clk     *fakeClock
	start   time.Time
	hold    func(n int) time.Duration
	arrived []time.Duration
}

func (s *fakeServer) connect(int) (sender, func()) {
	return func() (int, error) {
		s.arrived = append(s.arrived, s.clk.Now().Sub(s.start))
		s.clk.advance(s.hold(len(s.arrived)))
		return 200, nil
	}, func() {}
}

// fakeRun runs p (one connection: the fake clock is one timeline) against
// a server that holds its n-th answer hold(n).
func fakeRun(t *testing.T, p Plan, oversleep time.Duration, hold func(n int) time.Duration) (Report, *fakeServer) {
	t.Helper()
	if p.Connections != 1 {
		t.Fatal("a fake run has one connection")
	}
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := &fakeClock{now: start, oversleep: oversleep}
	srv := &fakeServer{clk: clk, start: start, hold: hold}
	r, err := run(context.Background(), p, clk, srv.connect)
	if err != nil {
		t.Fatal(err)
	}
	return r, srv
}

// wantLatencies fails t unless the report's histogram holds exactly the
// latencies want (ms), at the histogram's precision.
func wantLatencies(t *testing.T, p Plan, r Report, want ...float64) {
	t.Helper()
	got, err := hdrhistogram.Decode([]byte(r.Histogram))
	if err != nil {
		t.Fatalf("the report's histogram: %v", err)
	}
	w := hdrhistogram.New(1, p.highest(), 3)
	for _, ms := range want {
		w.RecordValue(int64(ms * 1000))
	}
	if !got.Equals(w) {
		var have []int64
		for _, b := range got.Distribution() {
			for range b.Count {
				have = append(have, b.From/1000)
			}
		}
		t.Errorf("latencies %v ms, want %v", have, want)
	}
}

const ms = time.Millisecond

// A server whose delays are known (of every ten requests it receives, seven
// wait 10 ms, two 40 ms and one 100 ms), loaded slowly enough that no
// request queues behind another (a send every 200 ms): the latencies are
// those delays, exactly, and the percentiles read them within the
// histogram's precision (0.1%).
func TestKnownDelays(t *testing.T) {
	p := Plan{Connections: 1, Rate: 5, Duration: 2 * time.Second}
	r, _ := fakeRun(t, p, 0, func(n int) time.Duration {
		switch n % 10 {
		case 0:
			return 100 * ms
		case 1, 2:
			return 40 * ms
		}
		return 10 * ms
	})
	wantLatencies(t, p, r, 40, 40, 10, 10, 10, 10, 10, 10, 10, 100)
	for q, want := range map[string]float64{"50": 10_000, "75": 40_000, "95": 100_000, "99": 100_000, "max": 100_000, "mean": 25_000} {
		if got := r.LatencyUS[q]; got < want || got > want*1.001 {
			t.Errorf("%s = %.0f µs, want %.0f", q, got, want)
		}
	}
	if r.Sent != 10 || r.Late != 0 || r.Statuses["200"] != 10 {
		t.Errorf("%d sent, %d late, %v: want 10 sent on time and answered", r.Sent, r.Late, r.Statuses)
	}
}

// Coordinated omission, corrected: sends every 100 ms, answers in 1 ms but
// the third held 450 ms. The sends due during the hold go at once when it
// ends, one after the other, and each latency is from the send's intended
// time: 351, 252, 153 and 54 ms, not the 1 ms a tool timing from the
// actual send reads (its p90 would be 1 ms; here it is 351 ms).
func TestCoordinatedOmission(t *testing.T) {
	p := Plan{Connections: 1, Rate: 10, Duration: time.Second}
	r, srv := fakeRun(t, p, 0, func(n int) time.Duration {
		if n == 3 {
			return 450 * ms
		}
		return ms
	})
	wantLatencies(t, p, r, 1, 1, 450, 351, 252, 153, 54, 1, 1, 1)
	if got := r.LatencyUS["90"]; got < 351_000 || got > 351_000*1.001 {
		t.Errorf("p90 %.0f µs, want 351 ms", got)
	}
	want := []time.Duration{0, 100 * ms, 200 * ms, 650 * ms, 651 * ms, 652 * ms, 653 * ms, 700 * ms, 800 * ms, 900 * ms}
	if !slices.Equal(srv.arrived, want) {
		t.Errorf("the server received requests at %v, want %v", srv.arrived, want)
	}
	if r.Late != 4 || r.LateMaxMS != 350 || r.LateMeanMS != 201.5 || r.Unsent != 0 {
		t.Errorf("%d late (mean %.1f ms, max %.1f ms), %d unsent: want the 4 sends behind the hold late by 350, 251, 152 and 53 ms, none unsent",
			r.Late, r.LateMeanMS, r.LateMaxMS, r.Unsent)
	}
}

// A connection on schedule whose timer fires past the end still sends: its
// lateness is the timer's, not the server's. Every timer here fires 5 ms
// late, so the last send, due at 900 ms of a 901 ms schedule, goes at
// 905 ms: sent, late, and in the window.
func TestTimerPastEnd(t *testing.T) {
	p := Plan{Connections: 1, Rate: 10, Duration: 901 * ms}
	r, srv := fakeRun(t, p, 5*ms, func(int) time.Duration { return ms })
	if r.Sent != 10 || r.Unsent != 0 || r.Late != 9 || r.Seconds != 0.905 {
		t.Errorf("%d sent, %d unsent, %d late, window %.3f s: want 10 sent, 9 late by the timer, a window of 0.905 s", r.Sent, r.Unsent, r.Late, r.Seconds)
	}
	if last := srv.arrived[len(srv.arrived)-1]; last != 905*ms {
		t.Errorf("last request received at %s, want 905ms", last)
	}
}

// Every send made on schedule reads as the rate asked, however long the
// last answer takes: the drain after the schedule's end is not in the
// window. (Counted to the last answer, 10 sends at 10/s whose last answer
// takes 600 ms would read as 10 in 1.5 s.)
func TestRateOverSchedule(t *testing.T) {
	p := Plan{Connections: 1, Rate: 10, Duration: time.Second}
	r, _ := fakeRun(t, p, 0, func(n int) time.Duration {
		if n == 10 {
			return 600 * ms
		}
		return 50 * ms
	})
	if r.Sent != 10 || r.Statuses["200"] != 10 || r.Seconds != 1 {
		t.Errorf("%d sent, %v answered, window %.2f s: want 10 sent and answered in a window of the schedule's 1 s", r.Sent, r.Statuses, r.Seconds)
	}
}

// A connection still busy when the schedule ends makes none of the sends it
// still owes: answers of 300 ms against a send every 100 ms leave 4 of 10
// sent, 6 unsent, sent + unsent = scheduled.
func TestUnsentOnSchedule(t *testing.T) {
	p := Plan{Connections: 1, Rate: 10, Duration: time.Second}
	r, srv := fakeRun(t, p, 0, func(int) time.Duration { return 300 * ms })
	want := []time.Duration{0, 300 * ms, 600 * ms, 900 * ms}
	if r.Scheduled != 10 || r.Sent != 4 || r.Unsent != 6 || r.Late != 3 || !slices.Equal(srv.arrived, want) {
		t.Errorf("%d scheduled, %d sent, %d unsent, %d late, received at %v: want 10, 4 (at %v), 6, 3", r.Scheduled, r.Sent, r.Unsent, r.Late, srv.arrived, want)
	}
	wantLatencies(t, p, r, 300, 500, 700, 900)
}
