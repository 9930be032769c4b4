// Package runner owns the life of a run: it expands the matrix into cells,
// builds each target once, and takes every cell through start, readiness,
// verification, warm-up and trials, recording each cell as ok, failed or
// skipped. It talks to the engine through the Engine interface and writes
// results.json as measuring starts and after every trial and visit, beside
// the build logs (logs/build-*.log); rendering is the command's. Nothing
// about one cell stops the next; everything the run creates is removed
// when it ends, even when it is interrupted.
package runner

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	mathrand "math/rand/v2"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/webbench/webbench/harness/baseimage"
	"github.com/webbench/webbench/harness/buildtime"
	"github.com/webbench/webbench/harness/cpuset"
	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/internal/redact"
	"github.com/webbench/webbench/harness/loadgen"
	"github.com/webbench/webbench/harness/lock"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/plan"
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
	Schedule                 // the order of the trials
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
	// More are the engines of Machines.More, in its order, when a cell's
	// load comes from several generators.
	More []MoreEngine
	// Reserve is how many of the single engine's lowest-numbered cores no
	// cell uses (with Machines, each engine's own Reserve counts).
	Reserve int
}

// Schedule is the order in which a run measures its trials.
type Schedule struct {
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
}

// OnMachines returns o set to run on two machines' engines, the load
// generator's being lg, when machines is not nil.
func (o Options) OnMachines(machines *Machines, lg Engine, copy func(ctx context.Context, ref string, toLoadgen bool) (bool, error), more ...MoreEngine) Options {
	if machines != nil && (!lg.none() || len(machines.More) > 0) {
		o.Machines, o.LoadgenEngine, o.Copy, o.More = machines, lg, copy, more
	}
	return o
}

