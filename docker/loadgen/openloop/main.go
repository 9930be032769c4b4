// Command openloop is an open-loop HTTP/1.1 load generator after wrk2's
// model, for the harness's fixed-rate cells: each of c connections keeps
// its own schedule of intended send times (connection k sends its i-th
// request at start + (k + i·c)/rate), and a request's latency is its
// completion minus its intended send time. A server that stalls delays
// every request scheduled meanwhile, and those delays are measured, not
// omitted (coordinated omission: a closed-loop tool only times requests
// from their actual send). Latencies go into an HDR histogram (1 µs to
// 60 s, 3 significant digits). It prints one JSON report on stdout.
//
// Why not vegeta: its attacker times a request from when a worker picks it
// up (began := time.Now() before the request), not from its tick, so once
// its workers and connections are all busy, the waiting is left out.
package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/webbench/webbench/docker/loadgen/internal/wire"
)

// LateAfter is how long after its intended time a send counts as late.
const LateAfter = time.Millisecond

// Report is what one run measured.
type Report struct {
	// Seconds is the send window: the schedule's duration, or until the
	// last send when a late one went past it. Answers still arriving after
	// it count; the time spent waiting for them (the drain) does not, so a
	// rate sent on schedule reads as that rate.
	Seconds    float64            `json:"seconds"`
	Statuses   map[string]int64   `json:"statuses"` // by status code
	Errors     map[string]int64   `json:"errors"`   // requests without an answer, by kind
	Bytes      int64              `json:"bytes"`    // read from the server, headers included
	Scheduled  int64              `json:"scheduled"`
	Sent       int64              `json:"sent"`
	Late       int64              `json:"late"` // sent more than LateAfter after their intended time
	LateMeanMS float64            `json:"late_mean_ms"`
	LateMaxMS  float64            `json:"late_max_ms"`
	Unsent     int64              `json:"unsent"`     // scheduled within the duration, never sent
	LatencyUS  map[string]float64 `json:"latency_us"` // "50" … "99.99", "mean", "max"
	// Histogram is every latency of the run (µs), in HdrHistogram's V2
	// compressed encoding (base64), which HdrHistogram's tools read: the
	// harness merges a cell's trials from it.
	Histogram string `json:"histogram,omitempty"`
}

// Plan is one run's settings.
type Plan struct {
	URL         string
	Connections int
	Rate        float64 // requests per second, over all connections
	Duration    time.Duration
	Timeout     time.Duration
	Close       bool
}

// Intended is connection k's i-th intended send time after start.
func (p Plan) Intended(k, i int) time.Duration {
	return time.Duration(float64(k+i*p.Connections) / p.Rate * float64(time.Second))
}

// Scheduled is how many sends connection k has within the duration: the
// count of i with Intended(k, i) < Duration, from the closed form, settled
// against Intended itself where rounding could move it by one.
func (p Plan) Scheduled(k int) int64 {
	n := int(math.Ceil((p.Rate*p.Duration.Seconds() - float64(k)) / float64(p.Connections)))
	n = max(n, 0)
	for n > 0 && p.Intended(k, n-1) >= p.Duration {
		n--
	}
	for p.Intended(k, n) < p.Duration {
		n++
	}
	return int64(n)
}

// highest is the longest latency (µs) the histograms must hold: a send due
// at the start, made at the end of the schedule, answered at its timeout.
func (p Plan) highest() int64 {
	return max((p.Duration + p.Timeout + time.Second).Microseconds(), 60_000_000)
}

// Unrecorded is the error kind of an answer whose latency the histogram
// could not hold: counted, never dropped.
const Unrecorded = "latency_unrecorded"

// Clock is the time a run schedules its sends by and measures their
// latencies on: the wall clock in a run, a fake one in the tests, so that
// what the generator computes from its schedule can be checked exactly,
// whatever the machine's load.
type Clock interface {
	Now() time.Time
	Sleep(d time.Duration) // returns at once when d ≤ 0
}

