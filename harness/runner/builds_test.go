package runner

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/webbench/webbench/harness/buildtime"
	"github.com/webbench/webbench/harness/cpuset"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/plan"
	"github.com/webbench/webbench/harness/results"
)

// Two targets built from one folder (study 002's variants of its Go
// service differ only in their environment) build one image: the second is
// the first's cache. The estimate counts it once: one image at 40 s (the
// load generator builds beside it), not two.
func TestBuildEstimateSharedFolder(t *testing.T) {
	text := strings.Replace(twoTargets, "b: {build: b, port: 8080}", "b: {build: a, port: 8080, env: {K: other}}", 1)
	m := testMatrix(t, text, "one", "a")
	book := buildtime.Open(filepath.Join(t.TempDir(), "build-times.json"))
	book.Record(buildtime.Image, 40*time.Second)
	book.Record(buildtime.Loadgen, 40*time.Second)
	var log strings.Builder
	res, err, _ := run(t, newFake(), m, Options{BuildTimes: book, Log: &log})
	if err != nil || len(res.Cells) != 2 {
		t.Fatal(err)
	}
	want := buildsEstimate{Images: 2, Total: 40 * time.Second, Learned: true}
	if !strings.Contains(log.String(), want.String()+"\n") {
		t.Errorf("log lacks the estimate %+v:\n%s", want, log.String())
	}
}

// On two engines the load generator's image is built on its own engine
// and copied to the targets': where the generator's engine has it, the
// estimate counts no build of it (it counted one, and printed minutes for
// a copy), unless nothing can copy it.
func TestBuildEstimateLoadgenCopied(t *testing.T) {
	m := testMatrix(t, twoTargets, "one", "a", "b")
	for _, copies := range []bool{true, false} {
		srv, cli := newFake(), newFake()
		srv.id, cli.id = "server-engine", "client-engine"
		cli.cached = map[string]bool{"webbench/loadgen:latest": true}
		book := buildtime.Open(filepath.Join(t.TempDir(), "build-times.json"))
		book.Record(buildtime.Image, 40*time.Second)
		book.Record(buildtime.Loadgen, 40*time.Second)
		var log strings.Builder
		opt := Options{Machines: twoMachines(), LoadgenEngine: cli.engine(), BuildTimes: book, Log: &log}
		if copies {
			opt.Copy = func(context.Context, string, bool) (bool, error) { return true, nil }
		}
		if _, err, _ := run(t, srv, m, opt); err != nil {
			t.Fatal(err)
		}
		want := buildsEstimate{Images: 2, Total: 80 * time.Second, Learned: true} // a and b
		if !copies {
			want.Images = 3 // and the load generator, beside them
		}
		if !strings.Contains(log.String(), want.String()+"\n") {
			t.Errorf("copies %v: log lacks the estimate %+v:\n%s", copies, want, log.String())
		}
	}
}

// A visit teaches this machine's record how long its target's visits take
// beyond their warm-up and trials, and the next estimate of the target's
// cells uses that, not the default.
func TestVisitOverheadLearned(t *testing.T) {
	m := testMatrix(t, twoTargets, "one", "a", "b") // warm-up 1 s, trials of 1 s
	book := buildtime.Open(filepath.Join(t.TempDir(), "build-times.json"))
	tm := &timing{book: book}
	cells := matrix.Expand(m, nil, cpuset.Set{0, 1})
	tm.bookVisit(m, cells[0], 1, 9*time.Second) // a database seeding itself, say
	if d := tm.visitOverhead(cells[0].Target); d != 7*time.Second {
		t.Errorf("visit overhead of %s: %v, want the 7 s beyond its warm-up and trial", cells[0].Target, d)
	}
	if d := tm.visitOverhead("b"); d != plan.VisitOverhead {
		t.Errorf("visit overhead of b, never visited: %v, want the default", d)
	}
	perVisit := plan.EstimateWith(m, cells[:1], tm.visitOverhead, plan.GuessedRPS, false)
	if perVisit != 9*time.Second {
		t.Errorf("estimate of a's cell: %v, want the 9 s its visit took", perVisit)
	}
}

// A load generator image that fails to build beside the targets' fails
// their cells with the build's error, built once: building it again in
// Start took as long (minutes) to fail alike.
func TestLoadgenBuildFailsOnce(t *testing.T) {
	m := testMatrix(t, twoTargets, "one", "a", "b")
	f := newFake()
	f.buildErr["webbench/loadgen:latest"] = errors.New("step 7: go build: exit 1")
	opt := Options{Matrix: m, Progress: &recorder{}, OutDir: t.TempDir(), LockDir: t.TempDir(),
		BuildTimes: buildtime.Open(filepath.Join(t.TempDir(), "build-times.json"))}
	res, err := start(context.Background(), f.engine(), opt, nil) // the container generator
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Cells {
		if c.Status != results.Failed || !strings.Contains(c.Reason, "build load generator: step 7: go build: exit 1") {
			t.Errorf("%s: %s %q, want failed by the load generator's build", c.ID(), c.Status, c.Reason)
		}
	}
	if builds := f.callsWith("build webbench/loadgen"); len(builds) != 1 {
		t.Errorf("the load generator was built %d times, want once", len(builds))
	}
	if left := f.live(); len(left) > 0 {
		t.Errorf("left on the engine: %v", left)
	}
}
