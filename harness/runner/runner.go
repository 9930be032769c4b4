// Package runner owns the life of a run: it expands the matrix into cells,
// builds each target once, and takes every cell through start, readiness,
// verification, warm-up and trials, recording each cell as ok, failed or
// skipped. It talks to the engine through the Engine interface and writes
// results.json after every visit, and nothing else: drawing is the
// command's. Nothing about one cell stops the next; everything the run
// creates is removed when it ends, even when it is interrupted.
package runner

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	mathrand "math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing/fstest"
	"time"

	webbench "github.com/webbench/webbench"
	"github.com/webbench/webbench/harness/baseimage"
	"github.com/webbench/webbench/harness/buildtime"
	"github.com/webbench/webbench/harness/certs"
	"github.com/webbench/webbench/harness/cpuset"
	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/loadgen"
	"github.com/webbench/webbench/harness/lock"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/numfmt"
	"github.com/webbench/webbench/harness/results"
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
	Network        matrix.Network // overrides the matrix's network mode when set
	NoPull         bool           // never try a registry for base images
	HarnessVersion string
	Progress       Progress  // nil: no progress display
	Log            io.Writer // notes for the user (reaped leftovers, stand-in builds); nil discards
	// Sequential runs every trial of a cell before the next cell. By default
	// trials are interleaved: round k runs trial k of every cell, in an
	// order shuffled with Seed (0 picks one; the results record it).
	Sequential bool
	Seed       uint64
	// Unblocked shuffles every cell of a round freely. By default the cells
	// a ratio compares trial by trial run back to back in each round (see
	// blocks), so that the machine drifts less between the two trials of a
	// pair.
	Unblocked bool
	// NoCeiling skips measuring the load generator's ceiling (--no-ceiling;
	// the fidelity figure, which measures something else, sets it); the
	// results record it.
	NoCeiling bool
	// Resume continues this earlier, unfinished run of the same matrix,
	// profile and selection (see Selection): its finished visits are kept,
	// the rest run in the same order.
	Resume *results.Run
	// LockDir holds the per-core lock files ("" is lock.Dir()); NoWait
	// refuses to start when another run holds a core this one needs,
	// instead of waiting for it.
	LockDir string
	NoWait  bool
	// BuildTimes is where build times are learned (nil: the record at
	// buildtime.Path()).
	BuildTimes *buildtime.Book
	// Machines, when set, puts the load generator on LoadgenEngine, another
	// machine's engine than the targets': targets run there with host
	// networking and the load generator reaches them at the target engine's
	// address. Copy brings an image to one engine from the other (docker
	// save | docker load) when the other has it, reporting whether it did;
	// nil never copies.
	Machines      *Machines
	LoadgenEngine Engine
	Copy          func(ctx context.Context, ref string, toLoadgen bool) (bool, error)
	// Reserve is how many of the single engine's lowest-numbered cores no
	// cell uses (with Machines, each engine's own Reserve counts).
	Reserve int
}

// OnMachines returns o set to run on two machines' engines, the load
// generator's being lg, when machines is not nil.
func (o Options) OnMachines(machines *Machines, lg Engine, copy func(ctx context.Context, ref string, toLoadgen bool) (bool, error)) Options {
	if machines != nil && lg != nil {
		o.Machines, o.LoadgenEngine, o.Copy = machines, lg, copy
	}
	return o
}

// Machines are the two engines of a run that puts targets and the load
// generator on different machines.
type Machines struct {
	Target, Loadgen matrix.EngineSpec
	Link            string // the network between them, as the user describes it
}

// Progress is told where the run is, in units of work: a cell visit that
// runs one or more trials, or a cell recorded without running.
type Progress interface {
	Start(units int, estimate time.Duration)
	Phase(cell matrix.Cell, phase string)
	Done(cell *results.Cell, units int)
	Finish()
}

// Run measures the matrix and returns what it measured, writing
// OutDir/results.json after every cell visit and nothing else (rendering
// is the caller's). The error is set only when the run could not start at
// all or was interrupted (ctx.Err()); a cell's failure is recorded in its
// cell, not returned.
func Run(ctx context.Context, eng Engine, opt Options) (*results.Run, error) {
	r := &runner{opt: opt, m: opt.Matrix, log: opt.Log, progress: opt.Progress}
	r.tg = &side{eng: eng, reserve: opt.Reserve}
	r.lg = r.tg
	if ms := opt.Machines; ms != nil && opt.LoadgenEngine != nil {
		r.machines = ms
		r.tg = &side{eng: eng, name: ms.Target.Name, host: ms.Target.Host, address: ms.Target.Address, reserve: ms.Target.Reserve}
		r.lg = &side{eng: opt.LoadgenEngine, name: ms.Loadgen.Name, host: ms.Loadgen.Host, address: ms.Loadgen.Address, reserve: ms.Loadgen.Reserve}
	} else {
		r.opt.Copy = nil // one engine: nothing to copy from
	}
	if r.log == nil {
		r.log = io.Discard
	}
	if r.progress == nil {
		r.progress = nopProgress{}
	}
	return r.run(ctx)
}

