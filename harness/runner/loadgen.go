package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"testing/fstest"
	"time"

	webbench "github.com/webbench/webbench"
	"github.com/webbench/webbench/harness/buildtime"
	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/cpuset"
	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/loadgen"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/merge"
	"github.com/webbench/webbench/harness/results"
	"github.com/webbench/webbench/harness/verify"
)

// containerGenerator is the load generator as a container of the load
// generator image on its side's engine, pinned to its cores and idle
// until a probe or a run execs into it, its CPU sampled for the
// container's whole life. It owns that life whole: it builds the image
// (and puts it on the targets' engine for the ceiling's server), starts
// the container, checks it is alive and removes it.
type containerGenerator struct {
	spec    engine.ContainerSpec // Image and CPUSet are set by Start
	home    *side                // the load generator's side
	targets *side                // the targets' side; home on one engine
	build   loadgenBuild

	id    string // the container
	stats engine.Sampler
	cores string // where it runs now
}

// loadgenBuild is how the load generator image is built: where its log
// goes, where its base images and build time are recorded, and how an
// image is copied between two engines.
type loadgenBuild struct {
	log    io.Writer
	logTo  func(name string) (*os.File, error)
	times  *buildtime.Book
	images map[string]*results.BaseImage // the run's base images, on the targets' side
	copy   func(ctx context.Context, ref string, toLoadgen bool) (bool, error)
}

// Start builds the load generator image on its engine (and on the targets'
// when that is another), starts the container on cores and reads the
// tools' versions and the engine's open-files limit.
func (g *containerGenerator) Start(ctx context.Context, cores cpuset.Set, tools []loadgen.Tool) (Started, error) {
	var st Started
	var err error
	if g.home.loadgenImage, err = g.homeImage(ctx); err != nil {
		return st, err
	}
	if g.targets.loadgenImage == "" { // two engines: the ceiling's server runs on the targets'
		if g.targets.loadgenImage, err = g.serverImage(ctx); err != nil {
			return st, fmt.Errorf("on the targets' engine %s: %w", g.targets.name, err)
		}
	}
	st.ServerImage = g.targets.loadgenImage
	spec := g.spec
	spec.Image, spec.CPUSet = g.home.loadgenImage, cores.String()
	e := g.home.eng
	// bombardier (Go) raises its own soft open-files limit to the hard
	// one, which the engine bounds.
	if g.id, err = e.Containers.Start(ctx, spec); err != nil {
		return st, err
	}
	g.stats = e.Stats.Sample(ctx, g.id)
	if g.cores, err = e.Containers.CPUs(ctx, g.id); err != nil {
		return st, err
	}
	st.Versions = map[string]string{}
	for _, tool := range tools {
		if st.Versions[tool.Name()], err = g.version(ctx, tool); err != nil {
			return st, err
		}
	}
	// Engines grant different open-files limits (here a hard 20000; 1024
	// soft elsewhere): what a container gets by default is the most a
	// target can be given.
	st.MaxNoFile = hardNoFile(ctx, e.Containers, g.id)
	if g.home != g.targets {
		st.CPUModel = cpuModelIn(ctx, e.Containers, g.id)
	}
	st.Namespace = "container:" + g.id
	return st, nil
}

// serverImage puts the load generator image on the targets' engine, where
// the fixed-response server of the ceiling runs: the very image, copied by
// id from the load generator's engine, else built there.
func (g *containerGenerator) serverImage(ctx context.Context) (string, error) {
	id := g.home.loadgenImage
	if g.build.copy != nil {
		if _, err := g.build.copy(ctx, id, false); err != nil {
			fmt.Fprintf(g.build.log, "warning: %v\n", err)
		}
	}
	if _, _, ok, _ := g.targets.eng.Images.ImageLabels(ctx, id); ok {
		return id, nil
	}
	return g.buildImage(ctx, g.targets)
}

// homeImage puts the load generator image on the generator's engine: a
// further generator's (one of several) gets the very image the targets'
// engine has from the first, copied by id, so that every generator runs
// the same bits (and an engine without a network need not build it);
// otherwise, or when it cannot be copied, it is built there.
func (g *containerGenerator) homeImage(ctx context.Context) (string, error) {
	id := g.targets.loadgenImage
	if g.home.copyIn == nil || id == "" || g.home == g.targets {
		return g.buildImage(ctx, g.home)
	}
	if _, err := g.home.copyIn(ctx, id); err != nil {
		fmt.Fprintf(g.build.log, "warning: %v\n", err)
	}
	if _, _, ok, _ := g.home.eng.Images.ImageLabels(ctx, id); ok {
		return id, nil
	}
	return g.buildImage(ctx, g.home)
}