type wallClock struct{}

func (wallClock) Now() time.Time        { return time.Now() }
func (wallClock) Sleep(d time.Duration) { time.Sleep(d) }

// sender sends one request on its connection and reads the answer whole:
// its status, or why there is none.
type sender func() (status int, err error)

// connector opens connection k's sender and what closes it.
type connector func(k int) (sender, func())

// Run runs p and reports.
func Run(ctx context.Context, p Plan) (Report, error) {
	var bytes atomic.Int64
	r, err := run(ctx, p, wallClock{}, p.httpConnector(&bytes))
	r.Bytes = bytes.Load()
	return r, err
}

// httpConnector opens each connection as an HTTP/1.1 client of its own,
// which counts the bytes it reads into bytes.
func (p Plan) httpConnector(bytes *atomic.Int64) connector {
	return func(int) (sender, func()) {
		tr := &http.Transport{MaxConnsPerHost: 1, MaxIdleConnsPerHost: 1, DisableKeepAlives: p.Close, DisableCompression: true,
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				c, err := (&net.Dialer{Timeout: p.Timeout}).DialContext(ctx, network, addr)
				if err != nil {
					return nil, err
				}
				return wire.CountingConn{Conn: c, N: bytes}, nil
			},
			// https: HTTP/1.1 over TLS, verified against the system's
			// roots (the harness points SSL_CERT_FILE at the run's
			// authority); bytes are counted on the plaintext side.
			DialTLSContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				d := &tls.Dialer{NetDialer: &net.Dialer{Timeout: p.Timeout}, Config: &tls.Config{NextProtos: []string{"http/1.1"}}}
				c, err := d.DialContext(ctx, network, addr)
				if err != nil {
					return nil, err
				}
				return wire.CountingConn{Conn: c, N: bytes}, nil
			}}
		client := &http.Client{Transport: tr, Timeout: p.Timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		return func() (int, error) {
			resp, err := client.Get(p.URL)
			if err != nil {
				return 0, err
			}
			defer resp.Body.Close()
			_, err = io.Copy(io.Discard, resp.Body)
			return resp.StatusCode, err
		}, tr.CloseIdleConnections
	}
}

// run runs p's schedule on clk, each connection sending through connect's
// sender, and reports.
func run(ctx context.Context, p Plan, clk Clock, connect connector) (Report, error) {
	if p.Connections < 1 || p.Rate <= 0 || p.Duration <= 0 {
		return Report{}, errors.New("need connections ≥ 1, a rate and a duration")
	}
	var mu sync.Mutex
	total := newTally(p)
	start := clk.Now()
	var wg sync.WaitGroup
	for k := range p.Connections {
		wg.Add(1)
		go func() {
			defer wg.Done()
			send, closeConn := connect(k)
			defer closeConn()
			t := p.connection(ctx, k, start, clk, send)
			mu.Lock()
			defer mu.Unlock()
			total.add(t)
		}()
	}
	wg.Wait()
	return p.report(total)
}

// tally is what connections measured, one or merged.
type tally struct {
	h                *hdrhistogram.Histogram
	statuses, errs   map[string]int64
	scheduled        int64
	sent, late       int64
	lateSum, lateMax time.Duration
	lastSend         time.Duration // after the start
}

func newTally(p Plan) *tally {
	return &tally{h: hdrhistogram.New(1, p.highest(), 3), statuses: map[string]int64{}, errs: map[string]int64{}}
}

func (t *tally) add(o *tally) {
	t.h.Merge(o.h)
	for s, n := range o.statuses {
		t.statuses[s] += n
	}
	for e, n := range o.errs {
		t.errs[e] += n
	}
	t.scheduled += o.scheduled
	t.sent += o.sent
	t.late += o.late
	t.lateSum += o.lateSum
	t.lateMax = max(t.lateMax, o.lateMax)
	t.lastSend = max(t.lastSend, o.lastSend)
}

