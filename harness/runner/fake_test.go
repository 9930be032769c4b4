package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/webbench/webbench/harness/engine"
)

// fakeEngine stands in for the Docker engine in unit tests of the runner's
// logic: it keeps containers and networks as records, runs an httptest
// server for each target or ceiling container (behaving as its fakeTarget
// says), is the network the in-process generator reaches them through, and
// logs every call. It runs no command: Exec matches no argv.
type fakeEngine struct {
	mu         sync.Mutex
	ncpu       int
	next       int
	containers map[string]*fakeContainer // live ones, by id
	started    []*fakeContainer          // every one, in start order
	networks   map[string]string         // live ones: id → name
	calls      []string                  // "start NAME", "bombard CELL", …

	// behaviour, by target name; the zero value is a healthy server
	targets map[string]*fakeTarget
	// buildErr fails the build of an image tag.
	buildErr map[string]error
	// cached are the tags whose builds the engine's cache holds.
	cached map[string]bool
	// missing images cannot be found, pulled or stood in for.
	missing map[string]bool
	// loadgenCores is the CPU the load generator's sampler reports.
	loadgenCores float64
	// foreign are containers not of the run, running on the engine.
	foreign []engine.Running
	// onRun runs before every measured or warm-up run at a target.
	onRun func(cell string, n int)
	// onBuild runs as an image's build starts (a build whose context
	// then ends fails with its error, as the engine's does); onStart as a
	// container starts, by its role.
	onBuild func(tag string)
	// built, when not nil, is every build's spec by tag.
	built   map[string]engine.BuildSpec
	onStart func(role string)
	runs    map[string]int // runs so far, by target ("ceiling": at the ceiling's server)
	served  map[string]int // requests the servers answered, by target
	// span bounds the in-process generator's timed runs (0: none).
	span time.Duration
	gen  *inProcess // the last generator made
	// id is the engine's id (default "fake-engine"); lost makes Ping fail
	// from the lostAfter-th call on (0: the first).
	id        string
	lost      bool
	lostAfter int
	pings     int
	// unreachable hosts refuse the probe's HTTP requests.
	unreachable map[string]bool
}

func (f *fakeEngine) Ping(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pings++
	if f.lost && f.pings > f.lostAfter {
		return fmt.Errorf("engine %s lost: connection refused", f.id)
	}
	return nil
}

type fakeContainer struct {
	spec    engine.ContainerSpec
	target  string // label
	cell    string // label
	role    string
	removed bool
	exited  bool
	late    int              // State calls still answered "running" after it exited
	server  *httptest.Server // a target's or the ceiling's, unless it exited early
}

// fakeTarget is how one target's fake server behaves.
type fakeTarget struct {
	body      string          // answer to the verification probe; default "Hello, World!"
	dieOnRun  int             // the target's container dies as its nth run (1-based, warm-ups included) starts
	seenLate  int             // how many times the engine still says running after it died
	exitEarly bool            // the container stops before answering
	share5xx  float64         // share of the answers that are 503s: every (1/share5xx)th
	delay     time.Duration   // how long each answer takes
	tcpDown   map[string]bool // host:port that never accepts a connection // service alias whose port never opens
	keepAlive bool            // answers carry Connection: keep-alive, as ab -k needs
	exitLog   string          // what an exited container printed; default "panic: cannot bind"
	// said is what a running container of a service printed, by service
	// name; default "listening\nruntime: fake 1.0".
	said map[string]string
}

func newFake() *fakeEngine {
	return &fakeEngine{ncpu: 4, containers: map[string]*fakeContainer{}, networks: map[string]string{},
		targets: map[string]*fakeTarget{}, runs: map[string]int{}, served: map[string]int{}, buildErr: map[string]error{}, missing: map[string]bool{}, loadgenCores: 0.5, span: 20 * time.Millisecond}
}

func (f *fakeEngine) log(format string, args ...any) {
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
}

func (f *fakeEngine) target(name string) *fakeTarget {
	if t := f.targets[name]; t != nil {
		return t
	}
	return &fakeTarget{}
}

// loads returns the generator's runs at targets, not at the ceiling server.
func (f *fakeEngine) loads() []string {
	var out []string
	for _, c := range f.callsWith("load ") {
		if c != "load ceiling" {
			out = append(out, c)
		}
	}
	return out
}

// callsWith returns the logged calls that start with prefix.
func (f *fakeEngine) callsWith(prefix string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.calls {
		if strings.HasPrefix(c, prefix) {
			out = append(out, c)
		}
	}
	return out
}

// containerSpecs are the specs of every container started, in no order.
func (f *fakeEngine) containerSpecs() []engine.ContainerSpec {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []engine.ContainerSpec
	for _, c := range f.started {
		out = append(out, c.spec)
	}
	return out
}

// live lists what is still on the fake engine.
func (f *fakeEngine) live() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.containers {
		out = append(out, "container "+c.spec.Name)
	}
	for _, n := range f.networks {
		out = append(out, "network "+n)
	}
	return out
}