// buildImage builds the load generator image on s's engine and returns
// its id.
func (g *containerGenerator) buildImage(ctx context.Context, s *side) (string, error) {
	args := map[string]string{}
	for _, key := range []string{"debian", "golang"} {
		b := s.resolver.Resolve(ctx, key)
		if s == g.targets {
			g.build.images[key] = b
		}
		if b.Used == "" {
			return "", fmt.Errorf("load generator base image %s: %s", key, b.Error)
		}
		args[strings.ToUpper(key)+"_IMAGE"] = b.Used
	}
	if s.loadgenFailed != nil { // the warm build's (warmGenerator): minutes, to fail alike
		return "", s.loadgenFailed
	}
	name := "loadgen"
	if s.name != "" {
		name += "-" + s.name
	}
	logf, err := g.build.logTo(name)
	if err != nil {
		return "", err
	}
	defer logf.Close()
	lgContext, err := loadgenContext()
	if err != nil {
		return "", err
	}
	started := time.Now()
	built, err := s.eng.Images.Build(ctx, engine.BuildSpec{Context: lgContext, Dockerfile: "docker/loadgen/Dockerfile",
		Tag: "webbench/loadgen:latest", BuildArgs: args, Labels: map[string]string{engine.LabelRole: "loadgen"}, Log: logf})
	if err != nil {
		err = fmt.Errorf("build load generator: %w", err)
		if ctx.Err() == nil { // an interrupted build is no failure
			s.loadgenFailed = err
		}
		return "", err
	}
	if !built.Cached && !built.Warm {
		g.build.times.Record(buildtime.Loadgen, time.Since(started))
		fmt.Fprintf(g.build.log, "built image webbench/loadgen:latest%s in %s\n", s.where(), time.Since(started).Round(time.Second))
	}
	return built.ID, nil
}

// loadgenContext is the load generator's build context: go.mod and go.sum
// (which pin bombardier) and docker/loadgen, taken from the harness's
// embedded copy, so that nothing else (stand-in recipes) triggers a rebuild.
func loadgenContext() (fs.FS, error) {
	out := fstest.MapFS{}
	err := fs.WalkDir(webbench.Assets, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if p == "go.mod" || p == "go.sum" || strings.HasPrefix(p, "docker/loadgen/") {
			data, err := fs.ReadFile(webbench.Assets, p)
			if err != nil {
				return err
			}
			out[p] = &fstest.MapFile{Data: data, Mode: 0o644}
		}
		return nil
	})
	return out, err
}

// Pin moves the generator to cores before a cell whose pinning puts it
// elsewhere (on the target's own cores, or on every core), and reads back
// where the engine says it runs. It stays there until the next cell asks
// otherwise.
func (g *containerGenerator) Pin(ctx context.Context, cores string) (string, error) {
	if cores == "" || cores == g.cores {
		return g.cores, nil
	}
	c := g.home.eng.Containers
	if err := c.SetCPUs(ctx, g.id, cores); err != nil {
		return g.cores, err
	}
	got, err := c.CPUs(ctx, g.id)
	if err != nil {
		return g.cores, err
	}
	if g.cores = got; got != cores {
		return got, fmt.Errorf("the load generator runs on cores %q after it was moved to %q", got, cores)
	}
	return got, nil
}

// version is the version of tool that the image recorded.
func (g *containerGenerator) version(ctx context.Context, tool loadgen.Tool) (string, error) {
	res, err := g.home.eng.Containers.Exec(ctx, g.id, []string{"cat", tool.VersionFile()})
	if err != nil {
		return "", err
	}
	if res.ExitCode != 0 {
		return "", fmt.Errorf("%s: no version recorded in the load generator image (%s): rebuild it", tool.Name(), tool.VersionFile())
	}
	return strings.TrimSpace(string(res.Stdout)), nil
}