// side is one end of a run: the engine its targets run on, or the one its
// load generator runs on. On one engine both ends are one side; on two
// machines each has its own engine, name, cores and address.
type side struct {
	eng      Engine
	name     string // the engines key; "" on one engine
	host     string // the engine's host as the matrix gives it
	address  string // where the other machine reaches this one's host network; "" on one engine
	reserve  int    // lowest cores no cell uses
	info     engine.Info
	cores    cpuset.Set          // what the run's cells use here
	resolver *baseimage.Resolver // base images on this engine
	lgImage  string              // the load generator image's id on this engine, once there
}

// where is " on engine NAME", or "" on one engine.
func (s *side) where() string {
	if s.name == "" {
		return ""
	}
	return " on engine " + s.name
}

// usable are the side's cores after the reserved lowest ones.
func (s *side) usable() cpuset.Set { return usable(s.info.NCPU, s.reserve) }

type runner struct {
	tg, lg   *side     // the targets' side and the load generator's: one side on one engine
	machines *Machines // the two machines, when the run spans two; nil on one engine
	opt      Options
	m        *matrix.Matrix
	log      io.Writer
	progress Progress

	id        string
	mode      matrix.Network
	network   string // the bridge network's name, "host", or "none" (shared: the load generator holds the namespace)
	networkID string
	visits    int                    // cell visits started, for unique container names
	gen       *generator             // the load generator; nil until started
	versions  map[string]string      // of the load generators the run uses, by name
	ceilings  map[ceilingKey]float64 // the load generator's ceiling RPS
	certs     *certs.Set             // the run's throwaway TLS authority and server certificate; nil: no TLS cell
	out       *results.Run

	interleave bool   // trials in rounds over all cells
	blocked    bool   // compared cells back to back within a round
	seed       uint64 // of the rounds' shuffles

	kept      map[string]*results.Cell // by id: cells an earlier run measured, when resuming
	leftover  error                    // a container a visit could not remove: the next visit must not run
	maxNoFile int64                    // the engine's hard open-files limit for containers; 0: unknown or unlimited
	times     *buildtime.Book          // this machine's build times
	timing    timing                   // the run's estimate and its actual, per phase
}

// sides are the run's distinct sides: the targets', then the load
// generator's when it is another engine.
func (r *runner) sides() []*side {
	if r.lg == r.tg {
		return []*side{r.tg}
	}
	return []*side{r.tg, r.lg}
}

// infraGone says what of the run's own infrastructure vanished: an engine,
// its load generator container, or its network.
func (r *runner) infraGone(ctx context.Context) error {
	for _, s := range r.sides() {
		if err := s.eng.Ping(ctx); err != nil {
			return err
		}
	}
	if err := r.gen.running(ctx); err != nil {
		return err
	}
	if r.networkID != "" {
		if ok, err := r.tg.eng.NetworkExists(ctx, r.networkID); err == nil && !ok {
			return fmt.Errorf("the run's network %s vanished (removed by someone, or the engine restarted)", r.network)
		}
	}
	return nil
}

func stateErr(st engine.State, err error) error {
	if err != nil {
		return nil
	}
	return errors.New(st.String())
}

// run takes the run through its phases, in order.
func (r *runner) run(ctx context.Context) (*results.Run, error) {
	r.id = newID()
	if err := r.connect(ctx); err != nil {
		return nil, err
	}
	cells, selection, err := r.expand()
	if err != nil {
		return nil, err
	}
	held, err := r.lockCores(ctx, cells)
	defer held.Release()
	if err != nil {
		return nil, err
	}
	r.begin(selection)
	// What a killed earlier run left would skew this one (a server still
	// running on the same cores): remove it first. A live run's objects are
	// left alone.
	for _, s := range r.sides() {
		r.reap(ctx, s)
		r.out.Warnings = append(r.out.Warnings, r.foreignContainers(ctx, s)...)
	}
	defer r.cleanup(ctx)
	r.order(cells)
	if err := r.keptImages(ctx); err != nil {
		return nil, err // before anything is written: the run's folder stays as it was
	}
	standinLog, err := r.buildLog("standins")
	if err != nil {
		return nil, err
	}
	defer standinLog.Close()
	r.resolvers(standinLog)
	r.estimate(ctx, cells)
	defer r.progress.Finish()
	defer r.timing.report(r.log)
	if err := r.createNetwork(ctx); err != nil {
		return nil, err
	}
	return r.measure(ctx, cells)
}

