package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/loadgen"
	"github.com/webbench/webbench/harness/verify"
)

// generator is the run's load generator: one container of the load
// generator image on the load generator's engine, pinned to its cores and
// idle until a probe or a run execs into it, its CPU sampled for the
// container's whole life. It drives a loadgen.Tool: a run takes a Spec and
// returns the tool's Result, under a deadline. Everything the runner does
// with the load generator goes through here; a nil *generator (no cell
// could run) fails every probe and run.
type generator struct {
	eng   Engine
	id    string // the container
	stats engine.Sampler
	cores string // where it runs now
}

// startGenerator starts the load generator's container as spec says. It
// returns the generator even when starting fails, so that stop removes
// what was made.
func startGenerator(ctx context.Context, e Engine, spec engine.ContainerSpec) (*generator, error) {
	g := &generator{eng: e}
	var err error
	g.id, err = e.Start(ctx, spec)
	if err != nil {
		return g, err
	}
	g.stats = e.Sample(ctx, g.id)
	if g.cores, err = e.CPUs(ctx, g.id); err != nil {
		return g, err
	}
	return g, nil
}

// pin moves the generator to cores before a cell whose pinning puts it
// elsewhere (on the target's own cores, or on every core), and reads back
// where the engine says it runs: a move the engine did not make fails the
// cell instead of measuring the wrong setup. It stays there until the
// next cell asks otherwise. cores, the engine's word, is what the cell
// records.
func (g *generator) pin(ctx context.Context, cores string) error {
	if cores == "" || cores == g.cores {
		return nil
	}
	if err := g.eng.SetCPUs(ctx, g.id, cores); err != nil {
		return err
	}
	got, err := g.eng.CPUs(ctx, g.id)
	if err != nil {
		return err
	}
	if g.cores = got; got != cores {
		return fmt.Errorf("the load generator runs on cores %q after it was moved to %q", got, cores)
	}
	return nil
}

// version is the version of tool that the image recorded.
func (g *generator) version(ctx context.Context, tool loadgen.Tool) (string, error) {
	res, err := g.eng.Exec(ctx, g.id, []string{"cat", tool.VersionFile()})
	if err != nil {
		return "", err
	}
	if res.ExitCode != 0 {
		return "", fmt.Errorf("%s: no version recorded in the load generator image (%s): rebuild it", tool.Name(), tool.VersionFile())
	}
	return strings.TrimSpace(string(res.Stdout)), nil
}

// hardNoFile is the hard open-files limit of a container on the
// generator's engine, 0 when unknown or unlimited.
func (g *generator) hardNoFile(ctx context.Context) int64 {
	return hardNoFile(ctx, g.eng, g.id)
}

func hardNoFile(ctx context.Context, e Engine, id string) int64 {
	res, err := e.Exec(ctx, id, []string{"sh", "-c", "ulimit -Hn"})
	if err != nil || res.ExitCode != 0 {
		return 0
	}
	n, _ := strconv.ParseInt(strings.TrimSpace(string(res.Stdout)), 10, 64) // "unlimited": 0, no bound
	return n
}

// running fails when the generator's container vanished or stopped.
func (g *generator) running(ctx context.Context) error {
	if g == nil || g.id == "" {
		return nil
	}
	st, err := g.eng.State(ctx, g.id)
	if err != nil || !st.Running {
		return fmt.Errorf("the run's load generator container vanished or stopped (removed by someone, or the engine restarted): %v", errors.Join(err, stateErr(st, err)))
	}
	return nil
}

// probeKind is what the probe asks for: an HTTP GET, changed by the
// flags probeClose and probeHTTP10, or one TCP connection (probeTCP).
type probeKind int

const (
	probeHTTP   probeKind = 0         // one GET on a kept-alive connection, as bombardier asks by default
	probeClose  probeKind = 1 << iota // with Connection: close, as bombardier asks with keep-alive off (ab without -k)
	probeHTTP10                       // with an HTTP/1.0 request line, as ab asks (Connection: Keep-Alive unless probeClose, as ab -k)
	probeTCP                          // one TCP connection to host:port (services that do not speak HTTP)
)

