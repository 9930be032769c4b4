package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/cli"
	"github.com/webbench/webbench/harness/results"
)

// A third party's server as Python's standard library leaves it
// (testdata/backlog5: a listen backlog of 5, and keep-alive answers to
// HTTP/1.0 without a Keep-Alive header) is measured ok by bombardier, wrk
// and h2load after a 1 s warm-up (h2load's own -D 1 never ends against
// it), and by ab without keep-alive; ab with keep-alive, which would wait
// for a close that never comes, is skipped before any load, naming the
// mismatch. No cell hangs, and none blames the target.
func TestBacklog5Python(t *testing.T) {
	connect(t)
	dir := t.TempDir()
	build, err := filepath.Abs("testdata/backlog5")
	if err != nil {
		t.Fatal(err)
	}
	matrixText := fmt.Sprintf(`version: 1
images: {python: python:3.12-slim-bookworm}
load: {duration: 2s, warmup: 1s, trials: 1}
connections: [16]
generator: [bombardier, wrk, h2load]
targets:
  backlog5: {build: %s, port: 8080}
scenarios:
  plaintext: {path: /, expect: {status: 200, content_type: text/plain, body: "Hello, World!"}}
profiles:
  ab: {generator: [ab], requests: [2000], keepalive: [false, true]}
`, build)
	path := filepath.Join(dir, "matrix.yaml")
	if err := os.WriteFile(path, []byte(matrixText), 0o644); err != nil {
		t.Fatal(err)
	}
	want := map[string]results.Status{
		"backlog5/plaintext/1cpu/c16":                results.OK,
		"backlog5/plaintext/1cpu/c16/wrk":            results.OK,
		"backlog5/plaintext/1cpu/c16/h2load":         results.OK,
		"backlog5/plaintext/1cpu/c16/close/n2000/ab": results.OK,
		"backlog5/plaintext/1cpu/c16/n2000/ab":       results.Skipped,
	}
	got := map[string]*results.Cell{}
	for _, profile := range []string{"", "ab"} {
		out := filepath.Join(dir, "out"+profile)
		args := []string{"run", "-f", path, "--out", out, "--no-ceiling"}
		if profile != "" {
			args = append(args, "--profile", profile)
		}
		if code, text := runCLI(context.Background(), t, args...); code != cli.ExitOK {
			t.Fatalf("run %v: exit %d\n%s", args, code, text)
		}
		run, err := results.Read(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range run.Cells {
			got[c.ID()] = c
		}
	}
	for id, status := range want {
		c := got[id]
		if c == nil {
			t.Errorf("%s: not measured; cells %v", id, keys(got))
			continue
		}
		if c.Status != status {
			t.Errorf("%s: %s %q, want %s", id, c.Status, c.Reason, status)
		}
	}
	if c := got["backlog5/plaintext/1cpu/c16/n2000/ab"]; c != nil && !strings.Contains(c.Reason, "Keep-Alive header") {
		t.Errorf("ab with keep-alive skipped for another reason: %q", c.Reason)
	}
}

func keys(m map[string]*results.Cell) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
