package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/verify"
)

// fakeEngine stands in for the Docker engine in unit tests of the runner's
// logic: it keeps containers and networks as records, answers the probe
// and bombardier execs from per-target behaviour, and logs every call.
type fakeEngine struct {
	moved      []string // the cores SetCPUs moved a container to, in order
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
	// missing images cannot be found, pulled or stood in for.
	missing map[string]bool
	// loadgenCores is the CPU the load generator's sampler reports.
	loadgenCores float64
	// foreign are containers not of the run, running on the engine.
	foreign []engine.Running
	// ceilingRPS is what the fixed-response server answers.
	ceilingRPS float64
	// onBombard runs before every measured or warm-up bombardier exec at a
	// target.
	onBombard func(cell string, n int)
	bombards  map[string]int // bombardier runs so far, by target
	// bombardArgs are the command lines of every bombardier run.
	bombardArgs []string
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
}

// fakeTarget is how one target's fake server behaves.
type fakeTarget struct {
	body      string          // answer to the verification probe; default "Hello, World!"
	rps       []float64       // RPS of successive bombardier runs (cycled); default 1000
	failRun   map[int]string  // the target's nth bombardier run (1-based, warm-ups included) → stderr of a failing run
	exitEarly bool            // the container stops before answering
	share5xx  float64         // share of the load's responses that are 503s
	tcpDown   map[string]bool // host:port that never accepts a connection // service alias whose port never opens
}

func newFake() *fakeEngine {
	return &fakeEngine{ncpu: 4, containers: map[string]*fakeContainer{}, networks: map[string]string{},
		targets: map[string]*fakeTarget{}, bombards: map[string]int{}, buildErr: map[string]error{}, missing: map[string]bool{}, loadgenCores: 0.5, ceilingRPS: 5000}
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

// loads returns the bombardier runs at targets, not at the ceiling server.
func (f *fakeEngine) loads() []string {
	var out []string
	for _, c := range f.callsWith("bombard ") {
		if c != "bombard ceiling" {
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
	f.moved = append(f.moved, cpus)
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

func (f *fakeEngine) Build(_ context.Context, s engine.BuildSpec) (engine.Built, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log("build %s", s.Tag)
	if err := f.buildErr[s.Tag]; err != nil {
		return engine.Built{}, err
	}
	return engine.Built{ID: "img-" + s.Tag}, nil
}

func (f *fakeEngine) Cached(context.Context, engine.BuildSpec) (bool, error) { return false, nil }

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
	f.containers[id] = c
	f.started = append(f.started, c)
	f.log("start %s", s.Name)
	return id, nil
}

func (f *fakeEngine) RemoveContainer(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c := f.containers[id]; c != nil {
		f.log("remove %s", c.spec.Name)
	}
	delete(f.containers, id)
	return nil
}

func (f *fakeEngine) State(_ context.Context, id string) (engine.State, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.containers[id]
	if c == nil {
		return engine.State{}, fmt.Errorf("inspect container: no such container %s", id)
	}
	if c.exited {
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
		return "panic: cannot bind\n", nil
	}
	return "listening\nruntime: fake 1.0\n", nil
}

// runningTarget is the target whose containers are up (one deployment at a
// time), and its cell.
func (f *fakeEngine) runningTarget() (target, cell string) {
	for _, c := range f.containers {
		switch c.role {
		case "target":
			return c.target, c.cell
		case "ceiling":
			return "ceiling", "ceiling"
		}
	}
	return "", ""
}

func (f *fakeEngine) Exec(ctx context.Context, id string, cmd []string) (engine.ExecResult, error) {
	f.mu.Lock()
	if f.containers[id] == nil {
		f.mu.Unlock()
		return engine.ExecResult{}, fmt.Errorf("exec %s: no such container", cmd[0])
	}
	name, cell := f.runningTarget()
	t := f.target(name)
	if cmd[0] == "timeout" { // timeout -s KILL SECONDS bombardier …
		cmd = cmd[4:]
	}
	switch cmd[0] {
	case "cat":
		f.mu.Unlock()
		return engine.ExecResult{Stdout: []byte("v1.2.6\n")}, nil
	case "sh": // ulimit -Hn
		f.mu.Unlock()
		return engine.ExecResult{Stdout: []byte("20000\n")}, nil
	case "probe":
		defer f.mu.Unlock()
		addr := cmd[len(cmd)-1]
		resp := verify.Response{Status: 200, Header: map[string][]string{"Content-Type": {"text/plain"}, "Date": {"x"}, "Server": {"fake"}}}
		resp.Body, resp.WireBytes = []byte("Hello, World!"), 130
		if t.body != "" {
			resp.Body = []byte(t.body)
		}
		if strings.Contains(cmd[len(cmd)-2], "-tcp") || !strings.HasPrefix(addr, "http") {
			if t.tcpDown[addr] {
				resp = verify.Response{Error: "connection refused"}
			} else {
				resp = verify.Response{}
			}
		} else if u, err := url.Parse(addr); err != nil || u.Host == "" {
			resp = verify.Response{Error: "bad url"}
		} else if f.unreachable[u.Hostname()] {
			resp = verify.Response{Error: "dial tcp " + u.Host + ": connection refused"}
		}
		if slices.Contains(cmd, "-close") {
			addr += " (Connection: close)"
		}
		f.log("probe %s %s", cell, addr)
		out, _ := json.Marshal(resp)
		return engine.ExecResult{Stdout: out}, nil
	case "bombardier":
		f.bombards[name]++
		n := f.bombards[name]
		hook := f.onBombard
		if name == "ceiling" {
			hook, t = nil, &fakeTarget{rps: []float64{f.ceilingRPS}}
		}
		f.log("bombard %s", cell)
		f.bombardArgs = append(f.bombardArgs, strings.Join(cmd[1:], " "))
		f.mu.Unlock()
		if hook != nil {
			hook(cell, n)
		}
		if ctx.Err() != nil {
			return engine.ExecResult{}, ctx.Err()
		}
		if msg, ok := t.failRun[n]; ok {
			return engine.ExecResult{ExitCode: 1, Stderr: []byte(msg)}, nil
		}
		rps := 1000.0
		if len(t.rps) > 0 {
			rps = t.rps[(n-1)%len(t.rps)]
		}
		return engine.ExecResult{Stdout: bombardierJSON(rps, t.share5xx, 2)}, nil
	}
	f.mu.Unlock()
	return engine.ExecResult{ExitCode: 127, Stderr: []byte(cmd[0] + ": not found")}, nil
}

// bombardierJSON is bombardier 1.2's -o j report of a run that got rps
// responses a second for seconds, a share of them 503s, each 130 bytes
// (the size of the fake's verified answer), 8 ms each (Little's law holds
// at 8 connections and 1,000 rps).
func bombardierJSON(rps, share5xx, seconds float64) []byte {
	n := int64(rps * seconds)
	bad := int64(float64(n) * share5xx)
	return fmt.Appendf(nil, `{"spec":{},"result":{"bytesRead":%d,"bytesWritten":1,"timeTakenSeconds":%g,"req1xx":0,"req2xx":%d,`+
		`"req3xx":0,"req4xx":0,"req5xx":%d,"others":0,"latency":{"mean":%g,"stddev":10,"max":9000,`+
		`"percentiles":{"50":1000,"75":1500,"90":2000,"95":2500,"99":5000}},"rps":{"mean":%g}}}`, n*130, seconds, n-bad, bad, 8e6/rps, rps)
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
