package e2e

import (
	"context"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/cli"
	"github.com/webbench/webbench/harness/results"
)

// One real target measured by each load generator: wrk, h2load and ab beside
// bombardier (which every other test uses), each cell recording its
// generator and version, and a generator that cannot measure a cell as the
// matrix asks (ab given a duration, wrk a request count) skipping it with
// the reason. ab then measures a request count, as study 003 ran it, in
// bridge mode (the target reached by name) and in host mode (127.0.0.1),
// where the run's network mode is recorded and ab also runs on the
// target's own core, as study 000's 1-core VM ran (pinning together: the
// generator's container is moved there, and the cell records the cores
// the engine reports for it afterwards, not the ones asked).
func TestGenerators(t *testing.T) {
	eng := connect(t)
	timed := generatorMatrix(t, "generator: [h2load, ab]", "duration: 1s", "requests: 0")
	counted := generatorMatrix(t, "generator: [ab, wrk]", "duration: 1s", "requests: 5000")
	pinned := generatorMatrix(t, "generator: [ab, wrk]\npinning: [apart, together]", "duration: 1s", "requests: 5000")
	for _, c := range []struct {
		file    string
		network string
		extra   []string
		ok      []string
		skip    map[string]string
	}{
		// wrk as a cross-check: every cell measured a second time by it.
		{timed, "bridge", []string{"--crosscheck", "wrk"}, []string{"h2load", "wrk"}, map[string]string{"ab": "request count"}},
		{counted, "bridge", nil, []string{"ab"}, map[string]string{"wrk": "no request count"}},
		{pinned, "host", nil, []string{"ab", "ab/together"}, map[string]string{"wrk": "no request count", "wrk/together": "no request count"}},
	} {
		out := t.TempDir()
		// In bridge mode the generator reaches the target by its name on
		// the run's network; in host mode at 127.0.0.1 (as in shared mode,
		// which bombardier runs in every other test).
		code, text := runCLI(context.Background(), t, append([]string{"run", "-f", c.file, "--out", out, "--only", "go-nethttp/plaintext", "--network", c.network}, c.extra...)...)
		if code != cli.ExitOK {
			t.Fatalf("run exit %d", code)
		}
		noLeftovers(t, eng)
		run, err := results.Read(out)
		if err != nil {
			t.Fatal(err)
		}
		if string(run.Environment.NetworkMode) != c.network {
			t.Errorf("network mode %q, want %s", run.Environment.NetworkMode, c.network)
		}
		cells := cellsByID(run)
		for _, key := range c.ok {
			gen, together := strings.CutSuffix(key, "/together")
			cell := cells["go-nethttp/plaintext/1cpu/c16/"+key]
			if cell == nil || cell.Status != results.OK || cell.Generator == nil || cell.Generator.Name != gen || cell.Generator.Version == "" {
				t.Errorf("%s: %+v, want ok with its generator and version recorded", gen, cell)
				continue
			}
			tr := cell.Trials[0]
			if tr.Requests < 1000 || tr.ErrorRate > 0 || tr.LatencyMS.Max <= 0 {
				t.Errorf("%s: trial %+v", key, tr.Result)
			}
			if together && (cell.LoadgenCPUSet != cell.CPUSet || tr.GeneratorBound) {
				t.Errorf("%s: generator on %q, target on %q, generator-bound %v: want the target's cores, and no judgement from the generator's CPU",
					key, cell.LoadgenCPUSet, cell.CPUSet, tr.GeneratorBound)
			}
			switch gen {
			case "wrk":
				if tr.LatencyMS.P999 <= 0 {
					t.Errorf("wrk: no p99.9 (%+v)", tr.LatencyMS)
				}
			case "h2load":
				if tr.LatencyMS.P50 != 0 || tr.LatencyMS.Mean <= 0 {
					t.Errorf("h2load reports no percentiles, only mean and max: %+v", tr.LatencyMS)
				}
			case "ab":
				if tr.Requests+tr.Errors != 5000 {
					t.Errorf("ab: %d good + %d errors, asked 5000", tr.Requests, tr.Errors)
				}
				// The verified answer is asked as ab asks (HTTP/1.0, which
				// Go's server answers in HTTP/1.0 with a Connection header
				// an HTTP/1.1 answer lacks), so ab's bytes read raise no
				// size warning.
				if cell.Negotiated == nil || cell.Negotiated.HTTP != "HTTP/1.0" {
					t.Errorf("ab: the probe was answered %+v, want HTTP/1.0 (asked as ab asks)", cell.Negotiated)
				}
				for _, w := range cell.Warnings {
					if strings.Contains(w, "answers changed under load") {
						t.Errorf("ab: %s", w)
					}
				}
			}
			if !strings.Contains(run.Environment.LoadGenerator, gen+" "+cell.Generator.Version) {
				t.Errorf("environment names %q, not %s %s", run.Environment.LoadGenerator, gen, cell.Generator.Version)
			}
		}
		for gen, why := range c.skip {
			if cell := cells["go-nethttp/plaintext/1cpu/c16/"+gen]; cell == nil || cell.Status != results.Skipped || !strings.Contains(cell.Reason, why) {
				t.Errorf("%s: %+v, want skipped: %s", gen, cell, why)
			}
		}
		var gens []string
		for _, ce := range run.Ceilings {
			gen := ce.GeneratorName()
			if ce.Pinning == "together" {
				gen += "/together" // a ceiling of its own, on the target's cores
			}
			gens = append(gens, gen)
		}
		slices.Sort(gens)
		if !slices.Equal(gens, slices.Sorted(slices.Values(c.ok))) {
			t.Errorf("ceilings measured for %v, want one per generator that ran %v", gens, c.ok)
		}
		readme, _ := os.ReadFile(out + "/README.md")
		if !strings.Contains(string(readme), "go-nethttp ("+c.ok[0]+")") {
			t.Errorf("README has no row for go-nethttp measured by %s:\n%s\n%s", c.ok[0], readme, text)
		}
		if c.extra != nil && (run.Matrix.Crosscheck != "wrk" || !strings.Contains(string(readme), "**Cross-check: wrk against h2load.**") ||
			!regexp.MustCompile(`\| go-nethttp +\| +1 +\| +16 +\|`).MatchString(string(readme))) {
			t.Errorf("README has no cross-check of h2load by wrk (crosscheck %q):\n%s", run.Matrix.Crosscheck, readme)
		}
	}
}

