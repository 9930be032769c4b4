package matrix

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/cpuset"
	"github.com/webbench/webbench/harness/internal/redact"
)

const good = `version: 1
images:
  debian: debian:bookworm-slim
  golang: golang:1.26-bookworm
load:
  duration: 10s
  warmup: 3s
  trials: 3
  timeout: 2s
  loadgen_cpus: 1
cpus: [1, 2]
connections: [64, 256]
targets:
  one:
    build: t1
    port: 8080
    env: {A: "b"}
  two:
    build: t1
    port: 8081
    scenarios: [plaintext]
scenarios:
  plaintext:
    path: /plaintext
    expect: {status: 200, content_type: text/plain, body: "Hello, World!"}
  json:
    path: /json
    expect: {status: 200, content_type: application/json, json: {message: "Hello, World!", n: 3}}
profiles:
  quick: {load: {duration: 2s, warmup: 1s, trials: 1}}
  counted: {load: {requests: 1000}, connections: [512], only: "one/json"}
`

func parse(t *testing.T, text string) (*Matrix, error) {
	t.Helper()
	return Parse(filepath.Join("testdata", "matrix.yaml"), []byte(text))
}

func TestParseGood(t *testing.T) {
	m, err := parse(t, good)
	if err != nil {
		t.Fatal(err)
	}
	if m.Load.Duration != 10*time.Second || m.Load.Trials != 3 || m.Load.ReadyTimeout != Defaults.ReadyTimeout {
		t.Errorf("load = %+v", m.Load)
	}
	if len(m.Targets) != 2 || m.Targets[0].Name != "one" || m.Targets[0].Env["A"] != "b" {
		t.Errorf("targets = %+v", m.Targets)
	}
	if want := []string{"debian", "golang"}; !reflect.DeepEqual(m.Targets[0].Images(), want) {
		t.Errorf("target images = %v, want %v", m.Targets[0].Images(), want)
	}
	if svc := m.Targets[0].Services; len(svc) != 1 || svc[0].Name != "one" || m.Targets[0].Entry != "one" ||
		!filepath.IsAbs(svc[0].Build) || filepath.Base(svc[0].Build) != "t1" || svc[0].Replicas != 1 {
		t.Errorf("services = %+v", svc)
	}
	if m.Load.Aggregate != AggregateMedian {
		t.Errorf("aggregate = %q", m.Load.Aggregate)
	}
	js := m.Scenarios[1].Expect.JSON.(map[string]any)
	if js["n"] != float64(3) || js["message"] != "Hello, World!" {
		t.Errorf("json expect = %#v", js)
	}
	if b := m.Scenarios[0].Expect.Body; b == nil || *b != "Hello, World!" {
		t.Errorf("body expect = %v", b)
	}

	q, err := m.WithProfile("quick")
	if err != nil {
		t.Fatal(err)
	}
	if q.Load.Duration != 2*time.Second || q.Load.Trials != 1 || q.Load.Timeout != 2*time.Second || q.Profile != "quick" {
		t.Errorf("quick load = %+v", q.Load)
	}
	if m.Load.Duration != 10*time.Second {
		t.Error("WithProfile changed the base matrix")
	}
	c, _ := m.WithProfile("counted")
	if c.Load.Requests != 1000 || c.Load.Duration != 0 || !reflect.DeepEqual(c.Connections, []int{512}) {
		t.Errorf("counted = %+v %v", c.Load, c.Connections)
	}
	// The profile's selection and --only must both pick a cell.
	if n := len(Expand(c, nil, cpuset.Range(0, 4))); n != 2 {
		t.Errorf("counted profile: %d cells, want 2 (one/json on 1 and 2 cpus)", n)
	}
	if n := len(Expand(c, Selector{"two"}, cpuset.Range(0, 4))); n != 0 {
		t.Errorf("counted profile with --only two: %d cells, want 0", n)
	}
	if _, err := m.WithProfile("nope"); err == nil || !strings.Contains(err.Error(), "counted, quick") {
		t.Errorf("unknown profile error = %v", err)
	}
}

// Each bad input must be reported at its position, naming the field.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, edit, from string
		want             []string
	}{
		{"unknown key", "  trials: 3\n", "  trials: 3\n  trails: 4\n", []string{"matrix.yaml:9:3: load.trails: unknown key"}},
		{"wrong type", "trials: 3", "trials: three", []string{"matrix.yaml:8:11: load.trials: want an integer"}},
		{"bad duration", "duration: 10s", "duration: 10x", []string{`matrix.yaml:6:13: load.duration: invalid duration "10x"`}},
		{"both duration and requests", "  warmup: 3s\n", "  warmup: 3s\n  requests: 10\n", []string{"matrix.yaml:8:13: load.requests: set either duration or requests, not both"}},
		{"neither", "  duration: 10s\n", "", []string{"matrix.yaml:6:3: load: set one of duration or requests"}},
		{"cpus zero", "cpus: [1, 2]", "cpus: [0, 2]", []string{"matrix.yaml:11:8: cpus[0]: must be at least 1, got 0"}},
		{"connections zero", "connections: [64, 256]", "connections: [64, 0]", []string{"matrix.yaml:12:19: connections[1]: must be at least 1"}},
		{"duplicate target", "  two:\n", "  one:\n", []string{`matrix.yaml:18:3: targets.one: duplicate name (first at line 14)`}},
		{"no dockerfile", "build: t1\n    port: 8080", "build: nodockerfile\n    port: 8080", []string{"matrix.yaml:15:12: targets.one.build: no Dockerfile in"}},
		{"unknown scenario", "scenarios: [plaintext]", "scenarios: [plain]", []string{`targets.two.scenarios: no scenario named "plain"`}},
		{"bad version", "version: 1", "version: 2", []string{"matrix.yaml:1:10: version: unsupported schema version 2"}},
		{"bad profile", "trials: 1}}", "trials: 0}}", []string{"profiles.quick.load.trials: must be at least 1"}},
		{"missing image key", "  golang: golang:1.26-bookworm\n", "", []string{"targets.one.build: its Dockerfile uses ${GOLANG_IMAGE} but images has no key \"golang\""}},
		{"short duration", "duration: 10s", "duration: 500ms", []string{"load.duration: bombardier runs for at least 1s"}},
		{"short warmup", "warmup: 3s", "warmup: 200ms", []string{"load.warmup: bombardier runs for at least 1s"}},
		{"several at once", "duration: 10s", "duration: 10x\n  bogus: 1", []string{"load.duration: invalid duration", "load.bogus: unknown key"}},
		{"same connections spelled thrice", "connections: [64, 256]", "connections: [0o10, 010, 8]", []string{
			`matrix.yaml:12:21: connections[1]: duplicate value "010": the same as "0o10" at line 12, column 15`,
			`matrix.yaml:12:26: connections[2]: duplicate value "8": the same as "0o10" at line 12, column 15`}},
		{"same keepalive", "connections: [64, 256]", "connections: [64, 256]\nkeepalive: [true, True]", []string{`keepalive[1]: duplicate value "True": the same as "true" at line 13`}},
		{"same rate", "connections: [64, 256]", "connections: [64, 256]\nrate: [100, 0x64]", []string{`rate[1]: duplicate value "0x64": the same as "100" at line 13`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Replace(good, tc.edit, tc.from, 1)
			if text == good {
				t.Fatalf("edit %q not found", tc.edit)
			}
			_, err := parse(t, text)
			var errs Errors
			if !errors.As(err, &errs) {
				t.Fatalf("err = %v, want Errors", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\ndoes not contain %q", err, w)
				}
			}
		})
	}
}

