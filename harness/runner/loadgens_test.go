package runner

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webbench/webbench/harness/buildtime"
	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/loadgen"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/results"
)

// pairedLoadgens is a matrix whose cells come from one generator engine
// and from two, paired in one run, so that the machine's drift falls on
// both.
const pairedLoadgens = `version: 1
images: {debian: debian:bookworm-slim}
load: {duration: 1s, warmup: 0s, trials: 2}
connections: [8]
loadgens: [1, 2]
targets:
  a: {build: a, port: 8080}
scenarios:
  plaintext: {path: /plaintext, expect: {status: 200, content_type: text/plain, body: "Hello, World!"}}
`

// threeMachines puts the targets on engine server and a generator on each
// of engines client and second.
func threeMachines() *Machines {
	ms := twoMachines()
	ms.More = []matrix.EngineSpec{{Name: "second", Host: "tcp://10.0.0.7:2375"}}
	return ms
}

// runFleet runs m on the fake engines srv (the targets'), cli and third
// (the generators'), with the fleet of in-process generators a (on
// client, srv's generator: its runs are logged as srv's) and b (on
// second), as a run on three machines holds it.
func runFleet(t *testing.T, m *matrix.Matrix, srv *fakeEngine) (*results.Run, error, []*inProcess) {
	t.Helper()
	cli, third := newFake(), newFake()
	srv.ncpu, cli.ncpu, third.ncpu = 3, 2, 2
	srv.id, cli.id, third.id = "server-engine", "client-engine", "second-engine"
	a := srv.generator()
	b := &inProcess{resolve: srv.resolve, span: srv.span, cores: srv.loadgenCores}
	f := &fleet{lead: 50 * time.Millisecond, members: []fleetMember{
		timedMember("client", &side{name: "client", info: engine.Info{NCPU: 2}}, timedInProcess{inProcess: a}),
		timedMember("second", &side{name: "second", info: engine.Info{NCPU: 2}}, timedInProcess{inProcess: b}),
	}}
	opt := Options{Matrix: m, Progress: &recorder{}, OutDir: t.TempDir(), LockDir: t.TempDir(),
		BuildTimes: buildtime.Open(filepath.Join(t.TempDir(), "build-times.json")),
		Machines:   threeMachines(), LoadgenEngine: cli.engine(), More: []MoreEngine{{Engine: third.engine()}}}
	res, err := start(context.Background(), srv.engine(), opt, f)
	for name, e := range map[string]*fakeEngine{"server": srv, "client": cli, "second": third} {
		if left := e.live(); len(left) > 0 {
			t.Errorf("left on engine %s: %v", name, left)
		}
	}
	return res, err, []*inProcess{a, b}
}

// connsAt are the connections of each of g's runs at a URL ending in
// path, in order.
func connsAt(g *inProcess, path string) []int {
	var out []int
	for _, r := range g.ran() {
		if strings.HasSuffix(r.spec.URL, path) {
			out = append(out, r.spec.Connections)
		}
	}
	return out
}