// connection runs connection k's schedule from start: each send waits for
// its intended time (or goes at once when the connection is behind), and
// its latency is from that intended time to the answer's end, so the time
// a send spent waiting behind a slow answer is in it.
func (p Plan) connection(ctx context.Context, k int, start time.Time, clk Clock, send sender) *tally {
	t := newTally(p)
	t.scheduled = p.Scheduled(k)
	for i := 0; ; i++ {
		at := p.Intended(k, i)
		if at >= p.Duration || ctx.Err() != nil {
			break
		}
		intended := start.Add(at)
		wait := intended.Sub(clk.Now())
		clk.Sleep(wait)
		now := clk.Now()
		if wait <= 0 && now.Sub(start) >= p.Duration {
			// Still busy with earlier sends when the duration ended:
			// this send and the rest are unsent. (A connection on
			// schedule whose timer fired just past the end still
			// sends: its lateness is the timer's.)
			break
		} else if d := now.Sub(intended); d > LateAfter {
			t.late++
			t.lateSum += d
			t.lateMax = max(t.lateMax, d)
		}
		t.sent++
		t.lastSend = now.Sub(start)
		status, err := send()
		switch {
		case err != nil:
			t.errs[kind(err)]++
		case t.h.RecordValue(max(clk.Now().Sub(intended).Microseconds(), 1)) != nil:
			t.errs[Unrecorded]++
		default:
			t.statuses[strconv.Itoa(status)]++
		}
	}
	return t
}

// report is the Report of what the connections measured.
func (p Plan) report(t *tally) (Report, error) {
	r := Report{Statuses: t.statuses, Errors: t.errs, Scheduled: t.scheduled, Sent: t.sent, Late: t.late}
	r.Seconds = max(p.Duration, t.lastSend).Seconds()
	r.Unsent = r.Scheduled - r.Sent
	if r.Late > 0 {
		r.LateMeanMS = float64(t.lateSum.Microseconds()) / 1000 / float64(r.Late)
	}
	r.LateMaxMS = float64(t.lateMax.Microseconds()) / 1000
	r.LatencyUS = map[string]float64{}
	if t.h.TotalCount() > 0 {
		for _, q := range []float64{50, 75, 90, 95, 99, 99.9, 99.99} {
			r.LatencyUS[strconv.FormatFloat(q, 'f', -1, 64)] = float64(t.h.ValueAtQuantile(q))
		}
		r.LatencyUS["mean"], r.LatencyUS["max"] = t.h.Mean(), float64(t.h.Max())
		enc, err := t.h.EncodeV2()
		if err != nil {
			return Report{}, fmt.Errorf("encoding the histogram: %w", err)
		}
		r.Histogram = string(enc)
	}
	return r, nil
}

// kind names a request's failure for the report.
func kind(err error) string {
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case strings.Contains(err.Error(), "connection refused"):
		return "connect"
	case strings.Contains(err.Error(), "EOF"), strings.Contains(err.Error(), "reset"):
		return "read"
	}
	return "other"
}

func main() {
	var p Plan
	flag.IntVar(&p.Connections, "c", 16, "connections, each with its own schedule")
	flag.Float64Var(&p.Rate, "rate", 0, "requests per second over all connections")
	flag.DurationVar(&p.Duration, "d", 10*time.Second, "duration")
	flag.DurationVar(&p.Timeout, "timeout", 2*time.Second, "per-request timeout")
	flag.BoolVar(&p.Close, "close", false, "keep-alive off: a new connection per request")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: openloop -rate R [-c N] [-d D] [-timeout T] [-close] URL")
		os.Exit(2)
	}
	p.URL = flag.Arg(0)
	r, err := Run(context.Background(), p)
	if err != nil {
		fmt.Fprintln(os.Stderr, "openloop:", err)
		os.Exit(2)
	}
	json.NewEncoder(os.Stdout).Encode(r)
}