func TestExpand(t *testing.T) {
	m, err := parse(t, good)
	if err != nil {
		t.Fatal(err)
	}
	cells := Expand(m, nil, cpuset.Range(0, 3))
	var ids []string
	for _, c := range cells {
		ids = append(ids, c.ID())
	}
	want := []string{
		"one/plaintext/1cpu/c64", "one/plaintext/1cpu/c256", "one/plaintext/2cpu/c64", "one/plaintext/2cpu/c256",
		"one/json/1cpu/c64", "one/json/1cpu/c256", "one/json/2cpu/c64", "one/json/2cpu/c256",
		"two/plaintext/1cpu/c64", "two/plaintext/1cpu/c256", "two/plaintext/2cpu/c64", "two/plaintext/2cpu/c256",
	}
	if !reflect.DeepEqual(ids, want) {
		t.Errorf("cells =\n%v\nwant\n%v", ids, want)
	}
	if c := cells[2]; c.Skip != "" || c.CPUSet.String() != "0-1" || c.LoadgenSet.String() != "2" {
		t.Errorf("2-cpu cell on 3 cpus: %+v", c)
	}
	// On two CPUs a 2-core target leaves no core for the load generator.
	cells = Expand(m, nil, cpuset.Range(0, 2))
	if c := cells[2]; !strings.Contains(c.Skip, "exceed the 2 online CPUs") {
		t.Errorf("2-cpu cell on 2 cpus: skip = %q", c.Skip)
	}
	if c := cells[0]; c.Skip != "" || c.CPUSet.String() != "0" || c.LoadgenSet.String() != "1" {
		t.Errorf("1-cpu cell on 2 cpus: %+v", c)
	}
}

func TestSelector(t *testing.T) {
	m, _ := parse(t, good)
	count := func(s string) int {
		sel, err := ParseSelector(s)
		if err != nil {
			t.Fatal(err)
		}
		return len(Expand(m, sel, cpuset.Range(0, 4)))
	}
	for sel, want := range map[string]int{"": 12, "one": 8, "json": 4, "two/plaintext": 4, "*/plaintext": 8, "one/json,two": 8, "none": 0, "t*": 4} {
		if got := count(sel); got != want {
			t.Errorf("--only %q: %d cells, want %d", sel, got, want)
		}
	}
	if _, err := ParseSelector("a/b/c"); err == nil {
		t.Error("a/b/c accepted")
	}
	if _, err := ParseSelector("[x"); err == nil {
		t.Error("bad glob accepted")
	}
	// Commas alone name no cell: not a selection of every one.
	for _, s := range []string{",", " , ", " "} {
		if _, err := ParseSelector(s); err == nil || !strings.Contains(err.Error(), "names no cell") {
			t.Errorf("--only %q: %v, want an error that it names no cell", s, err)
		}
	}
}

const studies = `version: 1
images: {debian: debian:bookworm-slim, golang: golang:1.26-bookworm, nginx: nginx:1.27}
load: {requests: 1000, aggregate: best}
connections: [20, 400]
targets:
  node:
    build: t1
    port: 8080
    variants:
      single: {}
      cluster: {env: {NODE_CLUSTER: "1"}}
  fcgi:
    services:
      backend: {build: t1, replicas: 4, port: 9000, env: {MODE: fcgi}}
      front: {build: t2}
    entry: front
    port: 80
    scenarios: [records]
scenarios:
  plaintext:
    path: /plaintext
    expect: {body: "Hello, World!"}
  records:
    path: /testReflection?records={n}
    params: {n: [10, 500]}
    expect: {content_type: application/json, json_array: {length: "{n}", keys: [Id, Name, Time]}}
`

func TestStudiesSchema(t *testing.T) {
	m, err := parse(t, studies)
	if err != nil {
		t.Fatal(err)
	}
	if m.Load.Aggregate != AggregateBest || m.Load.Requests != 1000 {
		t.Errorf("load = %+v", m.Load)
	}
	fcgi := m.Targets[1]
	if fcgi.Entry != "front" || len(fcgi.Services) != 2 || fcgi.Services[0].Replicas != 4 || fcgi.Services[0].Port != 9000 ||
		!reflect.DeepEqual(fcgi.Images(), []string{"debian", "golang", "nginx"}) {
		t.Errorf("fcgi = %+v", fcgi)
	}
	var ids []string
	for _, c := range Expand(m, nil, cpuset.Range(0, 2)) {
		ids = append(ids, c.ID())
	}
	want := []string{
		"node:single/plaintext/1cpu/c20", "node:single/plaintext/1cpu/c400",
		"node:single/records?n=10/1cpu/c20", "node:single/records?n=10/1cpu/c400",
		"node:single/records?n=500/1cpu/c20", "node:single/records?n=500/1cpu/c400",
		"node:cluster/plaintext/1cpu/c20", "node:cluster/plaintext/1cpu/c400",
		"node:cluster/records?n=10/1cpu/c20", "node:cluster/records?n=10/1cpu/c400",
		"node:cluster/records?n=500/1cpu/c20", "node:cluster/records?n=500/1cpu/c400",
		"fcgi/records?n=10/1cpu/c20", "fcgi/records?n=10/1cpu/c400",
		"fcgi/records?n=500/1cpu/c20", "fcgi/records?n=500/1cpu/c400",
	}
	if !reflect.DeepEqual(ids, want) {
		t.Errorf("cells =\n%v\nwant\n%v", ids, want)
	}
	c := Expand(m, Selector{"fcgi"}, cpuset.Range(0, 2))[2]
	if got := c.Subst(m.Scenarios[1].Path); got != "/testReflection?records=500" {
		t.Errorf("Subst = %q", got)
	}
	if n := len(Expand(m, Selector{"node:cluster"}, cpuset.Range(0, 2))); n != 6 {
		t.Errorf("--only node:cluster: %d cells", n)
	}
}

func TestStudiesSchemaErrors(t *testing.T) {
	for _, tc := range []struct{ name, edit, from, want string }{
		{"bad aggregate", "aggregate: best", "aggregate: mean", `load.aggregate: want "median" or "best"`},
		{"entry unknown", "entry: front", "entry: back", `targets.fcgi.entry: no service named "back"`},
		{"build and services", "  fcgi:\n", "  fcgi:\n    build: t1\n", "targets.fcgi.build: set either build (one service) or services"},
		{"unknown param", "records={n}", "records={m}", "{m} names no param of this scenario"},
		{"bad length", `length: "{n}"`, "length: lots", `json_array.length: want a number or {param}`},
		{"zero replicas", "replicas: 4", "replicas: 0", "services.backend.replicas: must be at least 1"},
		{"body and json_array", "expect: {content_type", "expect: {body: x, content_type", "set only one of body, json, json_array, tfb, sha256 and compute"},
		{"json_array and tfb", "expect: {content_type", "expect: {tfb: {test: db}, content_type", "set only one of body, json, json_array, tfb, sha256 and compute"},
		{"tfb test unknown", `json_array: {length: "{n}", keys: [Id, Name, Time]}`, "tfb: {test: cached}", `expect.tfb.test: want "db" or "queries"`},
		{"tfb unknown param", `json_array: {length: "{n}", keys: [Id, Name, Time]}`, `tfb: {test: queries, queries: "{q}"}`, "{q} names no param of this scenario"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Replace(studies, tc.edit, tc.from, 1)
			if text == studies {
				t.Fatalf("edit %q not found", tc.edit)
			}
			_, err := parse(t, text)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want %q", err, tc.want)
			}
		})
	}
}

