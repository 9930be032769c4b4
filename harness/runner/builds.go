package runner

import (
	"context"
	"fmt"
	"github.com/webbench/webbench/harness/internal/safefile"
	"github.com/webbench/webbench/harness/results"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/webbench/webbench/harness/baseimage"
	"github.com/webbench/webbench/harness/buildtime"
	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/plan"
	"github.com/webbench/webbench/harness/revision"
)

// builder builds a run's images on the targets' engine, several at once,
// and says beforehand what it will build and about how long that takes
// here: the targets' images, on the base images resolved for them (a
// stand-in when the engine lacks one), and the load generator's, which
// it only estimates (the generator builds it). Each build's log is a file
// of the run's logs folder; what builds took teaches timing's book.
type builder struct {
	m            *matrix.Matrix
	target, load *side // the targets' engine's side and the load generator's
	copies       bool  // the run copies images to the targets' engine from the generator's (Options.Copy)
	noPull       bool  // never try a registry for a base image
	outDir       string
	log          io.Writer
	progress     Progress
	timing       *timing                      // the run's estimates and this machine's build times
	revisions    map[string]revision.Revision // the revision axis's values, resolved, by name
}

// buildEstimate says, before anything is built, which stand-ins and images
// the run will build (cached ones excluded) and about how long that takes
// on this machine, and returns that time for the run's estimate. A base
// image that a pull provides instead makes it an overestimate.
func (bd *builder) buildEstimate(ctx context.Context, cells []matrix.Cell, say bool) time.Duration {
	runs, keys, unlikely := bd.likelyBuilt(ctx, cells)
	var kinds []buildtime.Kind
	for k := range keys {
		kinds = append(kinds, bd.target.resolver.Pending(ctx, k)...)
	}
	standIns := len(kinds)
	used := func(key string) string { return bd.likelyBase(ctx, bd.target, key) }
	if bd.loadgenPending(ctx) {
		kinds = append(kinds, buildtime.Loadgen)
	}
	built := map[string]bool{} // a folder several targets share is built once, then cached
	for _, t := range bd.m.Targets {
		if !runs[t.Name] {
			continue
		}
		for _, svc := range t.Services {
			if built[svc.Build] {
				continue
			}
			built[svc.Build] = true
			args := map[string]string{}
			for _, key := range svc.Images {
				args[strings.ToUpper(key)+"_IMAGE"] = used(key)
			}
			cached, err := bd.target.eng.Images.Cached(ctx, engine.BuildSpec{Context: os.DirFS(svc.Build), Tag: imageTag(t, svc), BuildArgs: args})
			if err != nil || !cached {
				kinds = append(kinds, buildtime.Image)
			}
		}
	}
	if len(kinds) == 0 {
		return 0
	}
	total, learned := bd.timing.book.Estimate(kinds)
	bd.timing.learned = learned
	if !say {
		return total
	}
	fmt.Fprintln(bd.log, buildsEstimate{StandIns: standIns, Images: len(kinds) - standIns, Total: total, Learned: learned, Unlikely: unlikely})
	return total
}

// likelyBase is what image key's build argument will most likely be on
// s's engine, which decides an image's hash.
func (bd *builder) likelyBase(ctx context.Context, s *side, key string) string {
	ref := bd.m.Images[key]
	if ref == "" {
		ref = LoadgenImages[key]
	}
	return baseimage.Likely(ctx, s.eng.Images, key, ref)
}

// loadgenPending says whether the run will build the load generator's
// image: where its engine lacks it, or, on two engines, where the
// targets' engine lacks it and nothing copies it there from the
// generator's (a copy is no build).
func (bd *builder) loadgenPending(ctx context.Context) bool {
	files, err := loadgenContext()
	if err != nil {
		return false
	}
	cached := func(s *side) bool {
		spec := engine.BuildSpec{Context: files, Dockerfile: "docker/loadgen/Dockerfile", Tag: "webbench/loadgen:latest",
			BuildArgs: map[string]string{"DEBIAN_IMAGE": bd.likelyBase(ctx, s, "debian"), "GOLANG_IMAGE": bd.likelyBase(ctx, s, "golang")}}
		ok, err := s.eng.Images.Cached(ctx, spec)
		return err == nil && ok
	}
	if !cached(bd.load) {
		return true
	}
	return bd.load != bd.target && !bd.copies && !cached(bd.target)
}

// buildsEstimate is what the run says it will build before measuring, and
// about how long that takes; String words it for the log.
type buildsEstimate struct {
	StandIns, Images int
	Total            time.Duration
	Learned          bool // from this machine's earlier builds only, no documented default
	Unlikely         int  // targets not counted: no base image, nothing stands in
}

func (e buildsEstimate) String() string {
	how := "from this machine's earlier builds"
	if !e.Learned {
		how = "partly from documented defaults: this machine has not built every kind yet; revised after its first build"
	}
	if e.Unlikely > 0 {
		how += fmt.Sprintf("; not counting %d target(s) whose base images the engine lacks and nothing stands in for", e.Unlikely)
	}
	return fmt.Sprintf("to build before measuring: %d stand-in step(s) and %d image(s), about %s (%s)", e.StandIns, e.Images, e.Total.Round(time.Second), how)
}