// hardNoFile is the hard open-files limit inside container id, 0 when
// unknown or unlimited.
func hardNoFile(ctx context.Context, c Containers, id string) int64 {
	res, err := c.Exec(ctx, id, []string{"sh", "-c", "ulimit -Hn"})
	if err != nil || res.ExitCode != 0 {
		return 0
	}
	n, _ := strconv.ParseInt(strings.TrimSpace(string(res.Stdout)), 10, 64) // "unlimited": 0, no bound
	return n
}

// cpuModelIn reads the processor's model name inside container id: its
// engine's machine's, which need not be this one.
func cpuModelIn(ctx context.Context, c Containers, id string) string {
	res, err := c.Exec(ctx, id, []string{"sh", "-c", "grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2-"})
	if m := strings.TrimSpace(string(res.Stdout)); err == nil && res.ExitCode == 0 && m != "" {
		return m
	}
	return "unknown"
}

// Alive fails when the generator's container vanished or stopped.
func (g *containerGenerator) Alive(ctx context.Context) error {
	if g.id == "" {
		return nil
	}
	st, err := g.home.eng.Containers.State(ctx, g.id)
	if err == nil && !st.Running {
		err = errors.New(st.String())
	}
	if err != nil {
		return &goneError{what: "load generator container", err: err}
	}
	return nil
}

// settle is how long gone waits for the engine to say that the container
// of a tool killed before its deadline stopped.
const settle = 5 * time.Second

// gone is Alive's error, waiting up to settle for it when wait is set.
func (g *containerGenerator) gone(ctx context.Context, wait bool) error {
	within := settle
	if !wait {
		within = 0
	}
	return untilErr(ctx, within, func() error { return g.Alive(ctx) })
}

// goneError is what Alive says of a generator that vanished or stopped.
type goneError struct {
	what string
	err  error
}

func (e *goneError) Error() string {
	return fmt.Sprintf("the run's %s vanished or stopped (removed by someone, or the engine restarted): %v", e.what, e.err)
}

func (e *goneError) Unwrap() error { return e.err }

// probeExecGrace is how long past a probe's own timeout the harness waits
// for the engine to return its exec.
var probeExecGrace = 30 * time.Second

// Probe asks the probe in the generator's container for one answer from
// target.
func (g *containerGenerator) Probe(ctx context.Context, target string, ask Ask) (verify.Response, error) {
	if g.id == "" {
		return verify.Response{}, errNoGenerator
	}
	cmd := []string{"probe", "-timeout", ask.Timeout.String()}
	if ask.Kind&probeTCP != 0 {
		cmd = append(cmd, "-tcp")
	}
	if ask.Kind&probeClose != 0 {
		cmd = append(cmd, "-close")
	}
	if ask.Kind&probeHTTP10 != 0 {
		cmd = append(cmd, "-http10")
	}
	for _, h := range ask.Headers {
		cmd = append(cmd, "-H", h)
	}
	if ask.Kind&probeTCP == 0 && ask.Protocol != "" && ask.Protocol != cellid.ProtoHTTP1 {
		cmd = append(cmd, "-proto", ask.Protocol)
		if cellid.TLS(ask.Protocol) {
			cmd = append(cmd, "-ca", caPath)
		}
	}
	// The probe bounds its own wait; this bounds the engine's: an exec
	// whose output never ends (a busy engine) must not hang the run.
	ectx, cancel := context.WithTimeout(ctx, ask.Timeout+probeExecGrace)
	defer cancel()
	res, err := g.home.eng.Containers.Exec(ectx, g.id, append(cmd, target))
	if err != nil {
		if ctx.Err() == nil && ectx.Err() != nil {
			return verify.Response{}, fmt.Errorf("probe: the engine did not return the probe's exec within %s", ask.Timeout+probeExecGrace)
		}
		return verify.Response{}, err
	}
	var resp verify.Response
	if err := json.Unmarshal(res.Stdout, &resp); err != nil {
		return verify.Response{}, fmt.Errorf("probe (exit %d): %v: %s%s", res.ExitCode, err, res.Stdout, res.Stderr)
	}
	return resp, nil
}

// Run runs tool once for s: coreutils' timeout kills it at its deadline,
// so that a trial that stops cannot hang the run; the target is then
// probed to say which end stopped.
func (g *containerGenerator) Run(ctx context.Context, tool loadgen.Tool, s loadgen.Spec) (loadgen.Result, error) {
	res, _, err := g.RunAt(ctx, tool, s, time.Time{})
	return res, err
}

