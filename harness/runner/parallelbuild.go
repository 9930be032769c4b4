package runner

import (
	"context"
	"fmt"
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
// cores; more only crowd the compilers.
const buildParallel = 3

// A buildJob is a target whose runnable cells wait on its images.
type buildJob struct {
	t     matrix.Target
	cells []matrix.Cell
	bases map[string]*results.BaseImage
	slot  int              // the target's place in the matrix's order
	done  chan builtTarget // buffered: a build never waits on its reader
}

// builtTarget is what a target's build did, for finishBuild to record.
type builtTarget struct {
	img    *results.Image
	failed string // why the build failed; the cells fail with it
	err    error  // set only when the run is interrupted (or a log cannot be made)
	took   []imageBuild
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
// buildParallel targets at a time, and their visits returned in that
// order. It returns an error only when the run is interrupted.
func (r *runner) prepareTargets(ctx context.Context, byTarget map[string][]matrix.Cell, loadgenErr error) ([]*visit, error) {
	var slots [][]*visit
	var jobs []*buildJob
	for _, t := range r.opt.Matrix.Targets {
		job, vs, err := r.prepareTarget(ctx, t, byTarget[t.Name], loadgenErr)
		if err != nil {
			return nil, err
		}
		if job != nil {
			job.slot = len(slots)
			jobs = append(jobs, job)
		}
		slots = append(slots, vs)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // an interrupt stops the builds still running
	started := time.Now()
	r.startBuilds(ctx, jobs)
	var took []imageBuild
	for _, j := range jobs {
		r.opt.Progress.Phase(j.cells[0], "build "+j.t.Name)
		b := <-j.done
		if b.err != nil {
			return nil, b.err
		}
		took = append(took, b.took...)
		slots[j.slot] = r.finishBuild(j, b)
	}
	r.bookBuilds(took, time.Since(started))
	return slices.Concat(slots...), nil
}

// startBuilds builds the jobs' images, buildParallel at a time, in order.
func (r *runner) startBuilds(ctx context.Context, jobs []*buildJob) {
	queue := make(chan *buildJob, len(jobs))
	for _, j := range jobs {
		queue <- j
	}
	close(queue)
	same := &contextLocks{}
	for range min(buildParallel, len(jobs)) {
		go func() {
			for j := range queue {
				j.done <- r.buildServices(ctx, j, same)
			}
		}()
	}
}

// finishBuild records a target's build: its cells fail when it failed,
// and become visits when it did not.
func (r *runner) finishBuild(j *buildJob, b builtTarget) []*visit {
	for _, ib := range b.took {
		fmt.Fprintf(r.opt.Log, "built image %s in %s\n", ib.tag, ib.took.Round(time.Second))
	}
	if b.failed != "" {
		r.recordUnrun(j.cells, results.Failed, b.failed)
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
func (r *runner) bookBuilds(took []imageBuild, wall time.Duration) {
	if len(took) == 0 {
		return
	}
	var sum time.Duration
	for _, ib := range took {
		sum += ib.took
	}
	r.timing.book.Record(buildtime.Image, min(sum, wall)/time.Duration(len(took)))
}
