package runner

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/webbench/webbench/harness/cpuset"
	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/latency"
	"github.com/webbench/webbench/harness/loadgen"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/merge"
	"github.com/webbench/webbench/harness/results"
)

// timedInProcess is an in-process generator that keeps a start instant as
// startScript does in a container: it waits until at (and late more) as
// its clock reads it, and says when its run started and stopped by that
// clock, which reads skew ahead of this process's (behind when negative).
type timedInProcess struct {
	*inProcess
	late, skew time.Duration
}

// timedMember is a fleet's member on engine, side, run by g.
func timedMember(engine string, s *side, g timedInProcess) fleetMember {
	return fleetMember{engine: engine, side: s, gen: g, at: g}
}

// RunAt reports the window it was asked for, shifted by its lateness (its
// own clock's reading of it), and the run's nominal length: on a loaded
// machine the sleep and the run overshoot by tens of milliseconds (two
// members' 400 ms runs overlapped 90% once), and a test of the fleet's
// rules must not fail on the scheduler's timing.
func (g timedInProcess) RunAt(ctx context.Context, tool loadgen.Tool, s loadgen.Spec, at time.Time) (loadgen.Result, merge.Window, error) {
	time.Sleep(time.Until(at.Add(g.late).Add(-g.skew)))
	res, err := g.Run(ctx, tool, s)
	nominal := s.Duration
	if g.span > 0 && g.span < nominal {
		nominal = g.span
	}
	if res.Seconds > 0 {
		res.Seconds = nominal.Seconds()
	}
	start := at.Add(g.late)
	return res, merge.Window{Start: start, Stop: start.Add(nominal)}, err
}

func (g timedInProcess) Clock(ctx context.Context) (time.Time, error) {
	if err := g.Alive(ctx); err != nil {
		return time.Time{}, err
	}
	return time.Now().Add(g.skew), nil
}

// Start starts it again after a Close, as a new container would be.
func (g timedInProcess) Start(ctx context.Context, cores cpuset.Set, tools []loadgen.Tool) (Started, error) {
	g.mu.Lock()
	g.closed = false
	g.mu.Unlock()
	return g.inProcess.Start(ctx, cores, tools)
}

