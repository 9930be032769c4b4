// Package loadgen owns the load-generating tools (Tool: bombardier, wrk,
// h2load, ab and the harness's own open-loop generator): for each, the
// command line the harness runs for a trial and the reading of its report
// into a Result, which every tool fills alike. What they share (Spec,
// Deadline, Result) is here; each tool's argv and parsing is in its own
// file. A Result's latency is package latency's type, the one
// results.json records (loadgen does not import results).
package loadgen

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/webbench/webbench/harness/latency"
	"github.com/webbench/webbench/harness/numfmt"
)

// Spec is one run of a load generator.
type Spec struct {
	URL         string
	Connections int
	Duration    time.Duration // exclusive with Requests
	Requests    int64
	Timeout     time.Duration
	Expect      int    // the status the scenario expects: its class is what counts
	Close       bool   // keep-alive off: every request says Connection: close
	Rate        int    // requests/s to hold (-r); 0: as fast as it can
	Threads     int    // the generator's cores, for tools that take a thread count (0: 1)
	Protocol    string // http1 (""), https, h2 or h2c; the URL's scheme says TLS
	// Pipeline is the requests in flight on each connection: HTTP/1.1
	// requests written together, or HTTP/2 streams; 0 and 1 wait for each
	// answer before the next request.
	Pipeline int
	// Headers are sent with every request ("Name: value"), as the
	// scenario declares them, in a fixed order.
	Headers []string
}

// Bounds of a trial's deadline.
const (
	// DeadlineMargin is added to a timed trial's duration and request timeout.
	DeadlineMargin = 10 * time.Second
	// SlowestRPS is the rate a counted trial may fall to before its deadline
	// passes: -n N may take N ÷ SlowestRPS seconds (plus the margin) …
	SlowestRPS = 100
	// DeadlineCap … but never more than this.
	DeadlineCap = 30 * time.Minute
)

// Deadline is how long a run of s may take before it counts as stalled:
// its duration plus the request timeout plus a margin, or, for a request
// count, the count at SlowestRPS plus the margin, capped at DeadlineCap.
// Whole seconds, at least 1.
func Deadline(s Spec) time.Duration {
	d := s.Duration + s.Timeout + DeadlineMargin
	if s.Requests > 0 {
		d = DeadlineCap
		if s.Requests/SlowestRPS < int64(DeadlineCap/time.Second) {
			d = min(DeadlineCap, time.Duration(s.Requests/SlowestRPS)*time.Second+s.Timeout+DeadlineMargin)
		}
	}
	return max(d.Round(time.Second), time.Second)
}

// Result is what one run of a load generator measured, whichever tool. Only responses of the
// status class the scenario expects count as throughput; every other
// outcome is an error.
type Result struct {
	RPS         float64          `json:"rps"`      // good responses per second of time taken
	Requests    int64            `json:"requests"` // good responses: of the expected status class
	Errors      int64            `json:"errors"`   // every other request: another status class, unclassified, no response
	ErrorRate   float64          `json:"error_rate"`
	ErrorKinds  map[string]int64 `json:"error_kinds,omitempty"` // errors by kind: "5xx", "others", or the tool's own word ("timeout")
	StatusCodes map[string]int64 `json:"status_codes"`          // every response by class, good or not
	LatencyMS   latency.Latency  `json:"latency_ms"`
	BytesRead   int64            `json:"bytes_read"`
	Seconds     float64          `json:"seconds"`
	OpenLoop    *OpenLoopFigures `json:"open_loop,omitempty"` // an open-loop generator's schedule
	// Distribution is the run's whole latency distribution (µs) when the
	// tool exports one beside its percentiles (wrk, through its script):
	// what a trial of several generators merges exactly.
	Distribution *hdrhistogram.Histogram `json:"-"`
}

// OpenLoopFigures are what an open-loop generator reports beyond a
// closed-loop one: the sends its schedule asked for, those made, those
// made late (more than 1 ms after their intended time) and by how much,
// and those never made.
type OpenLoopFigures struct {
	Scheduled  int64   `json:"scheduled"`
	Sent       int64   `json:"sent"`
	Late       int64   `json:"late"`
	LateMeanMS float64 `json:"late_mean_ms,omitempty"`
	LateMaxMS  float64 `json:"late_max_ms,omitempty"`
	Unsent     int64   `json:"unsent"`
	// Histogram is the run's latencies (µs) as HdrHistogram's V2
	// compressed encoding, base64: a cell's trials merge from it.
	Histogram string `json:"hdr_histogram,omitempty"`
}

// Class is the status class a status code falls in: 200 → "2xx".
func Class(status int) string { return fmt.Sprintf("%dxx", status/100) }

// Completed is every request that got a response, good or not.
func (r Result) Completed() int64 {
	var n int64
	for _, v := range r.StatusCodes {
		n += v
	}
	return n
}

// Unsent is the kind of error of a send an open-loop schedule asked for
// and never made: load asked and not offered.
const Unsent = "unsent"

// Sent is r without its unsent requests: what was offered to the server.
func (r Result) Sent() Result {
	n := r.ErrorKinds[Unsent]
	if n == 0 {
		return r
	}
	r.ErrorKinds = maps.Clone(r.ErrorKinds)
	delete(r.ErrorKinds, Unsent)
	r.Errors -= n
	r.ErrorRate = 0
	if total := r.Requests + r.Errors; total > 0 {
		r.ErrorRate = float64(r.Errors) / float64(total)
	}
	return r
}

// ErrorSummary renders error kinds most frequent first, for a reason
// text: "5xx: 10,231; timeout: 40".
func (r Result) ErrorSummary() string {
	kinds := slices.Collect(maps.Keys(r.ErrorKinds))
	slices.SortFunc(kinds, func(a, b string) int {
		if c := cmp.Compare(r.ErrorKinds[b], r.ErrorKinds[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = k + ": " + numfmt.Count(r.ErrorKinds[k])
	}
	return strings.Join(parts, "; ")
}

// truncate is b cut to n bytes, an ellipsis marking the cut, for a parse
// error that quotes what a tool printed.
func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// headerArgs are s's headers as bombardier, wrk, h2load and ab all take
// them: -H "Name: value" each.
func headerArgs(s Spec) []string {
	var args []string
	for _, h := range s.Headers {
		args = append(args, "-H", h)
	}
	return args
}
