package runner

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/webbench/webbench/harness/baseimage"
	"github.com/webbench/webbench/harness/buildtime"
	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/plan"
)

// buildEstimate says, before anything is built, which stand-ins and images
// the run will build (cached ones excluded) and about how long that takes
// on this machine, and returns that time for the run's estimate. A base
// image that a pull provides instead makes it an overestimate.
func (r *runner) buildEstimate(ctx context.Context, cells []matrix.Cell, say bool) time.Duration {
	runs, keys, unlikely := r.likelyBuilt(ctx, cells)
	var kinds []buildtime.Kind
	for k := range keys {
		kinds = append(kinds, r.sides.target.resolver.Pending(ctx, k)...)
	}
	standIns := len(kinds)
	used := func(key string) string { return r.likelyBase(ctx, r.sides.target, key) }
	if r.loadgenPending(ctx) {
		kinds = append(kinds, buildtime.Loadgen)
	}
	built := map[string]bool{} // a folder several targets share is built once, then cached
	for _, t := range r.opt.Matrix.Targets {
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
			cached, err := r.sides.target.eng.Images.Cached(ctx, engine.BuildSpec{Context: os.DirFS(svc.Build), Tag: imageTag(t, svc), BuildArgs: args})
			if err != nil || !cached {
				kinds = append(kinds, buildtime.Image)
			}
		}
	}
	if len(kinds) == 0 {
		return 0
	}
	total, learned := r.timing.book.Estimate(kinds)
	r.timing.learned = learned
	if !say {
		return total
	}
	fmt.Fprintln(r.opt.Log, buildsEstimate{StandIns: standIns, Images: len(kinds) - standIns, Total: total, Learned: learned, Unlikely: unlikely})
	return total
}

// likelyBase is what image key's build argument will most likely be on
// s's engine, which decides an image's hash.
func (r *runner) likelyBase(ctx context.Context, s *side, key string) string {
	ref := r.opt.Matrix.Images[key]
	if ref == "" {
		ref = LoadgenImages[key]
	}
	return baseimage.Likely(ctx, s.eng.Images, key, ref)
}

// loadgenPending says whether the run will build the load generator's
// image: where its engine lacks it, or, on two engines, where the
// targets' engine lacks it and nothing copies it there from the
// generator's (a copy is no build).
func (r *runner) loadgenPending(ctx context.Context) bool {
	files, err := loadgenContext()
	if err != nil {
		return false
	}
	cached := func(s *side) bool {
		spec := engine.BuildSpec{Context: files, Dockerfile: "docker/loadgen/Dockerfile", Tag: "webbench/loadgen:latest",
			BuildArgs: map[string]string{"DEBIAN_IMAGE": r.likelyBase(ctx, s, "debian"), "GOLANG_IMAGE": r.likelyBase(ctx, s, "golang")}}
		ok, err := s.eng.Images.Cached(ctx, spec)
		return err == nil && ok
	}
	if !cached(r.sides.load) {
		return true
	}
	return r.sides.load != r.sides.target && r.opt.Copy == nil && !cached(r.sides.target)
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
func (r *runner) likelyBuilt(ctx context.Context, cells []matrix.Cell) (runs, keys map[string]bool, unlikely int) {
	keys = map[string]bool{"debian": true, "golang": true} // the load generator's
	runs = map[string]bool{}
	for _, c := range cells {
		if c.Skip == "" {
			runs[c.Target] = true
		}
	}
	for _, t := range r.opt.Matrix.Targets {
		if !runs[t.Name] {
			continue
		}
		for _, k := range t.Images() {
			if ref := r.opt.Matrix.Images[k]; !baseimage.HasStandIn(k) {
				if _, _, ok, _ := r.sides.target.eng.Images.ImageLabels(ctx, ref); !ok {
					runs[t.Name] = false
					unlikely++
					r.timing.unlikely[t.Name] = true
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
func (r *runner) recalibrate(ctx context.Context, cells []matrix.Cell, elapsed time.Duration) {
	from, factor, ok := r.timing.book.Calibration()
	if !ok || r.timing.learned || r.timing.estBuilds == 0 || r.timing.hasRevised {
		return
	}
	left := r.buildEstimate(ctx, cells, false)
	r.timing.revised, r.timing.hasRevised = elapsed+left, true
	fmt.Fprintf(r.opt.Log, "builds left: about %s, %s in all (the first %s build here took %.2f× its default; the other defaults are scaled by that)\n",
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