// connect asks each side's engine what it is, refuses two names of one
// engine, and settles the network mode.
func (r *runner) connect(ctx context.Context) error {
	for _, s := range r.sides() {
		var err error
		if s.info, err = s.eng.Info(ctx); err != nil {
			return err
		}
	}
	r.mode = r.m.Network
	if r.opt.Network != "" {
		r.mode = r.opt.Network
	}
	if r.machines == nil {
		return nil
	}
	// The id comes from the host's /etc/docker/key.json: two engines of
	// one host (or of VMs cloned with that file) share it; the data folder
	// tells them apart.
	if tg, lg := r.tg.info, r.lg.info; lg.ID == tg.ID && lg.Root == tg.Root {
		return fmt.Errorf("engines %s and %s are the same engine (id %s, data in %s): place the target and the load generator on one engine name, or on two machines' engines",
			r.tg.name, r.lg.name, tg.ID, tg.Root)
	}
	if r.mode != matrix.NetworkHost {
		// Two machines: no namespace or bridge spans them, and a published
		// port would put docker-proxy in the path.
		fmt.Fprintf(r.log, "two engines: targets and the load generator use their machines' host networks (network mode %s does not span machines)\n", r.mode)
		r.mode = matrix.NetworkHost
	}
	return nil
}

// expand makes the run's cells and its selection, and checks that a run
// being resumed made the same.
func (r *runner) expand() ([]matrix.Cell, string, error) {
	sel, err := matrix.ParseSelector(r.opt.Only)
	if err != nil {
		return nil, "", err
	}
	var cells []matrix.Cell
	if r.machines != nil {
		cells = matrix.ExpandApart(r.m, sel, r.tg.usable(), r.lg.usable())
	} else {
		cells = matrix.Expand(r.m, sel, r.tg.usable())
	}
	Unsupported(r.m, cells)
	selection := Selection(r.m, r.opt.Only, r.mode, cells)
	if prev := r.opt.Resume; prev != nil && prev.Selection != selection {
		return nil, "", fmt.Errorf("cannot resume: %s", SelectionDiff(prev, r.m, r.opt.Only, r.mode))
	}
	for _, c := range cells {
		if c.Skip == "" {
			r.tg.cores = cpuset.Union(r.tg.cores, c.CPUSet)
			r.lg.cores = cpuset.Union(r.lg.cores, c.LoadgenSet)
		}
	}
	return cells, selection, nil
}

// heldCores are the core locks a run holds, on one or two engines.
type heldCores []*lock.Held

func (h heldCores) Release() {
	for _, l := range h {
		l.Release()
	}
}

// lockCores takes, before anything runs, the lock of every core the run
// uses on each engine (one run at a time on a core of an engine), or
// waits for them. Two engines that report one host id share one lock set:
// they may share the host's cores.
func (r *runner) lockCores(ctx context.Context, cells []matrix.Cell) (heldCores, error) {
	dir := r.opt.LockDir
	if dir == "" {
		dir = lock.Dir()
	}
	byID := map[string]cpuset.Set{}
	var ids []string
	for _, s := range r.sides() {
		if _, seen := byID[s.info.ID]; seen {
			if other := byID[s.info.ID]; cpuset.Overlaps(other, s.cores) {
				fmt.Fprintf(r.log, "warning: engines %s and %s report one host id and the run's cores overlap (%s and %s): they may share cores\n",
					r.tg.name, r.lg.name, other, s.cores)
			}
		} else {
			ids = append(ids, s.info.ID)
		}
		byID[s.info.ID] = cpuset.Union(byID[s.info.ID], s.cores)
	}
	say := func(s string) { fmt.Fprintln(r.log, s) }
	var held heldCores
	for i := len(ids) - 1; i >= 0; i-- { // the load generator's engine first, as always
		h, err := lock.Acquire(ctx, dir, ids[i], byID[ids[i]], !r.opt.NoWait, say)
		if err != nil {
			return held, err
		}
		held = append(held, h)
	}
	return held, nil
}