// likelyBuilt are the targets whose images the run will most likely
// build, and the base images they and the load generator are built on. A
// target whose base image the engine lacks and that has no stand-in will
// most likely be skipped (no registry): it is not counted (where a pull
// provides the image, that is an underestimate), and unlikely counts it.
func (bd *builder) likelyBuilt(ctx context.Context, cells []matrix.Cell) (runs, keys map[string]bool, unlikely int) {
	keys = map[string]bool{"debian": true, "golang": true} // the load generator's
	runs = map[string]bool{}
	for _, c := range cells {
		if c.Skip == "" {
			runs[c.Target] = true
		}
	}
	for _, t := range bd.m.Targets {
		if !runs[t.Name] {
			continue
		}
		for _, k := range t.Images() {
			if ref := bd.m.Images[k]; !baseimage.HasStandIn(k) {
				if _, _, ok, _ := bd.target.eng.Images.ImageLabels(ctx, ref); !ok {
					runs[t.Name] = false
					unlikely++
					bd.timing.unlikely[t.Name] = true
					break
				}
			}
		}
		if runs[t.Name] {
			for _, k := range t.Images() {
				keys[k] = true
			}
		}
	}
	return runs, keys, unlikely
}

// timing is a run's estimate beside its actual, per phase: builds (base
// images, stand-ins, the load generator and the targets' images, with the
// containers' start) and cells (ceilings and every visit).
type timing struct {
	estBuilds, revised, estCells time.Duration
	builds, cells                time.Duration
	learned                      bool // estBuilds used no default
	hasRevised                   bool
	unlikely                     map[string]bool // targets not counted: no base image, no stand-in
	book                         *buildtime.Book // this machine's build times
}

// likely are the cells not of a target the estimate expects skipped.
func (t *timing) likely(cells []matrix.Cell) []matrix.Cell {
	return slices.DeleteFunc(slices.Clone(cells), func(c matrix.Cell) bool { return t.unlikely[c.Target] })
}

// report prints the estimate beside the actual, so that a user sees how far
// to trust the next one.
func (t *timing) report(w io.Writer) {
	if t.builds == 0 && t.cells == 0 {
		return
	}
	off := func(est, actual time.Duration) string {
		if actual < time.Second { // a share of nothing ("builds 0s, took 0s (-100%)") says nothing
			return ""
		}
		return fmt.Sprintf(" (%+.0f%%)", 100*(est.Seconds()-actual.Seconds())/actual.Seconds())
	}
	rd := func(d time.Duration) time.Duration { return d.Round(time.Second) }
	revised := ""
	if t.hasRevised {
		revised = fmt.Sprintf(", revised to %s after the first build", rd(t.revised))
	}
	fmt.Fprintf(w, "estimate against actual: builds %s%s, took %s%s; cells %s, took %s%s; in all %s, took %s%s\n",
		rd(t.estBuilds), revised, rd(t.builds), off(t.estBuilds, t.builds),
		rd(t.estCells), rd(t.cells), off(t.estCells, t.cells),
		rd(t.estBuilds+t.estCells), rd(t.builds+t.cells), off(t.estBuilds+t.estCells, t.builds+t.cells))
}

// recalibrate revises the build estimate once the first build of a kind
// this machine had never built has calibrated the defaults (the first
// stand-in step, on an empty engine): what is left to build, at this
// machine's measured speed.
func (bd *builder) recalibrate(ctx context.Context, cells []matrix.Cell, elapsed time.Duration) {
	from, factor, ok := bd.timing.book.Calibration()
	if !ok || bd.timing.learned || bd.timing.estBuilds == 0 || bd.timing.hasRevised {
		return
	}
	left := bd.buildEstimate(ctx, cells, false)
	bd.timing.revised, bd.timing.hasRevised = elapsed+left, true
	fmt.Fprintf(bd.log, "builds left: about %s, %s in all (the first %s build here took %.2f× its default; the other defaults are scaled by that)\n",
		left.Round(time.Second), (elapsed + left).Round(time.Second), from, factor)
}

// visitOverhead is how long a visit of target takes here beyond its load:
// learned from its earlier visits, else the documented default.
func (t *timing) visitOverhead(target string) time.Duration {
	if t.book == nil {
		return plan.VisitOverhead
	}
	return t.book.Visit(target, plan.VisitOverhead)
}

// bookVisit teaches this machine's record what a visit of c's target took
// beyond its warm-up and trials. A request-count load has no known length,
// so its visits teach nothing.
func (t *timing) bookVisit(m *matrix.Matrix, c matrix.Cell, trials int, took time.Duration) {
	load := matrix.CellLoad(m, c)
	if t.book == nil || load.Requests > 0 {
		return
	}
	t.book.RecordVisit(c.Target, took-load.Warmup-time.Duration(trials)*load.Duration)
}

