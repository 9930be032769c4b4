package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
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

// Against a server that stalls 300 ms every second, at 200/s, about 30% of
// the requests are due during a stall and wait up to 300 ms: the open-loop
// p90 shows the stalls (well over 50 ms), sends fall late and none is lost;
// against the same server without stalls the p90 stays small.
func TestStallsShow(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 4 s of load")
	}
	for _, c := range []struct {
		name       string
		pause      time.Duration
		p90AtLeast float64 // µs
		p90Below   float64
	}{
		{"stalling", 300 * time.Millisecond, 50_000, 1e9},
		{"steady", 0, 0, 50_000},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := pausing(c.pause, time.Second)
			defer srv.Close()
			r, err := Run(context.Background(), Plan{URL: srv.URL, Connections: 4, Rate: 200, Duration: 2 * time.Second, Timeout: 2 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			p90 := r.LatencyUS["90"]
			t.Logf("%s: p50 %.1f ms, p90 %.1f ms, p99 %.1f ms; %d scheduled, %d sent, %d late, %d unsent",
				c.name, r.LatencyUS["50"]/1000, p90/1000, r.LatencyUS["99"]/1000, r.Scheduled, r.Sent, r.Late, r.Unsent)
			if p90 < c.p90AtLeast || p90 >= c.p90Below {
				t.Errorf("p90 %.0f µs, want in [%.0f, %.0f)", p90, c.p90AtLeast, c.p90Below)
			}
			if r.Statuses["200"]+r.Unsent+sum(r.Errors) != r.Scheduled {
				t.Errorf("%d answered + %d unsent + %v errors ≠ %d scheduled", r.Statuses["200"], r.Unsent, r.Errors, r.Scheduled)
			}
			if c.pause > 0 && r.Late == 0 {
				t.Error("no send fell late behind a 300 ms stall")
			}
			if c.pause == 0 && r.Unsent != 0 {
				t.Errorf("%d sends never made against a steady server: a connection on schedule sends, even when its timer fires past the end", r.Unsent)
			}
		})
	}
}

func sum(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// A server whose delays are known (of every ten requests it receives, seven
// wait 10 ms, two 40 ms and one 100 ms), loaded slowly enough that no
// request queues behind another on its connection (each connection sends
// every 200 ms): the percentiles away from the steps must be those delays,
// read within the histogram's precision (0.1%) plus what a request costs on
// loopback and a timer's wake-up (bounded at 8 ms, for a busy machine).
// The report's histogram holds every answer.
func TestKnownDelays(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 2 s of load")
	}
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) % 10 {
		case 0:
			time.Sleep(100 * time.Millisecond)
		case 1, 2:
			time.Sleep(40 * time.Millisecond)
		default:
			time.Sleep(10 * time.Millisecond)
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	// A machine busier than the bound allows for (make test runs the
	// end-to-end tests beside this one; a p99 of 169.6 ms was seen there)
	// gets two more tries: a generator that inflates or mis-scales its
	// latencies fails all three.
	var problems []string
	for try := 0; try < 3; try++ {
		if problems = knownDelays(t, srv.URL); len(problems) == 0 {
			return
		}
		t.Logf("try %d: %s", try+1, strings.Join(problems, "; "))
	}
	t.Error(strings.Join(problems, "; "))
}

// knownDelays loads url as TestKnownDelays says and returns what is wrong
// with the percentiles and the histogram the generator reported.
func knownDelays(t *testing.T, url string) (problems []string) {
	t.Helper()
	r, err := Run(context.Background(), Plan{URL: url, Connections: 10, Rate: 50, Duration: 2 * time.Second, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	// What the generator may add to a known delay: scheduling on a loaded
	// machine (make test runs fuzzers and containers beside this test; a
	// p99 of 109.8 ms was seen there against 100 ms of delay). Coordinated
	// omission would not be caught by this bound, but by the lower one and
	// by TestStallsShow; this one catches latencies inflated or mis-scaled.
	const overhead = 25_000 // µs
	for _, q := range []string{"50", "75", "95", "99"} {
		want := map[string]float64{"50": 10_000, "75": 40_000, "95": 100_000, "99": 100_000}[q]
		if got, lo, hi := r.LatencyUS[q], want, want*1.001+overhead; got < lo || got > hi {
			problems = append(problems, fmt.Sprintf("p%s = %.0f µs, want in [%.0f, %.0f]", q, got, lo, hi))
		}
	}
	h, err := hdrhistogram.Decode([]byte(r.Histogram))
	if err != nil {
		t.Fatalf("the report's histogram: %v", err)
	}
	if h.TotalCount() != r.Statuses["200"] || r.Statuses["200"] < 95 {
		problems = append(problems, fmt.Sprintf("histogram holds %d latencies, %d answers", h.TotalCount(), r.Statuses["200"]))
	}
	return problems
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

// Every send made on schedule reads as the rate asked, however long the
// last answers take: the drain after the schedule's end is not in the
// window. (Counted over the whole run, 100 sends at 100/s against answers
// of 600 ms read as about 62/s.)
func TestRateOverSchedule(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 1 s of load")
	}
	slow := slowServer(t, 600*time.Millisecond)
	r, err := Run(context.Background(), Plan{URL: slow.URL, Connections: 100, Rate: 100, Duration: time.Second, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if r.Sent != 100 || r.Statuses["200"] != 100 || r.Seconds >= 1.5 {
		t.Errorf("%d sent, %v answered, window %.2f s: want 100 sent and answered in a window of the schedule's 1 s", r.Sent, r.Statuses, r.Seconds)
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
