package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/webbench/webbench/harness/buildtime"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/results"
)

// buildParallel is how many targets' images build at once. Much of a
// first build waits on the network (go mod download, apt-get), so a few
// builds side by side finish sooner than one after another even on two
// cores; more only crowd the compilers. A target takes its turn only once
// its base images are there: the stand-ins (a handful, mostly apt-get)
// build side by side beforehand, and a target waiting on one holds no
// turn that another could use.
const buildParallel = 3

// A buildJob is a target, built from one revision, whose runnable cells
// wait on its images.
type buildJob struct {
	t     matrix.Target
	rev   string // its cells' value of the revision axis: what it is built from ("" the work tree)
	cells []matrix.Cell
	slot  int              // its place in the matrix's order, a target's revisions in turn
	done  chan builtTarget // buffered: a build never waits on its reader
}

// builtTarget is what a target's build did, for finishBuild to record.
type builtTarget struct {
	bases   map[string]*results.BaseImage // the base images resolved for it, usable or not
	img     *results.Image
	skipped string // why it could not be built (a base image unavailable); the cells are skipped with it
	failed  string // why the build failed; the cells fail with it
	err     error  // set only when the run is interrupted (or a log cannot be made)
	took    []imageBuild
	began   time.Time // when its first image began to build, once its bases were there; zero if none did
}

// imageBuild is one image built afresh (not from cache) and how long it took.
type imageBuild struct {
	tag  string
	took time.Duration
}

// contextLocks serialise builds of one build context: the targets that
// share a folder (the records API of every serial-* target, the nginx
// front of every fastcgi-* one) build it once and take the rest from the
// engine's cache.
type contextLocks struct {
	mu    sync.Mutex
	locks map[string]*sync.Mutex
}

func (c *contextLocks) lock(dir string) (unlock func()) {
	c.mu.Lock()
	if c.locks == nil {
		c.locks = map[string]*sync.Mutex{}
	}
	l := c.locks[dir]
	if l == nil {
		l = &sync.Mutex{}
		c.locks[dir] = l
	}
	c.mu.Unlock()
	l.Lock()
	return l.Unlock
}

