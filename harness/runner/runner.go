// Package runner owns the life of a run: it expands the matrix into cells,
// builds each target once, and takes every cell through start, readiness,
// verification, warm-up and trials, recording each cell as ok, failed or
// skipped. Nothing about one cell stops the next; everything the run
// creates is removed when it ends, even when it is interrupted.
package runner

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	webbench "github.com/webbench/webbench"
	"github.com/webbench/webbench/harness/baseimage"
	"github.com/webbench/webbench/harness/cpuset"
	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/loadgen"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/report"
	"github.com/webbench/webbench/harness/results"
	"github.com/webbench/webbench/harness/verify"
)

// LoadgenImages are the base images the load generator is built on when
// the matrix does not name them.
var LoadgenImages = map[string]string{"debian": "debian:bookworm-slim", "golang": "golang:1.26-bookworm"}

// RuntimeMarker starts the line a target prints at startup to report its
// runtime and version, e.g. "runtime: go1.26.8" or "runtime: node v22.11.0".
const RuntimeMarker = "runtime: "

// Options configure a run.
type Options struct {
	Matrix         *matrix.Matrix
	Only           string // the --only text, recorded in the results
	OutDir         string
	Label          string
	Network        string // overrides the matrix's network mode when set
	NoPull         bool   // never try a registry for base images
	HarnessVersion string
	Progress       Progress  // nil: no progress display
	Log            io.Writer // notes for the user (reaped leftovers, stand-in builds); nil discards
}

// Progress is told where the run is.
type Progress interface {
	Start(cells []matrix.Cell, estimate time.Duration)
	Phase(cell matrix.Cell, phase string)
	Done(cell *results.Cell)
	Finish()
}

// Run measures the matrix and returns what it measured. The error is set
// only when the run could not start at all or was interrupted (ctx.Err());
// a cell's failure is recorded in its cell, not returned.
func Run(ctx context.Context, eng *engine.Engine, opt Options) (*results.Run, error) {
	r := &runner{eng: eng, opt: opt, m: opt.Matrix, log: opt.Log, progress: opt.Progress}
	if r.log == nil {
		r.log = io.Discard
	}
	if r.progress == nil {
		r.progress = nopProgress{}
	}
	return r.run(ctx)
}

type runner struct {
	eng      *engine.Engine
	opt      Options
	m        *matrix.Matrix
	log      io.Writer
	progress Progress

	id           string
	network      string // network name, or "host"
	networkID    string
	loadgenID    string
	loadgenStats *engine.Sampler
	resolver     *baseimage.Resolver
	out          *results.Run
}

func (r *runner) run(ctx context.Context) (*results.Run, error) {
	r.id = newID()
	info, err := r.eng.Info(ctx)
	if err != nil {
		return nil, err
	}
	mode := r.m.Network
	if r.opt.Network != "" {
		mode = r.opt.Network
	}
	sel, err := matrix.ParseSelector(r.opt.Only)
	if err != nil {
		return nil, err
	}
	cells := matrix.Expand(r.m, sel, cpuset.Range(0, info.NCPU))
	host, _ := os.Hostname()
	r.out = &results.Run{
		Schema: results.Schema,
		Environment: results.Environment{
			Label: r.opt.Label, Hostname: host, CPUModel: CPUModel(), OnlineCPUs: info.NCPU, Kernel: info.Kernel,
			OS: info.OS, DockerVersion: info.ServerVersion, DockerAPI: info.APIVersion, StorageDriver: info.Driver,
			HarnessVersion: r.opt.HarnessVersion, StartedAt: time.Now().UTC().Truncate(time.Second), NetworkMode: mode,
		},
		Matrix: results.SettingsOf(r.m, r.opt.Only),
		Images: map[string]*baseimage.Base{},
		Cells:  []*results.Cell{},
	}

	// What a killed earlier run left would skew this one (a server still
	// running on the same cores): remove it first. A live run's objects are
	// left alone.
	if gone, err := r.eng.Reap(ctx, false); err != nil {
		fmt.Fprintf(r.log, "warning: reaping leftovers of earlier runs: %v\n", err)
	} else if len(gone) > 0 {
		fmt.Fprintf(r.log, "removed leftovers of an earlier run: %s\n", strings.Join(gone, ", "))
	}
	defer r.cleanup(ctx)

	r.progress.Start(cells, matrix.Estimate(r.m, cells, 3*time.Second, 20000))
	defer r.progress.Finish()

	images := map[string]string{}
	for k, v := range LoadgenImages {
		images[k] = v
	}
	for k, v := range r.m.Images {
		images[k] = v
	}
	standinLog, err := r.buildLog("standins")
	if err != nil {
		return nil, err
	}
	defer standinLog.Close()
	r.resolver = baseimage.NewResolver(r.eng, images, baseimage.Options{Log: r.log, BuildLog: standinLog, NoPull: r.opt.NoPull})

	if mode == matrix.NetworkHost {
		r.network = "host"
	} else {
		r.network = "webbench-" + r.id
		if r.networkID, err = r.eng.CreateNetwork(ctx, r.network, r.labels("network", "", "")); err != nil {
			return nil, err
		}
	}

	loadgenErr := r.startLoadgen(ctx, cells)
	byTarget := map[string][]matrix.Cell{}
	for _, c := range cells {
		byTarget[c.Target] = append(byTarget[c.Target], c)
	}
	for _, t := range r.m.Targets {
		if err := r.runTarget(ctx, t, byTarget[t.Name], loadgenErr); err != nil {
			r.out.Interrupted = true
			r.save()
			return r.out, err
		}
	}
	now := time.Now().UTC().Truncate(time.Second)
	r.out.FinishedAt = &now
	r.save()
	return r.out, nil
}