// Values of the wrong shape are reported once each, where they stand, and
// do not cascade into the rules that read them.
func TestWrongShapes(t *testing.T) {
	text := "version: 1\nload: 5\nconnections: [1]\nimages: {debian: d, golang: g}\n" +
		"targets: {a: 5, c: {build: 5, port: x}, d: {services: {s: {build: t1}}, entry: 5, port: 1}}\n" +
		"scenarios: {s: 5, t: {path: 5, expect: 5}, u: {path: /, params: {m: []}, expect: {json_array: 5, status: x}}}\n" +
		"profiles: {p: 5, q: {load: 5}}\n"
	_, err := parse(t, text)
	want := []string{
		`2:7: load: want a mapping, got "5"`,
		`5:14: targets.a: want a mapping, got "5"`,
		`5:28: targets.c.build: want a string, got int "5"`,
		`5:37: targets.c.port: want an integer, got "x"`,
		`5:80: targets.d.entry: want a string, got int "5"`,
		`6:16: scenarios.s: want a mapping, got "5"`,
		`6:29: scenarios.t.path: want a string, got int "5"`,
		`6:40: scenarios.t.expect: want a mapping, got "5"`,
		`6:69: scenarios.u.params.m: must not be empty`,
		`6:95: scenarios.u.expect.json_array: want a mapping, got "5"`,
		`6:106: scenarios.u.expect.status: want an integer, got "x"`,
		`7:15: profiles.p: want a mapping, got "5"`,
		`7:28: profiles.q.load: want a mapping, got "5"`,
	}
	var errs Errors
	if !errors.As(err, &errs) {
		t.Fatalf("err = %v", err)
	}
	var got []string
	for _, e := range errs {
		got = append(got, strings.TrimPrefix(e.Error(), "testdata/matrix.yaml:"))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A control cell is measured twice: its twin follows it in the expansion
// with " (control)" in its id; a profile's control replaces the file's.
func TestControl(t *testing.T) {
	text := good + "control: one/plaintext\n"
	text = strings.Replace(text, "  quick: {load:", "  quick: {control: \"two/plaintext\", load:", 1)
	m, err := parse(t, text)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range Expand(m, Selector{"plaintext"}, cpuset.Range(0, 3)) {
		if c.CPUs == 1 && c.Connections == 64 {
			ids = append(ids, c.ID())
		}
	}
	want := []string{"one/plaintext/1cpu/c64", "one/plaintext/1cpu/c64 (control)", "two/plaintext/1cpu/c64"}
	if !reflect.DeepEqual(ids, want) {
		t.Errorf("ids %v, want %v", ids, want)
	}
	q, _ := m.WithProfile("quick")
	n := 0
	for _, c := range Expand(q, nil, cpuset.Range(0, 3)) {
		if c.Control {
			n++
			if c.Target != "two" {
				t.Errorf("quick's control picked %s", c.ID())
			}
		}
	}
	if n != 4 {
		t.Errorf("%d control cells in quick, want 4 (two/plaintext × 2 cpus × 2 conns)", n)
	}
	// A whole cell id picks one cell among the axes' many.
	m, err = parse(t, strings.Replace(good, "  quick: {load:", "  quick: {control: \"two/plaintext/1cpu/c64\", load:", 1))
	if err != nil {
		t.Fatal(err)
	}
	q, _ = m.WithProfile("quick")
	var picked []string
	for _, c := range Expand(q, nil, cpuset.Range(0, 3)) {
		if c.Control {
			picked = append(picked, c.ID())
		}
	}
	if len(picked) != 1 || picked[0] != "two/plaintext/1cpu/c64 (control)" {
		t.Errorf("control by cell id picked %q, want only two/plaintext/1cpu/c64", picked)
	}
	if _, err := parse(t, good+"control: one\n"); err == nil || !strings.Contains(err.Error(), "control: control \"one\": want TARGET[:VARIANT]/SCENARIO") {
		t.Errorf("bad control: %v", err)
	}
}

// A YAML syntax error is FILE:LINE:COL like every other problem, at the
// token that breaks the file.
func TestSyntaxErrors(t *testing.T) {
	for text, want := range map[string]string{
		"version: 1\nload: [1, 2\nconnections: [1]\n": "matrix.yaml:3:1: YAML syntax: ',' or ']' must be specified",
		"version: 1\n load: 2\nx: 1\n":                "matrix.yaml:1:10: YAML syntax: mapping value is not allowed",
		"version: 1\nload: 'x\n":                      "matrix.yaml:2:",
	} {
		_, err := parse(t, text)
		var errs Errors
		if !errors.As(err, &errs) || !strings.HasPrefix(err.Error(), "testdata/"+want) {
			t.Errorf("%q: error %v, want it to start with %q", text, err, want)
		}
	}
}

// Keep-alive is an axis: false cells send Connection: close and say so in
// their id; a profile may set it; a value that is not a boolean is refused.
func TestKeepAliveAxis(t *testing.T) {
	m, err := parse(t, strings.Replace(good, "connections: [64, 256]", "connections: [64]\nkeepalive: [true, false]", 1))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range Expand(m, Selector{"one/plaintext"}, cpuset.Range(0, 2)) {
		ids = append(ids, c.ID())
	}
	if want := []string{"one/plaintext/1cpu/c64", "one/plaintext/1cpu/c64/close", "one/plaintext/2cpu/c64", "one/plaintext/2cpu/c64/close"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("ids %v, want %v", ids, want)
	}
	if n := Count(m, Selector{"one/plaintext"}); n != 4 {
		t.Errorf("Count = %d, want 4", n)
	}
	q, _ := parse(t, strings.Replace(good, "quick: {load:", "quick: {keepalive: [false], load:", 1))
	q, _ = q.WithProfile("quick")
	for _, c := range Expand(q, nil, cpuset.Range(0, 4)) {
		if !c.Close {
			t.Errorf("quick's cell %s keeps connections alive", c.ID())
		}
	}
	if _, err := parse(t, strings.Replace(good, "cpus: [1, 2]", "cpus: [1, 2]\nkeepalive: [yes]", 1)); err == nil || !strings.Contains(err.Error(), `keepalive[0]: want true or false, got "yes"`) {
		t.Errorf("keepalive: [yes]: %v", err)
	}
}

// The rate axis: ids end in /r<N>. A matrix that names no generator
// measures fixed rates open-loop (openloop); bombardier's -r only where the
// generator axis names it, and then a rate it cannot hold evenly (not a
// multiple of 100) is refused with that reason.
func TestRateAxis(t *testing.T) {
	ids := func(text string) []string {
		t.Helper()
		m, err := parse(t, text)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range Expand(m, Selector{"one/plaintext"}, cpuset.Range(0, 2)) {
			if c.CPUs == 1 {
				out = append(out, c.ID())
			}
		}
		return out
	}
	got := ids(strings.Replace(good, "connections: [64, 256]", "connections: [64]\nrate: [0, 1000]", 1))
	if want := []string{"one/plaintext/1cpu/c64", "one/plaintext/1cpu/c64/r1000/openloop"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ids %v, want %v", got, want)
	}
	got = ids(strings.Replace(good, "connections: [64, 256]", "connections: [64]\nrate: [0, 1000]\ngenerator: [bombardier]", 1))
	if want := []string{"one/plaintext/1cpu/c64", "one/plaintext/1cpu/c64/r1000"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ids with bombardier named %v, want %v", got, want)
	}
	if _, err := parse(t, strings.Replace(good, "cpus: [1, 2]", "cpus: [1, 2]\nrate: [1050]\ngenerator: [bombardier, openloop]", 1)); err == nil ||
		!strings.Contains(err.Error(), "rate[0]: bombardier holds a rate evenly only at multiples of 100 requests/s, got 1050") {
		t.Errorf("rate 1050 with bombardier: %v", err)
	}
	if _, err := parse(t, strings.Replace(good, "cpus: [1, 2]", "cpus: [1, 2]\nrate: [1050]", 1)); err != nil {
		t.Errorf("rate 1050, open-loop: %v", err)
	}
}

// rate: {from, to, steps} sweeps geometrically, at two significant
// digits; slo: names the percentiles of the objective. Bad sweeps and
// objectives are refused at their field.
func TestRateSweepAndObjective(t *testing.T) {
	if got, want := Sweep(1000, 20000, 8), []int{1000, 1500, 2400, 3600, 5500, 8500, 13000, 20000}; !reflect.DeepEqual(got, want) {
		t.Errorf("Sweep(1000, 20000, 8) = %v, want %v", got, want)
	}
	if got, want := Sweep(10, 12, 5), []int{10, 11, 12}; !reflect.DeepEqual(got, want) {
		t.Errorf("Sweep(10, 12, 5) = %v, want %v (repeats dropped)", got, want)
	}
	m, err := parse(t, strings.Replace(good, "cpus: [1, 2]", "cpus: [1, 2]\nrate: {from: 1000, to: 8000, steps: 4}\nslo: {p99: 10ms, p99.9: 50ms}", 1))
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{1000, 2000, 4000, 8000}; !reflect.DeepEqual(m.Rate, want) {
		t.Errorf("rates %v, want %v", m.Rate, want)
	}
	if want := []Objective{{"p99", 10 * time.Millisecond}, {"p99.9", 50 * time.Millisecond}}; !reflect.DeepEqual(m.SLO, want) {
		t.Errorf("slo %v, want %v", m.SLO, want)
	}
	for _, c := range []struct{ text, want string }{
		{"rate: {from: 8000, to: 1000, steps: 4}", "rate.to: a sweep goes up: to (1000) must be above from (8000)"},
		{"rate: {from: 1000, to: 8000}", "rate.steps: missing"},
		{"rate: {from: 1000, to: 8000, steps: 1}", "rate.steps: must be at least 2, got 1"},
		{"rate: {from: 1000, to: 8000, step: 4}", "rate.step: unknown key"},
		{"slo: {p98: 1ms}", "slo.p98: unknown key"},
		{"slo: {p99: fast}", `slo.p99: invalid duration "fast"`},
		{"slo: {}", "slo: name at least one percentile"},
	} {
		_, err := parse(t, strings.Replace(good, "cpus: [1, 2]", "cpus: [1, 2]\n"+c.text, 1))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.text, err, c.want)
		}
	}
}

