package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Connection k's sends interleave with the others': at rate R over c
// connections, the n-th send overall is due at n/R.
func TestSchedule(t *testing.T) {
	p := Plan{Connections: 4, Rate: 100, Duration: time.Second}
	for n := range 12 {
		if got, want := p.Intended(n%4, n/4), time.Duration(n)*10*time.Millisecond; got != want {
			t.Errorf("send %d due at %s, want %s", n, got, want)
		}
	}
	var total int64
	for k := range 4 {
		total += p.Scheduled(k)
	}
	if total != 100 {
		t.Errorf("%d sends scheduled in 1 s at 100/s, want 100", total)
	}
}

// pausing answers at once, except that every period it holds every answer
// for pause (a garbage-collection stop, a lock): what a closed-loop tool's
// percentiles hide.
func pausing(pause, period time.Duration) *httptest.Server {
	start := time.Now()
	var mu sync.Mutex
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if in := time.Since(start) % period; in < pause {
			time.Sleep(pause - in)
		}
		mu.Unlock()
		w.Write([]byte("Hello, World!"))
	}))
}

// Against a real server that stalls 300 ms every second, at 200/s, about
// 30% of the requests are due during a stall, and none of them can be
// answered before the stall ends: the open-loop p90 shows the stalls (well
// over 50 ms), sends fall late, none is lost and the report's histogram
// holds every answer. Only lower bounds: a busier machine makes every
// latency longer, never shorter. (How much the generator adds on an idle
// machine is not asserted; what it computes is, on a fake clock, by
// TestKnownDelays and TestCoordinatedOmission.)
func TestStallsShow(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 2 s of load")
	}
	srv := pausing(300*time.Millisecond, time.Second)
	defer srv.Close()
	r, err := Run(context.Background(), Plan{URL: srv.URL, Connections: 4, Rate: 200, Duration: 2 * time.Second, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	p90 := r.LatencyUS["90"]
	t.Logf("p50 %.1f ms, p90 %.1f ms, p99 %.1f ms; %d scheduled, %d sent, %d late, %d unsent",
		r.LatencyUS["50"]/1000, p90/1000, r.LatencyUS["99"]/1000, r.Scheduled, r.Sent, r.Late, r.Unsent)
	if p90 < 50_000 {
		t.Errorf("p90 %.0f µs, want at least 50 ms: the stalls are missing", p90)
	}
	if r.Statuses["200"]+r.Unsent+sum(r.Errors) != r.Scheduled {
		t.Errorf("%d answered + %d unsent + %v errors ≠ %d scheduled", r.Statuses["200"], r.Unsent, r.Errors, r.Scheduled)
	}
	if r.Late == 0 {
		t.Error("no send fell late behind a 300 ms stall")
	}
	h, err := hdrhistogram.Decode([]byte(r.Histogram))
	if err != nil {
		t.Fatalf("the report's histogram: %v", err)
	}
	if h.TotalCount() != r.Statuses["200"] || r.Bytes == 0 {
		t.Errorf("histogram holds %d latencies, %d answers, %d bytes read", h.TotalCount(), r.Statuses["200"], r.Bytes)
	}
}

func sum(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// A server slower than the schedule: each of 2 connections owes a send
// every 20 ms and each answer takes 300 ms, so the connections fall behind
// and, when the second ends, the sends still owed are never made. They are
// counted as unsent, not as sent nor lost: sent + unsent = scheduled.
func TestUnsent(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 1 s of load")
	}
	slow := slowServer(t, 300*time.Millisecond)
	r, err := Run(context.Background(), Plan{URL: slow.URL, Connections: 2, Rate: 100, Duration: time.Second, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d scheduled, %d sent, %d late, %d unsent", r.Scheduled, r.Sent, r.Late, r.Unsent)
	if r.Scheduled != 100 || r.Unsent < 80 || r.Sent+r.Unsent != r.Scheduled || r.Late == 0 {
		t.Errorf("%d scheduled, %d sent, %d late, %d unsent: want 100 scheduled, most unsent, sent + unsent = scheduled", r.Scheduled, r.Sent, r.Late, r.Unsent)
	}
}

// Scheduled's closed form agrees with counting Intended one send at a time,
// at rates and connection counts whose divisions round.
func TestScheduledClosedForm(t *testing.T) {
	for _, p := range []Plan{
		{Connections: 4, Rate: 100, Duration: time.Second},
		{Connections: 7, Rate: 333, Duration: 3 * time.Second},
		{Connections: 64, Rate: 1000, Duration: 1500 * time.Millisecond},
		{Connections: 3, Rate: 0.7, Duration: 10 * time.Second},
		{Connections: 1000, Rate: 10, Duration: time.Second},
	} {
		for k := range p.Connections {
			var n int64
			for i := 0; p.Intended(k, i) < p.Duration; i++ {
				n++
			}
			if got := p.Scheduled(k); got != n {
				t.Errorf("%+v connection %d: Scheduled %d, counted %d", p, k, got, n)
			}
		}
	}
}

// The longest latency a send can have, due at the start, made at the
// schedule's end and answered at its timeout, is recorded: with a timeout
// of an hour it is far past the 60 s the histograms once held.
func TestHighest(t *testing.T) {
	p := Plan{Duration: 30 * time.Second, Timeout: time.Hour}
	h := hdrhistogram.New(1, p.highest(), 3)
	if err := h.RecordValue((p.Duration + p.Timeout).Microseconds()); err != nil {
		t.Errorf("a latency of the schedule plus the timeout: %v", err)
	}
}

// slowServer answers "ok" after delay, until the test ends.
func slowServer(t *testing.T, delay time.Duration) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(delay)
		w.Write([]byte("ok"))
	}))
	t.Cleanup(srv.Close)
	return srv
}