// cleanup removes what the run created, even when ctx was cancelled.
func (r *runner) cleanup(ctx context.Context) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	r.loadgenStats.Stop()
	if err := r.eng.RemoveContainer(cctx, r.loadgenID); err != nil {
		fmt.Fprintf(r.log, "warning: %v\n", err)
	}
	if err := r.eng.RemoveNetwork(cctx, r.networkID); err != nil {
		fmt.Fprintf(r.log, "warning: %v\n", err)
	}
	if r.resolver != nil {
		r.resolver.Close()
	}
}

func (r *runner) labels(role, target, cell string) map[string]string {
	l := map[string]string{engine.LabelRun: r.id, engine.LabelRole: role}
	if target != "" {
		l[engine.LabelTarget] = target
	}
	if cell != "" {
		l[engine.LabelCell] = cell
	}
	return l
}

// save writes results.json and README.md; a failure to write is reported
// but does not stop the run: the next cell tries again.
func (r *runner) save() {
	if err := results.Write(r.opt.OutDir, r.out); err != nil {
		fmt.Fprintf(r.log, "error: writing results: %v\n", err)
		return
	}
	var b strings.Builder
	if err := report.Markdown(&b, r.out); err != nil {
		fmt.Fprintf(r.log, "error: rendering README.md: %v\n", err)
		return
	}
	if err := results.WriteFileAtomic(filepath.Join(r.opt.OutDir, "README.md"), []byte(b.String())); err != nil {
		fmt.Fprintf(r.log, "error: writing README.md: %v\n", err)
	}
}

func (r *runner) record(c *results.Cell) {
	r.out.Cells = append(r.out.Cells, c)
	r.save()
	r.progress.Done(c)
}

// startLoadgen builds the load generator image and starts its container,
// pinned to the load generator's cores, idle until trials exec into it.
func (r *runner) startLoadgen(ctx context.Context, cells []matrix.Cell) error {
	var set cpuset.Set
	for _, c := range cells {
		if c.Skip == "" {
			set = c.LoadgenSet
			break
		}
	}
	if set == nil {
		return nil // nothing will run
	}
	args := map[string]string{}
	for _, key := range []string{"debian", "golang"} {
		b := r.base(ctx, key)
		if b.Used == "" {
			return fmt.Errorf("load generator base image %s: %s", key, b.Error)
		}
		args[strings.ToUpper(key)+"_IMAGE"] = b.Used
	}
	logf, err := r.buildLog("loadgen")
	if err != nil {
		return err
	}
	defer logf.Close()
	built, err := r.eng.Build(ctx, engine.BuildSpec{Context: webbench.Assets, Dockerfile: "docker/loadgen/Dockerfile",
		Tag: "webbench/loadgen:latest", BuildArgs: args, Labels: map[string]string{engine.LabelRole: "loadgen"}, Log: logf})
	if err != nil {
		return fmt.Errorf("build load generator: %w", err)
	}
	r.loadgenID, err = r.eng.Start(ctx, engine.ContainerSpec{Name: "webbench-" + r.id + "-loadgen", Image: built.ID,
		CPUSet: set.String(), Network: r.network, Labels: r.labels("loadgen", "", "")})
	if err != nil {
		return err
	}
	r.loadgenStats = r.eng.Sample(ctx, r.loadgenID)
	ver, err := r.eng.Exec(ctx, r.loadgenID, []string{"cat", "/usr/local/bin/bombardier.version"})
	if err != nil {
		return err
	}
	r.out.Environment.LoadGenerator = "bombardier " + strings.TrimSpace(string(ver.Stdout))
	return nil
}