func TestEngines(t *testing.T) {
	two := good + `engines:
  server: {host: "ssh://bench@10.0.0.5", reserve: 1}
  client: {host: "unix:///var/run/docker.sock"}
placement: {target: server, loadgen: client, link: "10 GbE"}
`
	m, err := parse(t, two)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]EngineSpec{
		"server": {Name: "server", Host: "ssh://bench@10.0.0.5", Address: "10.0.0.5", Reserve: 1},
		"client": {Name: "client", Host: "unix:///var/run/docker.sock"},
	}
	if !reflect.DeepEqual(m.Engines, want) {
		t.Errorf("engines %+v, want %+v", m.Engines, want)
	}
	if p := *m.Placement; !reflect.DeepEqual(p, Placement{Target: "server", Loadgens: []string{"client"}, Link: "10 GbE"}) {
		t.Errorf("placement %+v", p)
	}
	cells := ExpandApart(m, Selector{"one/plaintext"}, cpuset.Range(1, 3), cpuset.Range(0, 2))
	if c := cells[0]; c.CPUSet.String() != "1" || c.LoadgenSet.String() != "1" || c.Skip != "" {
		t.Errorf("1-core cell: target %s, load generator %s, skip %q", c.CPUSet, c.LoadgenSet, c.Skip)
	}
	if c := cells[len(cells)-1]; c.CPUs != 2 || c.CPUSet.String() != "1-2" {
		t.Errorf("2-core cell: target %s", c.CPUSet)
	}
	if cells := ExpandApart(m, Selector{"one/plaintext"}, cpuset.Range(1, 1), cpuset.Range(0, 2)); !strings.Contains(cells[len(cells)-1].Skip, "target's machine") {
		t.Errorf("2 cores on a 1-core machine: skip %q", cells[len(cells)-1].Skip)
	}

	for _, tc := range []struct{ edit, from, want string }{
		{`host: "ssh://bench@10.0.0.5"`, `host: "http://10.0.0.5"`, `engines.server.host: unsupported scheme "http"`},
		{`host: "ssh://bench@10.0.0.5", reserve: 1`, `host: "unix:///other.sock"`, `engines.server: set address: where the load generator on engine "client" reaches this machine`},
		{"loadgen: client", "loadgen: clinet", `placement.loadgen: no engine "clinet" (have: server, client)`},
		{"placement: {target: server, loadgen: client, link: \"10 GbE\"}\n", "", "engines: engines need a placement"},
		{`{host: "unix:///var/run/docker.sock"}`, `{address: 10.0.0.6}`, "engines.client.host: missing: a DOCKER_HOST-style URL"},
		{`host: "ssh://bench@10.0.0.5"`, `host: "my context"`, `is neither a URL`},
		// Several generators: each entry an engines key, no repeats, not
		// empty, names only; the target then needs an address as soon as
		// any generator is elsewhere.
		{"loadgen: client", "loadgen: [client, clinet]", `matrix.yaml:35:47: placement.loadgen[1]: no engine "clinet" (have: server, client)`},
		{"loadgen: client", "loadgen: [client, client]", `matrix.yaml:35:47: placement.loadgen[1]: duplicate value "client" (also at line 35, column 39)`},
		{"loadgen: client", "loadgen: []", "placement.loadgen: must not be empty"},
		{"loadgen: client", "loadgen: [client, 7]", "placement.loadgen[1]: want a string, got int"},
		{"loadgen: client", "loadgen: {a: client}", "placement.loadgen: want a scalar, got a mapping"},
	} {
		text := strings.Replace(two, tc.edit, tc.from, 1)
		if text == two {
			t.Fatalf("edit %q not found", tc.edit)
		}
		if _, err := parse(t, text); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s → %s: error %v, want %q", tc.edit, tc.from, err, tc.want)
		}
	}
}