// counting is an HTTP server that counts the answers it wrote.
func counting(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Write([]byte("Hello, World!"))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// twoGenerators is a fleet of two in-process generators, a and b, on
// machines of two cores; b starts late by late.
func twoGenerators(late time.Duration) (*fleet, []*inProcess) {
	direct := func(addr string) (string, error) { return addr, nil }
	a := &inProcess{resolve: direct, span: 400 * time.Millisecond}
	b := &inProcess{resolve: direct, span: 400 * time.Millisecond}
	f := &fleet{lead: 50 * time.Millisecond, members: []fleetMember{
		timedMember("a", &side{name: "a", info: engine.Info{NCPU: 2}}, timedInProcess{inProcess: a}),
		timedMember("b", &side{name: "b", info: engine.Info{NCPU: 2}}, timedInProcess{inProcess: b, late: late}),
	}}
	return f, []*inProcess{a, b}
}

// Two generators load one server together: each gets its share of the
// connections (the remainder to the first), the merged good count is the
// count the server itself wrote, and the spread records both generators.
// Their tool exports no full distribution, so the trial shows no
// percentiles, only the largest latency either saw.
func TestFleetRun(t *testing.T) {
	srv, served := counting(t)
	f, gens := twoGenerators(0)
	res, err := f.Run(context.Background(), loadgen.Bombardier{}, loadgen.Spec{URL: srv.URL, Connections: 5, Duration: time.Second, Timeout: time.Second, Expect: 200})
	if err != nil {
		t.Fatal(err)
	}
	if got := served.Load(); res.Requests != got || res.Requests == 0 || res.Errors != 0 {
		t.Errorf("merged %d good answers (%d errors), the server wrote %d", res.Requests, res.Errors, got)
	}
	if a, b := gens[0].ran(), gens[1].ran(); len(a) != 1 || len(b) != 1 || a[0].spec.Connections != 3 || b[0].spec.Connections != 2 {
		t.Errorf("shares: a ran %+v, b ran %+v; want 3 and 2 connections", a, b)
	}
	sp := f.last
	if sp == nil || len(sp.Generators) != 2 || sp.Generators[0].Engine != "a" || sp.Generators[1].Engine != "b" ||
		sp.Generators[0].Requests+sp.Generators[1].Requests != res.Requests || sp.Overlap < merge.MinOverlap {
		t.Fatalf("spread %+v", sp)
	}
	if !slices.Equal(sp.NoLatency, []string{"a", "b"}) || res.LatencyMS.P50 != 0 || res.LatencyMS.P99 != 0 || res.LatencyMS.Max <= 0 {
		t.Errorf("latency %+v, missing %v: want no percentiles, a maximum", res.LatencyMS, sp.NoLatency)
	}
	if math.Abs(res.RPS*res.Seconds-float64(res.Requests)) > 1 {
		t.Errorf("rps %v × seconds %v is not the %d requests", res.RPS, res.Seconds, res.Requests)
	}
}

// A generator that starts far after the other makes the trial fail,
// naming it; one that fails makes the run fail, naming its engine.
func TestFleetRunFails(t *testing.T) {
	srv, _ := counting(t)
	spec := loadgen.Spec{URL: srv.URL, Connections: 4, Duration: time.Second, Timeout: time.Second, Expect: 200}
	f, _ := twoGenerators(300 * time.Millisecond)
	_, err := f.Run(context.Background(), loadgen.Bombardier{}, spec)
	var overlap *merge.OverlapError
	if !errors.As(err, &overlap) || overlap.Generator != "b" || !strings.Contains(err.Error(), "generator b: the generators' windows overlap by") {
		t.Errorf("b late: %v", err)
	}
	f, gens := twoGenerators(0)
	gens[1].Close(context.Background())
	if _, err = f.Run(context.Background(), loadgen.Bombardier{}, spec); err == nil || !strings.HasPrefix(err.Error(), "load generator on engine b: ") {
		t.Errorf("b gone: %v", err)
	}
	if err := f.Alive(context.Background()); err == nil || !strings.Contains(err.Error(), "engine b") {
		t.Errorf("alive: %v", err)
	}
	spec.Connections = 1
	if _, err = f.Run(context.Background(), loadgen.Bombardier{}, spec); !errors.Is(err, merge.ErrShareless) {
		t.Errorf("1 connection for 2 generators: %v", err)
	}
}

// A load's connections, rate and request count are divided alike.
func TestShareSpecs(t *testing.T) {
	specs, err := shareSpecs(loadgen.Spec{URL: "u", Connections: 7, Rate: 1001, Requests: 10, Timeout: time.Second}, 3)
	if err != nil {
		t.Fatal(err)
	}
	var conns, rates []int
	var reqs []int64
	for _, s := range specs {
		conns, rates, reqs = append(conns, s.Connections), append(rates, s.Rate), append(reqs, s.Requests)
		if s.URL != "u" || s.Timeout != time.Second {
			t.Errorf("share %+v lost the spec's other settings", s)
		}
	}
	if !slices.Equal(conns, []int{3, 2, 2}) || !slices.Equal(rates, []int{335, 333, 333}) || !slices.Equal(reqs, []int64{4, 3, 3}) {
		t.Errorf("connections %v, rates %v, requests %v", conns, rates, reqs)
	}
	if specs, err = shareSpecs(loadgen.Spec{Connections: 4}, 2); err != nil || specs[0].Rate != 0 || specs[0].Requests != 0 {
		t.Errorf("no rate, no count: %+v %v", specs, err)
	}
}

// Two open-loop generators' histograms merge into the trial's latency:
// its percentiles are the pooled requests', and its merged histogram is
// kept for the cell's.
func TestMergedResultLatency(t *testing.T) {
	run := func(from, n int64) memberRun {
		h := hdrhistogram.New(1, 60_000_000, 3)
		for i := range n {
			h.RecordValue(from + i)
		}
		enc, err := h.EncodeV2()
		if err != nil {
			t.Fatal(err)
		}
		return memberRun{res: loadgen.Result{Requests: n, Seconds: 1, RPS: float64(n), LatencyMS: latency.Latency{Max: float64(from+n-1) / 1000},
			OpenLoop: &loadgen.OpenLoopFigures{Scheduled: n, Sent: n, Histogram: string(enc)}}}
	}
	runs := []memberRun{run(1000, 1000), run(5000, 3000)} // 1–2 ms, and 5–8 ms
	t0 := time.Unix(1_800_000_000, 0)
	for i := range runs {
		runs[i].w = merge.Window{Start: t0, Stop: t0.Add(time.Second)}
	}
	_, res := mergeRuns(t, runs)
	// Of 4,000 requests, the 1,000 fast ones are the lowest quarter: the
	// median is among the slow ones (5 + 1 ms), not the mean of two medians.
	if res.LatencyMS.P50 < 5.9 || res.LatencyMS.P50 > 6.1 || res.LatencyMS.Max < 7.99 || res.Requests != 4000 {
		t.Errorf("p50 %v ms, max %v ms, %d requests; want p50 about 6 ms", res.LatencyMS.P50, res.LatencyMS.Max, res.Requests)
	}
	if res.OpenLoop == nil || res.OpenLoop.Sent != 4000 || res.OpenLoop.Histogram == "" {
		t.Fatalf("schedule %+v", res.OpenLoop)
	}
	h, err := results.DecodeHistogram(res.OpenLoop.Histogram)
	if err != nil || h.TotalCount() != 4000 {
		t.Errorf("merged histogram: %v, %d values", err, h.TotalCount())
	}
}

// Two wrk runs (recorded over 4 connections: one pipelined 16 deep, one
// not, so their latencies differ) merge from the distributions report.lua
// exported: the trial's p50…p99.9 are those of the pooled latencies both
// measured, to the histogram's resolution, where before wrk's percentiles
// could not be merged and showed "—".
func TestMergedWrkLatency(t *testing.T) {
	var runs []memberRun
	var pooled []int64
	t0 := time.Unix(1_800_000_000, 0)
	for _, file := range []string{"wrk-pipeline.txt", "wrk-histogram.txt"} {
		out, err := os.ReadFile(filepath.Join("..", "loadgen", "testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		res, err := loadgen.Wrk{}.Parse(out, loadgen.Spec{Expect: 200, Connections: 4})
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, memberRun{res: res, w: merge.Window{Start: t0, Stop: t0.Add(time.Duration(res.Seconds * float64(time.Second)))}})
		pooled = append(pooled, wrkLatencies(t, out, 4)...)
	}
	m, res := mergeRuns(t, runs)
	if m.Latency == nil || m.Latency.Count != int64(len(pooled)) {
		t.Fatalf("merged latency %+v, want %d latencies (missing: %v)", m.Latency, len(pooled), m.Missing)
	}
	slices.Sort(pooled)
	l := res.LatencyMS
	for q, ms := range map[float64]float64{50: l.P50, 75: l.P75, 90: l.P90, 95: l.P95, 99: l.P99, 99.9: l.P999} {
		rank := min(max(int(q/100*float64(len(pooled))+0.5), 1), len(pooled))
		if want := pooled[rank-1]; !m.Histogram.ValuesAreEquivalent(int64(math.Round(ms*1000)), want) {
			t.Errorf("p%v = %v ms, the pooled latencies say %d µs", q, ms, want)
		}
	}
	if l.Max*1000 < float64(pooled[len(pooled)-1]) {
		t.Errorf("max %v ms, pooled max %d µs", l.Max, pooled[len(pooled)-1])
	}
}

// wrkLatencies are the latencies (µs) a recorded wrk run over conns
// connections measured, one sample each: its report line's value, count
// pairs without those wrk added (at each value above its interval e, the
// count at the value e above it).
func wrkLatencies(t *testing.T, out []byte, conns int64) []int64 {
	t.Helper()
	_, line, _ := strings.Cut(string(out), "WEBBENCH-JSON ")
	line, _, _ = strings.Cut(line, "\n")
	var r struct {
		DurationUS int64 `json:"duration_us"`
		Requests   int64 `json:"requests"`
		LatencyUS  struct {
			Histogram []int64 `json:"histogram"`
		} `json:"latency_us"`
	}
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatal(err)
	}
	printed, h := map[int64]int64{}, r.LatencyUS.Histogram
	for i := 0; i+1 < len(h); i += 2 {
		printed[h[i]] = h[i+1]
	}
	e := r.DurationUS / (r.Requests / conns)
	var all []int64
	for v, n := range printed {
		if v > e {
			n -= printed[v+e]
		}
		for range n {
			all = append(all, v)
		}
	}
	return all
}

// mergeRuns merges runs as a fleet's trial does (partOf, merge.Trial,
// mergedResult), the generators named a, b, ….
func mergeRuns(t *testing.T, runs []memberRun) (*merge.Merged, loadgen.Result) {
	t.Helper()
	var parts []merge.Part
	for i, r := range runs {
		p, err := partOf(string(rune('a'+i)), r)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p)
	}
	m, err := merge.Trial(parts)
	if err != nil {
		t.Fatal(err)
	}
	res, err := mergedResult(m, runs)
	if err != nil {
		t.Fatal(err)
	}
	return m, res
}