func (r *runner) buildLog(name string) (*os.File, error) {
	dir := filepath.Join(r.opt.OutDir, "logs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return os.Create(filepath.Join(dir, "build-"+name+".log"))
}

func (r *runner) base(ctx context.Context, key string) *baseimage.Base {
	b := r.resolver.Resolve(ctx, key)
	if _, ok := r.m.Images[key]; ok || key == "debian" || key == "golang" {
		r.out.Images[key] = b
	}
	return b
}

// runTarget builds a target and runs its cells. It returns an error only
// when the run is interrupted.
func (r *runner) runTarget(ctx context.Context, t matrix.Target, cells []matrix.Cell, loadgenErr error) error {
	runnable := 0
	for _, c := range cells {
		if c.Skip == "" {
			runnable++
		}
	}
	// Cells that cannot run here are recorded without building anything.
	fail := func(status, reason string) {
		for _, c := range cells {
			rc := newCell(c)
			if c.Skip != "" {
				rc.Status, rc.Reason = results.Skipped, c.Skip
			} else {
				rc.Status, rc.Reason = status, reason
			}
			r.record(rc)
		}
	}
	if runnable == 0 {
		fail(results.Skipped, "")
		return nil
	}
	if loadgenErr != nil {
		fail(results.Failed, loadgenErr.Error())
		return ctx.Err()
	}
	if len(cells) > 0 {
		r.progress.Phase(cells[0], "build")
	}
	var bases []*baseimage.Base
	args := map[string]string{}
	for _, key := range t.Images {
		b := r.base(ctx, key)
		if b.Used == "" {
			fail(results.Skipped, fmt.Sprintf("base image %s (%s) unavailable: %s", key, b.Official, b.Error))
			return ctx.Err()
		}
		bases = append(bases, b)
		args[strings.ToUpper(key)+"_IMAGE"] = b.Used
	}
	logf, err := r.buildLog(t.Name)
	if err != nil {
		return err
	}
	built, err := r.eng.Build(ctx, engine.BuildSpec{Context: os.DirFS(t.Build), Tag: "webbench/target-" + t.Name + ":latest",
		BuildArgs: args, Labels: map[string]string{engine.LabelRole: "target", engine.LabelTarget: t.Name}, Log: logf})
	logf.Close()
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		fail(results.Failed, fmt.Sprintf("build failed (log: %s): %v", logf.Name(), err))
		return nil
	}
	img := &results.Image{ID: built.ID, Bases: bases}
	for _, c := range cells {
		rc := newCell(c)
		if c.Skip != "" {
			rc.Status, rc.Reason = results.Skipped, c.Skip
			r.record(rc)
			continue
		}
		rc.Image = img
		start := time.Now()
		err := r.runCell(ctx, t, c, rc)
		rc.Seconds = roundTo(time.Since(start).Seconds(), 2)
		if ctx.Err() != nil {
			return ctx.Err() // an interrupted cell is not recorded: it measured nothing whole
		}
		if err != nil {
			rc.Status, rc.Reason = results.Failed, err.Error()
			rc.Summary = nil
		} else {
			rc.Status = results.OK
		}
		r.record(rc)
	}
	return nil
}

