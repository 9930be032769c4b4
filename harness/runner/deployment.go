package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/webbench/webbench/harness/analysis"
	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/internal/redact"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/verify"
)

// member is one running container of a deployment: a replica.
type member struct {
	service string
	alias   string // <service>-<replica>
	addr    string // host:port the load generator reaches it at; "" when it declares no port
	id      string
	stats   engine.Sampler // nil when not sampled (the ceiling's server)
}

// deployment is one service for one visit: its replicas' containers on the
// targets' engine, pinned to the cell's cores. A target of several
// services is several deployments (a stack), started in order.
type deployment struct {
	eng     Engine
	members []*member
	limits  matrix.Limits // of each container
}

// start starts a replica of the deployment as spec says, sampling its
// use when sample is set. What it started is in the deployment even when
// starting fails, for close to remove.
func (d *deployment) start(ctx context.Context, m *member, spec engine.ContainerSpec, sample bool) error {
	id, err := d.eng.Containers.Start(ctx, spec)
	m.id = id
	if id != "" {
		d.members = append(d.members, m)
		if sample {
			m.stats = d.eng.Stats.Sample(ctx, id)
		}
	}
	return err
}

// stopped is the first replica that is not running, and its state; nil
// when all run.
func (d *deployment) stopped(ctx context.Context) (*member, engine.State, error) {
	for _, m := range d.members {
		st, err := d.eng.Containers.State(ctx, m.id)
		if err != nil {
			return m, st, err
		}
		if !st.Running {
			return m, st, nil
		}
	}
	return nil, engine.State{}, nil
}

// logs are replica id's last n lines of output, or why there are none.
func (d *deployment) logs(ctx context.Context, id string, n int) string {
	logs, err := d.eng.Containers.Logs(context.WithoutCancel(ctx), id, n)
	if err != nil {
		return "(no logs: " + err.Error() + ")"
	}
	if strings.TrimSpace(logs) == "" {
		return "(no output)"
	}
	return redact.PEM(strings.TrimRight(logs, "\n")) // a target may print its TLS key
}

// close removes every replica, even when ctx was cancelled, and confirms
// that each is gone: the next visit must not share the cores with it.
func (d *deployment) close(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	var errs error
	for _, m := range d.members {
		if m.stats != nil {
			m.stats.Stop()
		}
		err := d.eng.Containers.RemoveContainer(cctx, m.id)
		if err == nil {
			if st, serr := d.eng.Containers.State(cctx, m.id); serr == nil {
				err = fmt.Errorf("container %s is still there (%s) after its removal", m.alias, st)
			}
		}
		errs = errors.Join(errs, err)
	}
	return errs
}

// stack is the deployments of one visit, in start order: the services of
// a target, or the ceiling's server alone.
type stack []*deployment

// members are every replica of the stack, in start order.
func (s stack) members() []*member {
	var out []*member
	for _, d := range s {
		out = append(out, d.members...)
	}
	return out
}

// nearMemoryLimit names each replica whose memory peaked between start
// and end at analysis.MemoryNearLimit or more of its limit: a server held
// there reclaims its page cache and stalls on it (a 6 MiB limit measured
// 1,200 against some 40,000 rps, and no other figure showed why).
func (s stack) nearMemoryLimit(start, end time.Time) []string {
	var out []string
	for _, d := range s {
		if d.limits.MemoryBytes <= 0 {
			continue
		}
		for _, m := range d.members {
			if m.stats == nil {
				continue
			}
			_, peak, ok := engine.Rates(m.stats.Window(start, end))
			if ok && float64(peak) >= analysis.MemoryNearLimit*float64(d.limits.MemoryBytes) {
				out = append(out, fmt.Sprintf("%s peaked at %d MiB of its %d MiB memory limit: near it the kernel reclaims the server's memory and the figures measure that; raise limits.memory",
					m.alias, peak>>20, d.limits.MemoryBytes>>20))
			}
		}
	}
	return out
}

// running fails naming the first container of the stack that has stopped,
// when (e.g. "during the trial"), with its last log lines: a
// *stoppedError.
func (s stack) running(ctx context.Context, when string) error {
	several := len(s.members()) > 1
	for _, d := range s {
		m, st, err := d.stopped(ctx)
		if err != nil {
			return err
		}
		if m == nil {
			continue
		}
		who := "target"
		if several {
			who = "service " + m.alias
		}
		return &stoppedError{id: m.id, who: who, how: d.how(st), when: when, logs: d.logs(ctx, m.id, 15)}
	}
	return nil
}

// exitGrace is how long a failed trial waits for the engine to report a
// target's exit before blaming the load's errors: an engine under load
// reports a container stopped a few seconds after its server died (seen
// here with 60 processes in it), and its exit is the better reason.
const exitGrace = 3 * time.Second

// stoppedWithin is running, asked again until one of the stack's
// containers is reported stopped or grace has passed.
func (s stack) stoppedWithin(ctx context.Context, when string, grace time.Duration) error {
	return untilErr(ctx, grace, func() error { return s.running(ctx, when) })
}

// untilErr asks check every pollInterval until it fails, within has passed
// or ctx ends, and returns its last answer: an engine reports a container
// stopped a moment after it stopped.
func untilErr(ctx context.Context, within time.Duration, check func() error) error {
	deadline := time.Now().Add(within)
	for {
		err := check()
		if err != nil || !time.Now().Before(deadline) || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
		case <-time.After(pollInterval):
		}
	}
}