// prepareTargets readies every target in the matrix's order: the cells
// that cannot run are recorded, the others' images are built, up to
// buildParallel targets at a time, with the load generator's image beside
// them; once all are built, startGenerator starts the generator, and each
// target's visits are returned in the matrix's order (or its cells fail
// with the generator's error). It returns an error only when the run is
// interrupted.
func (r *runner) prepareTargets(ctx context.Context, cells []matrix.Cell, startGenerator func() error) ([]*visit, error) {
	byTarget := map[string][]matrix.Cell{}
	for _, c := range cells {
		byTarget[c.Target] = append(byTarget[c.Target], c)
	}
	var slots [][]*visit
	var jobs []*buildJob
	for _, t := range r.opt.Matrix.Targets {
		for _, same := range byRevision(byTarget[t.Name]) {
			job, vs := r.prepareTarget(t, same)
			if job != nil {
				job.slot = len(slots)
				jobs = append(jobs, job)
			}
			slots = append(slots, vs)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // an interrupt stops the builds still running
	warmed := r.warmGenerator(ctx, len(jobs) > 0)
	built, err := r.builds.awaitBuilds(ctx, jobs, cells)
	<-warmed
	if err != nil {
		return nil, err
	}
	loadgenErr := startGenerator()
	if loadgenErr != nil && ctx.Err() != nil {
		return nil, ctx.Err() // an interrupt is no cell's fault: --resume runs them
	}
	if errors.As(loadgenErr, new(stopRun)) {
		return nil, loadgenErr
	}
	for i, j := range jobs {
		if loadgenErr != nil {
			r.ledger.recordUnrun(j.cells, results.Failed, loadgenErr.Error())
			continue
		}
		slots[j.slot] = r.finishBuild(j, built[i])
	}
	return slices.Concat(slots...), nil
}

// stopRun is an error of startGenerator's that stops the whole run (the
// generator cannot reach the targets' engine), where any other fails the
// cells.
type stopRun struct{ err error }

func (s stopRun) Error() string { return s.err.Error() }
func (s stopRun) Unwrap() error { return s.err }

// awaitBuilds builds the jobs' images and waits for them all, in order;
// the estimate of what is left is revised once the first is built.
func (bd *builder) awaitBuilds(ctx context.Context, jobs []*buildJob, cells []matrix.Cell) ([]builtTarget, error) {
	started := time.Now()
	bd.startBuilds(ctx, jobs)
	built := make([]builtTarget, len(jobs))
	var took []imageBuild
	began := time.Now()
	for i, j := range jobs {
		bd.progress.Phase(j.cells[0], "build "+j.t.Name)
		if built[i] = <-j.done; built[i].err != nil {
			return nil, built[i].err
		}
		for _, ib := range built[i].took {
			fmt.Fprintf(bd.log, "built image %s in %s\n", ib.tag, ib.took.Round(time.Second))
		}
		if i == 0 {
			bd.recalibrate(ctx, cells, time.Since(started))
		}
		took = append(took, built[i].took...)
		if b := built[i].began; !b.IsZero() && b.Before(began) {
			began = b
		}
	}
	bd.bookBuilds(took, time.Since(began)) // the stand-ins before it are booked as such
	return built, nil
}

// warmGenerator builds the load generator's image on its engine beside
// the targets' builds (it waits on downloads as they do), so that Start,
// after them, finds it in the engine's cache; a failed build is not tried
// again (side.loadgenFailed), and Start reports it. Nothing to build for a generator given
// (in-process, in tests) or a run with no target to build. The channel
// closes when the build is over.
func (r *runner) warmGenerator(ctx context.Context, builds bool) <-chan struct{} {
	done := make(chan struct{})
	if r.gen.Generator != nil || !builds {
		close(done)
		return done
	}
	g := r.containerGenerator(r.sides.load)
	g.build.images = map[string]*results.BaseImage{} // Start records the run's
	go func() {
		defer close(done)
		g.buildImage(ctx, g.home)
	}()
	return done
}

// startBuilds builds the jobs' images, buildParallel targets at a time,
// each once its base images are resolved.
func (bd *builder) startBuilds(ctx context.Context, jobs []*buildJob) {
	turns := &buildTurns{slots: make(chan struct{}, buildParallel)}
	for _, j := range jobs {
		go func() { j.done <- bd.buildServices(ctx, j, turns) }()
	}
}

// buildTurns is what targets' builds share: turns (buildParallel at
// once) and a lock per build context.
type buildTurns struct {
	slots chan struct{}
	same  contextLocks
}

// take waits for a turn; release gives it back. false: interrupted.
func (b *buildTurns) take(ctx context.Context) bool {
	select {
	case b.slots <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

func (b *buildTurns) release() { <-b.slots }

// finishBuild records a target's build: its cells fail when it failed,
// and become visits when it did not.
func (r *runner) finishBuild(j *buildJob, b builtTarget) []*visit {
	for key, base := range b.bases {
		r.ledger.out.Images[key] = base
	}
	switch {
	case b.skipped != "":
		r.ledger.recordUnrun(j.cells, results.Skipped, b.skipped)
		return nil
	case b.failed != "":
		r.ledger.recordUnrun(j.cells, results.Failed, b.failed)
		return nil
	}
	return r.visitsOf(j.t, j.cells, b.img)
}

// bookBuilds teaches this machine's build times what the images took.
// Builds side by side each take longer than alone, and the estimate adds
// them up; and images differ (a config layer over nginx takes seconds, a Go
// server a minute), while the book keeps one figure per kind. So the run
// is booked once, at its mean: the phase's time (its wall time, or the
// builds' sum when they ran one after another) over the images built.
// Booked image by image, the figure would be the last few images' alone.
func (bd *builder) bookBuilds(took []imageBuild, wall time.Duration) {
	if len(took) == 0 {
		return
	}
	var sum time.Duration
	for _, ib := range took {
		sum += ib.took
	}
	bd.timing.book.Record(buildtime.Image, min(sum, wall)/time.Duration(len(took)))
}

// lineWriter serialises writes to w: the run's log, written by builds
// side by side, each line in one write.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
