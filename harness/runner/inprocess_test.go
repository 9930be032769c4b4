package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/webbench/webbench/harness/cpuset"
	"github.com/webbench/webbench/harness/latency"
	"github.com/webbench/webbench/harness/loadgen"
	"github.com/webbench/webbench/harness/verify"
)

// inProcess is a Generator that runs in the test's process: it probes and
// loads, with net/http, the servers the fake engine runs for its
// containers (httptest servers), reaching each through the fake's
// network (resolve), as the real one reaches containers through the
// engine's. What it measures is what those servers answered: tests assert
// figures the servers themselves counted. It parses no command line.
type inProcess struct {
	resolve func(addr string) (string, error) // a container's host:port → where its server listens
	// span, when set, bounds a timed run (tests of the schedule need not
	// wait a whole second a trial); 0 runs the spec's duration.
	span time.Duration
	// cores is what Usage reports: the test's process is shared with the
	// servers, so its CPU time says nothing of a generator's.
	cores float64
	// beforeRun is called with the URL of every run, warm-ups included.
	beforeRun func(url string)

	mu     sync.Mutex
	pinned string
	moved  []string // the cores Pin moved it to, in order
	closed bool
	runs   []genRun // every run, in order
	probes []probed // every probe, in order
}

func (g *inProcess) Start(ctx context.Context, cores cpuset.Set, tools []loadgen.Tool) (Started, error) {
	if err := ctx.Err(); err != nil {
		return Started{}, err
	}
	st := Started{Versions: map[string]string{}, MaxNoFile: 20000, Namespace: "container:in-process", ServerImage: "in-process"}
	for _, t := range tools {
		st.Versions[t.Name()] = "in-process"
	}
	g.pinned = cores.String()
	return st, nil
}

func (g *inProcess) Pin(_ context.Context, cores string) (string, error) {
	if cores != "" && cores != g.pinned {
		g.pinned = cores
		g.moved = append(g.moved, cores)
	}
	return g.pinned, nil
}

func (g *inProcess) Usage(time.Time, time.Time) (float64, bool) { return g.cores, true }

func (g *inProcess) Alive(context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return &goneError{what: "in-process load generator", err: errors.New("closed")}
	}
	return nil
}

func (g *inProcess) Close(context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	return nil
}

// transport reaches the fake's containers, keeping connections alive
// unless close.
func (g *inProcess) transport(conns int, close bool) *http.Transport {
	return &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			real, err := g.resolve(addr)
			if err != nil {
				return nil, err
			}
			var d net.Dialer
			return d.DialContext(ctx, network, real)
		},
		DisableKeepAlives: close, MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns, DisableCompression: true,
	}
}

func (g *inProcess) Probe(ctx context.Context, target string, ask Ask) (verify.Response, error) {
	g.mu.Lock()
	g.probes = append(g.probes, probed{target, ask})
	g.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, ask.Timeout)
	defer cancel()
	if ask.Kind&probeTCP != 0 {
		real, err := g.resolve(target)
		if err == nil {
			var c net.Conn
			if c, err = (&net.Dialer{}).DialContext(ctx, "tcp", real); err == nil {
				c.Close()
			}
		}
		if err != nil {
			return verify.Response{Error: err.Error()}, nil
		}
		return verify.Response{}, nil
	}
	tr := g.transport(1, ask.Kind&probeClose != 0)
	defer tr.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return verify.Response{Error: err.Error()}, nil
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		return verify.Response{Error: err.Error()}, nil
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return verify.Response{Error: err.Error()}, nil
	}
	return verify.Response{Status: resp.StatusCode, Header: resp.Header, Body: body}, nil
}

// Run loads s.URL over s.Connections connections until s.Duration (or
// span) has passed or s.Requests were sent, at s.Rate a second when set.
func (g *inProcess) Run(ctx context.Context, tool loadgen.Tool, s loadgen.Spec) (loadgen.Result, error) {
	g.mu.Lock()
	g.runs = append(g.runs, genRun{tool.Name(), s})
	hook := g.beforeRun
	g.mu.Unlock()
	if hook != nil {
		hook(s.URL)
	}
	if err := g.Alive(ctx); err != nil {
		return loadgen.Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return loadgen.Result{}, err
	}
	d := s.Duration
	if g.span > 0 && d > g.span {
		d = g.span
	}
	// Sending stops at the end of a timed run; what is in flight then is
	// waited for and counted, as bombardier does.
	sending, cancel := context.WithCancel(ctx)
	if s.Requests == 0 {
		sending, cancel = context.WithTimeout(ctx, d)
	}
	defer cancel()
	l := &load{spec: s, tr: g.transport(s.Connections, s.Close), hist: hdrhistogram.New(1, 60_000_000, 3),
		codes: map[string]int64{}, kinds: map[string]int64{}}
	defer l.tr.CloseIdleConnections()
	start := time.Now()
	l.run(ctx, sending)
	if err := ctx.Err(); err != nil {
		return loadgen.Result{}, err
	}
	took := time.Since(start)
	if s.Rate > 0 && s.Requests == 0 {
		took = d // a rate is kept over the run's span, not its drain
	}
	return l.result(took), nil
}