func newCell(c matrix.Cell) *results.Cell {
	return &results.Cell{Target: c.Target, Scenario: c.Scenario, CPUs: c.CPUs, CPUSet: c.CPUSet.String(),
		LoadgenCPUSet: c.LoadgenSet.String(), Connections: c.Connections}
}

func (r *runner) scenario(name string) matrix.Scenario {
	for _, s := range r.m.Scenarios {
		if s.Name == name {
			return s
		}
	}
	return matrix.Scenario{Name: name}
}

// runCell starts a fresh container of the target for the cell and measures
// it; the container is removed before it returns.
func (r *runner) runCell(ctx context.Context, t matrix.Target, c matrix.Cell, rc *results.Cell) error {
	sc := r.scenario(c.Scenario)
	env := []string{fmt.Sprintf("CPUS=%d", c.CPUs)}
	keys := make([]string, 0, len(t.Env))
	for k := range t.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+t.Env[k])
	}
	r.progress.Phase(c, "start")
	id, err := r.eng.Start(ctx, engine.ContainerSpec{
		Name: fmt.Sprintf("webbench-%s-%s-%d", r.id, t.Name, len(r.out.Cells)), Image: rc.Image.ID, Env: env,
		CPUSet: c.CPUSet.String(), Network: r.network, Aliases: []string{t.Name},
		Labels: r.labels("target", t.Name, c.ID()),
	})
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if err := r.eng.RemoveContainer(cctx, id); err != nil {
			fmt.Fprintf(r.log, "warning: %v\n", err)
		}
	}()
	if err != nil {
		return err
	}
	stats := r.eng.Sample(ctx, id)
	defer stats.Stop()
	host := t.Name
	if r.network == "host" {
		host = "127.0.0.1"
	}
	url := fmt.Sprintf("http://%s:%d%s", host, t.Port, sc.Path)

	r.progress.Phase(c, "ready")
	if err := r.waitReady(ctx, id, url); err != nil {
		return err
	}
	if logs, err := r.eng.Logs(ctx, id, 200); err == nil {
		rc.Image = &results.Image{ID: rc.Image.ID, Bases: rc.Image.Bases, RuntimeVersion: runtimeVersion(logs)}
	}

	r.progress.Phase(c, "verify")
	resp, err := r.probe(ctx, url, r.m.Load.Timeout)
	if err != nil {
		return err
	}
	problems, warnings := verify.Check(sc.Expect, resp)
	rc.Warnings = append(rc.Warnings, warnings...)
	if len(problems) > 0 {
		return fmt.Errorf("verify %s: %s", url, strings.Join(problems, "; "))
	}

	spec := loadgen.Spec{URL: url, Connections: c.Connections, Duration: r.m.Load.Duration,
		Requests: r.m.Load.Requests, Timeout: r.m.Load.Timeout}
	if r.m.Load.Warmup > 0 {
		r.progress.Phase(c, "warm-up")
		w := spec
		w.Duration, w.Requests = r.m.Load.Warmup, 0
		if _, err := r.bombard(ctx, w); err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
	}
	for k := 1; k <= r.m.Load.Trials; k++ {
		r.progress.Phase(c, fmt.Sprintf("trial %d/%d", k, r.m.Load.Trials))
		tr, warns, err := r.trial(ctx, stats, spec)
		if err != nil {
			return fmt.Errorf("trial %d: %w", k, err)
		}
		for _, w := range warns {
			if !slices.Contains(rc.Warnings, w) {
				rc.Warnings = append(rc.Warnings, w)
			}
		}
		rc.Trials = append(rc.Trials, tr)
		rc.Summary = results.Summarize(rc.Trials)
	}
	if st, err := r.eng.State(ctx, id); err == nil && !st.Running {
		return fmt.Errorf("target %s during the trials; last log lines:\n%s", st, r.lastLogs(ctx, id))
	}
	return nil
}

