package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webbench/webbench/harness/baseimage"
	"github.com/webbench/webbench/harness/buildtime"
	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/loadgen"
	"github.com/webbench/webbench/harness/results"
)

// A run that misses its deadline names which end stopped: the target,
// when it does not answer a probe then, else the generator, with what it
// was waiting for.
func TestStallNamesWhoStopped(t *testing.T) {
	f := newFake()
	id, _ := f.Start(context.Background(), engine.ContainerSpec{Name: "t", Env: []string{"PORT=8080"},
		Labels: map[string]string{engine.LabelRole: "target", engine.LabelTarget: "a"}})
	defer f.RemoveContainer(context.Background(), id)
	g := f.generator()
	s := loadgen.Spec{URL: "http://127.0.0.1:8080/", Connections: 1, Requests: 500}

	e := stalled(context.Background(), g, "wrk", s, 12e9, true)
	if e.Who != StallGenerator || e.Tool != "wrk" || e.Waiting != "the last of its 500 requests" {
		t.Errorf("target answering: %+v", e)
	}
	var se *StallError
	if err := fmt.Errorf("trial 1: %w", e); !errors.As(err, &se) || se.Who != StallGenerator {
		t.Errorf("a stall does not unwrap as one: %v", err)
	}

	f.mu.Lock()
	f.containers[id].exited = true
	f.mu.Unlock()
	if e := stalled(context.Background(), g, "wrk", s, 12e9, true); e.Who != StallTarget || e.Probe == "" {
		t.Errorf("target gone: %+v", e)
	}
}

// With two engines the fixed-response server's image on the targets'
// engine is the load generator's very image, copied there by id; when it
// cannot be copied it is built there.
func TestServerImageCopied(t *testing.T) {
	for _, copies := range []bool{true, false} {
		srv, cli := newFake(), newFake()
		srv.missing["img-webbench/loadgen:latest"] = true
		targets := &side{eng: srv.engine(), name: "server"}
		home := &side{eng: cli.engine(), name: "client", loadgenImage: "img-webbench/loadgen:latest"}
		targets.resolver = baseimage.NewResolver(srv, LoadgenImages, baseimage.Options{NoPull: true, Log: io.Discard})
		defer targets.resolver.Close()
		var asked []string
		dir := t.TempDir()
		g := &containerGenerator{home: home, targets: targets, build: loadgenBuild{
			log: io.Discard, times: buildtime.Open(filepath.Join(dir, "times.json")), images: map[string]*results.BaseImage{},
			logTo: func(name string) (*os.File, error) { return os.Create(filepath.Join(dir, name+".log")) },
			copy: func(_ context.Context, ref string, toLoadgen bool) (bool, error) {
				asked = append(asked, fmt.Sprintf("%s toLoadgen=%v", ref, toLoadgen))
				if !copies {
					return false, errors.New("no way between the engines")
				}
				srv.mu.Lock()
				defer srv.mu.Unlock()
				srv.missing[ref] = false
				return true, nil
			}}}
		id, err := g.serverImage(context.Background())
		if err != nil {
			t.Fatalf("copies=%v: %v", copies, err)
		}
		built := srv.callsWith("build webbench/loadgen")
		if !slices.Equal(asked, []string{"img-webbench/loadgen:latest toLoadgen=false"}) || id != "img-webbench/loadgen:latest" ||
			(len(built) == 0) == !copies {
			t.Errorf("copies=%v: copy asked %v, image %s, built on the targets' engine %v", copies, asked, id, built)
		}
		if g.build.images["debian"] == nil && !copies {
			t.Errorf("copies=%v: the targets' base images were not recorded", copies)
		}
	}
}

// stallingGenerator is a generator whose every run fails with err.
type stallingGenerator struct {
	noGenerator
	err error
}

func (g stallingGenerator) Run(context.Context, loadgen.Tool, loadgen.Spec) (loadgen.Result, error) {
	return loadgen.Result{}, g.err
}

// A warm-up whose generator hangs past its window while the target still
// answers (h2load against a small backlog) has warmed the target: no
// failure. One whose target stopped answering, or that failed otherwise,
// fails the warm-up.
func TestWarmUpGeneratorHang(t *testing.T) {
	s := loadgen.Spec{URL: "http://127.0.0.1:8080/", Connections: 16}
	for _, c := range []struct {
		err  error
		fail bool
	}{
		{&StallError{Who: StallGenerator, Tool: "h2load"}, false},
		{&StallError{Who: StallTarget, Tool: "h2load", Probe: "connection refused"}, true},
		{errors.New("h2load exited 1"), true},
		{nil, false},
	} {
		err := warm(context.Background(), stallingGenerator{err: c.err}, loadgen.H2load{}, s, 1e9)
		if (err != nil) != c.fail {
			t.Errorf("run error %v: warm-up gave %v", c.err, err)
		}
	}
}

// hangingExec is a Containers whose every exec waits until its context
// ends, as a busy engine's can.
type hangingExec struct{ Containers }

func (hangingExec) Exec(ctx context.Context, _ string, _ []string) (engine.ExecResult, error) {
	<-ctx.Done()
	return engine.ExecResult{}, ctx.Err()
}

// A probe whose exec the engine never returns fails, saying so, instead of
// hanging the run (one TestDatabase run hung 12 minutes that way).
func TestProbeExecBounded(t *testing.T) {
	defer func(g time.Duration) { probeExecGrace = g }(probeExecGrace)
	probeExecGrace = 10 * time.Millisecond
	g := &containerGenerator{id: "loadgen", home: &side{eng: Engine{Containers: hangingExec{}}}}
	done := make(chan error, 1)
	go func() {
		_, err := g.Probe(context.Background(), "http://t:8080/", Ask{Kind: probeTCP, Timeout: 10 * time.Millisecond})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "did not return the probe's exec") {
			t.Errorf("err = %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the probe still waits on its exec after a minute")
	}
}
