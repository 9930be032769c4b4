package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/webbench/webbench/harness/cpuset"
	"github.com/webbench/webbench/harness/loadgen"
	"github.com/webbench/webbench/harness/verify"
)

// Generator is the run's load generator, whatever it runs in: the runner
// starts it once, moves it between the cells' cores, probes targets and
// runs trials through it, reads the CPU it used, and closes it. A
// container on an engine is the real one (containerGenerator); the
// runner's tests drive an in-process one over httptest servers.
type Generator interface {
	// Start readies the generator on cores for tools (the run's, each
	// once) and says what it runs. Close undoes it even when Start failed.
	Start(ctx context.Context, cores cpuset.Set, tools []loadgen.Tool) (Started, error)
	// Pin moves the generator to cores ("" leaves it) and returns where it
	// runs now, as its machine says: a move not made fails, so that a cell
	// never measures another setup than it records.
	Pin(ctx context.Context, cores string) (string, error)
	// Probe asks target for one answer, as ask says.
	Probe(ctx context.Context, target string, ask Ask) (verify.Response, error)
	// Run runs tool once for s under loadgen.Deadline(s). A run that misses
	// its deadline fails with a *StallError.
	Run(ctx context.Context, tool loadgen.Tool, s loadgen.Spec) (loadgen.Result, error)
	// Usage is the cores the generator used between start and end; ok is
	// false when its samples do not cover the span.
	Usage(start, end time.Time) (cores float64, ok bool)
	// Alive fails when the generator vanished or stopped under the run
	// (removed by someone, its engine restarted).
	Alive(ctx context.Context) error
	// Close stops the generator and removes what it made; it is safe on a
	// generator never started. It needs a live ctx: the runner's cleanup
	// gives it one detached from the run's, so that an interrupted run
	// still removes it.
	Close(ctx context.Context) error
}

// Started is what a started generator runs and where.
type Started struct {
	Versions  map[string]string // of each tool asked for, by name
	MaxNoFile int64             // hard open-files limit of a container on its engine; 0: unknown or unlimited
	CPUModel  string            // of its machine, when the run spans two ("" otherwise)
	// Namespace is the network namespace a target joins in shared mode
	// ("container:ID"); "" when it has none to share.
	Namespace string
	// ServerImage is the image of the fixed-response server (the
	// ceiling's) on the targets' engine.
	ServerImage string
}

// probeKind is what a probe asks for: an HTTP GET, changed by the flags
// probeClose and probeHTTP10, or one TCP connection (probeTCP).
type probeKind int

const (
	probeHTTP   probeKind = 0         // one GET on a kept-alive connection, as bombardier asks by default
	probeClose  probeKind = 1 << iota // with Connection: close, as bombardier asks with keep-alive off (ab without -k)
	probeHTTP10                       // with an HTTP/1.0 request line, as ab asks (Connection: Keep-Alive unless probeClose, as ab -k)
	probeTCP                          // one TCP connection to host:port (services that do not speak HTTP)
)

// Ask is how a probe asks: its kind, how long it waits, and the protocol
// (http1, https, h2, h2c; over TLS verified against the run's authority).
type Ask struct {
	Kind     probeKind
	Timeout  time.Duration
	Protocol string
	Headers  []string // request headers, "Name: value": a scenario's, as the load generator sends them
}

// StallWho says what a stalled trial was left waiting on.
type StallWho int

const (
	// StallTarget: the target did not answer a probe at the deadline.
	StallTarget StallWho = iota
	// StallGenerator: the target answered at the deadline, so the
	// generator itself hung.
	StallGenerator
)

// StallError is a run that missed its deadline. The generator probes the
// target at that moment, so that the reason says which end stopped.
type StallError struct {
	Who      StallWho
	Tool     string        // the load generator's name
	Deadline time.Duration // the run's own deadline
	Killed   bool          // killed at the deadline; false: its engine did not return it either
	// Waiting is what the tool was waiting for when it was stopped: the
	// end of its timed run, or the last of its counted requests.
	Waiting string
	Probe   string // the probe's error at the deadline, when the target did not answer
}

func (e *StallError) Error() string {
	how := fmt.Sprintf("%s was still running at the trial's deadline of %s and was killed", e.Tool, e.Deadline)
	if !e.Killed {
		how = fmt.Sprintf("the load generator did not return within %s", e.Deadline)
	}
	if e.Who == StallGenerator {
		return fmt.Sprintf("stalled: %s, waiting for %s; the target still answered then, so the load generator hung, not the target", how, e.Waiting)
	}
	return fmt.Sprintf("stalled: %s (the target stopped answering: %s)", how, e.Probe)
}

// stalled makes the StallError of tool's run of s on g, probing the target
// at this moment; the probe has its own short bound, past ctx's end.
func stalled(ctx context.Context, g Generator, tool string, s loadgen.Spec, deadline time.Duration, killed bool) *StallError {
	e := &StallError{Tool: tool, Deadline: deadline, Killed: killed, Waiting: fmt.Sprintf("the end of its %s run", s.Duration)}
	if s.Requests > 0 {
		e.Waiting = fmt.Sprintf("the last of its %d requests", s.Requests)
	}
	kind := probeHTTP
	if s.Close {
		kind |= probeClose
	}
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), probeTimeout+execGrace)
	defer cancel()
	resp, err := g.Probe(pctx, s.URL, Ask{Kind: kind, Timeout: probeTimeout, Protocol: s.Protocol})
	switch {
	case err != nil:
		e.Probe = err.Error()
	case resp.Error != "":
		e.Probe = resp.Error
	default:
		e.Who = StallGenerator
	}
	return e
}

// warm runs s for d on g, untimed and unjudged, when d is not zero: the
// warm-up of a cell or of a ceiling. A generator that hangs past a
// warm-up's end while the target still answers has delivered the warm-up
// (clients still connecting when h2load's window ends, loadgen.WarmUp),
// so that is no failure; the trials' own runs are judged as always.
func warm(ctx context.Context, g Generator, tool loadgen.Tool, s loadgen.Spec, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	tool, s = loadgen.WarmUp(tool, s, d)
	_, err := g.Run(ctx, tool, s)
	var stall *StallError
	if errors.As(err, &stall) && stall.Who == StallGenerator {
		return nil
	}
	if err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	return nil
}

// noGenerator is the generator of a run none of whose cells can run: every
// probe and run fails.
type noGenerator struct{}

var errNoGenerator = errors.New("no load generator")

func (noGenerator) Start(context.Context, cpuset.Set, []loadgen.Tool) (Started, error) {
	return Started{}, errNoGenerator
}
func (noGenerator) Pin(context.Context, string) (string, error) { return "", errNoGenerator }
func (noGenerator) Probe(context.Context, string, Ask) (verify.Response, error) {
	return verify.Response{}, errNoGenerator
}
func (noGenerator) Run(context.Context, loadgen.Tool, loadgen.Spec) (loadgen.Result, error) {
	return loadgen.Result{}, errNoGenerator
}
func (noGenerator) Usage(time.Time, time.Time) (float64, bool) { return 0, false }
func (noGenerator) Alive(context.Context) error                { return nil }
func (noGenerator) Close(context.Context) error                { return nil }