// placement.loadgen takes a list of engines keys as well as one: the
// targets' own engine may be among them, and the targets' engine needs an
// address as soon as any generator runs elsewhere.
func TestSeveralGenerators(t *testing.T) {
	engines := good + `engines:
  server: {host: "unix:///var/run/docker.sock"}
  client: {host: "ssh://bench@10.0.0.6"}
`
	m, err := parse(t, engines+"placement: {target: server, loadgen: [server, client]}\n")
	if err == nil || !strings.Contains(err.Error(), `engines.server: set address: where the load generator on engine "client" reaches this machine`) {
		t.Errorf("a generator elsewhere, the target without an address: %v", err)
	}
	if m, err = parse(t, engines+"placement: {target: server, loadgen: [server]}\n"); err != nil || !slices.Equal(m.Placement.Loadgens, []string{"server"}) {
		t.Errorf("the one generator on the targets' engine: %v %+v", err, m)
	}
	text := strings.Replace(engines, `host: "unix:///var/run/docker.sock"}`, `host: "unix:///var/run/docker.sock", address: 10.0.0.5}`, 1)
	m, err = parse(t, text+"placement:\n  target: server\n  loadgen:\n    - client\n    - server\n")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Placement.Loadgens, []string{"client", "server"}) {
		t.Errorf("loadgens %v, want [client server] in the file's order", m.Placement.Loadgens)
	}
}

func TestRelativeTo(t *testing.T) {
	text := good + "report: {relative_to: [{scenario: plaintext}]}\n"
	text = strings.Replace(text, "only: \"one/json\"}", "only: \"one/json\", report: {relative_to: [{target: two}]}}", 1)
	m, err := parse(t, text)
	if err != nil {
		t.Fatal(err)
	}
	if want := []Relative{{Scenario: "plaintext"}}; !reflect.DeepEqual(m.RelativeTo, want) {
		t.Errorf("relative_to %+v, want %+v", m.RelativeTo, want)
	}
	p, err := m.WithProfile("counted")
	if err != nil {
		t.Fatal(err)
	}
	if want := []Relative{{Target: "two"}}; !reflect.DeepEqual(p.RelativeTo, want) {
		t.Errorf("profile relative_to %+v, want %+v", p.RelativeTo, want)
	}
	c := Cell{Key: cellid.Key{Target: "one", Scenario: "json", CPUs: 1, Connections: 64}}
	if got := (Relative{Scenario: "plaintext"}).Base(c.Key).ID(); got != "one/plaintext/1cpu/c64" {
		t.Errorf("base %s", got)
	}
	if got := (Relative{Connections: 256}).Base(c.Key).ID(); got != "one/json/1cpu/c256" {
		t.Errorf("base by connections %s", got)
	}
	if dim, v := (Relative{Connections: 256}).Dimension(); dim != "connections" || v != "256" {
		t.Errorf("dimension %s %s", dim, v)
	}
	m, err = parse(t, good+"report: {relative_to: [{connections: 256}]}\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := []Relative{{Connections: 256}}; !reflect.DeepEqual(m.RelativeTo, want) {
		t.Errorf("relative_to %+v, want %+v", m.RelativeTo, want)
	}
	// A profile's baseline is checked against the profile's own axis.
	if _, err := parse(t, strings.Replace(good, "only: \"one/json\"}", "only: \"one/json\", report: {relative_to: [{connections: 64}]}}", 1)); err == nil ||
		!strings.Contains(err.Error(), "profiles.counted.report.relative_to[0].connections: 64 is not on the connections axis [512]") {
		t.Errorf("profile baseline off its axis: %v", err)
	}
	for _, tc := range []struct{ from, want string }{
		{"[{scenario: plain}]", `report.relative_to[0].scenario: no scenario named "plain"`},
		{"[{scenario: plaintext, target: one}]", "report.relative_to[0]: set exactly one of scenario, variant, target, connections, protocol, requests or loadgens"},
		{"[{connections: 128}]", "report.relative_to[0].connections: 128 is not on the connections axis [64 256]"},
		{"[{connections: 64, variant: fast}]", "report.relative_to[0]: set exactly one"},
		{"[{variant: fast}]", `report.relative_to[0].variant: no variant named "fast"`},
		{"[]", "report.relative_to: must not be empty"},
	} {
		bad := good + "report: {relative_to: " + tc.from + "}\n"
		if _, err := parse(t, bad); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.from, err, tc.want)
		}
	}
}

// Froms resolves what each FROM line starts from: an images key, an
// earlier stage, scratch, or an image the harness does not control.
func TestFroms(t *testing.T) {
	df := "# syntax=docker/dockerfile:1\n" +
		"ARG GOLANG_IMAGE\nARG BASE=python:3.12-slim \\\n  OTHER=x\n" +
		"FROM --platform=$BUILDPLATFORM ${GOLANG_IMAGE} AS build\n" +
		"ARG LATE=ignored\n" +
		"FROM \\\n  # a comment inside a continuation\n  ${BASE}\n" +
		"from build as second\n" +
		"FROM scratch\n" +
		"FROM ${MISSING:-debian:bookworm}\n" +
		"FROM Second\n"
	froms, err := Froms([]byte(df))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range froms {
		got = append(got, fmt.Sprintf("%d %s key=%s image=%s stage=%v", f.Line, f.Raw, f.Key, f.Image, f.Stage))
	}
	want := []string{
		"5 ${GOLANG_IMAGE} key=golang image= stage=false",
		"7 ${BASE} key= image=python:3.12-slim stage=false",
		"10 build key= image=build stage=true",
		"11 scratch key= image=scratch stage=true",
		"12 ${MISSING:-debian:bookworm} key= image=debian:bookworm stage=false",
		"13 Second key= image=Second stage=true",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Froms (-want +got):\n%s", diff)
	}
	if _, err := Froms([]byte("FROM ${NOPE}\n")); err == nil || !strings.Contains(err.Error(), "line 1: FROM ${NOPE}: ARG NOPE has no default") {
		t.Errorf("unresolvable FROM: %v", err)
	}
	// A backtick escape directive continues lines with `.
	froms, err = Froms([]byte("# escape=`\nFROM `\n  alpine:3\n"))
	if err != nil || len(froms) != 1 || froms[0].Image != "alpine:3" {
		t.Errorf("escape directive: %+v, %v", froms, err)
	}
}

