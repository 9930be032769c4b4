package e2e

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/cli"
	"github.com/webbench/webbench/harness/results"
)

// One real target measured by each load generator: wrk, h2load and ab beside
// bombardier (which every other test uses), each cell recording its
// generator and version, and a generator that cannot measure a cell as the
// matrix asks (ab given a duration, wrk a request count) skipping it with
// the reason. ab then measures a request count, as study 003 ran it.
func TestGenerators(t *testing.T) {
	eng := connect(t)
	timed := generatorMatrix(t, "generator: [h2load, ab]", "duration: 2s", "requests: 0")
	counted := generatorMatrix(t, "generator: [ab, wrk]", "duration: 2s", "requests: 5000")
	for _, c := range []struct {
		file  string
		extra []string
		ok    []string
		skip  map[string]string
	}{
		// wrk as a cross-check: every cell measured a second time by it.
		{timed, []string{"--crosscheck", "wrk"}, []string{"h2load", "wrk"}, map[string]string{"ab": "request count"}},
		{counted, nil, []string{"ab"}, map[string]string{"wrk": "no request count"}},
	} {
		out := t.TempDir()
		code, text := runCLI(context.Background(), t, append([]string{"run", "-f", c.file, "--out", out, "--only", "go-nethttp/plaintext"}, c.extra...)...)
		if code != cli.ExitOK {
			t.Fatalf("run exit %d", code)
		}
		noLeftovers(t, eng)
		run, err := results.Read(out)
		if err != nil {
			t.Fatal(err)
		}
		cells := cellsByID(run)
		for _, gen := range c.ok {
			cell := cells["go-nethttp/plaintext/1cpu/c16/"+gen]
			if cell == nil || cell.Status != results.OK || cell.Generator == nil || cell.Generator.Name != gen || cell.Generator.Version == "" {
				t.Errorf("%s: %+v, want ok with its generator and version recorded", gen, cell)
				continue
			}
			tr := cell.Trials[0]
			if tr.Requests < 1000 || tr.ErrorRate > 0 || tr.LatencyMS.Max <= 0 {
				t.Errorf("%s: trial %+v", gen, tr.Result)
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
			gens = append(gens, ce.GeneratorName())
		}
		if strings.Join(gens, ",") != strings.Join(c.ok, ",") {
			t.Errorf("ceilings measured for %v, want one per generator that ran %v", gens, c.ok)
		}
		readme, _ := os.ReadFile(out + "/README.md")
		if !strings.Contains(string(readme), "go-nethttp ("+c.ok[0]+")") {
			t.Errorf("README has no row for go-nethttp measured by %s:\n%s\n%s", c.ok[0], readme, text)
		}
		if c.extra != nil && (run.Matrix.Crosscheck != "wrk" || !strings.Contains(string(readme), "**Cross-check: wrk against h2load.**") ||
			!strings.Contains(string(readme), "| go-nethttp | 1     | 16    |")) {
			t.Errorf("README has no cross-check of h2load by wrk (crosscheck %q):\n%s", run.Matrix.Crosscheck, readme)
		}
	}
}

// generatorMatrix is the e2e matrix over go-nethttp with one trial, no
// warm-up, the generator axis line gens, and the load's duration replaced
// by load.
func generatorMatrix(t *testing.T, gens, from, to string) string {
	t.Helper()
	path := writeMatrixTrials(t, "shared", "0", "2s", "go-nethttp")
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

// The open-loop generator in the load generator image measures a
// fixed-rate cell of a real target, recording its schedule (sends asked,
// made, late, never made); its ceiling is not measured (a ceiling is load
// as fast as a tool can, and it runs a rate) and the run says why.
func TestOpenLoopGenerator(t *testing.T) {
	eng := connect(t)
	file := generatorMatrix(t, "generator: [openloop]\nrate: [2000]", "duration: 2s", "requests: 0")
	out := t.TempDir()
	if code, _ := runCLI(context.Background(), t, "run", "-f", file, "--out", out, "--only", "go-nethttp/plaintext"); code != cli.ExitOK {
		t.Fatalf("run exit %d", code)
	}
	noLeftovers(t, eng)
	run, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	c := cellsByID(run)["go-nethttp/plaintext/1cpu/c16/r2000/openloop"]
	if c == nil || c.Status != results.OK || c.Generator == nil || !strings.Contains(c.Generator.Version, "hdrhistogram-go") {
		t.Fatalf("open-loop cell %+v", c)
	}
	tr := c.Trials[0]
	if o := tr.OpenLoop; o == nil || o.Scheduled < 3900 || o.Sent+o.Unsent != o.Scheduled || tr.LatencyMS.P9999 <= 0 {
		t.Errorf("open-loop trial %+v, schedule %+v", tr.Result, tr.OpenLoop)
	}
	if len(run.Ceilings) != 1 || !strings.Contains(run.Ceilings[0].Error, "needs a fixed rate") {
		t.Errorf("ceilings %+v, want the open-loop one not measured, saying why", run.Ceilings)
	}
}