// A run with a generator on the targets' engine and one on another skips
// the cells it cannot spread, each naming why and which engine, and
// records how it divides the others.
func TestSpreadCells(t *testing.T) {
	m := testMatrix(t, `version: 1
images: {debian: debian:bookworm-slim}
load: {duration: 1s, warmup: 0s, trials: 1}
cpus: [1, 2]
connections: [1, 9]
rate: [0, 500]
generator: [bombardier]
targets: {a: {build: a, port: 8080}}
scenarios: {plaintext: {path: /, expect: {status: 200}}}
`, "", "a")
	r := &runner{opt: Options{Matrix: m, Machines: &Machines{Target: matrix.EngineSpec{Name: "main", Address: "10.0.0.1"}, Loadgen: matrix.EngineSpec{Name: "main"},
		More: []matrix.EngineSpec{{Name: "second"}}}, More: []MoreEngine{{Engine: newFake().engine()}}}}
	r.sides, _ = placeSides(newFake().engine(), r.opt)
	if len(r.sides.gens) != 2 || r.sides.gens[0] != r.sides.target || r.sides.load != r.sides.target || r.sides.gens[1].name != "second" {
		t.Fatalf("sides: %+v", r.sides)
	}
	for _, s := range r.sides.distinct() {
		s.info = engine.Info{NCPU: 2}
	}
	cells := matrix.ExpandApart(m, nil, r.sides.target.usable(), r.sides.load.usable())
	r.spreadCells(cells)
	why := map[string]string{}
	for _, c := range cells {
		why[c.ID()] = c.Skip
	}
	for id, want := range map[string]string{
		"a/plaintext/1cpu/c1":      "its load cannot be divided among 2 load generators: connections: split 1 among 2 generators: a generator would get no share",
		"a/plaintext/2cpu/c9":      "the load generator on engine main, the targets' own, would share the target's cores (1 and 0-1)",
		"a/plaintext/1cpu/c9/r500": "the share of the load generator on engine main: bombardier holds a rate evenly only at multiples of 100 requests/s, not 250",
		"a/plaintext/1cpu/c9":      "",
	} {
		if got, ok := why[id]; !ok || got != want {
			t.Errorf("%s: skip %q, want %q (cells %v)", id, got, want, why)
		}
	}
	for _, c := range cells {
		if c.ID() != "a/plaintext/1cpu/c9" {
			continue
		}
		want := []results.Share{{Engine: "main", CPUSet: "1", Connections: 5}, {Engine: "second", CPUSet: "1", Connections: 4}}
		if got := r.splitOf(c); !slices.Equal(got, want) {
			t.Errorf("split %+v, want %+v", got, want)
		}
	}
	if got := r.sides.gens[1].cores.String(); got != "1" {
		t.Errorf("the second engine's cores to lock: %q", got)
	}
}