// Hostile shapes: a decode the schema check did not catch (an alias that
// contains itself), a second document, and nesting that made the parsers
// take gigabytes are input errors with a position, and parsing any file
// under the size cap stays under 100 MB of allocation.
func TestHostileShapes(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"self alias", strings.Replace(good, "expect: {", "expect: {json: &a [*a], ", 1), "anchor 'a' value contains itself"},
		{"two documents", "version: 1\n---\nversion: 1\n", "3:1: a second YAML document"},
		{"deep flow", "version: 1\nx: " + strings.Repeat("[", 100000) + "\n", "2:68: nested more than 64 levels deep"},
		{"deep braces", "version: 1\nx: " + strings.Repeat("{a: ", 1000) + "\n", "nested more than 64 levels deep"},
	} {
		_, err := Parse("m.yaml", []byte(tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	// Brackets in quotes and comments do not count.
	if err := checkShape("m.yaml", []byte("a: \""+strings.Repeat("[", 100)+"\"\n# "+strings.Repeat("{", 100)+"\nb: '[[['\n")); err != nil {
		t.Errorf("quoted brackets counted: %v", err)
	}
	for _, text := range []string{
		strings.Repeat("[", MaxFileSize-1),
		"version: 1\nx: " + strings.Repeat("[", 60) + strings.Repeat("1, ", (MaxFileSize-200)/3),
		"version: 1\nx: &a [" + strings.Repeat("*a, ", (MaxFileSize-200)/4) + "]\n",
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		Parse("m.yaml", []byte(text))
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 100<<20 {
			t.Errorf("%d bytes starting %q allocated %d MB", len(text), text[:min(20, len(text))], grew>>20)
		}
	}
}

// Values that collide or cannot be what they name: each is an input error
// naming the field (and, for a collision, both names).
func TestCollidingValues(t *testing.T) {
	services := `
  multi:
    services:
      a-b: {build: t1, port: 9000}
      a.b: {build: t1, port: 9100}
      a_b: {build: t1, port: 65535, replicas: 3}
      big: {build: t1, replicas: 1000}
    entry: a-b
    port: 9000
`
	for _, tc := range []struct{ name, edit, from, want string }{
		{"services become one variable", "targets:\n", "targets:" + services, `targets.multi.services.a.b: services "a-b" and "a.b" both become A_B_ADDRS`},
		{"third one too", "targets:\n", "targets:" + services, `services "a-b" and "a_b" both become A_B_ADDRS`},
		{"ports past 65535", "targets:\n", "targets:" + services, "targets.multi.services.a_b.replicas: 3 replicas from port 65535 need ports up to 65537, past 65535"},
		{"too many containers", "targets:\n", "targets:" + services, "targets.multi.services: 1005 containers in all (replicas summed over services); a target may have at most 64"},
		{"double dot", "  two:\n", "  a..b:\n", `targets.a..b: name "a..b": use lowercase letters and digits`},
		{"trailing dash", "  two:\n", "  a-:\n", `targets.a-: name "a-"`},
		{"too long", "  two:\n", "  " + strings.Repeat("a", 253) + ":\n", "(at most 63 characters)"},
		{"empty build", "build: t1\n    port: 8081", "build: \"\"\n    port: 8081", "targets.two.build: empty: name the folder holding the Dockerfile"},
		{"null env", `env: {A: "b"}`, `env: {A: null}`, `targets.one.env.A: no value (null); write "" for an empty one`},
	} {
		text := strings.Replace(good, tc.edit, tc.from, 1)
		if text == good {
			t.Fatalf("%s: edit %q not found", tc.name, tc.edit)
		}
		_, err := parse(t, text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v\nwant %q", tc.name, err, tc.want)
		}
	}
}

// limits.memory reads sizes as Docker's --memory does (go-units): bytes,
// or a binary unit; a size past an int64, a unit it does not know and one
// under the engine's minimum are refused at the field.
func TestMemoryLimit(t *testing.T) {
	for _, c := range []struct {
		size string
		want int64
		err  string
	}{
		{"256m", 256 << 20, ""},
		{"2g", 2 << 30, ""},
		{"1.5GiB", 3 << 29, ""},
		{"104857600", 100 << 20, ""},
		{"12q", 0, `limits.memory: want a size such as 512m or 2g, got "12q"`},
		{"99999999999999999999g", 0, `limits.memory: size "99999999999999999999g" is too large`},
		{"1m", 0, "limits.memory: must be at least 6m"},
	} {
		m, err := parse(t, strings.Replace(good, "cpus: [1, 2]", "cpus: [1, 2]\nlimits: {memory: \""+c.size+"\"}", 1))
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("memory %s: %v, want %q", c.size, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("memory %s: %v", c.size, err)
		case c.err == "" && m.Limits.MemoryBytes != c.want:
			t.Errorf("memory %s = %d bytes, want %d", c.size, m.Limits.MemoryBytes, c.want)
		}
	}
}

// The pinning axis: apart (the default: the generator on cores of its
// own), together (on the target's own cores, as study 000's 1-core VM
// ran) and none (neither pinned: every core for both, as a laptop run).
// Ids say the pinning unless apart; two machines cannot run together or
// unpinned, and say why.
func TestPinningAxis(t *testing.T) {
	m, err := parse(t, strings.Replace(good, "cpus: [1, 2]", "cpus: [1]\npinning: [apart, together, none]", 1))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range Expand(m, Selector{"one/plaintext"}, cpuset.Range(0, 4)) {
		if c.Connections == 64 {
			got = append(got, c.ID()+" "+c.CPUSet.String()+" "+c.LoadgenSet.String())
		}
	}
	want := []string{"one/plaintext/1cpu/c64 0 3", "one/plaintext/1cpu/c64/together 0 0", "one/plaintext/1cpu/c64/unpinned 0-3 0-3"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cells %q, want %q", got, want)
	}
	for _, c := range ExpandApart(m, Selector{"one/plaintext"}, cpuset.Range(0, 4), cpuset.Range(0, 4)) {
		if (c.Pinning == "") != (c.Skip == "") || c.Pinning != "" && !strings.Contains(c.Skip, "needs the generator and the target on one machine") {
			t.Errorf("two machines: %s skip %q", c.ID(), c.Skip)
		}
	}
	if _, err := parse(t, strings.Replace(good, "cpus: [1, 2]", "cpus: [1]\npinning: [shared]", 1)); err == nil ||
		!strings.Contains(err.Error(), `pinning[0]: want "apart" or "together" or "none", got "shared"`) {
		t.Errorf("pinning shared: %v", err)
	}
}

// The protocol axis: a cell for each protocol that is on the axis and
// that the target serves (http1 alone when it lists none); ids name the
// protocol unless http1; relative_to a protocol must be on the axis; and
// unknown protocols, and TLS_CERT_FILE in a matrix's env, are refused at
// their field.
func TestProtocolAxis(t *testing.T) {
	text := strings.Replace(good, "cpus: [1, 2]", "cpus: [1]\nprotocol: [http1, https, h2c]\nreport: {relative_to: [{protocol: http1}]}", 1)
	text = strings.Replace(text, "    env: {A: \"b\"}", "    env: {A: \"b\"}\n    protocols: [http1, https, h2, h2c]", 1)
	m, err := parse(t, text)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range Expand(m, Selector{"one/plaintext", "two/plaintext"}, cpuset.Range(0, 4)) {
		if c.Connections == 64 {
			got = append(got, c.ID())
		}
	}
	// no generator named: h2c is measured by h2load, which speaks it
	want := []string{"one/plaintext/1cpu/c64", "one/plaintext/1cpu/c64/https", "one/plaintext/1cpu/c64/h2load/h2c", "two/plaintext/1cpu/c64"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cells %q, want %q", got, want)
	}
	if n := Count(m, Selector{"one/plaintext", "two/plaintext"}); n != 8 {
		t.Errorf("Count %d, want 8 (4 cells × 2 connection counts)", n)
	}
	if len(m.RelativeTo) != 1 || m.RelativeTo[0].Protocol != "http1" {
		t.Errorf("relative_to %+v", m.RelativeTo)
	}
	for _, bad := range []struct{ from, to, want string }{
		{"protocol: [http1, https, h2c]", "protocol: [http3]", `protocol[0]: want "http1" or "https" or "h2" or "h2c", got "http3"`},
		{"relative_to: [{protocol: http1}]", "relative_to: [{protocol: h2}]", "report.relative_to[0].protocol: h2 is not on the protocol axis [http1 https h2c]"},
		{"protocols: [http1, https, h2, h2c]", "protocols: [quic]", `targets.one.protocols[0]: want "http1" or "https" or "h2" or "h2c", got "quic"`},
		{`env: {A: "b"}`, `env: {TLS_CERT_FILE: "/x"}`, "targets.one.env.TLS_CERT_FILE: set by the harness"},
	} {
		if _, err := parse(t, strings.Replace(text, bad.from, bad.to, 1)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: %v, want %q", bad.to, err, bad.want)
		}
	}
}

// axisCells parses text and expands one/plaintext, returning the cells
// and the ids of those at 64 connections: what the axis tests compare.
func axisCells(t *testing.T, text string) (*Matrix, []Cell, []string) {
	t.Helper()
	m, err := parse(t, text)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	cells := Expand(m, Selector{"one/plaintext"}, cpuset.Range(0, 4))
	for _, c := range cells {
		if c.Connections == 64 {
			ids = append(ids, c.ID())
		}
	}
	return m, cells, ids
}

// The requests axis (study 000's -n 1,000,000 against -n 10,000,000 in
// one run): a cell per count, its id and its load carry the count, a
// profile sets the axis, and its refusals name the field.
func TestRequestsAxis(t *testing.T) {
	text := strings.Replace(good, "cpus: [1, 2]", "cpus: [1]\nrequests: [1000, 20000]\nreport: {relative_to: [{requests: 1000}]}", 1)
	m, cells, got := axisCells(t, text)
	want := []string{"one/plaintext/1cpu/c64/n1000", "one/plaintext/1cpu/c64/n20000"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cells %q, want %q", got, want)
	}
	if n := Count(m, Selector{"one/plaintext"}); n != 4 {
		t.Errorf("Count %d, want 4 (2 counts × 2 connection counts)", n)
	}
	for _, c := range cells {
		if l := CellLoad(m, c); l.Requests != c.Requests || l.Duration != 0 {
			t.Errorf("%s: load %d requests, duration %s; want %d requests and no duration", c.ID(), l.Requests, l.Duration, c.Requests)
		}
	}
	if len(m.RelativeTo) != 1 || m.RelativeTo[0].Requests != 1000 {
		t.Errorf("relative_to %+v", m.RelativeTo)
	}
	if base := m.RelativeTo[0].Base(cells[1].Key); base.ID() != cells[0].ID() {
		t.Errorf("the baseline of %s is %s, want %s", cells[1].ID(), base.ID(), cells[0].ID())
	}
	// Without the axis a cell runs the load as written, and its id is as before.
	plain, err := parse(t, good)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range Expand(plain, Selector{"one/plaintext"}, cpuset.Range(0, 4)) {
		if l := CellLoad(plain, c); c.Requests != 0 || l != plain.Load || strings.Contains(c.ID(), "/n") {
			t.Errorf("%s: requests %d, load %+v; want the file's load %+v", c.ID(), c.Requests, l, plain.Load)
		}
	}
	prof := strings.Replace(good, "profiles:\n", "profiles:\n  counts: {requests: [500, 5000], report: {relative_to: [{requests: 500}]}}\n", 1)
	pm, err := parse(t, prof)
	if err != nil {
		t.Fatal(err)
	}
	if p, err := pm.WithProfile("counts"); err != nil || !reflect.DeepEqual(p.Requests, []int64{500, 5000}) {
		t.Errorf("profile counts: requests %v, %v; want [500 5000]", p.Requests, err)
	}
	for _, bad := range []struct{ from, to, want string }{
		{"requests: [1000, 20000]", "requests: [0]", "requests[0]: must be at least 1"},
		{"requests: [1000, 20000]", "requests: [1000, 1000]", `requests[1]: duplicate value "1000"`},
		{"requests: [1000, 20000]", "requests: []", "requests: must not be empty"},
		{"relative_to: [{requests: 1000}]", "relative_to: [{requests: 3000}]", "report.relative_to[0].requests: 3000 is not on the requests axis [1000 20000]"},
		{"relative_to: [{requests: 1000}]", "relative_to: [{requests: 1000, connections: 64}]", "set exactly one of"},
	} {
		if _, err := parse(t, strings.Replace(text, bad.from, bad.to, 1)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: %v, want %q", bad.to, err, bad.want)
		}
	}
}

// A scenario's pipeline is read, given to each of its cells (and to no
// other scenario's), and bounded, each problem at its line and column.
func TestPipeline(t *testing.T) {
	text := strings.Replace(good, "    path: /plaintext\n", "    path: /plaintext\n    pipeline: 16\n", 1)
	m, err := parse(t, text)
	if err != nil {
		t.Fatal(err)
	}
	if m.Scenarios[0].Pipeline != 16 || m.Scenarios[1].Pipeline != 0 {
		t.Errorf("scenarios %+v, want plaintext pipelined 16 deep", m.Scenarios)
	}
	for _, c := range Expand(m, nil, cpuset.Range(0, 4)) {
		if want := map[string]int{"plaintext": 16}[c.Scenario]; c.Pipeline != want {
			t.Errorf("%s: pipeline %d, want %d", c.ID(), c.Pipeline, want)
		}
	}
	for _, bad := range []struct{ to, want string }{
		{"pipeline: 0", "matrix.yaml:25:15: scenarios.plaintext.pipeline: must be at least 1, got 0"},
		{"pipeline: 1000", "matrix.yaml:25:15: scenarios.plaintext.pipeline: must be at most 256"},
		{"pipeline: deep", "matrix.yaml:25:15: scenarios.plaintext.pipeline: want an integer"},
	} {
		if _, err := parse(t, strings.Replace(text, "pipeline: 16", bad.to, 1)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: %v, want %q", bad.to, err, bad.want)
		}
	}
	if m, err := parse(t, strings.Replace(text, "pipeline: 16", "pipeline: 1", 1)); err != nil || m.Scenarios[0].Pipeline != 0 {
		t.Errorf("pipeline 1: %v, %+v; want none (each answer awaited)", err, m.Scenarios[0])
	}
}

// Hostile matrices that plan accepted and that failed later are refused at
// their field, and a file that is no matrix is refused without quoting it.
func TestHostilePassFindings(t *testing.T) {
	pool := "targets:\n  multi:\n    services:\n      e: {build: t1}\n      a: {build: t1, port: 65530, replicas: 4}\n      b: {build: t1, port: 65531, replicas: 4}\n    entry: e\n    port: 8000\n"
	for _, tc := range []struct{ name, edit, to, field string }{
		{"ports shifted past 65535", "targets:\n", pool, "targets.multi.services.b.replicas"},
		{"space in path", "path: /plaintext", `path: "/plain text"`, "scenarios.plaintext.path"},
		{"CR LF in path", "path: /plaintext", `path: "/p\r\nHost: evil"`, "scenarios.plaintext.path"},
		{"bad escape in path", "path: /plaintext", `path: "/p%zz"`, "scenarios.plaintext.path"},
		{"integer past 2^53", "n: 3}", "n: 9007199254740993}", "scenarios.json.expect.json.n"},
		{"timestamp", "n: 3}", "n: 2001-12-14}", "scenarios.json.expect.json.n"},
		{".inf", "n: 3}", "n: .inf}", "scenarios.json.expect.json.n"},
		{"non-string key", "n: 3}", "1: 3}", "scenarios.json.expect.json"},
	} {
		text := strings.Replace(good, tc.edit, tc.to, 1)
		_, err := parse(t, text)
		var errs Errors
		if !errors.As(err, &errs) || !slices.ContainsFunc(errs, func(e *Error) bool { return e.Field == tc.field && e.Line > 0 }) {
			t.Errorf("%s: %v, want an error at %s", tc.name, err, tc.field)
		}
	}
	// A file that is no matrix: nothing of it is quoted.
	for _, text := range []string{
		"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA: x: y\n-----END OPENSSH PRIVATE KEY-----\n",
		"password=hunter2secret\n",
		`{"auths": {"x": {"auth": "hunter2secret"}}}`,
		"a: \"hunter2secret\n",
	} {
		_, err := Parse("key", []byte(text))
		if err == nil || strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "b3BlbnNz") {
			t.Errorf("%q: %v", text, err)
		}
	}
}

// An engine URL's secrets stay out of its errors: a password holding / or
// # was shown by a URL parse error, and a token used as the user name was
// not redacted.
func TestEngineErrorsRedact(t *testing.T) {
	for _, spec := range []string{
		"tcp://admin:pa/ss#word@host:2375",
		"tcp://admin:hunter2#x@host:bad",
		"ssh://ghp_SECRETTOKEN1234567890abcdefghijklmnopqrstuvwxyzABCDEF@host:22:99",
		"ftp://bob:hunter2/x@host",
	} {
		// Each is malformed (a password's / or # read as the host's end, a
		// port that is no number, a scheme no engine has), so each must
		// be refused, or there would be no message to check.
		err := CheckEngine(spec)
		if err == nil {
			t.Errorf("%s: accepted, want an error", spec)
			continue
		}
		if msg := err.Error(); strings.Contains(msg, "hunter2") || strings.Contains(msg, "pa/ss") || strings.Contains(msg, "SECRETTOKEN") {
			t.Errorf("%s: %v", spec, err)
		}
	}
	if got := redact.Text("dial ssh://ghp_SECRETTOKEN1234567890abcdefghijklmnopqrstuvwxyz@h:22: refused"); strings.Contains(got, "SECRET") {
		t.Errorf("redact.Text = %q", got)
	}
}

// A Dockerfile linked out of its build folder is refused by plan: it
// passed and failed the build (the engine gets only the folder).
func TestDockerfileLinkedOutOfContext(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(dir, "Dockerfile.elsewhere")
	if err := os.WriteFile(outside, []byte("FROM scratch\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(dir, "t1"), 0o755)
	os.Symlink(outside, filepath.Join(dir, "t1", "Dockerfile"))
	_, err := Parse(filepath.Join(dir, "matrix.yaml"), []byte(good))
	var errs Errors
	if !errors.As(err, &errs) || !slices.ContainsFunc(errs, func(e *Error) bool { return e.Field == "targets.one.build" }) {
		t.Errorf("a Dockerfile linked out of its folder: %v", err)
	}
}

// The loadgens axis (one generator against two, paired in one run, so
// that the machine's drift falls on both): a cell per count, its id ends in /<k>lg, relative_to {loadgens: k}
// gives each cell over its twin at k, a profile and a flag set the axis,
// and a count past the run's generator engines is refused where it was
// written, once the engines are known. Without the axis, ids are as
// before.
func TestLoadgensAxis(t *testing.T) {
	text := strings.Replace(good, "cpus: [1, 2]", "cpus: [1]\nloadgens: [1, 2]\nreport: {relative_to: [{loadgens: 2}]}", 1)
	m, cells, got := axisCells(t, text)
	want := []string{"one/plaintext/1cpu/c64/1lg", "one/plaintext/1cpu/c64/2lg"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cells %q, want %q", got, want)
	}
	if n := Count(m, Selector{"one/plaintext"}); n != 4 {
		t.Errorf("Count %d, want 4 (2 generator counts × 2 connection counts)", n)
	}
	if base := m.RelativeTo[0].Base(cells[0].Key); base.ID() != cells[1].ID() {
		t.Errorf("the baseline of %s is %s, want %s", cells[0].ID(), base.ID(), cells[1].ID())
	}
	if err := m.CheckLoadgens(2); err != nil {
		t.Errorf("two engines: %v", err)
	}
	err := m.CheckLoadgens(1)
	if want := "testdata/matrix.yaml:12:15: loadgens[1]: 2 generator engines asked, but this run has one"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("one engine: %v, want %q", err, want)
	}
	plain, err := parse(t, good)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range Expand(plain, nil, cpuset.Range(0, 4)) {
		if c.Loadgens != 0 || strings.Contains(c.ID(), "lg") {
			t.Errorf("%s: loadgens %d without the axis", c.ID(), c.Loadgens)
		}
	}
	if err := plain.CheckLoadgens(1); err != nil {
		t.Errorf("no axis: %v", err)
	}
	prof := strings.Replace(good, "profiles:\n", "profiles:\n  pair: {loadgens: [2, 1], report: {relative_to: [{loadgens: 1}]}}\n", 1)
	pm, err := parse(t, prof)
	if err != nil {
		t.Fatal(err)
	}
	p, err := pm.WithProfile("pair")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.Loadgens, []int{2, 1}) || len(p.RelativeTo) != 1 || p.RelativeTo[0].Loadgens != 1 {
		t.Errorf("profile pair: loadgens %v, relative_to %+v; want [2 1] against 1", p.Loadgens, p.RelativeTo)
	}
	if err := p.CheckLoadgens(1); err == nil || !strings.Contains(err.Error(), "testdata/matrix.yaml:30:21: profiles.pair.loadgens[0]: 2 generator engines") {
		t.Errorf("profile pair on one engine: %v", err)
	}
	flagged, err := plain.WithSettings([]Setting{{Flag: "--loadgens 1,3", Key: "loadgens", Value: "[1,3]"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := flagged.CheckLoadgens(2); err == nil || err.Error() != "--loadgens 1,3: loadgens[1]: 3 generator engines asked, but this run has 2 (placement.loadgen or --loadgen-engine names them)" {
		t.Errorf("--loadgens 1,3 on two engines: %v", err)
	}
	for _, bad := range []struct{ from, to, want string }{
		{"loadgens: [1, 2]", "loadgens: [0]", "loadgens[0]: must be at least 1"},
		{"loadgens: [1, 2]", "loadgens: [2, 2]", `loadgens[1]: duplicate value "2"`},
		{"relative_to: [{loadgens: 2}]", "relative_to: [{loadgens: 3}]", "report.relative_to[0].loadgens: 3 is not on the loadgens axis [1 2]"},
		{"relative_to: [{loadgens: 2}]", "relative_to: [{loadgens: 2, connections: 64}]", "set exactly one of"},
	} {
		if _, err := parse(t, strings.Replace(text, bad.from, bad.to, 1)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: %v, want %q", bad.to, err, bad.want)
		}
	}
}