// Machines are the engines of a run that puts targets and the load
// generator on different machines.
type Machines struct {
	Target, Loadgen matrix.EngineSpec
	Link            string // the network between them, as the user describes it
	// More are the further generator engines of a run whose cells' load
	// comes from several, after Loadgen (see fleet). Loadgen or any of
	// them may name the targets' engine.
	More []matrix.EngineSpec
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
// OutDir/results.json as measuring starts and after every trial and cell
// visit, and each build's log to OutDir/logs/build-NAME.log; it also
// teaches the build-time record (Options.BuildTimes) and holds a lock file
// per core it uses (Options.LockDir) while it runs. Rendering is the
// caller's. The error is set only when the run could not start at all or
// was interrupted (ctx.Err()); a cell's failure is recorded in its cell,
// not returned.
func Run(ctx context.Context, eng Engine, opt Options) (*results.Run, error) {
	return start(ctx, eng, opt, nil)
}

// start is Run with gen as the load generator; nil is the container one.
// A duet run's second side gets partner[0] (nil: a container).
func start(ctx context.Context, eng Engine, opt Options, gen Generator, partner ...Generator) (*results.Run, error) {
	r := &runner{opt: opt, gen: startedGenerator{Generator: gen}}
	if len(partner) > 0 {
		r.pair.partner = partner[0]
	}
	var copies bool
	if r.sides, copies = placeSides(eng, opt); !copies {
		r.opt.Copy = nil
	}
	if r.opt.Log == nil {
		r.opt.Log = io.Discard
	}
	r.opt.Log = &lineWriter{w: r.opt.Log} // builds side by side write to it
	if r.opt.Progress == nil {
		r.opt.Progress = nopProgress{}
	}
	r.stage = &stage{target: r.sides.target, gen: &r.gen, log: r.opt.Log}
	r.builds = &builder{m: opt.Matrix, target: r.sides.target, load: r.sides.load, copies: r.opt.Copy != nil, noPull: opt.NoPull,
		outDir: opt.OutDir, log: r.opt.Log, progress: r.opt.Progress, timing: &r.timing}
	r.ledger = &ledger{trials: opt.Matrix.Load.Trials, outDir: opt.OutDir, log: r.opt.Log, progress: r.opt.Progress}
	r.ceilings = &ceilings{m: opt.Matrix, skip: opt.NoCeiling, sides: &r.sides, gen: &r.gen, stage: r.stage, ledger: r.ledger,
		log: r.opt.Log, progress: r.opt.Progress, spec: r.spec, split: r.splitOf}
	return r.run(ctx)
}

// side is one end of a run: the engine its targets run on, or the one its
// load generator runs on. On one engine both ends are one side; on two
// machines each has its own engine, name, cores and address.
type side struct {
	eng           Engine
	name          string // the engines key; "" on one engine
	host          string // the engine's host as the matrix gives it
	address       string // where the other machine reaches this one's host network; "" on one engine
	reserve       int    // lowest cores no cell uses
	info          engine.Info
	cores         cpuset.Set          // what the run's cells use here
	resolver      *baseimage.Resolver // base images on this engine
	loadgenImage  string              // the load generator image's id on this engine, once there
	loadgenFailed error               // why its build here failed: it is not tried again in this run
	// copyIn brings an image to a further generator's engine from the
	// targets' (MoreEngine.Copy); nil for the others.
	copyIn func(ctx context.Context, ref string) (bool, error)
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
	opt      Options          // Matrix, Log and Progress are never nil
	sides    sides            // where the targets and the load generator run
	gen      startedGenerator // the load generator, once started
	order    order            // of the trials
	stage    *stage           // the targets' engine, as the run's containers use it
	ledger   *ledger          // the results, as written to results.json
	timing   timing           // the run's estimate and its actual, per phase, and this machine's build times
	builds   *builder         // of the run's images
	ceilings *ceilings        // the load generator's, measured before the cells
	pair     duetState        // a run of duets' two sides, or a side's place in one (duet.go)
}

// sides are the targets' side and the load generator's: one side on one
// engine.
type sides struct {
	target, load *side
	machines     *Machines // the two machines, when the run spans two; nil on one engine
	// gens are the sides of every load generator, load first: more than
	// one when a cell's load comes from several engines. A generator on
	// the targets' engine has the targets' side.
	gens []*side
}

// network is the run's network: its mode, and the bridge network's name,
// "host", or "none" (shared: the load generator holds the namespace), and
// id when the run made it.
type network struct {
	mode     matrix.Network
	name, id string
}

// startedGenerator is the run's load generator and what it said it runs, once started.
type startedGenerator struct {
	Generator // nil until started
	Started
}

// UnsavedError is a run whose results.json could not be written at its
// end: what it measured is in memory only, so it is no success.
type UnsavedError struct{ Err error }

func (e *UnsavedError) Error() string {
	return "results.json could not be written, so this run's measurements are not on disk: " + e.Err.Error()
}

func (e *UnsavedError) Unwrap() error { return e.Err }

// distinct are the run's distinct sides: the targets', then each load
// generator's that is another engine.
func (ss *sides) distinct() []*side {
	out := []*side{ss.target}
	for _, s := range append([]*side{ss.load}, ss.gens...) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// infraGone says what of the run's own infrastructure vanished: an engine,
// its load generator container, or its network.
func (r *runner) infraGone(ctx context.Context) error {
	for _, s := range r.sides.distinct() {
		if err := s.eng.Host.Ping(ctx); err != nil {
			return err
		}
	}
	if r.gen.Generator != nil {
		if err := r.gen.Alive(ctx); err != nil {
			return err
		}
	}
	if r.stage.network.id != "" {
		if ok, err := r.sides.target.eng.Host.NetworkExists(ctx, r.stage.network.id); err == nil && !ok {
			return fmt.Errorf("the run's network %s vanished (removed by someone, or the engine restarted)", r.stage.network.name)
		}
	}
	return nil
}

// run takes the run through its phases, in order.
func (r *runner) run(ctx context.Context) (*results.Run, error) {
	r.stage.id = newID()
	if err := r.connect(ctx); err != nil {
		return nil, err
	}
	cells, selection, err := r.expand()
	if err != nil {
		return nil, err
	}
	if err := r.duetFits(cells); err != nil {
		return nil, err
	}
	if r.builds.revisions, err = resolveRevisions(ctx, r.opt.Matrix); err != nil {
		return nil, err
	}
	held, err := r.sides.lockCores(ctx, r.opt.LockDir, !r.opt.NoWait, r.opt.Log)
	defer held.Release()
	if err != nil {
		return nil, err
	}
	r.begin(selection)
	// What a killed earlier run left would skew this one (a server still
	// running on the same cores): remove it first. A live run's objects are
	// left alone.
	for _, s := range r.sides.distinct() {
		s.reap(ctx, r.opt.Log)
		r.ledger.out.Warnings = append(r.ledger.out.Warnings, s.foreignContainers(ctx, r.stage.id, r.opt.Log)...)
	}
	defer r.cleanup(ctx)
	r.settleOrder(cells)
	if err := r.ledger.keptImages(ctx, r.sides.target); err != nil {
		return nil, err // before anything is written: the run's folder stays as it was
	}
	standinLog, err := r.builds.buildLog("standins")
	if err != nil {
		return nil, err
	}
	defer standinLog.Close()
	r.resolvers(&lineWriter{w: standinLog}) // stand-ins build side by side
	r.estimate(ctx, cells)
	defer r.opt.Progress.Finish()
	defer r.timing.report(r.opt.Log)
	if err := r.stage.createNetwork(ctx); err != nil {
		return nil, err
	}
	return r.measure(ctx, cells)
}

// SameEngineError is two engine names that reach one engine: the target
// and the load generator would share a machine believed to be two.
type SameEngineError struct {
	Names    [2]string // the targets' engine's and the load generator's
	ID, Root string    // the engine's id and data folder
}

func (e *SameEngineError) Error() string {
	return fmt.Sprintf("engines %s and %s are the same engine (id %s, data in %s): place the target and the load generator on one engine name, or on two machines' engines",
		e.Names[0], e.Names[1], e.ID, e.Root)
}

// connect asks each side's engine what it is, refuses two names of one
// engine, and settles the network mode.
func (r *runner) connect(ctx context.Context) error {
	for _, s := range r.sides.distinct() {
		var err error
		if s.info, err = s.eng.Host.Info(ctx); err != nil {
			return err
		}
	}
	r.stage.network.mode = r.opt.Matrix.Network
	if r.opt.Network != "" {
		r.stage.network.mode = r.opt.Network
	}
	if r.sides.machines == nil {
		return nil
	}
	// The id comes from the host's /etc/docker/key.json: two engines of
	// one host (or of VMs cloned with that file) share it; the data folder
	// tells one from the other.
	all := r.sides.distinct()
	for i, a := range all {
		for _, b := range all[i+1:] {
			if a.info.ID == b.info.ID && a.info.Root == b.info.Root {
				return &SameEngineError{Names: [2]string{a.name, b.name}, ID: a.info.ID, Root: a.info.Root}
			}
		}
	}
	if r.stage.network.mode != matrix.NetworkHost {
		// Two machines: no namespace or bridge spans them, and a published
		// port would put docker-proxy in the path.
		fmt.Fprintf(r.opt.Log, "two engines: targets and the load generator use their machines' host networks (network mode %s does not span machines)\n", r.stage.network.mode)
		r.stage.network.mode = matrix.NetworkHost
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
	if err := r.opt.Matrix.CheckLoadgens(len(r.sides.gens)); err != nil {
		return nil, "", err
	}
	var cells []matrix.Cell
	if r.sides.machines != nil {
		cells = matrix.ExpandApart(r.opt.Matrix, sel, r.sides.target.usable(), r.sides.load.usable())
	} else {
		cells = matrix.Expand(r.opt.Matrix, sel, r.sides.target.usable())
	}
	plan.Unsupported(r.opt.Matrix, cells)
	r.spreadCells(cells)
	selection := Selection(r.opt.Matrix, r.opt.Only, r.stage.network.mode, cells)
	if prev := r.opt.Resume; prev != nil && prev.Selection != selection {
		return nil, "", fmt.Errorf("cannot resume: %s", SelectionDiff(prev, r.opt.Matrix, r.opt.Only, r.stage.network.mode))
	}
	for _, c := range cells {
		if c.Skip == "" {
			r.sides.target.cores = cpuset.Union(r.sides.target.cores, c.TargetCores())
			r.sides.load.cores = cpuset.Union(r.sides.load.cores, c.LoadgenSet)
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
// uses on each engine (one run at a time on a core of an engine), in dir
// ("" is lock.Dir()), or waits for them when wait is set, saying so in
// log. Two engines that report one host id share one lock set:
// they may share the host's cores.
func (ss *sides) lockCores(ctx context.Context, dir string, wait bool, log io.Writer) (heldCores, error) {
	if dir == "" {
		dir = lock.Dir()
	}
	byID, firstOf := map[string]cpuset.Set{}, map[string]string{}
	var ids []string
	for _, s := range ss.distinct() {
		if _, seen := byID[s.info.ID]; seen {
			if other := byID[s.info.ID]; cpuset.Overlaps(other, s.cores) {
				fmt.Fprintf(log, "warning: engines %s and %s report one host id and the run's cores overlap (%s and %s): they may share cores\n",
					firstOf[s.info.ID], s.name, other, s.cores)
			}
		} else {
			ids, firstOf[s.info.ID] = append(ids, s.info.ID), s.name
		}
		byID[s.info.ID] = cpuset.Union(byID[s.info.ID], s.cores)
	}
	say := func(s string) { fmt.Fprintln(log, s) }
	var held heldCores
	for i := len(ids) - 1; i >= 0; i-- { // the load generator's engine first, as always
		h, err := lock.Acquire(ctx, dir, ids[i], byID[ids[i]], wait, say)
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
	info := r.sides.target.info
	r.ledger.out = &results.Run{
		Schema: results.Schema,
		Environment: results.Environment{
			Label: r.opt.Label, Hostname: host, CPUModel: CPUModel(), OnlineCPUs: info.NCPU, Kernel: info.Kernel,
			OS: info.OS, DockerVersion: info.ServerVersion, DockerAPI: info.APIVersion, StorageDriver: info.Driver,
			HarnessVersion: r.opt.HarnessVersion, StartedAt: time.Now().UTC().Truncate(time.Second), NetworkMode: results.Network(r.stage.network.mode),
		},
		Matrix:    SettingsOf(r.opt.Matrix, r.opt.Only),
		Selection: selection,
		Images:    map[string]*results.BaseImage{},
		Cells:     []*results.Cell{},
	}
	r.ledger.out.Matrix.NoCeiling = r.opt.NoCeiling
	if r.sides.machines != nil {
		r.ledger.out.Environment.Hostname = info.Name
		r.ledger.out.Environment.Link = r.sides.machines.Link
		r.ledger.out.Environment.Machines = []results.Machine{machine(results.RoleTarget, r.sides.target)}
		for _, s := range r.sides.gens {
			r.ledger.out.Environment.Machines = append(r.ledger.out.Environment.Machines, machine(results.RoleLoadgen, s))
		}
	}
}

// settleOrder settles the order of trials (interleaved rounds, or cell by cell)
// and takes over what a run being resumed measured, and its order.
func (r *runner) settleOrder(cells []matrix.Cell) {
	r.order.interleave = !r.opt.Sequential && r.opt.Matrix.Load.Trials > 1
	if r.order.interleave {
		r.order.seed = r.opt.Seed
		if r.order.seed == 0 {
			r.order.seed = mathrand.Uint64()
		}
		r.ledger.out.Matrix.Order, r.ledger.out.Matrix.Seed = results.Interleaved, r.order.seed
		if r.order.duet = duets(cells); r.order.duet {
			r.ledger.out.Matrix.Order = results.Duet
		}
		r.order.blocked = !r.opt.Unblocked
		r.ledger.out.Matrix.Blocked = r.order.blocked
	} else {
		r.ledger.out.Matrix.Order = results.Sequential
	}
	if prev := r.opt.Resume; prev != nil {
		made := map[string]bool{}
		for _, c := range cells {
			if c.Skip == "" {
				made[c.ID()] = true
			}
		}
		r.ledger.resume(prev, made, r.opt.Matrix)
		r.order.interleave, r.order.seed = prev.Matrix.Order == results.Interleaved || prev.Matrix.Order == results.Duet, prev.Matrix.Seed
		r.order.duet = prev.Matrix.Order == results.Duet
		r.order.blocked = prev.Matrix.Blocked
	}
}

// resolvers gives each side a resolver of base images, which copies from
// the other side's engine when the run has two and a way to copy.
func (r *runner) resolvers(standinLog io.Writer) {
	images := maps.Clone(LoadgenImages)
	maps.Copy(images, r.opt.Matrix.Images)
	if r.timing.book = r.opt.BuildTimes; r.timing.book == nil {
		r.timing.book = buildtime.Open(buildtime.Path())
	}
	for _, s := range r.sides.distinct() {
		opt := baseimage.Options{Log: r.opt.Log, BuildLog: standinLog, NoPull: r.opt.NoPull, Times: r.timing.book, Copy: s.copyIn}
		if toLoadgen := s == r.sides.load; r.opt.Copy != nil && (toLoadgen || s == r.sides.target) {
			opt.Copy = func(ctx context.Context, ref string) (bool, error) { return r.opt.Copy(ctx, ref, toLoadgen) }
		}
		s.resolver = baseimage.NewResolver(s.eng.Images, images, opt)
	}
}

// estimate tells the progress display how much work the run has and how
// long it should take.
func (r *runner) estimate(ctx context.Context, cells []matrix.Cell) {
	units := 0
	for _, c := range cells {
		per := 1
		if c.Skip == "" && r.order.interleave {
			per = r.opt.Matrix.Load.Trials
		}
		if old := r.ledger.kept[c.ID()]; old != nil {
			switch {
			case old.Status == results.Failed || r.ledger.whole(old):
				per = 0
			case r.order.interleave:
				per -= min(len(old.Trials), per)
			} // cell by cell, a cell measured in part has its one visit to come
		}
		units += per
	}
	r.timing.unlikely = map[string]bool{}
	r.timing.estBuilds = r.builds.buildEstimate(ctx, cells, true)
	r.timing.estCells = plan.EstimateWith(r.opt.Matrix, r.timing.likely(cells), r.timing.visitOverhead, plan.GuessedRPS, r.order.interleave) +
		r.ceilings.estimate(r.timing.likely(cells))
	r.opt.Progress.Start(units, r.timing.estBuilds+r.timing.estCells)
}

// measure starts the load generator, builds each target, measures the
// ceilings and then every cell's visits, saving as it goes.
func (r *runner) measure(ctx context.Context, cells []matrix.Cell) (*results.Run, error) {
	// From the start: a run killed before it saved anything else (builds
	// take minutes) leaves a results.json that --resume takes.
	r.ledger.save()
	stop := func(err error) (*results.Run, error) {
		if ctx.Err() != nil {
			r.ledger.out.Interrupted = true
		} else {
			r.ledger.out.Stopped = err.Error()
		}
		r.ledger.save()
		return r.ledger.out, err
	}
	started := time.Now()
	defer func() { r.timing.builds = time.Since(started) - r.timing.cells }()
	runnable, err := r.prepareTargets(ctx, cells, func() error {
		running, loadgenErr := r.startGenerator(ctx, cells)
		if loadgenErr == nil && r.sides.machines != nil && running { // no load generator: no cell can run, nothing to reach
			if err := r.reach(ctx); err != nil {
				return stopRun{err}
			}
		}
		return loadgenErr
	})
	var stopped stopRun
	switch {
	case errors.As(err, &stopped):
		r.ledger.out.Stopped = stopped.Error()
		r.ledger.save()
		return r.ledger.out, stopped.err
	case err != nil:
		r.ledger.out.Interrupted = true
		r.ledger.save()
		return r.ledger.out, err
	}
	measuring := time.Now()
	defer func() { r.timing.cells = time.Since(measuring) }()
	if err := r.ceilings.measure(ctx, runnable); err != nil {
		r.ledger.out.Interrupted = true
		r.ledger.save()
		return r.ledger.out, err
	}
	if err := r.schedule(ctx, cells, runnable); err != nil {
		return stop(err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	r.ledger.out.FinishedAt = &now
	r.ledger.save()
	if r.ledger.unsaved != nil {
		return r.ledger.out, &UnsavedError{Err: r.ledger.unsaved}
	}
	return r.ledger.out, nil
}

// reap removes from s's engine what killed earlier runs left, saying so
// in log.
func (s *side) reap(ctx context.Context, log io.Writer) {
	gone, err := s.eng.Host.Reap(ctx, false)
	if err != nil {
		fmt.Fprintf(log, "warning: reaping leftovers of earlier runs%s: %v\n", s.where(), err)
		return
	}
	if len(gone) == 0 {
		return
	}
	fmt.Fprintf(log, "removed leftovers of earlier runs%s: %s\n", s.where(), leftovers(gone))
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
	return results.Machine{Role: role, Engine: s.name, Host: redact.URL(s.host), Address: s.address,
		Hostname: info.Name, OnlineCPUs: info.NCPU, Reserved: s.reserve, Kernel: info.Kernel, OS: info.OS,
		DockerVersion: info.ServerVersion, StorageDriver: info.Driver}
}

// foreignContainers warns, in log and in what it returns, of running
// containers on s's engine that are not run runID's and may use its cores
// there: pinned to one of them, or
// not pinned at all.
func (s *side) foreignContainers(ctx context.Context, runID string, log io.Writer) []string {
	cores := s.cores // on one engine, the targets' and the load generator's
	running, err := s.eng.Host.RunningContainers(ctx)
	if err != nil {
		return []string{"could not list the containers" + s.where() + ": " + err.Error()}
	}
	var out []string
	for _, c := range running {
		if c.Labels[engine.LabelRun] == runID {
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
		fmt.Fprintln(log, "warning:", w)
	}
	return out
}

// cleanup removes what the run created, even when ctx was cancelled.
func (r *runner) cleanup(ctx context.Context) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	for _, g := range []Generator{r.gen.Generator, r.pair.lanes[1].generator()} {
		if g != nil {
			if err := g.Close(cctx); err != nil {
				fmt.Fprintf(r.opt.Log, "warning: %v\n", err)
			}
		}
	}
	if err := r.sides.target.eng.Host.RemoveNetwork(cctx, r.stage.network.id); err != nil {
		fmt.Fprintf(r.opt.Log, "warning: %v\n", err)
	}
	for _, s := range r.sides.distinct() {
		if s.resolver != nil {
			s.resolver.Close()
		}
	}
}

// startGenerator starts the run's load generator on the cores of the first
// cell to run, for the tools the run's cells use, and records what it
// runs; running is false when no cell runs.
func (r *runner) startGenerator(ctx context.Context, cells []matrix.Cell) (running bool, err error) {
	set, tools := runTools(cells)
	var used []string
	if set == nil {
		return false, nil // nothing will run
	}
	if err := r.stage.makeCerts(cells, r.opt.Matrix.Targets); err != nil {
		return false, err
	}
	if r.gen.Generator == nil {
		r.gen.Generator = r.loadGenerator()
	}
	if r.gen.Started, err = r.gen.Start(ctx, set, tools); err != nil {
		return false, err
	}
	for _, tool := range tools {
		used = append(used, tool.Name()+" "+r.gen.Versions[tool.Name()])
	}
	r.ledger.out.Environment.LoadGenerator = strings.Join(used, ", ")
	r.gen.models(r.ledger.out.Environment.Machines)
	return true, nil
}

// runTools are the cores of the first cell to run and the tools of every
// cell that runs, each once; set is nil when no cell runs.
func runTools(cells []matrix.Cell) (set cpuset.Set, tools []loadgen.Tool) {
	for _, c := range cells {
		if c.Skip != "" {
			continue
		}
		if set == nil {
			set = c.LoadgenSet
		}
		if tool := loadgen.Tools[c.Generator]; !slices.Contains(tools, tool) {
			tools = append(tools, tool)
		}
	}
	return set, tools
}

// containerGenerator is a load generator as a container on home, the
// load generator's engine or a further generator's.
func (r *runner) containerGenerator(home *side) *containerGenerator {
	files, env := r.stage.caFiles()
	copy := r.opt.Copy
	if home != r.sides.load {
		copy = nil // the first generator puts its image on the targets' engine
	}
	return &containerGenerator{
		spec: generatorSpec(r.stage.id, r.stage.network.name, r.stage.labels("loadgen", "", ""), files, env),
		home: home, targets: r.sides.target,
		build: loadgenBuild{log: r.opt.Log, logTo: r.builds.buildLog, times: r.timing.book, images: r.ledger.out.Images, copy: copy},
	}
}

// noFile is the open-files limit a container asking for want gets: want,
// or the engine's hard limit when that is lower (a warning says so when
// the matrix asked for more); want 0 is matrix.DefaultNoFile.
func (g *startedGenerator) noFile(want int64) (int64, string) {
	explicit := want > 0
	if !explicit {
		want = matrix.DefaultNoFile
	}
	if most := g.MaxNoFile; most > 0 && want > most {
		if !explicit {
			return most, ""
		}
		return most, fmt.Sprintf("limits.nofile %d is above this engine's hard limit; the target got %d", want, most)
	}
	return want, ""
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