// generatorMatrix is the e2e matrix over go-nethttp with one trial, no
// warm-up, the generator axis line gens, and the load's duration replaced
// by load.
func generatorMatrix(t *testing.T, gens, from, to string) string {
	t.Helper()
	path := writeMatrixTrials(t, "shared", "0", "1s", "go-nethttp") // behaviour, not figures: 1 s trials
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(data), "cpus: [1]", "cpus: [1]\n"+gens, 1)
	text = strings.Replace(text, "trials: 2", "trials: 1", 1)
	if to != "requests: 0" {
		text = strings.Replace(text, from, to, 1)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// pausing is a matrix of one server of our own that holds every answer
// due in the first 300 ms of each second, loaded at 200 requests/s over 4
// connections by the open-loop generator and by bombardier -r.
const pausing = `version: 1
images: {debian: debian:bookworm-slim, golang: golang:1.26-bookworm}
load: {duration: 3s, warmup: 0s, trials: 1, timeout: 2s}
connections: [4]
rate: [200]
generator: [openloop, bombardier]
targets:
  pauses: {build: ROOT/harness/e2e/testdata/misbehave, port: 8080, env: {MODE: pause}}
scenarios:
  plaintext:
    path: /plaintext
    expect: {status: 200, body: "Hello, World!"}
`

// The open-loop generator in the load generator image measures a server
// that pauses: about 30% of the requests are due during a pause, so its
// p90 shows the pauses, while bombardier -r, closed-loop, sends nothing
// while its 4 connections wait and its p90 does not (nor does it hold the
// rate: its cell fails, "could not sustain"). The open-loop trial records
// its schedule (sends asked, made, late, never made) and its histogram;
// its ceiling, as a generator that keeps a schedule, is measured at the
// run's highest rate, which against the fixed-response server it sustains.
// It runs in bridge mode (the target by name); the generators reach a
// target in host mode at 127.0.0.1 in TestGenerators (how the address is
// made is the same for each), and the open-loop one runs in host mode
// across machines in TestGeneratorFaults and TestSeveralGenerators.
func TestOpenLoopGenerator(t *testing.T) {
	eng := connect(t)
	file := writeRooted(t, pausing)
	out := t.TempDir()
	runCLI(context.Background(), t, "run", "-f", file, "--out", out, "--network", "bridge")
	noLeftovers(t, eng)
	run, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if run.Environment.NetworkMode != "bridge" {
		t.Errorf("network mode %q, want bridge", run.Environment.NetworkMode)
	}
	cells := cellsByID(run)
	open, closed := cells["pauses/plaintext/1cpu/c4/r200/openloop"], cells["pauses/plaintext/1cpu/c4/r200"]
	if open == nil || open.Status != results.OK || open.Generator == nil || !strings.Contains(open.Generator.Version, "hdrhistogram-go") {
		t.Fatalf("open-loop cell %+v", open)
	}
	if closed == nil || len(closed.Trials) == 0 {
		t.Fatalf("bombardier cell %+v", closed)
	}
	tr := open.Trials[0]
	if o := tr.OpenLoop; o == nil || o.Scheduled < 590 || o.Sent+o.Unsent != o.Scheduled || o.Late == 0 || o.Histogram == "" || tr.LatencyMS.P9999 <= 0 {
		t.Errorf("open-loop trial %+v, schedule %+v", tr.Result, tr.OpenLoop)
	}
	openP90, closedP90 := tr.LatencyMS.P90, closed.Trials[0].LatencyMS.P90
	t.Logf("p90: open-loop %.2f ms, bombardier -r %.2f ms; p99 %.2f / %.2f ms; p99.9 %.2f / %.2f ms; bombardier held %.0f/s (%s)",
		openP90, closedP90, tr.LatencyMS.P99, closed.Trials[0].LatencyMS.P99, tr.LatencyMS.P999, closed.Trials[0].LatencyMS.P999,
		closed.Trials[0].RPS, closed.Reason)
	if openP90 < 50 || openP90 < 5*closedP90 {
		t.Errorf("open-loop p90 %.2f ms against bombardier's %.2f ms: want ≥ 50 ms and ≥ 5× (the pauses shown)", openP90, closedP90)
	}
	if open.Summary == nil || open.Summary.Merged == nil || open.Summary.Merged.P90 < 50 {
		t.Errorf("open-loop summary %+v, want merged percentiles showing the pauses", open.Summary)
	}
	var openCeiling *results.Ceiling
	for i, c := range run.Ceilings {
		if c.GeneratorName() == "openloop" {
			openCeiling = &run.Ceilings[i]
		}
	}
	if openCeiling == nil || openCeiling.Rate != 200 || openCeiling.AtLeast != 200 || openCeiling.Error != "" {
		t.Errorf("ceilings %+v, want the open-loop one measured at the run's highest rate, 200/s, and sustained", run.Ceilings)
	}
}