func (f *fakeEngine) ImageLabels(_ context.Context, ref string) (string, map[string]string, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return "sha256:" + ref, nil, !f.missing[ref], nil
}

func (f *fakeEngine) ImageSize(context.Context, string) (int64, error) { return 8 << 20, nil }

func (f *fakeEngine) SetCPUs(_ context.Context, id, cpus string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c := f.containers[id]; c != nil {
		c.spec.CPUSet = cpus
	}
	return nil
}

func (f *fakeEngine) CPUs(_ context.Context, id string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c := f.containers[id]; c != nil {
		return c.spec.CPUSet, nil
	}
	return "", fmt.Errorf("no container %s", id)
}

func (f *fakeEngine) Pull(_ context.Context, ref string) error {
	return fmt.Errorf("pull %s: no registry", ref)
}

func (f *fakeEngine) Import(context.Context, io.Reader, string, []string) error {
	return errors.New("import: not in unit tests")
}

func (f *fakeEngine) Build(ctx context.Context, s engine.BuildSpec) (engine.Built, error) {
	if f.onBuild != nil { // outside the lock: it may wait on another build
		f.onBuild(s.Tag)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log("build %s", s.Tag)
	if f.built != nil {
		f.built[s.Tag] = s
	}
	if err := ctx.Err(); err != nil {
		return engine.Built{}, fmt.Errorf("build %s: %w", s.Tag, err)
	}
	if err := f.buildErr[s.Tag]; err != nil {
		return engine.Built{}, err
	}
	return engine.Built{ID: "img-" + s.Tag}, nil
}

func (f *fakeEngine) Cached(_ context.Context, s engine.BuildSpec) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cached[s.Tag], nil
}

func (f *fakeEngine) Info(context.Context) (engine.Info, error) {
	id := f.id
	if id == "" {
		id = "fake-engine"
	}
	return engine.Info{ID: id, Name: id + "-host", Root: "/var/lib/" + id, ServerVersion: "fake", APIVersion: "1.41", NCPU: f.ncpu, Kernel: "k", OS: "fake", Driver: "overlay2"}, nil
}

func (f *fakeEngine) Reap(context.Context, bool) ([]string, error) { return nil, nil }

func (f *fakeEngine) RunningContainers(context.Context) ([]engine.Running, error) {
	return f.foreign, nil
}

func (f *fakeEngine) CreateNetwork(_ context.Context, name string, _ map[string]string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next++
	id := fmt.Sprintf("net%d", f.next)
	f.networks[id] = name
	f.log("network %s", name)
	return id, nil
}

func (f *fakeEngine) NetworkExists(_ context.Context, id string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.networks[id]
	return ok, nil
}

func (f *fakeEngine) RemoveNetwork(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.networks, id)
	return nil
}

func (f *fakeEngine) Start(_ context.Context, s engine.ContainerSpec) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next++
	id := fmt.Sprintf("c%d", f.next)
	c := &fakeContainer{spec: s, target: s.Labels[engine.LabelTarget], cell: s.Labels[engine.LabelCell], role: s.Labels[engine.LabelRole]}
	c.exited = c.role == "target" && f.target(c.target).exitEarly
	if !c.exited && (c.role == "target" || c.role == "ceiling") {
		f.serve(c)
	}
	f.containers[id] = c
	f.started = append(f.started, c)
	f.log("start %s", s.Name)
	if f.onStart != nil {
		f.onStart(c.role)
	}
	return id, nil
}

func (f *fakeEngine) RemoveContainer(_ context.Context, id string) error {
	f.mu.Lock()
	c := f.containers[id]
	if c != nil {
		f.log("remove %s", c.spec.Name)
	}
	delete(f.containers, id)
	f.mu.Unlock()
	if c != nil && c.server != nil {
		c.server.Close() // outside the lock: its handlers count under it
	}
	return nil
}

func (f *fakeEngine) State(_ context.Context, id string) (engine.State, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.containers[id]
	if c == nil {
		return engine.State{}, fmt.Errorf("inspect container: no such container %s", id)
	}
	if c.exited && c.late > 0 {
		c.late--
	} else if c.exited {
		return engine.State{ExitCode: 3}, nil
	}
	return engine.State{Running: true}, nil
}

func (f *fakeEngine) Logs(_ context.Context, id string, _ int) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.containers[id]
	if c == nil {
		return "", errors.New("no such container")
	}
	if c.exited {
		if out := f.target(c.target).exitLog; out != "" {
			return out, nil
		}
		return "panic: cannot bind\n", nil
	}
	if out := f.target(c.target).said[c.spec.Labels[engine.LabelService]]; out != "" {
		return out, nil
	}
	return "listening\nruntime: fake 1.0\n", nil
}