// load is one run's workers and tallies.
type load struct {
	spec  loadgen.Spec
	tr    *http.Transport
	sent  atomic.Int64
	mu    sync.Mutex
	hist  *hdrhistogram.Histogram
	good  int64
	bad   int64
	bytes int64
	codes map[string]int64
	kinds map[string]int64
}

func (l *load) run(ctx, sending context.Context) {
	start := time.Now()
	var slot atomic.Int64 // at a rate, the next send's place in the schedule
	var wg sync.WaitGroup
	for range l.spec.Connections {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each connection sends at least once, as the real tools
			// do: on a loaded machine a worker may first run after a
			// 20 ms span has ended, and a trial of no answers would
			// fail the cell for the scheduler's sake.
			for first := l.spec.Rate == 0; first || sending.Err() == nil; first = false {
				if l.spec.Requests > 0 && l.sent.Add(1) > l.spec.Requests {
					return
				}
				if l.spec.Rate > 0 {
					// A send due before a timed run ends is made however
					// late its worker wakes: a loaded machine running the
					// test late is not the rate missed. A server too slow
					// for the rate still misses it: its workers, busy,
					// claim fewer sends before the end.
					at := start.Add(time.Duration(slot.Add(1)-1) * time.Second / time.Duration(l.spec.Rate))
					if end, timed := sending.Deadline(); timed && !at.Before(end) {
						return
					}
					select {
					case <-time.After(time.Until(at)):
					case <-ctx.Done():
						return
					}
				}
				l.one(ctx)
			}
		}()
	}
	wg.Wait()
}

// one sends one request and tallies its outcome; a request cut by an
// interrupt is not counted.
func (l *load) one(ctx context.Context) {
	start := time.Now()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, l.spec.URL, nil)
	if l.spec.Close {
		req.Close = true
	}
	resp, err := l.tr.RoundTrip(req)
	var n int64
	if err == nil {
		n, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if ctx.Err() != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.hist.RecordValue(max(time.Since(start).Microseconds(), 1))
	if err != nil {
		l.bad++
		l.kinds["others"]++
		return
	}
	class := strconv.Itoa(resp.StatusCode/100) + "xx"
	l.codes[class]++
	l.bytes += n
	if resp.StatusCode/100 == max(l.spec.Expect, 200)/100 {
		l.good++
		return
	}
	l.bad++
	l.kinds[class]++
}

func (l *load) result(took time.Duration) loadgen.Result {
	l.mu.Lock()
	defer l.mu.Unlock()
	secs := took.Seconds()
	r := loadgen.Result{Requests: l.good, Errors: l.bad, RPS: float64(l.good) / secs, StatusCodes: l.codes, BytesRead: l.bytes, Seconds: secs}
	if n := l.good + l.bad; n > 0 {
		r.ErrorRate = float64(l.bad) / float64(n)
	}
	if len(l.kinds) > 0 {
		r.ErrorKinds = l.kinds
	}
	ms := func(q float64) float64 { return float64(l.hist.ValueAtQuantile(q)) / 1000 }
	r.LatencyMS = latency.Latency{Mean: l.hist.Mean() / 1000, P50: ms(50), P75: ms(75), P90: ms(90), P95: ms(95), P99: ms(99), Max: float64(l.hist.Max()) / 1000}
	return r
}

// genRun is one run the generator was asked for: its tool and its spec.
type genRun struct {
	tool string
	spec loadgen.Spec
}

// probed is one probe the generator was asked for.
type probed struct {
	target string
	ask    Ask
}

// asked are the probes so far, in order.
func (g *inProcess) asked() []probed {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]probed(nil), g.probes...)
}

// ran are the runs so far, in order (warm-ups and the ceiling's included).
func (g *inProcess) ran() []genRun {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]genRun(nil), g.runs...)
}

var _ Generator = (*inProcess)(nil)

func (g *inProcess) String() string { return fmt.Sprintf("in-process generator on %s", g.pinned) }