// waitReady polls url from the load generator's container until the target
// answers with any HTTP response, or fails saying why.
func (r *runner) waitReady(ctx context.Context, id, url string) error {
	deadline := time.Now().Add(r.m.Load.ReadyTimeout)
	lastErr := ""
	for {
		st, err := r.eng.State(ctx, id)
		if err != nil {
			return err
		}
		if !st.Running {
			return fmt.Errorf("target %s before answering; last log lines:\n%s", st, r.lastLogs(ctx, id))
		}
		resp, err := r.probe(ctx, url, time.Second)
		if err != nil {
			return err
		}
		if resp.Error == "" {
			return nil
		}
		lastErr = resp.Error
		if time.Now().After(deadline) {
			return fmt.Errorf("target not ready after %s (last error: %s); last log lines:\n%s",
				r.m.Load.ReadyTimeout, lastErr, r.lastLogs(ctx, id))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (r *runner) lastLogs(ctx context.Context, id string) string {
	logs, err := r.eng.Logs(context.WithoutCancel(ctx), id, 15)
	if err != nil {
		return "(no logs: " + err.Error() + ")"
	}
	if strings.TrimSpace(logs) == "" {
		return "(no output)"
	}
	return strings.TrimRight(logs, "\n")
}

func (r *runner) probe(ctx context.Context, url string, timeout time.Duration) (verify.Response, error) {
	if r.loadgenID == "" {
		return verify.Response{}, errors.New("no load generator")
	}
	res, err := r.eng.Exec(ctx, r.loadgenID, []string{"probe", "-timeout", timeout.String(), url})
	if err != nil {
		return verify.Response{}, err
	}
	var resp verify.Response
	if err := json.Unmarshal(res.Stdout, &resp); err != nil {
		return verify.Response{}, fmt.Errorf("probe (exit %d): %v: %s%s", res.ExitCode, err, res.Stdout, res.Stderr)
	}
	return resp, nil
}

func (r *runner) bombard(ctx context.Context, s loadgen.Spec) (loadgen.Result, error) {
	res, err := r.eng.Exec(ctx, r.loadgenID, append([]string{"bombardier"}, loadgen.Args(s)...))
	if err != nil {
		return loadgen.Result{}, err
	}
	if res.ExitCode != 0 {
		return loadgen.Result{}, fmt.Errorf("bombardier exited %d: %s", res.ExitCode, strings.TrimSpace(string(res.Stderr)))
	}
	out, err := loadgen.Parse(res.Stdout)
	if err != nil {
		return out, err
	}
	if out.Requests == 0 {
		return out, fmt.Errorf("no responses in %.1fs: %s", out.Seconds, out.ErrorSummary())
	}
	return out, nil
}

// trial runs one measured bombardier run; the samplers, running for the
// whole cell, say what CPU both containers used and the target's peak
// memory during it.
func (r *runner) trial(ctx context.Context, target *engine.Sampler, s loadgen.Spec) (results.Trial, []string, error) {
	start := time.Now()
	res, err := r.bombard(ctx, s)
	end := time.Now()
	if err != nil {
		return results.Trial{}, nil, err
	}
	var warnings []string
	tCores, tMem, ok := engine.Rates(target.Window(start, end))
	if !ok {
		warnings = append(warnings, "trial too short for two stats samples: target CPU not measured")
	}
	lCores, _, ok := engine.Rates(r.loadgenStats.Window(start, end))
	if !ok {
		warnings = append(warnings, "trial too short for two stats samples: load generator CPU not measured")
	}
	return results.Trial{
		Result:           res,
		TargetCPUCores:   roundTo(tCores, 3),
		TargetMemPeakMiB: roundTo(float64(tMem)/(1<<20), 2),
		LoadgenCPUCores:  roundTo(lCores, 3),
		GeneratorBound:   lCores >= results.GeneratorBoundShare*float64(r.m.Load.LoadgenCPUs),
	}, warnings, nil
}

func roundTo(x float64, decimals int) float64 {
	p := 1.0
	for range decimals {
		p *= 10
	}
	return float64(int64(x*p+0.5)) / p
}

// runtimeVersion finds the target's "runtime: …" line in its output.
func runtimeVersion(logs string) string {
	sc := bufio.NewScanner(strings.NewReader(logs))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), RuntimeMarker); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func newID() string {
	b := make([]byte, 4)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// CPUModel reads the processor's model name from /proc/cpuinfo.
func CPUModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

type nopProgress struct{}

func (nopProgress) Start([]matrix.Cell, time.Duration) {}
func (nopProgress) Phase(matrix.Cell, string)          {}
func (nopProgress) Done(*results.Cell)                 {}
func (nopProgress) Finish()                            {}
