package e2e

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/cli"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/results"
)

// workloads is a matrix of the workload scenarios, as matrix.yaml declares
// them (workloadScenarios copies them in), served by go-nethttp and by the
// workload-cheat test server (testdata/workload-cheat), whose every variant
// breaks one workload rule.
const workloads = `version: 1
images: {debian: debian:bookworm-slim, golang: golang:1.26-bookworm}
load: {duration: 1s, warmup: 0, trials: 1, timeout: 5s, ready_timeout: 30s}
cpus: [1]
connections: [8]
targets:
  go-nethttp:
    build: ROOT/targets/go-nethttp
    port: 8080
    scenarios: [static-1k, static-64k, static-1m, compression, compute]
  workload-cheat:
    build: ROOT/harness/e2e/testdata/workload-cheat
    port: 8080
    scenarios: [static-1k, compression, compute]
    variants:
      bytes: {env: {CHEAT: bytes}}
      unasked: {env: {CHEAT: unasked}}
      cached: {env: {CHEAT: cached}}
`

// workloadScenarios is the scenarios: section of the repository's
// matrix.yaml holding its workload scenarios, so that the test holds the
// targets to the very digests and rules the matrix declares.
func workloadScenarios(t *testing.T) string {
	t.Helper()
	path := filepath.Join(repoRoot(t), "matrix.yaml")
	m, err := matrix.Parse(path, []byte(readFile(t, path)))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("scenarios:\n")
	for _, sc := range m.Scenarios {
		switch sc.Name {
		case "static-1k", "static-64k", "static-1m", "compression", "compute":
		default:
			continue
		}
		e := sc.Expect
		b.WriteString("  " + sc.Name + ":\n    path: " + sc.Path + "\n")
		if len(sc.Headers) > 0 {
			b.WriteString("    headers: {" + strings.Join(sc.HeaderLines(), ", ") + "}\n")
		}
		b.WriteString("    expect: {status: 200, content_type: " + e.ContentType)
		switch {
		case e.SHA256 != "":
			b.WriteString(", sha256: " + e.SHA256)
		case e.Compute:
			b.WriteString(", compute: true")
		case e.Encoding != "":
			b.WriteString(", encoding: " + e.Encoding + `, json: {message: "Hello, World!"}`)
		}
		b.WriteString("}\n")
	}
	return b.String()
}

// A server that sends other bytes than the file's, gzips an answer nobody
// asked to have compressed, or answers compute from a cache fails its
// cell, the reason naming the rule it broke (sha256, encoding, compute);
// go-nethttp, which serves every workload as the contract says, passes
// each, the load generator sending the compression scenario's
// Accept-Encoding under load, on the real engine.
func TestWorkloads(t *testing.T) {
	connect(t)
	out := t.TempDir()
	file := writeRooted(t, workloads+workloadScenarios(t))
	only := "go-nethttp,workload-cheat:bytes/static-1k,workload-cheat:unasked/compression,workload-cheat:cached/compute"
	code, _ := runCLI(context.Background(), t, "run", "-f", file, "--out", out, "--only", only)
	if code != cli.ExitFailed {
		t.Errorf("exit %d, want %d: the cheaters' cells fail", code, cli.ExitFailed)
	}
	run, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"workload-cheat:bytes/static-1k/1cpu/c8":     "sha256: a body of 1024 bytes with SHA-256 ",
		"workload-cheat:unasked/compression/1cpu/c8": `encoding: asked without Accept-Encoding: Content-Encoding "gzip" on an answer the scenario expects unencoded`,
		"workload-cheat:cached/compute/1cpu/c8":      "(a*b+a-b): an answer not computed from the request's parameters",
	}
	for _, sc := range []string{"static-1k", "static-64k", "static-1m", "compression", "compute"} {
		want["go-nethttp/"+sc+"/1cpu/c8"] = ""
	}
	for _, c := range run.Cells {
		rule, ok := want[c.ID()]
		if !ok {
			t.Errorf("an unexpected cell %s", c.ID())
			continue
		}
		delete(want, c.ID())
		switch {
		case rule == "" && c.Status != results.OK:
			t.Errorf("%s: %s %q, want ok", c.ID(), c.Status, c.Reason)
		case rule == "" && (c.Summary == nil || c.Summary.RPS <= 0):
			t.Errorf("%s: no requests/s measured", c.ID())
		case rule == "" && slices.ContainsFunc(c.Warnings, func(w string) bool { return strings.Contains(w, "answers changed under load") }):
			// The compressed answer's size is the verified one: a
			// generator that sent no Accept-Encoding would draw the
			// larger uncompressed answer, and this warning.
			t.Errorf("%s: %q: the load is not what was verified", c.ID(), c.Warnings)
		case rule != "" && (c.Status != results.Failed || !strings.Contains(c.Reason, rule)):
			t.Errorf("%s: %s %q, want failed by %q", c.ID(), c.Status, c.Reason, rule)
		}
	}
	for id := range want {
		t.Errorf("no cell %s", id)
	}
	if len(run.Ceilings) == 0 || run.Ceilings[0].RPS <= 0 {
		t.Errorf("ceilings %+v: the fixed-response server answers every scenario's requests alike, so its ceiling is measured", run.Ceilings)
	}
}
