package e2e

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/webbench/webbench/harness/baseimage"
	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/runner"
)

// The golang stand-in carries the standard library already built the way
// every Go image of the project builds, so no Go image compiles it afresh:
// inside the stand-in, `go list` must find net/http and encoding/json up to
// date under that build environment (stale means the cache missed, and the
// first run's builds are a minute slower per Go image).
func TestGoStandInPrebuiltStd(t *testing.T) {
	eng := connect(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	res := baseimage.NewResolver(eng, runner.LoadgenImages, baseimage.Options{NoPull: true, Log: io.Discard})
	defer res.Close()
	b := res.Resolve(ctx, "golang")
	if b.Error != "" {
		t.Fatalf("golang base image: %s", b.Error)
	}
	if !b.StandIn {
		t.Skipf("the engine has the official %s: no stand-in to check", b.Used)
	}
	id, err := eng.Start(ctx, engine.ContainerSpec{Image: b.Used, Cmd: []string{"sleep", "infinity"}, Network: "none"})
	removed := false
	remove := func() {
		if id != "" && !removed {
			removed = eng.RemoveContainer(context.Background(), id) == nil
		}
	}
	defer remove()
	if err != nil {
		t.Fatal(err)
	}
	list := "env CGO_ENABLED=0 GOFLAGS=-trimpath go list -f '{{.ImportPath}} {{.Stale}} {{.StaleReason}}' net/http encoding/json"
	out, err := eng.Exec(ctx, id, []string{"sh", "-c", list})
	if err != nil || out.ExitCode != 0 {
		t.Fatalf("go list in %s: %v, exit %d\n%s%s", b.Used, err, out.ExitCode, out.Stdout, out.Stderr)
	}
	lines := strings.Split(strings.TrimSpace(string(out.Stdout)), "\n")
	if len(lines) != 2 {
		t.Fatalf("go list printed %q", out.Stdout)
	}
	for _, l := range lines {
		if f := strings.Fields(l); len(f) < 2 || f[1] != "false" {
			t.Errorf("%s: the standard library is not prebuilt in the stand-in: %s", b.Used, l)
		}
	}
	remove()
	noLeftovers(t, eng)
}