// Exec runs nothing: a fake container has no programs. The runner's tests
// load and probe through the in-process generator.
func (f *fakeEngine) Exec(_ context.Context, id string, _ []string) (engine.ExecResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.containers[id] == nil {
		return engine.ExecResult{}, fmt.Errorf("exec: no such container %s", id)
	}
	return engine.ExecResult{ExitCode: 127, Stderr: []byte("a fake container runs no programs")}, nil
}

// serve starts the server of a target's or the ceiling's container c:
// what the target answers, as its fakeTarget says, counting each answer.
func (f *fakeEngine) serve(c *fakeContainer) {
	t := f.target(c.target)
	name := c.target
	if c.role == "ceiling" {
		t, name = &fakeTarget{}, "ceiling"
	}
	var n atomic.Int64
	every := int64(1)
	if t.share5xx > 0 {
		every = int64(math.Round(1 / t.share5xx))
	}
	c.server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k := n.Add(1)
		f.mu.Lock()
		f.served[name]++
		f.mu.Unlock()
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Server", "fake")
		if t.keepAlive {
			w.Header().Set("Connection", "keep-alive")
		}
		if t.delay > 0 {
			time.Sleep(t.delay)
		}
		if t.share5xx > 0 && k%every == every-1 { // not the verification's answer, the second
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		body := "Hello, World!"
		if t.body != "" {
			body = t.body
		}
		io.WriteString(w, body)
	}))
}

// resolve is the fake's network: where the server of the live container
// a load generator reaches at addr listens.
func (f *fakeEngine) resolve(addr string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, err := f.lookup(addr)
	if err != nil {
		return "", err
	}
	return c.server.Listener.Addr().String(), nil
}

// lookup is the live container reached at addr: at one of its aliases, or
// at any other host (127.0.0.1, the targets' machine's address) on the
// port it listens on. f.mu is held.
func (f *fakeEngine) lookup(addr string) (*fakeContainer, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	refused := errors.New("connection refused")
	if f.unreachable[host] {
		return nil, refused
	}
	for _, c := range f.containers {
		if c.server == nil || c.exited || !slices.Contains(c.spec.Env, "PORT="+port) {
			continue
		}
		if slices.Contains(c.spec.Aliases, host) || !f.isAlias(host) {
			if f.target(c.target).tcpDown[addr] {
				return nil, refused
			}
			return c, nil
		}
	}
	return nil, refused
}

// isAlias says whether host names a live container.
func (f *fakeEngine) isAlias(host string) bool {
	for _, c := range f.containers {
		if slices.Contains(c.spec.Aliases, host) {
			return true
		}
	}
	return false
}

// generator is the in-process load generator over f's servers, logging
// each run as "load CELL" ("load ceiling" at the ceiling's server) and
// stopping a target whose dieOnRun-th run it is.
func (f *fakeEngine) generator() *inProcess {
	g := &inProcess{resolve: f.resolve, span: f.span, cores: f.loadgenCores}
	f.gen = g
	g.beforeRun = func(rawURL string) {
		u, _ := url.Parse(rawURL)
		f.mu.Lock()
		c, _ := f.lookup(u.Host)
		name, cell := "", ""
		if c != nil {
			name, cell = c.target, c.cell
			if c.role == "ceiling" {
				name, cell = "ceiling", "ceiling"
			}
		}
		f.runs[name]++
		n := f.runs[name]
		f.log("load %s", cell)
		if c != nil && name != "ceiling" && f.target(name).dieOnRun == n {
			c.exited, c.late = true, f.target(name).seenLate
			c.server.CloseClientConnections()
		}
		hook := f.onRun
		f.mu.Unlock()
		if hook != nil && name != "ceiling" {
			hook(cell, n)
		}
	}
	return g
}

func (f *fakeEngine) Sample(_ context.Context, id string) engine.Sampler {
	f.mu.Lock()
	defer f.mu.Unlock()
	cores := 0.9
	if c := f.containers[id]; c != nil && c.role == "loadgen" {
		cores = f.loadgenCores
	}
	return &fakeSampler{cores: cores}
}

// fakeSampler reports a steady use of cores and 10 MiB over any window.
type fakeSampler struct {
	cores   float64
	stopped bool
}

func (s *fakeSampler) Window(from, to time.Time) []engine.Sample {
	wall := to.Sub(from)
	if wall <= 0 {
		wall = time.Millisecond
	}
	a := engine.Sample{Usage: engine.Usage{CPUNanos: 1e9, MemBytes: 10 << 20, At: from}, Arrived: from}
	b := engine.Sample{Usage: engine.Usage{CPUNanos: 1e9 + uint64(s.cores*float64(wall.Nanoseconds())), MemBytes: 10 << 20, At: from.Add(wall)}, Arrived: to}
	return []engine.Sample{a, b}
}

func (s *fakeSampler) Stop() { s.stopped = true }

// engine is f in every role.
func (f *fakeEngine) engine() Engine { return Engine{Images: f, Containers: f, Stats: f, Host: f} }