// A generator whose machine's clock is seconds off the harness's fails
// the run before any load, naming its engine: behind, it would start
// seconds late in truth while the windows it reports, read on its own
// clock, line up with the others' and pass the overlap check; ahead, it
// would start at once. On one clock, each generator's recorded offset
// lies within what its reading's round trip allows.
func TestFleetClockApart(t *testing.T) {
	srv, served := counting(t)
	spec := loadgen.Spec{URL: srv.URL, Connections: 4, Duration: time.Second, Timeout: time.Second, Expect: 200}
	for _, skew := range []time.Duration{-3 * time.Second, 3 * time.Second} {
		f, _ := twoGenerators(0)
		b := f.members[1].gen.(timedInProcess)
		b.skew = skew
		f.members[1] = timedMember("b", f.members[1].side, b)
		_, err := f.Run(context.Background(), loadgen.Bombardier{}, spec)
		var clock *merge.ClockError
		if !errors.As(err, &clock) || clock.Generator != "b" || !strings.Contains(err.Error(), "generator b: its machine's clock is 3s") {
			t.Errorf("b's clock %v off: %v, want b named", skew, err)
		}
	}
	if n := served.Load(); n != 0 {
		t.Errorf("the server answered %d requests: a run with a clock apart must send none", n)
	}
	f, _ := twoGenerators(0)
	if _, err := f.Run(context.Background(), loadgen.Bombardier{}, spec); err != nil {
		t.Fatal(err)
	}
	if len(f.clocks) != 2 {
		t.Fatalf("clocks read: %+v", f.clocks)
	}
	for _, g := range f.last.Generators {
		if g.ClockWithinMS < 0 || math.Abs(g.ClockOffsetMS) > g.ClockWithinMS+0.001 {
			t.Errorf("engine %s on this process's clock: offset %v ms ± %v ms", g.Engine, g.ClockOffsetMS, g.ClockWithinMS)
		}
	}
}