// how says how a replica of d that stopped ended, naming the memory limit
// when it was OOM-killed under one.
func (d *deployment) how(st engine.State) string {
	if st.OOMKilled && d.limits.MemoryBytes > 0 {
		return fmt.Sprintf("was OOM-killed at the %d MiB memory limit (%s)", d.limits.MemoryBytes>>20, st)
	}
	return st.String()
}

// stoppedError is a container of the stack that stopped: who (the target,
// or one of its services), how it ended, when, and its last log lines.
type stoppedError struct {
	id                   string // the container
	who, how, when, logs string
}

func (e *stoppedError) Error() string {
	return fmt.Sprintf("%s %s %s; last log lines:\n%s", e.who, e.how, e.when, e.logs)
}

// close removes every deployment of the stack.
func (s stack) close(ctx context.Context) error {
	var errs error
	for _, d := range s {
		errs = errors.Join(errs, d.close(ctx))
	}
	return errs
}

// logsOf is the last log lines of replica id of the stack.
func (s stack) logsOf(ctx context.Context, id string) string {
	for _, d := range s {
		for _, m := range d.members {
			if m.id == id {
				return d.logs(ctx, id, 15)
			}
		}
	}
	return "(no such container)"
}

// waitFor is one thing a stack waits for before it is ready: a port that
// accepts a connection, an HTTP answer, a line in a container's output.
type waitFor interface {
	// poll asks once: ready, or why not yet; err when waiting cannot help.
	poll(ctx context.Context) (ready bool, why string, err error)
	// who is the container whose output explains a wait that timed out.
	who() string
}

// forPort waits until a replica's port accepts a TCP connection from the
// load generator.
type forPort struct {
	gen Generator
	m   *member
}

func (w forPort) who() string { return w.m.id }

func (w forPort) poll(ctx context.Context) (bool, string, error) {
	resp, err := w.gen.Probe(ctx, w.m.addr, Ask{Kind: probeTCP, Timeout: probeTimeout})
	if err != nil || resp.Error == "" {
		return err == nil, "", err
	}
	return false, fmt.Sprintf("service %s at %s: %s", w.m.alias, w.m.addr, resp.Error), nil
}

// forHTTP waits until url gives the load generator any HTTP answer, over
// protocol; a certificate the run does not trust fails at once.
type forHTTP struct {
	gen           Generator
	url, protocol string
	id            string // the entry's container
}

func (w forHTTP) who() string { return w.id }

func (w forHTTP) poll(ctx context.Context) (bool, string, error) {
	resp, err := w.gen.Probe(ctx, w.url, Ask{Kind: probeHTTP, Timeout: probeTimeout, Protocol: w.protocol})
	switch {
	case err != nil:
		return false, "", err
	case resp.Error == "":
		return true, "", nil
	case verify.Untrusted(resp):
		// It answered, with a certificate the run does not trust: waiting
		// will not change that.
		return false, "", fmt.Errorf("verify %s: %s", w.url, resp.Error)
	}
	return false, resp.Error, nil
}

// forLog waits until a replica's output holds a line starting with line.
type forLog struct {
	eng  Containers
	id   string
	line string
}

func (w forLog) who() string { return w.id }

func (w forLog) poll(ctx context.Context) (bool, string, error) {
	logs, err := w.eng.Logs(ctx, w.id, 200)
	if err != nil {
		return false, "", err
	}
	for l := range strings.Lines(logs) {
		if strings.HasPrefix(strings.TrimSpace(l), w.line) {
			return true, "", nil
		}
	}
	return false, fmt.Sprintf("no line %q in its output yet", w.line), nil
}

// ready waits for each of waits in turn, all within timeout, while every
// container of s keeps running; or fails saying why, with the last log
// lines of the container it was waiting on.
func (s stack) ready(ctx context.Context, waits []waitFor, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	waits = slices.Clone(waits)
	lastErr := ""
	for len(waits) > 0 {
		if err := s.running(ctx, "before answering"); err != nil {
			return err
		}
		ok, why, err := waits[0].poll(ctx)
		if err != nil {
			return err
		}
		if ok {
			waits = waits[1:]
			continue
		}
		lastErr = why
		if time.Now().After(deadline) {
			id := waits[0].who()
			return &notReadyError{timeout: timeout, last: lastErr, id: id, logs: s.logsOf(ctx, id)}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pollInterval):
		}
	}
	return nil
}

// notReadyError is a stack that was not ready in time: what it last said,
// and the last log lines of the container it was waiting on (id).
type notReadyError struct {
	timeout        time.Duration
	last, id, logs string
}

func (e *notReadyError) Error() string {
	return fmt.Sprintf("not ready after %s (last error: %s); last log lines:\n%s", e.timeout, e.last, e.logs)
}

// readiness is what a target's stack waits for: the port of every
// replica that declares one, in start order, then an HTTP answer at the
// entry's url.
func readiness(gen Generator, s stack, url, protocol string) []waitFor {
	var waits []waitFor
	ms := s.members()
	for _, m := range ms {
		if m.addr != "" {
			waits = append(waits, forPort{gen, m})
		}
	}
	last := ""
	if len(ms) > 0 {
		last = ms[len(ms)-1].id
	}
	return append(waits, forHTTP{gen: gen, url: url, protocol: protocol, id: last})
}