// loadgens: [1, 2] makes one cell loaded by the first generator engine
// alone and one by both, in one run: the first cell's 8 connections all
// come from client, each trial run alone (no spread); the second's are
// split 4 and 4, each trial merged from both. Each records the engines
// it used, and the ceiling is measured for each count of generators, as
// its cells are loaded.
func TestLoadgensAxis(t *testing.T) {
	m := testMatrix(t, pairedLoadgens, "", "a")
	res, err, gens := runFleet(t, m, newFake())
	if err != nil {
		t.Fatal(err)
	}
	one, two := cellByID(t, res, "a/plaintext/1cpu/c8/1lg"), cellByID(t, res, "a/plaintext/1cpu/c8/2lg")
	for _, c := range []*results.Cell{one, two} {
		if c.Status != results.OK || len(c.Trials) != 2 {
			t.Fatalf("%s: %s %s, %d trials", c.ID(), c.Status, c.Reason, len(c.Trials))
		}
	}
	if want := []results.Share{{Engine: "client", CPUSet: "1", Connections: 8}}; one.Loadgens != 1 || !slices.Equal(one.Split, want) {
		t.Errorf("1lg: loadgens %d, split %+v; want %+v", one.Loadgens, one.Split, want)
	}
	if want := []results.Share{{Engine: "client", CPUSet: "1", Connections: 4}, {Engine: "second", CPUSet: "1", Connections: 4}}; two.Loadgens != 2 || !slices.Equal(two.Split, want) {
		t.Errorf("2lg: loadgens %d, split %+v; want %+v", two.Loadgens, two.Split, want)
	}
	for i, tr := range one.Trials {
		if tr.Spread != nil {
			t.Errorf("1lg trial %d: spread %+v, want none (one generator runs alone)", i+1, tr.Spread)
		}
	}
	for i, tr := range two.Trials {
		if tr.Spread == nil || len(tr.Spread.Generators) != 2 || tr.Spread.Generators[0].Engine != "client" || tr.Spread.Generators[1].Engine != "second" ||
			tr.Spread.Generators[0].Requests+tr.Spread.Generators[1].Requests != tr.Requests {
			t.Errorf("2lg trial %d: spread %+v of %d requests, want client's and second's summing to them", i+1, tr.Spread, tr.Requests)
		}
	}
	// Each trial of each cell, in conns: client ran the 1lg cell's two
	// whole and the 2lg cell's two halves; second only the halves.
	a, b := connsAt(gens[0], "/plaintext"), connsAt(gens[1], "/plaintext")
	slices.Sort(a)
	if !slices.Equal(a, []int{4, 4, 8, 8}) || !slices.Equal(b, []int{4, 4}) {
		t.Errorf("runs at the target: client %v, second %v; want [4 4 8 8] and [4 4]", a, b)
	}
	if a, b := connsAt(gens[0], ":8080/"), connsAt(gens[1], ":8080/"); slices.Contains(b, 8) || !slices.Contains(a, 8) || !slices.Contains(a, 4) || !slices.Contains(b, 4) {
		t.Errorf("runs at the ceiling's server: client %v, second %v; want client alone at 8, both at 4", a, b)
	}
	byK := map[int][]results.Share{}
	for _, ce := range res.Ceilings {
		if ce.Error != "" || ce.RPS <= 0 {
			t.Errorf("ceiling of %d generator(s): %q, %v rps", ce.Loadgens, ce.Error, ce.RPS)
		}
		byK[ce.Loadgens] = ce.Split
	}
	if len(res.Ceilings) != 2 || len(byK[1]) != 1 || len(byK[2]) != 2 {
		t.Errorf("ceilings by generator count %+v, want one of 1 and one of 2", byK)
	}
	if !slices.Equal(res.Matrix.Loadgens, []int{1, 2}) {
		t.Errorf("settings record loadgens %v", res.Matrix.Loadgens)
	}
}

// On a run of one generator engine, a loadgens value above 1 stops the
// run before anything starts, naming where it was written.
func TestLoadgensOneEngine(t *testing.T) {
	m := testMatrix(t, pairedLoadgens, "", "a")
	f := newFake()
	_, err, _ := run(t, f, m, Options{})
	if err == nil || !strings.Contains(err.Error(), "matrix.yaml:5:15: loadgens[1]: 2 generator engines asked, but this run has one") {
		t.Fatalf("loadgens [1, 2] on one engine: %v", err)
	}
	if got := f.callsWith("start "); len(got) != 0 {
		t.Errorf("started %v", got)
	}
}

// A fleet told to use its first member alone runs it alone, as one
// generator runs: the whole spec, no start instant, no spread, and only
// its CPU counted; told to use both, it splits and merges again.
func TestFleetUse(t *testing.T) {
	srv, served := counting(t)
	f, gens := twoGenerators(0)
	gens[0].cores, gens[1].cores = 0.25, 0.5
	spec := loadgen.Spec{URL: srv.URL, Connections: 5, Duration: time.Second, Timeout: time.Second, Expect: 200}
	f.use = 1
	res, err := f.Run(context.Background(), loadgen.Bombardier{}, spec)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := gens[0].ran(), gens[1].ran(); len(a) != 1 || a[0].spec.Connections != 5 || len(b) != 0 {
		t.Errorf("one member: a ran %+v, b ran %+v; want a alone at 5 connections", a, b)
	}
	if f.last != nil || res.Requests != served.Load() || res.Requests == 0 {
		t.Errorf("one member: spread %+v, %d good answers where the server wrote %d", f.last, res.Requests, served.Load())
	}
	if cores, _ := f.Usage(time.Time{}, time.Time{}); cores != 0.25 {
		t.Errorf("one member: %v cores, want a's 0.25", cores)
	}
	f.use = 2
	if _, err := f.Run(context.Background(), loadgen.Bombardier{}, spec); err != nil {
		t.Fatal(err)
	}
	if a, b := gens[0].ran(), gens[1].ran(); len(a) != 2 || a[1].spec.Connections != 3 || len(b) != 1 || b[0].spec.Connections != 2 || f.last == nil {
		t.Errorf("two members: a ran %+v, b ran %+v, spread %+v; want 3 and 2 connections, merged", a, b, f.last)
	}
	if cores, _ := f.Usage(time.Time{}, time.Time{}); cores != 0.75 {
		t.Errorf("two members: %v cores, want 0.75", cores)
	}
}
