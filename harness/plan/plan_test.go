package plan

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webbench/webbench/harness/buildtime"
	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/cpuset"
	"github.com/webbench/webbench/harness/matrix"
)

// mixed is a matrix of four targets: t and u share a build folder, net
// needs a base image with no local stand-in, and py's Dockerfile names its
// base in FROM without declaring it. Its 64-core cells fit no machine a
// test runs on.
const mixed = `version: 1
images: {debian: debian:bookworm-slim, sdk: mcr.example/sdk:10}
load: {duration: 2s, trials: 3, warmup: 1s}
cpus: [1, 64]
connections: [8]
targets:
  t: {build: t, port: 8080}
  u: {build: t, port: 8080, env: {MODE: other}}
  net: {build: n, port: 8080}
  py: {build: p, port: 8080}
scenarios:
  s: {path: /, expect: {status: 200}}
profiles:
  tonly: {only: "t,u"}
`

// open writes text as a matrix.yaml beside the Dockerfiles of mixed's
// targets and reads it, with profile applied when not "".
func open(t *testing.T, text, profile string) *matrix.Matrix {
	t.Helper()
	dir := t.TempDir()
	for folder, dockerfile := range map[string]string{
		"t": "ARG DEBIAN_IMAGE\nFROM ${DEBIAN_IMAGE}\n",
		"n": "ARG SDK_IMAGE\nFROM ${SDK_IMAGE}\n",
		"p": "FROM python:3.12-slim\n",
	} {
		if err := os.MkdirAll(filepath.Join(dir, folder), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, folder, "Dockerfile"), []byte(dockerfile), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "matrix.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := matrix.Open(path)
	if err == nil {
		m, err = m.WithProfile(profile)
	}
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// New lists every selected cell, skipping those too big for the machine,
// and says per target what it builds and what it needs that plan cannot
// promise.
func TestNewTargetsAndBuilds(t *testing.T) {
	m := open(t, mixed, "")
	p := New(m, nil, Options{Online: cpuset.Range(0, 4)})
	var ids []string
	for _, c := range p.Cells {
		ids = append(ids, c.ID())
		if wantSkip := c.CPUs == 64; wantSkip != (c.Skip != "") {
			t.Errorf("%s: skip %q", c.ID(), c.Skip)
		}
	}
	want := []string{"t/s/1cpu/c8", "t/s/64cpu/c8", "u/s/1cpu/c8", "u/s/64cpu/c8", "net/s/1cpu/c8", "net/s/64cpu/c8", "py/s/1cpu/c8", "py/s/64cpu/c8"}
	if !slices.Equal(ids, want) || p.Runnable != 4 || p.CPUs != 4 {
		t.Fatalf("cells %v, %d runnable on %d CPUs; want %v, 4 on 4", ids, p.Runnable, p.CPUs, want)
	}
	if len(p.Targets) != 4 {
		t.Fatalf("targets %+v, want t, u, net, py", p.Targets)
	}
	for _, tg := range p.Targets {
		if tg.Cells != 2 || tg.Images != 1 {
			t.Errorf("%s: %d cells, %d images; want 2 and 1", tg.Name, tg.Cells, tg.Images)
		}
		wantUnpulled := tg.Name == "net"
		if got := slices.Equal(tg.Unpulled, []string{"mcr.example/sdk:10"}); got != wantUnpulled || !wantUnpulled && len(tg.Unpulled) > 0 {
			t.Errorf("%s: unpulled %v", tg.Name, tg.Unpulled)
		}
		if wantUndeclared := tg.Name == "py"; wantUndeclared != (len(tg.Undeclared) == 1) {
			t.Errorf("%s: undeclared %+v", tg.Name, tg.Undeclared)
		}
	}
	if u := p.Targets[3].Undeclared; len(u) == 1 && (u[0].Image != "python:3.12-slim" || !strings.Contains(u[0].Fix, "PYTHON_IMAGE")) {
		t.Errorf("py's undeclared base %+v, want python:3.12-slim and a fix naming PYTHON_IMAGE", u[0])
	}
	// The load generator's bases and the targets'; t and u share a folder,
	// built once; net builds nothing, since run skips it without sdk.
	if want := []string{"debian", "golang", "sdk"}; !slices.Equal(p.BaseImages, want) {
		t.Errorf("base images %v, want %v", p.BaseImages, want)
	}
	var builds []string
	for _, b := range p.Builds {
		builds = append(builds, filepath.Base(b))
	}
	if want := []string{"t", "p"}; !slices.Equal(builds, want) {
		t.Errorf("builds %v, want %v", builds, want)
	}
	if len(p.LeftOut) != 0 || len(p.Placements) != 0 || p.Requests != nil {
		t.Errorf("left out %q, placements %v, requests %v: want none", p.LeftOut, p.Placements, p.Requests)
	}
}

// With no record of this machine's builds, the build time is the
// documented defaults': the debootstrap, then the target images, beside
// which the other stand-ins and the load generator build; sdk, with no
// stand-in, counts nothing. Measuring takes each runnable cell's visits.
func TestNewEstimates(t *testing.T) {
	m := open(t, mixed, "")
	p := New(m, nil, Options{Online: cpuset.Range(0, 4)})
	d := buildtime.Defaults
	if want := d[buildtime.Debootstrap] + 2*d[buildtime.Image]; p.BuildTime != want || p.BuildTimeLearned {
		t.Errorf("build time %v (learned %v), want %v from the defaults", p.BuildTime, p.BuildTimeLearned, want)
	}
	// 4 runnable cells, interleaved: 3 visits each of 1.5 s + 1 s warm-up
	// + a 2 s trial.
	if want := 4 * 3 * 4500 * time.Millisecond; p.Measure != want {
		t.Errorf("interleaved estimate %v, want %v", p.Measure, want)
	}
	// Sequential: one visit of 1.5 s + 1 s and three 2 s trials.
	p = New(m, nil, Options{Online: cpuset.Range(0, 4), Sequential: true})
	if want := 4 * 8500 * time.Millisecond; p.Measure != want {
		t.Errorf("sequential estimate %v, want %v", p.Measure, want)
	}
	// A visit this machine has timed replaces the default overhead.
	book := buildtime.Open(filepath.Join(t.TempDir(), "build-times.json"))
	book.RecordVisit("t", 10*time.Second)
	p = New(m, nil, Options{Online: cpuset.Range(0, 4), Sequential: true, Book: book})
	if want := 3*8500*time.Millisecond + 17*time.Second; p.Measure != want {
		t.Errorf("estimate with t's visits timed at 10 s: %v, want %v", p.Measure, want)
	}
}

// A request count in place of a duration is timed at the guessed rate,
// and the plan says which counts a trial runs.
func TestNewRequests(t *testing.T) {
	m := open(t, strings.Replace(mixed, "duration: 2s", "requests: 40000", 1), "")
	p := New(m, nil, Options{Online: cpuset.Range(0, 4), Sequential: true})
	if !slices.Equal(p.Requests, []int64{40000}) {
		t.Errorf("requests %v, want [40000]", p.Requests)
	}
	// 40000 requests at 20000/s is 2 s a trial, as the duration was.
	if want := 4 * 8500 * time.Millisecond; p.Measure != want {
		t.Errorf("estimate %v, want %v", p.Measure, want)
	}
}

// Apart, each machine is assumed to have Online's cores, the first ones
// of each kept back as its reserve says.
func TestNewApart(t *testing.T) {
	m := open(t, mixed, "")
	p := New(m, matrix.Selector{"t"}, Options{Online: cpuset.Range(0, 4), Apart: true, TargetReserve: 1, LoadgenReserve: 2})
	if len(p.Cells) != 2 {
		t.Fatalf("cells %+v, want t's two", p.Cells)
	}
	c := p.Cells[0]
	if c.Skip != "" || !slices.Equal(c.CPUSet, cpuset.Set{1}) || len(c.LoadgenSet) == 0 || c.LoadgenSet[0] < 2 {
		t.Errorf("1-core cell: skip %q, target %v, generator %v; want target core 1 and the generator's above 1", c.Skip, c.CPUSet, c.LoadgenSet)
	}
	if p.Cells[1].Skip == "" {
		t.Errorf("64-core cell runs on 3 cores: %+v", p.Cells[1])
	}
}

// Placements are said once each, with how many runnable cells they
// concern, in the order of their first cell.
func TestPlacements(t *testing.T) {
	cells := []matrix.Cell{
		{Key: cellid.Key{Target: "d", Scenario: "s"}, Placement: "the generator shares core 0"},
		{Key: cellid.Key{Target: "d", Scenario: "q"}, Placement: "db shares core 1"},
		{Key: cellid.Key{Target: "d", Scenario: "r"}, Placement: "the generator shares core 0"},
		{Key: cellid.Key{Target: "d", Scenario: "x"}, Placement: "never said", Skip: "too few cores"},
		{Key: cellid.Key{Target: "d", Scenario: "y"}}}
	got := placements(cells)
	want := []Placement{{Note: "the generator shares core 0", Cells: 2}, {Note: "db shares core 1", Cells: 1}}
	if !slices.Equal(got, want) {
		t.Errorf("placements %+v, want %+v", got, want)
	}
}
