package runner

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webbench/webbench/harness/buildtime"
	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/loadgen"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/results"
)

// testMatrix writes a matrix with a Dockerfile per build folder it names
// ("folder", or "folder:KEY" for a Dockerfile on KEY_IMAGE instead of
// DEBIAN_IMAGE) and decodes it, with profile applied when not empty.
func testMatrix(t *testing.T, text, profile string, builds ...string) *matrix.Matrix {
	t.Helper()
	dir := t.TempDir()
	for _, b := range builds {
		b, key, ok := strings.Cut(b, ":")
		if !ok {
			key = "DEBIAN"
		}
		os.MkdirAll(filepath.Join(dir, b), 0o755)
		df := "ARG " + key + "_IMAGE\nFROM ${" + key + "_IMAGE}\n"
		if err := os.WriteFile(filepath.Join(dir, b, "Dockerfile"), []byte(df), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "matrix.yaml")
	os.WriteFile(path, []byte(text), 0o644)
	m, err := matrix.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if m, err = m.WithProfile(profile); err != nil {
		t.Fatal(err)
	}
	return m
}

const twoTargets = `version: 1
images: {debian: debian:bookworm-slim}
load: {duration: 1s, warmup: 0s, trials: 3}
connections: [8]
targets:
  a: {build: a, port: 8080, env: {K: target, T: target}}
  b: {build: b, port: 8080}
scenarios:
  plaintext: {path: /plaintext, expect: {status: 200, content_type: text/plain, body: "Hello, World!"}}
profiles:
  best: {load: {aggregate: best}}
  one: {load: {trials: 1, warmup: 1s}}
`

// recorder is a Progress that checks the units it is told add up.
type recorder struct {
	units, done int
	phases      []string
}

func (p *recorder) Start(units int, _ time.Duration)  { p.units = units }
func (p *recorder) Phase(c matrix.Cell, phase string) { p.phases = append(p.phases, c.ID()+" "+phase) }
func (p *recorder) Done(_ *results.Cell, units int)   { p.done += units }
func (p *recorder) Finish()                           {}

func run(t *testing.T, f *fakeEngine, m *matrix.Matrix, opt Options) (*results.Run, error, *recorder) {
	t.Helper()
	return runCtx(context.Background(), t, f, m, opt)
}

func runCtx(ctx context.Context, t *testing.T, f *fakeEngine, m *matrix.Matrix, opt Options) (*results.Run, error, *recorder) {
	t.Helper()
	p := &recorder{}
	opt.Matrix, opt.Progress = m, p
	if opt.OutDir == "" {
		opt.OutDir = t.TempDir()
	}
	if opt.LockDir == "" {
		opt.LockDir = t.TempDir()
	}
	if opt.BuildTimes == nil { // never learn a fake's build times into the user's record
		opt.BuildTimes = buildtime.Open(filepath.Join(t.TempDir(), "build-times.json"))
	}
	res, err := start(ctx, f.engine(), opt, f.generator())
	if left := f.live(); len(left) > 0 {
		t.Errorf("left on the engine: %v", left)
	}
	return res, err, p
}

func cellByID(t *testing.T, run *results.Run, id string) *results.Cell {
	t.Helper()
	for _, c := range run.Cells {
		if c.ID() == id {
			return c
		}
	}
	t.Fatalf("no cell %s in %d cells", id, len(run.Cells))
	return nil
}

// Interleaved trials run in rounds: trial k of every cell before trial
// k+1 of any, in an order the seed repeats; each visit is fresh containers.
func TestInterleavedRounds(t *testing.T) {
	m := testMatrix(t, twoTargets, "", "a", "b")
	order := func(seed uint64) []string {
		f := newFake()
		res, err, p := run(t, f, m, Options{Schedule: Schedule{Seed: seed}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Matrix.Order != results.Interleaved || res.Matrix.Seed != seed {
			t.Errorf("order %q seed %d", res.Matrix.Order, res.Matrix.Seed)
		}
		if p.units != 6 || p.done != 6 {
			t.Errorf("progress units %d, done %d; want 6 visits", p.units, p.done)
		}
		if n := len(f.callsWith("start webbench-")) - 1; n != 6 { // and one ceiling server
			t.Errorf("%d target starts, want one per visit (6)", n)
		}
		b := f.loads()
		if len(b) != 6 {
			t.Fatalf("load calls %v", b)
		}
		for round := range 3 {
			pair := b[2*round : 2*round+2]
			if pair[0] == pair[1] {
				t.Errorf("round %d ran one cell twice: %v", round+1, b)
			}
		}
		for _, c := range res.Cells {
			if c.Status != results.OK || len(c.Trials) != 3 || c.Summary == nil {
				t.Errorf("%s: %s %q, %d trials", c.ID(), c.Status, c.Reason, len(c.Trials))
			}
		}
		if res.FinishedAt == nil || res.Interrupted {
			t.Error("run not marked finished")
		}
		return b
	}
	first := order(7)
	if again := order(7); !slices.Equal(first, again) {
		t.Errorf("seed 7 gave two orders:\n%v\n%v", first, again)
	}
	differ := false
	for seed := uint64(1); seed < 20 && !differ; seed++ {
		differ = !slices.Equal(first, order(seed))
	}
	if !differ {
		t.Error("the order never changes with the seed")
	}
}

// Sequential runs every trial of a cell in one visit, and results.json on
// disk is what Run returned, cells in expansion order.
func TestSequential(t *testing.T) {
	m := testMatrix(t, twoTargets, "", "a", "b")
	f := newFake()
	out := t.TempDir()
	res, err, p := run(t, f, m, Options{OutDir: out, Schedule: Schedule{Sequential: true}})
	if err != nil {
		t.Fatal(err)
	}
	b := f.loads()
	want := []string{"load a/plaintext/1cpu/c8", "load a/plaintext/1cpu/c8", "load a/plaintext/1cpu/c8",
		"load b/plaintext/1cpu/c8", "load b/plaintext/1cpu/c8", "load b/plaintext/1cpu/c8"}
	if !slices.Equal(b, want) {
		t.Errorf("load calls %v", b)
	}
	if p.units != 2 || p.done != 2 || res.Matrix.Order != results.Sequential {
		t.Errorf("units %d done %d order %s", p.units, p.done, res.Matrix.Order)
	}
	onDisk, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(onDisk.Cells) != 2 || onDisk.Cells[0].Target != "a" || len(onDisk.Cells[1].Trials) != 3 {
		t.Errorf("results.json cells: %+v", onDisk.Cells)
	}
	if _, err := os.Stat(filepath.Join(out, "README.md")); err == nil {
		t.Error("the runner rendered README.md; drawing is the command's")
	}
	c := res.Cells[0]
	if c.Image == nil || c.Image.RuntimeVersion != "fake 1.0" || len(c.Image.Bases) != 1 || c.Image.Bases[0].Used != "debian:bookworm-slim" {
		t.Errorf("image %+v", c.Image)
	}
	// Silently: no warning about the limit. Other warnings judge the
	// trials' timing (Little's law on a loaded machine) and may appear.
	nofileWarned := slices.ContainsFunc(c.Warnings, func(w string) bool { return strings.Contains(w, "nofile") })
	if c.Limits == nil || c.Limits.NoFile != 20000 || c.Limits.MemoryBytes != 2<<30 || nofileWarned {
		t.Errorf("limits %+v, warnings %q: want the default nofile lowered to the engine's 20000, silently", c.Limits, c.Warnings)
	}
	if tr := c.Trials[0]; tr.RPS <= 0 || tr.TargetCPUCores < 0.85 || tr.TargetMemPeakMiB != 10 || tr.GeneratorBound {
		t.Errorf("trial %+v", tr)
	}
	// What the trials counted, the server answered (besides the probes).
	var counted int64
	for _, tr := range c.Trials {
		counted += tr.Requests + tr.Errors
	}
	if served := int64(f.served["a"]); counted == 0 || counted > served {
		t.Errorf("trials counted %d answers, the server gave %d", counted, served)
	}
}

func TestAggregateBest(t *testing.T) {
	m := testMatrix(t, twoTargets, "best", "a", "b")
	f := newFake()
	res, err, _ := run(t, f, m, Options{Only: "a", Schedule: Schedule{Sequential: true}})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Cells[0]
	var rps []float64
	for _, tr := range c.Trials {
		rps = append(rps, tr.RPS)
	}
	slices.Sort(rps)
	if s := c.Summary; len(rps) != 3 || s.Aggregate != results.AggregateBest || s.RPS != rps[2] || s.RPSMedian != rps[1] {
		t.Errorf("summary %+v of trials at %v rps: want the best and the median", s, rps)
	}
}

// A failure names the trial once, whether it happened in a trial or in the
// visit before it; a failed cell gets no more visits and no summary, and
// the cells beside it are measured in full.
func TestFailureReasons(t *testing.T) {
	m := testMatrix(t, twoTargets, "", "a", "b")
	for _, sequential := range []bool{false, true} {
		f := newFake()
		f.targets["a"] = &fakeTarget{dieOnRun: 2}
		res, err, p := run(t, f, m, Options{Schedule: Schedule{Seed: 3, Sequential: sequential}})
		if err != nil {
			t.Fatal(err)
		}
		a, b := res.Cells[0], res.Cells[1]
		if a.Status != results.Failed || !strings.HasPrefix(a.Reason, "trial 2: target exited with code 3 during the trial") || a.Summary != nil {
			t.Errorf("sequential=%v: a: %s %q summary %v", sequential, a.Status, a.Reason, a.Summary)
		}
		if n := len(f.callsWith("load a/")); n != 2 {
			t.Errorf("sequential=%v: a was loaded %d times after failing in its second run", sequential, n)
		}
		if b.Status != results.OK || len(b.Trials) != 3 {
			t.Errorf("sequential=%v: b: %s %q, %d trials", sequential, b.Status, b.Reason, len(b.Trials))
		}
		if p.done != p.units {
			t.Errorf("sequential=%v: progress done %d of %d units", sequential, p.done, p.units)
		}
	}

	// An engine that reports the exit a few polls late: the exit is still
	// the reason, not the errors the load met.
	f := newFake()
	f.targets["a"] = &fakeTarget{dieOnRun: 1, seenLate: 3}
	res, err, _ := run(t, f, m, Options{Schedule: Schedule{Seed: 3}})
	if a := res.Cells[0]; err != nil || a.Status != results.Failed || a.Why != results.WhyTargetStopped {
		t.Errorf("a, its exit reported late: %s, why %q (%q), err %v: want failed as stopped", a.Status, a.Why, a.Reason, err)
	}

	f = newFake()
	f.targets["a"] = &fakeTarget{body: "Goodbye"}
	f.targets["b"] = &fakeTarget{exitEarly: true}
	res, err, _ = run(t, f, m, Options{Schedule: Schedule{Seed: 3}})
	if err != nil {
		t.Fatal(err)
	}
	a, b := res.Cells[0], res.Cells[1]
	if a.Status != results.Failed || !strings.HasPrefix(a.Reason, "trial 1: verify http://127.0.0.1:8080/plaintext: ") ||
		!strings.Contains(a.Reason, "body") || strings.Count(a.Reason, "trial") != 1 {
		t.Errorf("a: %s %q", a.Status, a.Reason)
	}
	if !strings.Contains(b.Reason, "exited with code 3") || !strings.Contains(b.Reason, "panic: cannot bind") {
		t.Errorf("b: %q", b.Reason)
	}
	if n := len(f.loads()); n != 0 {
		t.Errorf("wrong servers were loaded %d times", n)
	}
}

// A failed build fails the target's cells; a base image that can be neither
// found, pulled nor stood in for skips them; neither stops the next target.
func TestBuildAndBaseFailures(t *testing.T) {
	m := testMatrix(t, twoTargets, "one", "a", "b")
	f := newFake()
	f.buildErr["webbench/target-a:latest"] = errors.New("step 3: exit 1")
	res, err, _ := run(t, f, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a := res.Cells[0]; a.Status != results.Failed || !strings.Contains(a.Reason, "build failed") || !strings.Contains(a.Reason, "step 3: exit 1") {
		t.Errorf("a: %s %q", a.Status, a.Reason)
	}
	if b := res.Cells[1]; b.Status != results.OK {
		t.Errorf("b: %s %q", b.Status, b.Reason)
	}

	f = newFake()
	f.missing["mcr.example/sdk:10"] = true
	text := strings.Replace(twoTargets, "images: {debian: debian:bookworm-slim}", "images: {debian: debian:bookworm-slim, sdk: mcr.example/sdk:10}", 1)
	m = testMatrix(t, text, "one", "a", "b:SDK")
	res, err, _ = run(t, f, m, Options{NoPull: true})
	if err != nil {
		t.Fatal(err)
	}
	if a := res.Cells[0]; a.Status != results.OK {
		t.Errorf("a: %s %q", a.Status, a.Reason)
	}
	b := res.Cells[1]
	if b.Status != results.Skipped || !strings.Contains(b.Reason, "base image sdk (mcr.example/sdk:10) unavailable") {
		t.Errorf("b: %s %q", b.Status, b.Reason)
	}
	if img := res.Images["sdk"]; img == nil || img.Used != "" || img.Error == "" {
		t.Errorf("base_images.sdk = %+v", img)
	}
	if n := len(f.callsWith("build webbench/target-b")); n != 0 {
		t.Error("b was built without its base image")
	}
}

// A Dockerfile that names its base directly (FROM python:3.12-slim) is
// skipped before any build when the engine neither has nor can pull it,
// the reason naming the image and the fix; one the engine has builds.
func TestUndeclaredBase(t *testing.T) {
	m := testMatrix(t, twoTargets, "one", "a", "b")
	os.WriteFile(filepath.Join(m.Dir, "a", "Dockerfile"), []byte("FROM python:3.12-slim AS base\nFROM base\n"), 0o644)
	os.WriteFile(filepath.Join(m.Dir, "b", "Dockerfile"), []byte("ARG BASE=present:1\nFROM ${BASE}\n"), 0o644)
	m, err := matrix.Open(filepath.Join(m.Dir, "matrix.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	m, _ = m.WithProfile("one")
	f := newFake()
	f.missing["python:3.12-slim"] = true
	res, err, _ := run(t, f, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, b := res.Cells[0], res.Cells[1]
	if a.Status != results.Skipped || !strings.Contains(a.Reason, "names python:3.12-slim in FROM") ||
		!strings.Contains(a.Reason, "could not pull it") || !strings.Contains(a.Reason, "declare it under images: (python: python:3.12-slim) and write ARG PYTHON_IMAGE") {
		t.Errorf("a: %s %q", a.Status, a.Reason)
	}
	if n := len(f.callsWith("build webbench/target-a")); n != 0 {
		t.Error("a was built without its base image")
	}
	if b.Status != results.OK {
		t.Errorf("b (its base on the engine): %s %q", b.Status, b.Reason)
	}
}

// The environment: target < service < variant, and the keys the harness
// sets win over all three.
func TestEnvPrecedence(t *testing.T) {
	tg := matrix.Target{Name: "t", Entry: "app", Port: 8080,
		Env: map[string]string{"A": "target", "B": "target", "C": "target", "CPUS": "99", "PORT": "1"},
		Services: []matrix.Service{
			{Name: "backend", Replicas: 2, Port: 9000},
			{Name: "app", Replicas: 1, Env: map[string]string{"B": "service", "C": "service", "BACKEND_ADDRS": "evil"}},
		},
		Variants: []matrix.Variant{{Name: "v", Env: map[string]string{"C": "variant"}}}}
	lay := layout(tg, matrix.NetworkShared)
	got := env(tg, tg.Services[1], matrix.Cell{Key: cellid.Key{Target: "t", Variant: "v", CPUs: 2}}, lay["app"][0], lay)
	want := []string{"A=target", "APP_ADDRS=127.0.0.1:8080", "B=service", "BACKEND_ADDRS=127.0.0.1:9000,127.0.0.1:9001",
		"C=variant", "CPUS=2", "PORT=8080"}
	if !slices.Equal(got, want) {
		t.Errorf("env = %v, want %v", got, want)
	}
}

// Every replica gets an address it alone listens on: its own name on a
// bridge network, its own port on 127.0.0.1 when the namespace is shared;
// the entry keeps the target's port.
func TestLayout(t *testing.T) {
	tg := matrix.Target{Name: "t", Entry: "client", Port: 8080, Services: []matrix.Service{
		{Name: "records-api", Replicas: 1, Port: 8080},
		{Name: "backend", Replicas: 3, Port: 8081},
		{Name: "client", Replicas: 1},
	}}
	addrs := func(mode matrix.Network) string {
		var out []string
		lay := layout(tg, mode)
		for _, s := range tg.Services {
			for _, p := range lay[s.Name] {
				out = append(out, p.alias+"="+p.addr())
			}
		}
		return strings.Join(out, " ")
	}
	if got, want := addrs(matrix.NetworkShared), "records-api-1=127.0.0.1:8081 backend-1=127.0.0.1:8082 backend-2=127.0.0.1:8083 backend-3=127.0.0.1:8084 client-1=127.0.0.1:8080"; got != want {
		t.Errorf("shared:\n got %s\nwant %s", got, want)
	}
	if got, want := addrs(matrix.NetworkHost), addrs(matrix.NetworkShared); got != want {
		t.Errorf("host: %s, want as shared", got)
	}
	if got, want := addrs(matrix.NetworkBridge), "records-api-1=records-api-1:8080 backend-1=backend-1:8081 backend-2=backend-2:8081 backend-3=backend-3:8081 client-1=client-1:8080"; got != want {
		t.Errorf("bridge:\n got %s\nwant %s", got, want)
	}
}

// Cancelling the run mid-trial stops it: Run returns the context's error,
// the results are marked interrupted and keep what was measured whole (a
// cell measured in part is partial), and nothing is left on the engine.
func TestCancelCleansUp(t *testing.T) {
	m := testMatrix(t, twoTargets, "", "a", "b")
	f := newFake()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	f.onRun = func(string, int) {
		if calls++; calls == 4 { // round 2, second visit
			cancel()
		}
	}
	out := t.TempDir()
	res, err, _ := runCtx(ctx, t, f, m, Options{OutDir: out, Schedule: Schedule{Seed: 1}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if !res.Interrupted || res.FinishedAt != nil {
		t.Error("results not marked interrupted")
	}
	trials := 0
	for _, c := range res.Cells {
		trials += len(c.Trials)
		if c.Status == results.Failed {
			t.Errorf("%s failed on the interrupt: %q", c.ID(), c.Reason)
		}
		// Measured in part (interleaved: a round ran short) is partial,
		// never ok with fewer trials than asked, which a report would
		// show beside complete cells as if it were one.
		if len(c.Trials) > 0 && len(c.Trials) < 3 && (c.Status != results.Partial || c.TrialsAsked != 3) {
			t.Errorf("%s: %s with %d trials, asked %d: want partial of 3", c.ID(), c.Status, len(c.Trials), c.TrialsAsked)
		}
	}
	if trials != 3 {
		t.Errorf("%d trials kept, want the 3 measured before the interrupt", trials)
	}
	onDisk, err := results.Read(out)
	if err != nil || !onDisk.Interrupted {
		t.Errorf("results.json: %v, interrupted %v", err, onDisk != nil && onDisk.Interrupted)
	}
}

// A target of several services: replicas are started in order with their
// aliases, the ports of non-entry services are waited for, and a port that
// never opens fails the cell naming the service.
func TestServices(t *testing.T) {
	text := `version: 1
images: {debian: debian:bookworm-slim}
load: {duration: 1s, warmup: 0s, trials: 1, ready_timeout: 1s}
connections: [8]
targets:
  pool:
    services:
      backend: {build: backend, replicas: 2, port: 9000}
      front: {build: front}
    entry: front
    port: 80
scenarios:
  plaintext: {path: /plaintext, expect: {status: 200, body: "Hello, World!"}}
`
	m := testMatrix(t, text, "", "backend", "front")
	for mode, pool := range map[matrix.Network][2]string{
		matrix.NetworkShared: {"127.0.0.1:9000", "127.0.0.1:9001"},
		matrix.NetworkBridge: {"backend-1:9000", "backend-2:9000"},
		matrix.NetworkHost:   {"127.0.0.1:9000", "127.0.0.1:9001"},
	} {
		f := newFake()
		res, err, _ := run(t, f, m, Options{Network: mode})
		if err != nil {
			t.Fatal(err)
		}
		if c := res.Cells[0]; c.Status != results.OK || len(c.Image.Services) != 2 || c.Trials[0].TargetMemPeakMiB != 30 {
			t.Errorf("%s: cell %s %q, image %+v, trials %+v", mode, c.Status, c.Reason, c.Image, c.Trials)
		} else if s := c.Trials[0].Services; s["backend"].MemPeakMiB != 20 || s["front"].MemPeakMiB != 10 || s["backend"].CPUCores < 1.7 {
			t.Errorf("%s: by service %+v, want the two backends summed apart from the front", mode, s)
		}
		if res.Environment.NetworkMode != results.Network(mode) {
			t.Errorf("network_mode %q, want %q", res.Environment.NetworkMode, mode)
		}
		starts := f.callsWith("start ")
		if len(starts) != 4 || !strings.HasSuffix(starts[1], "backend-1") || !strings.HasSuffix(starts[3], "front-1") {
			t.Errorf("%s: starts %v", mode, starts)
		}
		var ports []string // readiness asks each pool member's port first, in order
		for _, p := range f.gen.asked() {
			if p.ask.Kind&probeTCP != 0 {
				ports = append(ports, p.target)
			}
		}
		if !slices.Equal(ports, pool[:]) {
			t.Errorf("%s: TCP probes %v, want %v", mode, ports, pool)
		}

		f = newFake()
		f.targets["pool"] = &fakeTarget{tcpDown: map[string]bool{pool[1]: true}}
		res, err, _ = run(t, f, m, Options{Network: mode})
		if err != nil {
			t.Fatal(err)
		}
		if c := res.Cells[0]; c.Status != results.Failed || !strings.Contains(c.Reason, "service backend-2 at "+pool[1]+": connection refused") {
			t.Errorf("%s: cell %s %q", mode, c.Status, c.Reason)
		}
	}
}

// A load generator at its cores' limit flags the trial generator-bound.
func TestGeneratorBound(t *testing.T) {
	m := testMatrix(t, twoTargets, "one", "a", "b")
	f := newFake()
	f.loadgenCores = 0.95
	res, err, _ := run(t, f, m, Options{Only: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Cells[0]; !c.Trials[0].GeneratorBound || c.Summary.GeneratorBound != 1 {
		t.Errorf("trial %+v", c.Trials[0])
	}
	if got := res.Environment.LoadGenerator; got != "bombardier in-process" {
		t.Errorf("load generator %q", got)
	}
}

var _ engine.Sampler = (*fakeSampler)(nil)

// Only the expected answers count: a target that answered the verification
// and then 503s half its load fails its cell with the errors named, its
// trial kept to show it; the clean target beside it stays ok.
func TestErrorsUnderLoad(t *testing.T) {
	m := testMatrix(t, twoTargets, "", "a", "b")
	f := newFake()
	f.targets["a"] = &fakeTarget{share5xx: 0.5}
	f.targets["b"] = &fakeTarget{share5xx: 0.0005}
	res, err, _ := run(t, f, m, Options{Schedule: Schedule{Seed: 5}})
	if err != nil {
		t.Fatal(err)
	}
	a, b := res.Cells[0], res.Cells[1]
	if a.Status != results.Failed || !strings.HasPrefix(a.Reason, "trial 1: ") || a.Why != results.WhyErrorRate {
		t.Errorf("a: %s %q (%s), want failed by %s", a.Status, a.Reason, a.Why, results.WhyErrorRate)
	}
	if len(a.Trials) != 1 || a.Trials[0].ErrorRate < 0.4 || a.Trials[0].ErrorRate > 0.6 || a.Summary != nil {
		t.Errorf("a's failing trial: %+v, summary %+v", a.Trials, a.Summary)
	}
	if b.Status != results.OK || len(b.Trials) != 3 || b.Summary.ErrorRate > 0.001 {
		t.Errorf("b: %s %q, summary %+v", b.Status, b.Reason, b.Summary)
	}
	failing := 0
	for _, tr := range b.Trials {
		if tr.Errors > 0 {
			failing++
		}
	}
	if errs := slices.DeleteFunc(slices.Clone(b.Warnings), func(w string) bool { return !strings.Contains(w, "of requests failed") }); len(errs) != failing {
		t.Errorf("b's warnings %q: want one for each of its %d trials with errors", b.Warnings, failing)
	}
}

// The load generator's ceiling is measured once per (cores, connections)
// on the target's cores; a cell at 85% of it or more is generator-bound,
// and says by which rule.
func TestCeiling(t *testing.T) {
	m := testMatrix(t, twoTargets, "", "a", "b")
	f := newFake()
	f.targets["b"] = &fakeTarget{delay: 50 * time.Millisecond} // at most 160 rps on 8 connections: far under the ceiling even on a loaded machine, where the in-process ceiling drew 750
	res, err, _ := run(t, f, m, Options{Schedule: Schedule{Seed: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Ceilings) != 1 {
		t.Fatalf("ceilings %+v", res.Ceilings)
	}
	ce := res.Ceilings[0]
	if ce.RPS <= 0 || ce.CPUs != 1 || ce.Connections != 8 || ce.CPUSet != "0" || len(ce.TrialRPS) != 3 || ce.NetworkMode != results.Network(matrix.NetworkShared) {
		t.Errorf("ceiling %+v", ce)
	}
	if n := len(f.callsWith("load ceiling")); n != 3 {
		t.Errorf("the ceiling was loaded %d times, want once per trial (3)", n)
	}
	// a serves as fast as the ceiling's server: bound exactly when its
	// share of the ceiling reaches the rule's; b, slowed, far below it.
	a, b := res.Cells[0].Summary, res.Cells[1].Summary
	if share := a.RPSMedian / ce.RPS; math.Abs(a.CeilingShare-share) > 0.01 || (share >= 0.85) != (len(a.BoundBy) == 1) {
		t.Errorf("a: share %v (%v of %v rps), bound by %q", a.CeilingShare, a.RPSMedian, ce.RPS, a.BoundBy)
	}
	if b.CeilingShare > 0.5 || len(b.BoundBy) != 0 {
		t.Errorf("b: share %v, bound by %q", b.CeilingShare, b.BoundBy)
	}
}

// interrupted runs m (seed 9) until its fourth load, cancels it there,
// and returns the folder the interrupted run saved.
func interrupted(t *testing.T, m *matrix.Matrix) string {
	t.Helper()
	f := newFake()
	f.span = 0 // a resume keeps only trials that lasted the matrix's duration
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	f.onRun = func(string, int) {
		if calls++; calls == 4 {
			cancel()
		}
	}
	out := t.TempDir()
	if _, err, _ := runCtx(ctx, t, f, m, Options{OutDir: out, Schedule: Schedule{Seed: 9}}); !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	return out
}

// An interrupted run resumed with the same matrix keeps every trial it
// measured, runs the rest in the same order, and measures no trial twice;
// a different matrix is refused, naming what differs.
func TestResume(t *testing.T) {
	m := testMatrix(t, twoTargets, "", "a", "b")
	out := interrupted(t, m)
	prev, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if trials := len(prev.Cells[0].Trials) + len(prev.Cells[1].Trials); trials != 3 {
		t.Fatalf("%d trials before the resume, want 3", trials)
	}
	first := *prev.Cells[0].Trials[0].StartedAt
	if !prev.Matrix.Blocked {
		t.Error("an interleaved run did not record blocked")
	}
	prev.Matrix.Blocked = false // as a run from before blocking: its resume must keep its order

	f2 := newFake()
	res, err, p := run(t, f2, m, Options{OutDir: out, Resume: prev, Schedule: Schedule{Seed: 9}})
	if err != nil {
		t.Fatal(err)
	}
	if p.units != 3 || p.done != 3 {
		t.Errorf("progress: %d units, %d done; want the 3 visits left", p.units, p.done)
	}
	if n := len(f2.loads()); n != 3 {
		t.Errorf("resume ran %d trials, want 3", n)
	}
	for _, c := range res.Cells {
		if c.Status != results.OK || len(c.Trials) != 3 || c.Summary == nil {
			t.Errorf("%s: %s, %d trials", c.ID(), c.Status, len(c.Trials))
		}
	}
	if !res.Cells[0].Trials[0].StartedAt.Equal(first) || len(res.Environment.Resumed) != 1 || res.FinishedAt == nil {
		t.Errorf("kept trial or resume record lost: %+v", res.Environment)
	}
	if res.Matrix.Blocked {
		t.Error("the resume of an unblocked run blocked its rounds")
	}
	if len(res.Ceilings) != 1 || len(f2.callsWith("load ceiling")) != 0 {
		t.Errorf("the ceiling was measured again on resume")
	}

	other := testMatrix(t, strings.Replace(twoTargets, "connections: [8]", "connections: [16]", 1), "", "a", "b")
	if _, err := Run(context.Background(), newFake().engine(), Options{Matrix: other, OutDir: t.TempDir(), LockDir: t.TempDir(), Resume: prev,
		BuildTimes: buildtime.Open(filepath.Join(t.TempDir(), "b.json"))}); err == nil ||
		!strings.Contains(err.Error(), "cannot resume: the matrix differs from the run's: connections was [8], is [16]") {
		t.Errorf("resume with another matrix: %v", err)
	}
}

// A resume whose partly measured cells ran on an image the engine no
// longer has (another engine, or images removed since) is refused before
// anything runs or is written: the kept trials stay as they were, instead
// of the cells failing one by one and losing their figures.
func TestResumeImageGone(t *testing.T) {
	m := testMatrix(t, twoTargets, "", "a", "b")
	out := interrupted(t, m)
	before, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	prev, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	f2 := newFake()
	f2.missing[prev.Cells[0].Image.ID] = true
	_, err, _ = run(t, f2, m, Options{OutDir: out, Resume: prev, Schedule: Schedule{Seed: 9}})
	if err == nil || !strings.Contains(err.Error(), "cannot resume: 1 cell(s) measured in part ran on images the targets' engine no longer has: "+prev.Cells[0].ID()) {
		t.Errorf("resume without the kept image: %v", err)
	}
	if n := len(f2.loads()); n != 0 {
		t.Errorf("%d trials ran", n)
	}
	after, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Errorf("results.json changed by a refused resume")
	}
}

// When the run's own load generator vanishes, the run stops with one error
// saying so and keeps what it measured, instead of failing every cell left.
func TestInfrastructureVanishes(t *testing.T) {
	m := testMatrix(t, twoTargets, "", "a", "b")
	f := newFake()
	calls := 0
	f.onRun = func(string, int) {
		if calls++; calls == 3 {
			f.gen.Close(context.Background())
		}
	}
	res, err, _ := run(t, f, m, Options{Schedule: Schedule{Seed: 1}})
	if gone := (*goneError)(nil); !errors.As(err, &gone) {
		t.Fatalf("err = %v", err)
	}
	if res.Stopped == "" || res.FinishedAt != nil {
		t.Errorf("stopped %q, finished %v", res.Stopped, res.FinishedAt)
	}
	for _, c := range res.Cells {
		if c.Status == results.Failed {
			t.Errorf("%s failed for the run's vanished load generator: %q", c.ID(), c.Reason)
		}
	}
}

// Containers that are not the run's and may use its cores are warned of.
func TestForeignContainers(t *testing.T) {
	m := testMatrix(t, twoTargets, "one", "a", "b")
	f := newFake()
	f.foreign = []engine.Running{{Name: "db", CPUSet: "0"}, {Name: "free"}, {Name: "far", CPUSet: "1-2"}}
	res, err, _ := run(t, f, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 2 || !strings.Contains(res.Warnings[0], "container db (not this run's) is pinned to cores 0") ||
		!strings.Contains(res.Warnings[1], "container free (not this run's) is not pinned") {
		t.Errorf("warnings %q", res.Warnings)
	}
}

// A matrix that asks for more open files than the engine grants gets the
// engine's limit and a warning saying so.
func TestNoFileAboveEngine(t *testing.T) {
	m := testMatrix(t, strings.Replace(twoTargets, "connections: [8]", "connections: [8]\nlimits: {nofile: 100000}", 1), "one", "a", "b")
	res, err, _ := run(t, newFake(), m, Options{Only: "a"})
	if err != nil {
		t.Fatal(err)
	}
	// Among its warnings: on a loaded machine the fake's short trials may
	// add one of Little's law, which is no concern of this test.
	c := res.Cells[0]
	said := slices.ContainsFunc(c.Warnings, func(w string) bool { return strings.Contains(w, "limits.nofile 100000 is above") })
	if c.Limits.NoFile != 20000 || !said {
		t.Errorf("limits %+v, warnings %q", c.Limits, c.Warnings)
	}
}

// An interrupt while the load generator starts records no cell as
// failed: a resume must run them all.
func TestInterruptDuringGeneratorStart(t *testing.T) {
	m := testMatrix(t, twoTargets, "", "a", "b")
	f := newFake()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err, _ := runCtx(ctx, t, f, m, Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if res != nil && len(res.Cells) != 0 {
		t.Errorf("cells recorded on an interrupt: %+v", res.Cells[0])
	}
}

// Before building, the run says what it will build and about how long
// that takes, from this machine's record; builds it makes are learned.
func TestBuildEstimate(t *testing.T) {
	m := testMatrix(t, twoTargets, "one", "a", "b")
	book := buildtime.Open(filepath.Join(t.TempDir(), "build-times.json"))
	book.Record(buildtime.Image, 40*time.Second)
	book.Record(buildtime.Loadgen, 40*time.Second)
	var log strings.Builder
	res, err, p := run(t, newFake(), m, Options{BuildTimes: book, Log: &log})
	if err != nil || len(res.Cells) != 2 {
		t.Fatal(err)
	}
	// Three images (the load generator, a, b), the generator's beside the
	// targets': a and b at 40 s learned, 80 s, as the log words that
	// estimate (buildsEstimate.String).
	want := buildsEstimate{Images: 3, Total: 80 * time.Second, Learned: true}
	if !strings.Contains(log.String(), want.String()+"\n") {
		t.Errorf("log lacks the estimate %+v:\n%s", want, log.String())
	}
	_ = p
	if d, _ := book.Guess(buildtime.Image); d >= 40*time.Second {
		t.Errorf("the fake's instant builds were not learned: %v", d)
	}
}

// Cells without keep-alive tell bombardier to send Connection: close, and
// get a ceiling of their own, measured the same way.
func TestKeepAliveOff(t *testing.T) {
	m := testMatrix(t, strings.Replace(twoTargets, "connections: [8]", "connections: [8]\nkeepalive: [true, false]", 1), "one", "a", "b")
	f := newFake()
	res, err, _ := run(t, f, m, Options{Only: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cells) != 2 || res.Cells[1].ID() != "a/plaintext/1cpu/c8/close" || !res.Cells[1].Close {
		t.Fatalf("cells %v", res.Cells)
	}
	if len(res.Ceilings) != 2 || res.Ceilings[0].Close || !res.Ceilings[1].Close {
		t.Errorf("ceilings %+v, want one with and one without keep-alive", res.Ceilings)
	}
	closes := 0
	for _, r := range f.gen.ran() {
		if r.spec.Close {
			closes++
		}
	}
	if closes != 4 { // the close cell's warm-up and trial, and its ceiling's
		t.Errorf("%d runs sent Connection: close, want 4: %+v", closes, f.gen.ran())
	}
	// The verified answer is asked as the generator asks: its size is what
	// the bytes read under load are held to.
	var closed []probed
	for _, p := range f.gen.asked() {
		if p.ask.Kind&probeClose != 0 {
			closed = append(closed, p)
		}
	}
	if len(closed) != 1 || closed[0].ask.Timeout != m.Load.Timeout {
		t.Errorf("probes with Connection: close %+v, want the close cell's verification alone", closed)
	}
}

// A fixed-rate cell measured by bombardier (named: fixed rates are
// otherwise open-loop) passes -r to it, is not judged against the
// ceiling, and fails when the server cannot keep up with the rate.
func TestFixedRate(t *testing.T) {
	m := testMatrix(t, strings.Replace(twoTargets, "connections: [8]", "connections: [8]\nrate: [400, 2000]\ngenerator: [bombardier]", 1), "one", "a", "b")
	f := newFake()
	f.span = 0                                                // a rate is held over the matrix's second
	f.targets["a"] = &fakeTarget{delay: 4 * time.Millisecond} // under 2,000 rps on 8 connections; 400 leaves room on a loaded machine
	res, err, _ := run(t, f, m, Options{Only: "a"})
	if err != nil {
		t.Fatal(err)
	}
	held, missed := res.Cells[0], res.Cells[1]
	if held.ID() != "a/plaintext/1cpu/c8/r400" || missed.ID() != "a/plaintext/1cpu/c8/r2000" {
		t.Fatalf("cells %s, %s", held.ID(), missed.ID())
	}
	if held.Status != results.OK {
		t.Fatalf("held: %s %q", held.Status, held.Reason)
	}
	if len(held.Warnings) != 0 || held.Summary.CeilingShare != 0 || len(held.Summary.BoundBy) != 0 {
		t.Errorf("held: warnings %q, summary %+v", held.Warnings, held.Summary)
	}
	// Below 99% of its rate a trial fails its cell: its latencies are not
	// at the rate the column names. The trial is kept, to show what failed.
	if missed.Status != results.Failed || !strings.HasPrefix(missed.Reason, "trial 1: "+loadgen.CouldNotSustain+" 2,000/s") || len(missed.Trials) != 1 {
		t.Errorf("missed: %s %q, %d trial(s)", missed.Status, missed.Reason, len(missed.Trials))
	}
	rated := 0
	for _, r := range f.gen.ran() {
		if r.spec.Rate == 400 || r.spec.Rate == 2000 {
			rated++
		}
	}
	if rated != 4 { // warm-up and trial of each cell; the ceiling runs unlimited
		t.Errorf("%d runs at a fixed rate, want 4: %+v", rated, f.gen.ran())
	}
}

// --resume trusts nothing in results.json it can check: a cell the matrix
// does not make, a second copy of a cell, more trials than asked, a trial
// whose figures do not add up, a failed status and a partly measured cell
// under sequential trials are all measured again, each named in a warning.
func TestResumeDistrusts(t *testing.T) {
	m := testMatrix(t, twoTargets, "", "a", "b")
	out := t.TempDir()
	first := newFake()
	first.span = 0 // a resume keeps only trials that lasted the matrix's duration
	if _, err, _ := run(t, first, m, Options{OutDir: out, Schedule: Schedule{Seed: 9}}); err != nil {
		t.Fatal(err)
	}
	forge := func(edit func(r *results.Run)) *results.Run {
		prev, err := results.Read(out)
		if err != nil {
			t.Fatal(err)
		}
		prev.FinishedAt = nil
		edit(prev)
		return prev
	}
	for _, tc := range []struct {
		name, want string
		edit       func(r *results.Run)
	}{
		{"too many trials", "50 trials where the matrix asks 3", func(r *results.Run) {
			tr := r.Cells[0].Trials[0]
			tr.RPS, tr.Requests = 9.9e9, int64(9.9e9*tr.Seconds)
			r.Cells[0].Trials = slices.Repeat([]results.Trial{tr}, 50)
		}},
		{"figures that do not add up", "rps is not its", func(r *results.Run) { r.Cells[0].Trials[1].RPS = 9.9e9 }},
		{"forged failure", "it failed", func(r *results.Run) { r.Cells[0].Status = results.Failed }},
		{"not in the matrix", "the matrix makes no such cell", func(r *results.Run) {
			c := *r.Cells[1]
			c.Target = "zzz"
			r.Cells = append(r.Cells, &c)
		}},
		{"a second copy", "a second copy of a cell", func(r *results.Run) { r.Cells = append(r.Cells, r.Cells[1]) }},
	} {
		f := newFake()
		var log strings.Builder
		res, err, _ := run(t, f, m, Options{OutDir: t.TempDir(), Resume: forge(tc.edit), Log: &log, Schedule: Schedule{Seed: 9}})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !strings.Contains(log.String(), tc.want) || !slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.Contains(w, tc.want) }) {
			t.Errorf("%s: no warning %q:\n%s", tc.name, tc.want, log.String())
		}
		if len(res.Cells) != 2 {
			t.Errorf("%s: %d cells, want the matrix's 2", tc.name, len(res.Cells))
		}
		for _, c := range res.Cells {
			if c.Status != results.OK || len(c.Trials) != 3 || c.Summary == nil || c.Summary.RPS > 1e6 {
				t.Errorf("%s: %s: %s, %d trials, summary %+v", tc.name, c.ID(), c.Status, len(c.Trials), c.Summary)
			}
		}
		if tc.name != "not in the matrix" && tc.name != "a second copy" && len(f.loads()) != 3 {
			t.Errorf("%s: %d trials measured again, want cell a's 3", tc.name, len(f.loads()))
		}
	}
}

// pinning [apart, together]: the together cell runs its generator on the
// target's own cores (the generator container is moved there, and back
// for the apart cell), its ceiling is its own, the generator's CPU flags
// no trial there (it shares the cores: its CPU cannot say), and the cells
// record where they ran.
func TestPinningTogether(t *testing.T) {
	m := testMatrix(t, strings.Replace(twoTargets, "connections: [8]", "connections: [8]\npinning: [apart, together]", 1), "one", "a", "b")
	f := newFake()
	f.loadgenCores = 0.99 // would flag every trial generator-bound, apart
	res, err, _ := run(t, f, m, Options{Only: "a", Schedule: Schedule{Seed: 3}})
	if err != nil {
		t.Fatal(err)
	}
	cells := map[string]*results.Cell{}
	for _, c := range res.Cells {
		cells[c.ID()] = c
	}
	apart, together := cells["a/plaintext/1cpu/c8"], cells["a/plaintext/1cpu/c8/together"]
	if apart == nil || together == nil || together.Pinning != "together" || together.LoadgenCPUSet != together.CPUSet || apart.LoadgenCPUSet == apart.CPUSet {
		t.Fatalf("cells %+v", cells)
	}
	if !apart.Trials[0].GeneratorBound || together.Trials[0].GeneratorBound {
		t.Errorf("generator-bound trials: apart %v, together %v; want true, false", apart.Trials[0].GeneratorBound, together.Trials[0].GeneratorBound)
	}
	if !slices.Contains(f.gen.moved, together.CPUSet) || !slices.Contains(f.gen.moved, apart.LoadgenCPUSet) {
		t.Errorf("generator moved to %v; want the target's cores %s for together and back to %s", f.gen.moved, together.CPUSet, apart.LoadgenCPUSet)
	}
	var pins []string
	for _, ce := range res.Ceilings {
		pins = append(pins, ce.Pinning)
	}
	if !slices.Contains(pins, "") || !slices.Contains(pins, "together") {
		t.Errorf("ceilings by pinning %q, want one apart and one together", pins)
	}
}

// requests: [2000, 500] makes a cell per count, each sending its own
// count, and --resume holds each cell's trials to its own count: an n500
// trial that holds 2,000 requests is measured again, named in a warning,
// while the n2000 cell is kept.
func TestRequestsAxis(t *testing.T) {
	m := testMatrix(t, strings.Replace(twoTargets, "connections: [8]", "connections: [8]\nrequests: [2000, 500]", 1), "one", "a", "b")
	f := newFake()
	out := t.TempDir()
	res, err, _ := run(t, f, m, Options{Only: "a", OutDir: out})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cells) != 2 || res.Cells[0].ID() != "a/plaintext/1cpu/c8/n2000" || res.Cells[1].ID() != "a/plaintext/1cpu/c8/n500" {
		t.Fatalf("cells %v", res.Cells)
	}
	if res.Cells[0].Requests != 2000 || res.Cells[1].Requests != 500 || !slices.Equal(res.Matrix.Requests, []int64{2000, 500}) {
		t.Errorf("requests recorded: cells %d, %d; settings %v", res.Cells[0].Requests, res.Cells[1].Requests, res.Matrix.Requests)
	}
	counted := map[int64]int{}
	for _, r := range f.gen.ran() {
		if strings.HasSuffix(r.spec.URL, "/plaintext") { // the cells', not the ceiling's
			counted[r.spec.Requests]++
		}
	}
	if counted[2000] != 1 || counted[500] != 1 { // each cell's one trial; warm-ups are timed
		t.Errorf("runs by count %v, want one of each: %+v", counted, f.gen.ran())
	}
	for _, c := range res.Cells {
		if tr := c.Trials[0]; tr.Requests+tr.Errors != c.Requests {
			t.Errorf("%s: %d answers counted, want its %d", c.ID(), tr.Requests+tr.Errors, c.Requests)
		}
	}
	prev, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	prev.FinishedAt = nil
	// Forge the n500 cell's trial to hold 2,000 requests, its figures
	// consistent: only the count the cell asks gives it away.
	tr := &prev.Cells[1].Trials[0]
	tr.Requests, tr.Errors = 2000, 0
	tr.RPS = 2000 / tr.Seconds
	f2 := newFake()
	var log strings.Builder
	if _, err, _ := run(t, f2, m, Options{Only: "a", OutDir: t.TempDir(), Resume: prev, Log: &log}); err != nil {
		t.Fatal(err)
	}
	if want := "2000 requests where the matrix asks 500"; !strings.Contains(log.String(), want) {
		t.Errorf("no warning %q:\n%s", want, log.String())
	}
	if loads := f2.loads(); len(loads) != 2 || !strings.HasSuffix(loads[0], "/n500") || !strings.HasSuffix(loads[1], "/n500") {
		t.Errorf("runs %q, want the n500 cell's warm-up and trial alone", loads)
	}
}

// An ab cell with keep-alive whose target answers the probe's keep-alive
// request without a Keep-Alive header is skipped before any load, naming
// the mismatch (ab -k would wait for a close that never comes); a target
// that answers with one is measured.
func TestAbKeepAliveMismatch(t *testing.T) {
	m := testMatrix(t, strings.Replace(twoTargets, "connections: [8]", "connections: [8]\nrequests: [500]\ngenerator: [ab]", 1), "one", "a", "b")
	f := newFake()
	f.targets["b"] = &fakeTarget{keepAlive: true}
	res, err, _ := run(t, f, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cells) != 2 {
		t.Fatalf("cells %v", res.Cells)
	}
	a, b := res.Cells[0], res.Cells[1]
	if a.Status != results.Skipped || !strings.Contains(a.Reason, "Keep-Alive") || len(a.Trials) != 0 {
		t.Errorf("a: %s %q, %d trials", a.Status, a.Reason, len(a.Trials))
	}
	if b.Status != results.OK {
		t.Errorf("b: %s %q", b.Status, b.Reason)
	}
	for _, l := range f.loads() {
		if strings.HasPrefix(l, "load a/") {
			t.Errorf("a was loaded: %q", f.loads())
		}
	}
}

// A target that prints its TLS key and exits, or answers with it, gets no
// line of the key into its failure reason (results.json, README.md and
// stderr show that reason).
func TestKeyRedacted(t *testing.T) {
	const key = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49\n-----END PRIVATE KEY-----\n"
	m := testMatrix(t, twoTargets, "", "a", "b")
	f := newFake()
	f.targets["a"] = &fakeTarget{body: key}
	f.targets["b"] = &fakeTarget{exitEarly: true, exitLog: "reading $TLS_KEY_FILE\n" + key}
	res, err, _ := run(t, f, m, Options{Schedule: Schedule{Seed: 3}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Cells {
		if c.Status != results.Failed || strings.Contains(c.Reason, "MIGHAgEA") || !strings.Contains(c.Reason, "PRIVATE KEY redacted") {
			t.Errorf("%s: %s %q", c.Target, c.Status, c.Reason)
		}
	}
}

// A target whose memory peaks near its limit (10 MiB of 11) is flagged in
// its cell's warnings, naming the container and both figures; one far
// below its limit is not.
func TestNearMemoryLimit(t *testing.T) {
	m := testMatrix(t, strings.Replace(twoTargets, "  b: {build: b, port: 8080}", "  b: {build: b, port: 8080, limits: {memory: 11m}}", 1), "one", "a", "b")
	res, err, _ := run(t, newFake(), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	near := func(c *results.Cell) bool {
		return slices.ContainsFunc(c.Warnings, func(w string) bool { return strings.Contains(w, "peaked at 10 MiB of its 11 MiB memory limit") })
	}
	if a, b := res.Cells[0], res.Cells[1]; near(a) || !near(b) || b.Status != results.OK {
		t.Errorf("a warnings %q; b %s, warnings %q", a.Warnings, b.Status, b.Warnings)
	}
}

// A run whose results.json cannot be written is no success: it ends with
// an UnsavedError (the cells stay in memory, for the message), not nil.
func TestUnsavedRunFails(t *testing.T) {
	m := testMatrix(t, twoTargets, "one", "a", "b")
	out := t.TempDir()
	if err := os.Mkdir(filepath.Join(out, "results.json"), 0o755); err != nil { // a folder where the file goes
		t.Fatal(err)
	}
	res, err, _ := run(t, newFake(), m, Options{OutDir: out})
	var unsaved *UnsavedError
	if !errors.As(err, &unsaved) || res == nil || len(res.Cells) != 2 {
		t.Errorf("err = %v, cells %v", err, res)
	}
}