// targetBases resolves the base images t's services are built on, or says
// why t cannot be built. It runs beside other targets' builds: the bases
// it saw are recorded in the run by finishBuild.
func (bd *builder) targetBases(ctx context.Context, t matrix.Target) (map[string]*results.BaseImage, string) {
	bases := map[string]*results.BaseImage{}
	for _, key := range t.Images() {
		b := bd.target.resolver.Resolve(ctx, key)
		bases[key] = b
		if b.Used == "" {
			return bases, fmt.Sprintf("base image %s (%s) unavailable: %s (the engine's words: base_images.%s.error in results.json)",
				key, b.Official, results.ShortCause(b.Error), key)
		}
	}
	// A base a Dockerfile names directly (FROM python:3.12-slim) is not the
	// harness's to stand in for: the engine has it, or pulls it, or the
	// target is skipped naming it and the fix, before any build.
	for _, ref := range t.Undeclared() {
		if why := bd.undeclaredBase(ctx, ref); why != "" {
			return nil, fmt.Sprintf("its Dockerfile names %s in FROM, which is not under images: and %s; %s", ref, why, matrix.UndeclaredFix(ref))
		}
	}
	return bases, ""
}

// buildServices builds each service of j's target on the targets' engine,
// on the base images resolved for it, in its turn; builds of one context
// wait for each other, so that the second is served from the first's
// cache. It runs beside other targets' builds, so it changes nothing of
// the run's: what it did is in the result, for finishBuild to record.
func (bd *builder) buildServices(ctx context.Context, j *buildJob, turns *buildTurns) (b builtTarget) {
	t := j.t
	bases, why := bd.targetBases(ctx, t)
	b.bases = bases
	if why != "" {
		if b.err = ctx.Err(); b.err == nil {
			b.skipped = why
		}
		return b
	}
	if !turns.take(ctx) {
		b.err = ctx.Err()
		return b
	}
	defer turns.release()
	b.img = &results.Image{Bases: slices.Collect(maps.Values(bases)), Services: map[string]string{}}
	slices.SortFunc(b.img.Bases, func(x, y *results.BaseImage) int { return strings.Compare(x.Key, y.Key) })
	for _, svc := range t.Services {
		args := map[string]string{}
		for _, key := range svc.Images {
			args[strings.ToUpper(key)+"_IMAGE"] = bases[key].Used
		}
		name, tag := t.Name, bd.revisionTag(imageTag(t, svc), j.rev)
		if len(t.Services) > 1 {
			name = t.Name + "-" + svc.Name
		}
		files, err := bd.contextOf(ctx, j.rev, svc.Build)
		if err != nil {
			b.failed = err.Error()
			return b
		}
		logf, err := bd.buildLog(logName(name, j.rev))
		if err != nil {
			b.err = err
			return b
		}
		unlock := turns.same.lock(svc.Build)
		started := time.Now()
		if b.began.IsZero() {
			b.began = started
		}
		built, err := bd.target.eng.Images.Build(ctx, engine.BuildSpec{Context: files, Tag: tag, BuildArgs: args,
			Labels: map[string]string{engine.LabelRole: "target", engine.LabelTarget: t.Name}, Log: logf})
		unlock()
		logf.Close()
		if err != nil {
			if ctx.Err() != nil {
				b.err = ctx.Err()
				return b
			}
			what := "build failed"
			if len(t.Services) > 1 {
				what = "build of service " + svc.Name + " failed"
			}
			b.failed = fmt.Sprintf("%s (log: %s): %v", what, logf.Name(), err)
			return b
		}
		if !built.Cached && !built.Warm { // a warm rebuild teaches nothing about a first one
			b.took = append(b.took, imageBuild{tag, time.Since(started)})
		}
		b.img.Services[svc.Name] = built.ID
		if size, err := bd.target.eng.Images.ImageSize(ctx, built.ID); err == nil {
			if b.img.Sizes == nil {
				b.img.Sizes = map[string]int64{}
			}
			b.img.Sizes[svc.Name] = size
		}
	}
	b.img.ID = b.img.Services[t.Entry]
	return b
}

// undeclaredBase says why ref, a base image no images key declares, is not
// to be had ("" when the engine has it or pulled it).
func (bd *builder) undeclaredBase(ctx context.Context, ref string) string {
	_, _, have, err := bd.target.eng.Images.ImageLabels(ctx, ref)
	switch {
	case err != nil:
		return "the engine could not be asked for it: " + results.ShortCause(err.Error())
	case have:
		return ""
	case bd.noPull:
		return "the engine does not have it (--no-pull)"
	}
	if err := bd.target.eng.Images.Pull(ctx, ref); err != nil {
		return "the engine does not have it and could not pull it (" + results.ShortCause(err.Error()) + ")"
	}
	return ""
}

// buildLog makes the log of build name, logs/build-NAME.log in the run's
// folder.
func (bd *builder) buildLog(name string) (*os.File, error) {
	dir := filepath.Join(bd.outDir, "logs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return safefile.Create(filepath.Join(dir, "build-"+name+".log")) // a linked log is refused, not truncated
}