// Each generator is held to its share of a rate: one that cannot keep it
// (its connection to a slow server) is named by the run, and the runner
// fails the trial on it, once.
func TestFleetBehind(t *testing.T) {
	fast, _ := counting(t)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(10 * time.Millisecond) // one connection: 100/s at most
		w.Write([]byte("Hello, World!"))
	}))
	t.Cleanup(slow.Close)
	f, gens := twoGenerators(0)
	gens[0].span, gens[1].span = time.Second, time.Second // the drain of b's last answer is 1% of it
	gens[1].resolve = func(string) (string, error) { return strings.TrimPrefix(slow.URL, "http://"), nil }
	spec := loadgen.Spec{URL: fast.URL, Connections: 2, Rate: 400, Duration: time.Second, Timeout: time.Second, Expect: 200}
	if _, err := f.Run(context.Background(), loadgen.Bombardier{}, spec); err != nil {
		t.Fatal(err)
	}
	g := startedGenerator{Generator: f}
	var behind *merge.BehindError
	if err := g.behindShare(); !errors.As(err, &behind) || behind.Generator != "b" || behind.Rate != 200 || behind.Held >= 198 {
		t.Errorf("b against a slow server: %v, want b behind its 200/s", err)
	}
	if err := g.behindShare(); err != nil {
		t.Errorf("asked twice: %v", err)
	}
}

// A generator killed under a run fails that run, naming its engine; the
// fleet starts it again on its cores, and the next run has both.
func TestFleetRevive(t *testing.T) {
	srv, _ := counting(t)
	f, gens := twoGenerators(0)
	ctx := context.Background()
	if _, err := f.Start(ctx, cpuset.Set{1}, []loadgen.Tool{loadgen.Bombardier{}}); err != nil {
		t.Fatal(err)
	}
	spec := loadgen.Spec{URL: srv.URL, Connections: 4, Duration: time.Second, Timeout: time.Second, Expect: 200}
	gens[1].beforeRun = func(string) { gens[1].Close(ctx) }
	if _, err := f.Run(ctx, loadgen.Bombardier{}, spec); err == nil || !strings.HasPrefix(err.Error(), "load generator on engine b: ") {
		t.Errorf("b killed under the run: %v", err)
	}
	gens[1].beforeRun = nil
	if got := f.Revive(ctx); !slices.Equal(got, []string{"b"}) {
		t.Errorf("revived %v, want b", got)
	}
	if err := f.Alive(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Run(ctx, loadgen.Bombardier{}, spec); err != nil {
		t.Errorf("the run after: %v", err)
	}
	if got := f.Revive(ctx); len(got) != 0 || gens[1].pinned != "1" {
		t.Errorf("revived %v with both alive; b on cores %q", got, gens[1].pinned)
	}
}