// begin starts the run's results: where and how it runs.
func (r *runner) begin(selection string) {
	host, _ := os.Hostname()
	info := r.tg.info
	r.out = &results.Run{
		Schema: results.Schema,
		Environment: results.Environment{
			Label: r.opt.Label, Hostname: host, CPUModel: CPUModel(), OnlineCPUs: info.NCPU, Kernel: info.Kernel,
			OS: info.OS, DockerVersion: info.ServerVersion, DockerAPI: info.APIVersion, StorageDriver: info.Driver,
			HarnessVersion: r.opt.HarnessVersion, StartedAt: time.Now().UTC().Truncate(time.Second), NetworkMode: results.Network(r.mode),
		},
		Matrix:    SettingsOf(r.m, r.opt.Only),
		Selection: selection,
		Images:    map[string]*results.BaseImage{},
		Cells:     []*results.Cell{},
	}
	r.out.Matrix.NoCeiling = r.opt.NoCeiling
	if r.machines != nil {
		r.out.Environment.Hostname = info.Name
		r.out.Environment.Link = r.machines.Link
		r.out.Environment.Machines = []results.Machine{
			machine(results.RoleTarget, r.tg), machine(results.RoleLoadgen, r.lg)}
	}
}

// order settles the order of trials (interleaved rounds, or cell by cell)
// and takes over what a run being resumed measured.
func (r *runner) order(cells []matrix.Cell) {
	r.interleave = !r.opt.Sequential && r.m.Load.Trials > 1
	if r.interleave {
		r.seed = r.opt.Seed
		if r.seed == 0 {
			r.seed = mathrand.Uint64()
		}
		r.out.Matrix.Order, r.out.Matrix.Seed = results.Interleaved, r.seed
		r.blocked = !r.opt.Unblocked
		r.out.Matrix.Blocked = r.blocked
	} else {
		r.out.Matrix.Order = results.Sequential
	}
	if prev := r.opt.Resume; prev != nil {
		made := map[string]bool{}
		for _, c := range cells {
			if c.Skip == "" {
				made[c.ID()] = true
			}
		}
		r.resume(prev, made)
	}
}

// resolvers gives each side a resolver of base images, which copies from
// the other side's engine when the run has two and a way to copy.
func (r *runner) resolvers(standinLog io.Writer) {
	images := maps.Clone(LoadgenImages)
	maps.Copy(images, r.m.Images)
	if r.times = r.opt.BuildTimes; r.times == nil {
		r.times = buildtime.Open(buildtime.Path())
	}
	for _, s := range r.sides() {
		opt := baseimage.Options{Log: r.log, BuildLog: standinLog, NoPull: r.opt.NoPull, Times: r.times}
		if toLoadgen := s == r.lg; r.opt.Copy != nil {
			opt.Copy = func(ctx context.Context, ref string) (bool, error) { return r.opt.Copy(ctx, ref, toLoadgen) }
		}
		s.resolver = baseimage.NewResolver(s.eng, images, opt)
	}
}

// estimate tells the progress display how much work the run has and how
// long it should take.
func (r *runner) estimate(ctx context.Context, cells []matrix.Cell) {
	units := 0
	for _, c := range cells {
		per := 1
		if c.Skip == "" && r.interleave {
			per = r.m.Load.Trials
		}
		if old := r.kept[c.ID()]; old != nil {
			if old.Status == results.Failed || !r.interleave {
				per = 0
			} else {
				per -= min(len(old.Trials), per)
			}
		}
		units += per
	}
	r.timing.unlikely = map[string]bool{}
	r.timing.estBuilds = r.buildEstimate(ctx, cells, true)
	r.timing.estCells = matrix.Estimate(r.m, r.timing.likely(cells), matrix.VisitOverhead, matrix.GuessedRPS, r.interleave) +
		r.ceilingEstimate(r.timing.likely(cells))
	r.progress.Start(units, r.timing.estBuilds+r.timing.estCells)
}

// createNetwork makes the run's bridge network, in bridge mode.
func (r *runner) createNetwork(ctx context.Context) error {
	switch r.mode {
	case matrix.NetworkHost:
		r.network = "host"
	case matrix.NetworkShared:
		r.network = "none"
	default:
		r.network = "webbench-" + r.id
		var err error
		if r.networkID, err = r.tg.eng.CreateNetwork(ctx, r.network, r.labels("network", "", "")); err != nil {
			return err
		}
	}
	return nil
}

