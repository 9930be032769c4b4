package baseimage

import (
	"context"
	"errors"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"

	webbench "github.com/webbench/webbench"
	"github.com/webbench/webbench/harness/engine"
)

// A stand-in is named by what its image runs, read from it: Debian's
// release, the package and its version, and where the official tag names
// another version, that it is not the tag's.
func TestRunsOf(t *testing.T) {
	for _, c := range []struct {
		official, pkg, out, want string
	}{
		{"python:3.12-slim-bookworm", "python3", "bookworm 3.11.2-1+b1", "Debian bookworm python3 3.11.2-1+b1 (3.11.2, not the tag's 3.12)"},
		{"node:22-bookworm-slim", "nodejs", "bookworm 18.19.0+dfsg-6~deb12u2\n", "Debian bookworm nodejs 18.19.0+dfsg-6~deb12u2 (18.19.0, not the tag's 22)"},
		{"nginx:1.27-bookworm", "nginx-light", "bookworm 1.22.1-9+deb12u1", "Debian bookworm nginx-light 1.22.1-9+deb12u1 (1.22.1, not the tag's 1.27)"},
		{"postgres:17-bookworm", "postgresql-15", "bookworm 15.14-0+deb12u1", "Debian bookworm postgresql-15 15.14-0+deb12u1 (15.14, not the tag's 17)"},
		{"mono:6.12", "mono-runtime", "bookworm 1:6.8.0.105+dfsg-3.3", "Debian bookworm mono-runtime 1:6.8.0.105+dfsg-3.3 (6.8.0.105, not the tag's 6.12)"},
		// The tag's version is the package's: nothing to add.
		{"postgres:15-bookworm", "postgresql-15", "bookworm 15.14-0+deb12u1", "Debian bookworm postgresql-15 15.14-0+deb12u1"},
		{"python:3.11", "python3", "bookworm 3.11.2-1+b1", "Debian bookworm python3 3.11.2-1+b1"},
		// A tag that names no version, or a prefix of another number.
		{"python:bookworm", "python3", "bookworm 3.11.2-1+b1", "Debian bookworm python3 3.11.2-1+b1"},
		{"python:3.1", "python3", "bookworm 3.11.2-1+b1", "Debian bookworm python3 3.11.2-1+b1 (3.11.2, not the tag's 3.1)"},
	} {
		got, err := runsOf(c.official, c.pkg, c.out)
		if err != nil || got != c.want {
			t.Errorf("runsOf(%q, %q, %q) = %q, %v; want %q", c.official, c.pkg, c.out, got, err, c.want)
		}
	}
	for _, out := range []string{"", "bookworm", "bookworm ", "bookworm 3.11 extra"} {
		if got, err := runsOf("python:3.12", "python3", out); err == nil {
			t.Errorf("runsOf of %q = %q, want an error", out, got)
		}
	}
}

// Every recipe stand-in names the package it runs, and its recipe
// installs that package.
func TestStandInPackages(t *testing.T) {
	recipes, err := fs.ReadDir(webbench.Assets, "docker/standins")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range recipes {
		pkg, ok := standInPackage[d.Name()]
		if !ok {
			t.Errorf("docker/standins/%s: standInPackage names no package it runs", d.Name())
			continue
		}
		df, err := fs.ReadFile(webbench.Assets, "docker/standins/"+d.Name()+"/Dockerfile")
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`apt-get install [^\n]*[ \t]` + regexp.QuoteMeta(pkg) + `([ \t]|$)`).Match(df) {
			t.Errorf("docker/standins/%s/Dockerfile installs no %s", d.Name(), pkg)
		}
	}
	for key := range standInPackage {
		if !HasStandIn(key) {
			t.Errorf("standInPackage names %s, which has no recipe", key)
		}
	}
}

// probingEngine is fakeEngine that runs containers: each answers the
// version query with answers[image] (an error when it has none).
type probingEngine struct {
	*fakeEngine
	answers  map[string]string
	started  []engine.ContainerSpec
	execs    [][]string
	removed  []string
	startErr error
}

func (p *probingEngine) Start(_ context.Context, s engine.ContainerSpec) (string, error) {
	p.started = append(p.started, s)
	return "c-" + s.Image, p.startErr
}

func (p *probingEngine) Exec(_ context.Context, id string, cmd []string) (engine.ExecResult, error) {
	p.execs = append(p.execs, cmd)
	out, ok := p.answers[strings.TrimPrefix(id, "c-")]
	if !ok {
		return engine.ExecResult{ExitCode: 1, Stderr: []byte("dpkg-query: no packages found matching python3")}, nil
	}
	return engine.ExecResult{Stdout: []byte(out)}, nil
}

func (p *probingEngine) RemoveContainer(_ context.Context, id string) error {
	p.removed = append(p.removed, id)
	return nil
}

// The record of a recipe stand-in leads with what its image runs, read in
// a container of the stand-in itself, which is removed after.
func TestResolveRecordsWhatStandInRuns(t *testing.T) {
	images := map[string]string{"debian": "debian:bookworm-slim", "python": "python:3.12-slim-bookworm"}
	p := &probingEngine{fakeEngine: newFake("debian:bookworm-slim"),
		answers: map[string]string{"webbench-standin/python:3.12-slim-bookworm": "bookworm 3.11.2-1+b1"}}
	b := NewResolver(p, images, Options{NoPull: true}).Resolve(context.Background(), "python")
	want := "runs Debian bookworm python3 3.11.2-1+b1 (3.11.2, not the tag's 3.12); docker/standins/python/Dockerfile on debian:bookworm-slim"
	if b.Error != "" || b.Note != want {
		t.Errorf("note %q (error %q), want %q", b.Note, b.Error, want)
	}
	if len(p.started) != 1 || p.started[0].Image != "webbench-standin/python:3.12-slim-bookworm" || p.started[0].Network != "none" {
		t.Errorf("started %+v, want one container of the stand-in, with no network", p.started)
	}
	if len(p.execs) != 1 || !slices.Equal(p.execs[0], versionQuery("python3")) {
		t.Errorf("ran %q, want the version query of python3", p.execs)
	}
	if !slices.Equal(p.removed, []string{"c-webbench-standin/python:3.12-slim-bookworm"}) {
		t.Errorf("removed %v, want the container started", p.removed)
	}
}

// A version that cannot be read leaves the stand-in usable, its record
// saying why it names no version, and the container removed.
func TestResolveRunsUnread(t *testing.T) {
	images := map[string]string{"debian": "debian:bookworm-slim", "python": "python:3.12-slim-bookworm"}
	for _, c := range []struct {
		name     string
		startErr error
		want     string
	}{
		{"query fails", nil, "what it runs was not read (dpkg-query python3 in webbench-standin/python:3.12-slim-bookworm exited with code 1: dpkg-query: no packages found matching python3); "},
		{"start fails", errors.New("create container: no space left"), "what it runs was not read (create container: no space left); "},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &probingEngine{fakeEngine: newFake("debian:bookworm-slim"), startErr: c.startErr}
			b := NewResolver(p, images, Options{NoPull: true}).Resolve(context.Background(), "python")
			if b.Error != "" || b.Used != "webbench-standin/python:3.12-slim-bookworm" || !strings.HasPrefix(b.Note, c.want) {
				t.Errorf("got %+v, want the stand-in with a note beginning %q", b, c.want)
			}
			if len(p.removed) != 1 {
				t.Errorf("removed %v, want the container started", p.removed)
			}
		})
	}
}