// RunAt is Run starting at the instant at, as the generator's machine's
// clock reads it (zero: at once), and says when the tool really ran there
// (startingAt); the wait is not counted against its deadline.
func (g *containerGenerator) RunAt(ctx context.Context, tool loadgen.Tool, s loadgen.Spec, at time.Time) (loadgen.Result, merge.Window, error) {
	var w merge.Window
	if g.id == "" {
		return loadgen.Result{}, w, errNoGenerator
	}
	deadline := loadgen.Deadline(s)
	cmd := append([]string{"timeout", "-s", "KILL", strconv.Itoa(int(deadline.Seconds()))}, tool.Command(s)...)
	wait := deadline + execGrace
	if !at.IsZero() {
		cmd, wait = startingAt(at, cmd), wait+max(time.Until(at), 0)
	}
	ectx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	began := time.Now()
	res, err := g.home.eng.Containers.Exec(ectx, g.id, cmd)
	// A container killed under its tool explains the run best. Its tool
	// killed (137) before timeout could have done it was killed with it,
	// though the engine may not yet say the container stopped.
	if killedEarly := res.ExitCode == 137 && time.Since(began) < deadline; err != nil || res.ExitCode != 0 {
		if gone := g.gone(context.WithoutCancel(ctx), killedEarly); gone != nil {
			return loadgen.Result{}, w, gone
		}
	}
	if err != nil {
		if ctx.Err() == nil && ectx.Err() != nil {
			return loadgen.Result{}, w, stalled(ctx, g, tool.Name(), s, deadline+execGrace, false)
		}
		return loadgen.Result{}, w, err
	}
	if !at.IsZero() {
		if w, res.Stderr, err = windowOf(res.Stderr); err != nil && res.ExitCode == 0 {
			return loadgen.Result{}, w, err
		}
	}
	if res.ExitCode == 137 { // killed by timeout -s KILL
		return loadgen.Result{}, w, stalled(ctx, g, tool.Name(), s, deadline, true)
	}
	if res.ExitCode != 0 {
		return loadgen.Result{}, w, fmt.Errorf("%s exited %d: %s", tool.Name(), res.ExitCode, strings.TrimSpace(string(res.Stderr)))
	}
	out, err := tool.Parse(res.Stdout, s)
	return out, w, err
}

// Clock reads the clock of the generator's machine, in its container, as
// the start script reads it (date +%s.%N).
func (g *containerGenerator) Clock(ctx context.Context) (time.Time, error) {
	if g.id == "" {
		return time.Time{}, errNoGenerator
	}
	ectx, cancel := context.WithTimeout(ctx, probeExecGrace)
	defer cancel()
	res, err := g.home.eng.Containers.Exec(ectx, g.id, []string{"date", "+%s.%N"})
	if err != nil {
		return time.Time{}, err
	}
	if res.ExitCode != 0 {
		return time.Time{}, fmt.Errorf("date exited %d: %s", res.ExitCode, strings.TrimSpace(string(res.Stderr)))
	}
	return epoch(strings.TrimSpace(string(res.Stdout)))
}

// Usage is the cores the generator's container used between start and end.
func (g *containerGenerator) Usage(start, end time.Time) (float64, bool) {
	if g.stats == nil {
		return 0, false
	}
	cores, _, ok := engine.Rates(g.stats.Window(start, end))
	return cores, ok
}

// Close removes the generator's container. A cancelled ctx cancels the
// removal too: the caller detaches it from the run's (cleanup).
func (g *containerGenerator) Close(ctx context.Context) error {
	if g.stats != nil {
		g.stats.Stop()
	}
	if g.id == "" {
		return nil
	}
	return g.home.eng.Containers.RemoveContainer(ctx, g.id)
}

// generatorSpec is the load generator container's spec on the run's
// network, bounded like a target by default: a generator that runs away
// must not take the machine with it.
func generatorSpec(runID, network string, labels map[string]string, files []engine.File, env []string) engine.ContainerSpec {
	return engine.ContainerSpec{Name: "webbench-" + runID + "-loadgen", Files: files, Env: env, Network: network, Labels: labels,
		Memory: matrix.DefaultLimits.MemoryBytes, Pids: matrix.DefaultLimits.Pids}
}