// measure starts the load generator, builds each target, measures the
// ceilings and then every cell's visits, saving as it goes.
func (r *runner) measure(ctx context.Context, cells []matrix.Cell) (*results.Run, error) {
	stop := func(err error) (*results.Run, error) {
		if ctx.Err() != nil {
			r.out.Interrupted = true
		} else {
			r.out.Stopped = err.Error()
		}
		r.save()
		return r.out, err
	}
	started := time.Now()
	loadgenErr := r.startLoadgen(ctx, cells)
	r.recalibrate(ctx, cells, time.Since(started))
	if loadgenErr == nil && r.machines != nil && r.gen != nil { // no load generator: no cell can run, nothing to reach
		if err := r.reach(ctx); err != nil {
			r.out.Stopped = err.Error()
			r.save()
			return r.out, err
		}
	}
	byTarget := map[string][]matrix.Cell{}
	for _, c := range cells {
		byTarget[c.Target] = append(byTarget[c.Target], c)
	}
	var runnable []*visit
	defer func() { r.timing.builds = time.Since(started) - r.timing.cells }()
	for _, t := range r.m.Targets {
		vs, err := r.prepareTarget(ctx, t, byTarget[t.Name], loadgenErr)
		if err != nil {
			r.out.Interrupted = true
			r.save()
			return r.out, err
		}
		runnable = append(runnable, vs...)
	}
	measuring := time.Now()
	defer func() { r.timing.cells = time.Since(measuring) }()
	if err := r.measureCeilings(ctx, runnable); err != nil {
		r.out.Interrupted = true
		r.save()
		return r.out, err
	}
	if err := r.schedule(ctx, cells, runnable); err != nil {
		return stop(err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	r.out.FinishedAt = &now
	r.save()
	return r.out, nil
}

// reap removes from s's engine what killed earlier runs left.
func (r *runner) reap(ctx context.Context, s *side) {
	gone, err := s.eng.Reap(ctx, false)
	if err != nil {
		fmt.Fprintf(r.log, "warning: reaping leftovers of earlier runs%s: %v\n", s.where(), err)
		return
	}
	if len(gone) == 0 {
		return
	}
	fmt.Fprintf(r.log, "removed leftovers of earlier runs%s: %s\n", s.where(), leftovers(gone))
}

// leftovers names what a reap removed: each container and network by
// name, and the dangling images of this tool's earlier builds by short id,
// so that a user sharing the engine sees exactly what went.
func leftovers(gone []string) string {
	var named, images []string
	for _, g := range gone {
		if id, ok := strings.CutPrefix(g, "image "); ok {
			id = strings.TrimPrefix(id, "sha256:")
			images = append(images, id[:min(12, len(id))])
		} else {
			named = append(named, g)
		}
	}
	if len(images) > 0 {
		named = append(named, fmt.Sprintf("%d dangling image(s) of earlier webbench builds (%s)", len(images), strings.Join(images, ", ")))
	}
	return strings.Join(named, ", ")
}

// usable are the cores of an n-core machine after the lowest reserve.
func usable(n, reserve int) cpuset.Set {
	return cpuset.Range(reserve, max(n-reserve, 0))
}

func machine(role string, s *side) results.Machine {
	info := s.info
	return results.Machine{Role: role, Engine: s.name, Host: engine.Redact(s.host), Address: s.address,
		Hostname: info.Name, OnlineCPUs: info.NCPU, Reserved: s.reserve, Kernel: info.Kernel, OS: info.OS,
		DockerVersion: info.ServerVersion, StorageDriver: info.Driver}
}

// targetNetwork is the network mode of target containers: in shared mode
// the load generator's namespace, else the run's network.
func (r *runner) targetNetwork() string {
	if r.mode == matrix.NetworkShared {
		return "container:" + r.gen.id
	}
	return r.network
}

// foreignContainers warns of running containers on s's engine that are
// not this run's and may use its cores there: pinned to one of them, or
// not pinned at all.
func (r *runner) foreignContainers(ctx context.Context, s *side) []string {
	cores := s.cores // on one engine, the targets' and the load generator's
	running, err := s.eng.RunningContainers(ctx)
	if err != nil {
		return []string{"could not list the containers" + s.where() + ": " + err.Error()}
	}
	var out []string
	for _, c := range running {
		if c.Labels[engine.LabelRun] == r.id {
			continue
		}
		set, err := cpuset.Parse(c.CPUSet)
		switch {
		case c.CPUSet == "" || err != nil:
			out = append(out, fmt.Sprintf("container %s%s (not this run's) is not pinned to cores: it may run on this run's cores %s", c.Name, s.where(), cores))
		case cpuset.Overlaps(set, cores):
			out = append(out, fmt.Sprintf("container %s%s (not this run's) is pinned to cores %s, which this run uses (%s)", c.Name, s.where(), set, cores))
		}
	}
	for _, w := range out {
		fmt.Fprintln(r.log, "warning:", w)
	}
	return out
}

// cleanup removes what the run created, even when ctx was cancelled.
func (r *runner) cleanup(ctx context.Context) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	if err := r.gen.stop(cctx); err != nil {
		fmt.Fprintf(r.log, "warning: %v\n", err)
	}
	if err := r.tg.eng.RemoveNetwork(cctx, r.networkID); err != nil {
		fmt.Fprintf(r.log, "warning: %v\n", err)
	}
	for _, s := range r.sides() {
		if s.resolver != nil {
			s.resolver.Close()
		}
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

// save writes results.json; a failure to write is reported but does not
// stop the run: the next visit tries again.
func (r *runner) save() {
	// What engines and targets said may carry a host as it was given,
	// password included: results.json is committed.
	r.out.Stopped = engine.RedactText(r.out.Stopped)
	for _, c := range r.out.Cells {
		c.Reason = engine.RedactText(c.Reason)
		for i, w := range c.Warnings {
			c.Warnings[i] = engine.RedactText(w)
		}
	}
	for i, w := range r.out.Warnings {
		r.out.Warnings[i] = engine.RedactText(w)
	}
	if err := results.Write(r.opt.OutDir, r.out); err != nil {
		fmt.Fprintf(r.log, "error: writing results: %v\n", err)
	}
}

func (r *runner) record(c *results.Cell) {
	r.out.Cells = append(r.out.Cells, c)
	r.save()
	r.progress.Done(c, 1)
}

// resume takes over an earlier run's results: the environment it started
// in, its seed and order, its ceilings, and its cells that are finished
// (failed, or ok with every trial) or partly measured (ok with some
// trials, interleaved); skipped cells are judged again.
func (r *runner) resume(prev *results.Run, cells map[string]bool) {
	env := r.out.Environment
	r.out.Environment = prev.Environment
	r.out.Environment.Resumed = append(prev.Environment.Resumed, env.StartedAt)
	r.out.Environment.HarnessVersion = env.HarnessVersion
	r.out.Images = prev.Images
	if r.out.Images == nil {
		r.out.Images = map[string]*results.BaseImage{}
	}
	r.out.Matrix.Order, r.out.Matrix.Seed = prev.Matrix.Order, prev.Matrix.Seed
	r.interleave, r.seed = prev.Matrix.Order == results.Interleaved, prev.Matrix.Seed
	r.out.Matrix.Blocked, r.blocked = prev.Matrix.Blocked, prev.Matrix.Blocked
	r.out.Ceilings = slices.DeleteFunc(slices.Clone(prev.Ceilings), func(c results.Ceiling) bool { return c.Error != "" })
	r.kept = map[string]*results.Cell{}
	for _, c := range prev.Cells {
		if c == nil || c.Status == results.Skipped || c.Status == results.OK && len(c.Trials) == 0 {
			continue
		}
		if why := r.untrusted(c, cells); why != "" {
			w := fmt.Sprintf("resume: cell %s of results.json not kept (%s); it is measured again", c.ID(), why)
			fmt.Fprintln(r.log, w)
			r.out.Warnings = append(r.out.Warnings, w)
			continue
		}
		r.kept[c.ID()] = c
		r.out.Cells = append(r.out.Cells, c)
	}
}

// keptImages refuses a resume whose partly measured cells ran on images
// the targets' engine no longer has (the run was made on another engine,
// or its images were removed since): their remaining trials would measure
// another build, or fail one by one and take the kept cells' figures with
// them. Cells measured whole need no image and are not asked about.
func (r *runner) keptImages(ctx context.Context) error {
	var gone []string
	for _, id := range slices.Sorted(maps.Keys(r.kept)) {
		c := r.kept[id]
		if c.Image == nil || r.whole(c) {
			continue
		}
		refs := slices.Sorted(maps.Values(c.Image.Services))
		if len(refs) == 0 {
			refs = []string{c.Image.ID}
		}
		for _, ref := range slices.Compact(refs) {
			_, _, ok, err := r.tg.eng.ImageLabels(ctx, ref)
			if err != nil {
				return err
			}
			if !ok {
				gone = append(gone, fmt.Sprintf("%s (image %s)", id, shortID(ref)))
				break
			}
		}
	}
	if len(gone) == 0 {
		return nil
	}
	engine := "the targets' engine"
	if r.tg.name != "" {
		engine += " " + r.tg.name
	}
	return fmt.Errorf("cannot resume: %d cell(s) measured in part ran on images %s no longer has: %s. "+
		"Their remaining trials would measure another build (the run was made on another engine, or its images were removed since), "+
		"so nothing was measured and results.json is as it was; resume on the engine that has the images, or measure again with --force",
		len(gone), engine, strings.Join(gone, ", "))
}

// shortID is an image id as docker images shows it: 12 hex digits.
func shortID(id string) string {
	id = strings.TrimPrefix(id, "sha256:")
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// untrusted says why a cell of the run being resumed is not kept as
// measured ("" when it is): results.json is a file anyone can edit, so a
// cell is kept only if the matrix makes it, once, ok, with no more trials
// than asked, each consistent with itself and with the load asked. A
// failed cell is measured again: a failure cannot be checked from the
// file, and measuring it again costs one visit.
func (r *runner) untrusted(c *results.Cell, cells map[string]bool) string {
	load := r.m.Load.Counted(c.Requests) // the requests axis's count, in place of the load's
	switch {
	case !cells[c.ID()]:
		return "the matrix makes no such cell"
	case r.kept[c.ID()] != nil:
		return "a second copy of a cell"
	case c.Status == results.Failed:
		return "it failed"
	case c.Status != results.OK:
		return fmt.Sprintf("unknown status %q", c.Status)
	case len(c.Trials) > load.Trials:
		return fmt.Sprintf("%d trials where the matrix asks %d", len(c.Trials), load.Trials)
	case !r.interleave && len(c.Trials) < load.Trials:
		return fmt.Sprintf("%d of %d trials, and trials run cell by cell", len(c.Trials), load.Trials)
	}
	for i, t := range c.Trials {
		switch {
		case t.Seconds <= 0 || t.Requests < 0 || t.Errors < 0 || math.IsNaN(t.RPS) || math.IsInf(t.RPS, 0) || t.RPS < 0:
			return fmt.Sprintf("trial %d has impossible figures", i+1)
		case math.Abs(t.RPS-float64(t.Requests)/t.Seconds) > 0.01*t.RPS+1:
			return fmt.Sprintf("trial %d: %s rps is not its %d requests in %.3g s", i+1, numfmt.Sig(t.RPS), t.Requests, t.Seconds)
		case load.Requests > 0 && t.Requests+t.Errors != load.Requests:
			return fmt.Sprintf("trial %d: %d requests where the matrix asks %d", i+1, t.Requests+t.Errors, load.Requests)
		case load.Requests == 0 && (t.Seconds < 0.5*load.Duration.Seconds() || t.Seconds > 2*load.Duration.Seconds()+5):
			return fmt.Sprintf("trial %d lasted %.3g s where the matrix asks %s", i+1, t.Seconds, load.Duration)
		}
	}
	if err := c.Check(); err != nil { // derived figures the file forged (results.Inconsistency)
		return err.Error()
	}
	return ""
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
	if err := r.makeCerts(cells); err != nil {
		return err
	}
	var err error
	if r.lg.lgImage, err = r.buildLoadgen(ctx, r.lg); err != nil {
		return err
	}
	if r.tg.lgImage == "" { // two engines: the ceiling's server runs on the targets'
		if r.tg.lgImage, err = r.ceilingImage(ctx); err != nil {
			return fmt.Errorf("on the targets' engine %s: %w", r.tg.name, err)
		}
	}
	files, env := r.caFiles()
	r.gen, err = startGenerator(ctx, r.lg.eng, engine.ContainerSpec{
		Name: "webbench-" + r.id + "-loadgen", Image: r.lg.lgImage, Files: files, Env: env,
		CPUSet: set.String(), Network: r.network, Labels: r.labels("loadgen", "", ""),
		// Bounded like a target by default: a generator that runs away
		// must not take the machine with it.
		Memory: matrix.DefaultLimits.MemoryBytes, Pids: matrix.DefaultLimits.Pids,
	}) // bombardier (Go) raises its own soft open-files limit to the hard one, which the engine bounds
	if err != nil {
		return err
	}
	var used []string
	r.versions = map[string]string{}
	for _, c := range cells {
		if _, seen := r.versions[c.Generator]; c.Skip == "" && !seen {
			if r.versions[c.Generator], err = r.gen.version(ctx, loadgen.Tools[c.Generator]); err != nil {
				return err
			}
			used = append(used, c.Generator+" "+r.versions[c.Generator])
		}
	}
	r.out.Environment.LoadGenerator = strings.Join(used, ", ")
	// Engines grant different open-files limits (here a hard 20000; 1024
	// soft elsewhere): what a container gets by default is the most a
	// target can be given. With two engines this is the load generator's
	// engine: the targets' is asked in reach.
	r.maxNoFile = r.gen.hardNoFile(ctx)
	if ms := r.out.Environment.Machines; len(ms) > 1 {
		ms[1].CPUModel = cpuModelIn(ctx, r.lg.eng, r.gen.id)
	}
	return nil
}

// ceilingImage puts the load generator image on the targets' engine, where
// the fixed-response server of the ceiling runs: the very image, copied by
// id from the load generator's engine, else built there.
func (r *runner) ceilingImage(ctx context.Context) (string, error) {
	id := r.lg.lgImage
	if r.opt.Copy != nil {
		if _, err := r.opt.Copy(ctx, id, false); err != nil {
			fmt.Fprintf(r.log, "warning: %v\n", err)
		}
	}
	if _, _, ok, _ := r.tg.eng.ImageLabels(ctx, id); ok {
		return id, nil
	}
	return r.buildLoadgen(ctx, r.tg)
}

// buildLoadgen builds the load generator image on s's engine and returns
// its id.
func (r *runner) buildLoadgen(ctx context.Context, s *side) (string, error) {
	args := map[string]string{}
	for _, key := range []string{"debian", "golang"} {
		b := s.resolver.Resolve(ctx, key)
		if s == r.tg {
			r.out.Images[key] = b
		}
		if b.Used == "" {
			return "", fmt.Errorf("load generator base image %s: %s", key, b.Error)
		}
		args[strings.ToUpper(key)+"_IMAGE"] = b.Used
	}
	name := "loadgen"
	if s.name != "" {
		name += "-" + s.name
	}
	logf, err := r.buildLog(name)
	if err != nil {
		return "", err
	}
	defer logf.Close()
	lgContext, err := loadgenContext()
	if err != nil {
		return "", err
	}
	started := time.Now()
	built, err := s.eng.Build(ctx, engine.BuildSpec{Context: lgContext, Dockerfile: "docker/loadgen/Dockerfile",
		Tag: "webbench/loadgen:latest", BuildArgs: args, Labels: map[string]string{engine.LabelRole: "loadgen"}, Log: logf})
	if err != nil {
		return "", fmt.Errorf("build load generator: %w", err)
	}
	if !built.Cached && !built.Warm {
		r.times.Record(buildtime.Loadgen, time.Since(started))
		fmt.Fprintf(r.log, "built image webbench/loadgen:latest%s in %s\n", s.where(), time.Since(started).Round(time.Second))
	}
	return built.ID, nil
}

// cpuModelIn reads the processor's model name inside container id on e:
// the engine's machine's, which need not be this one.
func cpuModelIn(ctx context.Context, e Engine, id string) string {
	res, err := e.Exec(ctx, id, []string{"sh", "-c", "grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2-"})
	if m := strings.TrimSpace(string(res.Stdout)); err == nil && res.ExitCode == 0 && m != "" {
		return m
	}
	return "unknown"
}

// noFile is the open-files limit a container asking for want gets: want,
// or the engine's hard limit when that is lower (a warning says so when
// the matrix asked for more); want 0 is matrix.DefaultNoFile.
func (r *runner) noFile(want int64) (int64, string) {
	explicit := want > 0
	if !explicit {
		want = matrix.DefaultNoFile
	}
	if r.maxNoFile > 0 && want > r.maxNoFile {
		if !explicit {
			return r.maxNoFile, ""
		}
		return r.maxNoFile, fmt.Sprintf("limits.nofile %d is above this engine's hard limit; the target got %d", want, r.maxNoFile)
	}
	return want, ""
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

func (r *runner) buildLog(name string) (*os.File, error) {
	dir := filepath.Join(r.opt.OutDir, "logs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return os.Create(filepath.Join(dir, "build-"+name+".log"))
}

func (r *runner) base(ctx context.Context, key string) *results.BaseImage {
	b := r.tg.resolver.Resolve(ctx, key)
	if _, ok := r.m.Images[key]; ok || key == "debian" || key == "golang" {
		r.out.Images[key] = b
	}
	return b
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

func (nopProgress) Start(int, time.Duration)  {}
func (nopProgress) Phase(matrix.Cell, string) {}
func (nopProgress) Done(*results.Cell, int)   {}
func (nopProgress) Finish()                   {}
