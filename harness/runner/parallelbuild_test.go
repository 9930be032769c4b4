package runner

import (
	"context"
	"io"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/webbench/webbench/harness/buildtime"
)

// Builds of one context take turns; builds of two contexts do not wait
// on each other.
func TestContextLocks(t *testing.T) {
	var same contextLocks
	unlockA := same.lock("targets/a")
	other := make(chan struct{})
	go func() { same.lock("targets/b")(); close(other) }()
	<-other // another context locks while a is held (else this test hangs)

	var mu sync.Mutex
	held, most := 0, 0
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			unlock := same.lock("targets/a")
			mu.Lock()
			held++
			most = max(most, held)
			mu.Unlock()
			time.Sleep(time.Millisecond)
			mu.Lock()
			held--
			mu.Unlock()
			unlock()
		}()
	}
	unlockA()
	wg.Wait()
	if most != 1 {
		t.Errorf("%d builds of one context at once, want 1", most)
	}
}

// Side by side, three builds of 60 s that ended in 60 s of wall time are
// booked at 20 s each, so that the estimate's sum gives the 60 s again;
// builds one after another are booked as they took; unlike images are
// booked at their mean, whichever was built last.
func TestBookBuildsShares(t *testing.T) {
	for _, tc := range []struct {
		name string
		took []time.Duration
		wall time.Duration
		want time.Duration
	}{
		{"side by side", []time.Duration{time.Minute, time.Minute, time.Minute}, 60 * time.Second, 20 * time.Second},
		{"one after another", []time.Duration{time.Minute, time.Minute, time.Minute}, 180 * time.Second, 60 * time.Second},
		// the slow one built first: the mean, not the small last ones
		{"unlike images", []time.Duration{100 * time.Second, 10 * time.Second, 10 * time.Second}, 120 * time.Second, 40 * time.Second},
	} {
		b := &builder{timing: &timing{book: buildtime.Open(filepath.Join(t.TempDir(), "times.json"))}}
		var took []imageBuild
		for i, d := range tc.took {
			took = append(took, imageBuild{string(rune('a' + i)), d})
		}
		b.bookBuilds(took, tc.wall)
		got, learned := b.timing.book.Guess(buildtime.Image)
		if !learned || got.Round(time.Second) != tc.want {
			t.Errorf("%s: booked %s (learned %v), want %s", tc.name, got, learned, tc.want)
		}
	}
}

// Turns: buildParallel at once, the next only when one is given back; an
// interrupt ends the wait for one.
func TestBuildTurns(t *testing.T) {
	turns := &buildTurns{slots: make(chan struct{}, buildParallel)}
	for i := range buildParallel {
		if !turns.take(context.Background()) {
			t.Fatalf("turn %d refused", i+1)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if turns.take(ctx) {
		t.Errorf("a turn past %d given, or an interrupted wait not ended", buildParallel)
	}
	turns.release()
	if !turns.take(context.Background()) {
		t.Error("no turn after one was given back")
	}
}

// A target waiting on a base image holds no build turn: with one turn,
// target w waits on a node stand-in whose build lasts until target d's
// image has begun (d is on debian, which the engine has). Were the turn
// taken before the bases, w would hold it, d could not begin, and the
// stand-in would wait out its guard.
func TestBuildTurnAfterBases(t *testing.T) {
	text := `version: 1
images: {debian: debian:bookworm-slim, node: node:22-bookworm-slim}
load: {duration: 1s, warmup: 0s, trials: 1}
connections: [8]
targets:
  w: {build: w, port: 8080}
  d: {build: d, port: 8080}
scenarios:
  plaintext: {path: /plaintext, expect: {status: 200, content_type: text/plain, body: "Hello, World!"}}
`
	m := testMatrix(t, text, "", "w:NODE", "d")
	f := newFake()
	f.missing["node:22-bookworm-slim"] = true
	standIn, dBegan := make(chan struct{}), make(chan struct{})
	waited := false
	f.onBuild = func(tag string) {
		switch tag {
		case "webbench/target-d:latest":
			close(dBegan)
		case "webbench-standin/node:22-bookworm-slim":
			close(standIn)
			select {
			case <-dBegan:
			case <-time.After(10 * time.Second): // the guard
				waited = true
			}
		}
	}
	r := &runner{opt: Options{Matrix: m, OutDir: t.TempDir(), Log: io.Discard,
		BuildTimes: buildtime.Open(filepath.Join(t.TempDir(), "build-times.json"))}}
	r.sides, _ = placeSides(f.engine(), r.opt)
	r.resolvers(io.Discard)
	b := &builder{m: m, target: r.sides.target, load: r.sides.load, outDir: r.opt.OutDir, log: io.Discard, timing: &r.timing}
	turns := &buildTurns{slots: make(chan struct{}, 1)}
	w := make(chan builtTarget, 1)
	go func() { w <- b.buildServices(context.Background(), &buildJob{t: m.Targets[0]}, turns) }()
	<-standIn
	d := b.buildServices(context.Background(), &buildJob{t: m.Targets[1]}, turns)
	wb := <-w
	if waited {
		t.Error("d's image did not begin while w's stand-in built: w held the only turn while it waited on its base")
	}
	for name, b := range map[string]builtTarget{"w": wb, "d": d} {
		if b.err != nil || b.failed != "" || b.skipped != "" || b.img == nil {
			t.Errorf("%s: %+v, want built", name, b)
		}
	}
}