// probe asks the probe in the generator's container for one answer from
// target, asked as kind says, in protocol (http1, https, h2, h2c; over TLS
// verified against the run's authority).
func (g *generator) probe(ctx context.Context, target string, timeout time.Duration, kind probeKind, protocol string) (verify.Response, error) {
	if g == nil || g.id == "" {
		return verify.Response{}, errors.New("no load generator")
	}
	cmd := []string{"probe", "-timeout", timeout.String()}
	if kind&probeTCP != 0 {
		cmd = append(cmd, "-tcp")
	}
	if kind&probeClose != 0 {
		cmd = append(cmd, "-close")
	}
	if kind&probeHTTP10 != 0 {
		cmd = append(cmd, "-http10")
	}
	if kind&probeTCP == 0 && protocol != "" && protocol != cellid.ProtoHTTP1 {
		cmd = append(cmd, "-proto", protocol)
		if cellid.TLS(protocol) {
			cmd = append(cmd, "-ca", caPath)
		}
	}
	res, err := g.eng.Exec(ctx, g.id, append(cmd, target))
	if err != nil {
		return verify.Response{}, err
	}
	var resp verify.Response
	if err := json.Unmarshal(res.Stdout, &resp); err != nil {
		return verify.Response{}, fmt.Errorf("probe (exit %d): %v: %s%s", res.ExitCode, err, res.Stdout, res.Stderr)
	}
	return resp, nil
}

// run runs tool once for s, under a deadline (see loadgen.Deadline):
// coreutils' timeout kills it there, so a target that stops answering
// fails its cell instead of hanging the run.
func (g *generator) run(ctx context.Context, tool loadgen.Tool, s loadgen.Spec) (loadgen.Result, error) {
	if g == nil || g.id == "" {
		return loadgen.Result{}, errors.New("no load generator")
	}
	deadline := loadgen.Deadline(s)
	cmd := append([]string{"timeout", "-s", "KILL", strconv.Itoa(int(deadline.Seconds()))}, tool.Command(s)...)
	ectx, cancel := context.WithTimeout(ctx, deadline+execGrace)
	defer cancel()
	res, err := g.eng.Exec(ectx, g.id, cmd)
	if err != nil {
		if ctx.Err() == nil && ectx.Err() != nil {
			return loadgen.Result{}, fmt.Errorf("stalled: the load generator did not return within %s", deadline+execGrace)
		}
		return loadgen.Result{}, err
	}
	name := tool.Name()
	if res.ExitCode == 137 { // killed by timeout -s KILL
		return loadgen.Result{}, fmt.Errorf("stalled: %s was still running at the trial's deadline of %s and was killed (the target stopped answering?)", name, deadline)
	}
	if res.ExitCode != 0 {
		return loadgen.Result{}, fmt.Errorf("%s exited %d: %s", name, res.ExitCode, strings.TrimSpace(string(res.Stderr)))
	}
	return tool.Parse(res.Stdout, s)
}

// warm runs s for d, untimed and unjudged, when d is not zero: the warm-up
// of a cell or of a ceiling.
func (g *generator) warm(ctx context.Context, tool loadgen.Tool, s loadgen.Spec, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	s.Duration, s.Requests = d, 0
	if tool.Unsupported(s) != "" {
		// A tool that runs only a request count (ab) warms up with bombardier.
		tool = loadgen.Bombardier{}
	}
	if _, err := g.run(ctx, tool, s); err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	return nil
}

// cpu is the cores the generator used between start and end; ok is false
// when the samples do not cover the span.
func (g *generator) cpu(start, end time.Time) (cores float64, ok bool) {
	cores, _, ok = engine.Rates(g.stats.Window(start, end))
	return cores, ok
}

// stop removes the generator's container, even when ctx was cancelled.
func (g *generator) stop(ctx context.Context) error {
	if g == nil {
		return nil
	}
	if g.stats != nil {
		g.stats.Stop()
	}
	return g.eng.RemoveContainer(ctx, g.id)
}
