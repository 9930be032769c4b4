package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/cli"
	"github.com/webbench/webbench/harness/results"
)

const revisionsMatrix = `version: 1
images:
  debian: debian:bookworm-slim
  golang: golang:1.26-bookworm
load: {duration: 1s, warmup: 1s, trials: 6, timeout: 2s, ready_timeout: 30s}
cpus: [1]
connections: [16]
targets:
  spin: {build: targets/spin, port: 8080}
scenarios:
  plaintext:
    path: /plaintext
    expect: {status: 200, content_type: text/plain, body: "Hello, World!"}
`

// spinRepo makes a throwaway repository holding the matrix and the spin
// target (testdata/spin) at three commits: the first; one changing only
// a file outside the target; one doubling its work per request. It
// returns the matrix's path and the three commits, oldest first.
func spinRepo(t *testing.T) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...).Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	src := filepath.Join(repoRoot(t), "harness", "e2e", "testdata", "spin")
	spin := filepath.Join(dir, "targets", "spin")
	os.MkdirAll(spin, 0o755)
	for _, name := range []string{"Dockerfile", "go.mod", "main.go"} {
		if err := os.WriteFile(filepath.Join(spin, name), []byte(readFile(t, filepath.Join(src, name))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "matrix.yaml"), []byte(revisionsMatrix), 0o644)
	git("init", "-q")
	var commits []string
	for _, change := range []func(){
		func() {},
		func() { os.WriteFile(filepath.Join(dir, "README.md"), []byte("# notes\n"), 0o644) },
		func() {
			main := filepath.Join(spin, "main.go")
			os.WriteFile(main, []byte(strings.Replace(readFile(t, main), "const rounds = 200", "const rounds = 400", 1)), 0o644)
		},
	} {
		change()
		git("add", "-A")
		git("commit", "-qm", "x")
		commits = append(commits, git("rev-parse", "HEAD"))
	}
	return filepath.Join(dir, "matrix.yaml"), commits
}

// Base against head in one run, on the real engine: three revisions of a
// throwaway repository are built from git (the first two, with the same
// target files, into one image), each later cell is measured beside the
// baseline's with the baseline's A/A control, and the gate reads them. Its
// exit code is 1 exactly when it printed a slower cell: how fast each
// revision is on this machine is no assertion here. The example
// workflow's comment step (.ci/bench-comment) quotes what the run read.
func TestRevisionsGate(t *testing.T) {
	connect(t)
	path, commits := spinRepo(t)
	out := filepath.Join(t.TempDir(), "out")
	code, text := runCLI(context.Background(), t, "run", "-f", path, "--out", out, "--no-ceiling",
		"--revisions", "HEAD~2,HEAD~1,HEAD", "--fail-on-regression")
	slower := strings.Contains(text, "\n  slower: ")
	if code != cli.ExitOK && code != cli.ExitFailed || slower != (code == cli.ExitFailed) || !strings.Contains(text, "gate: ") {
		t.Fatalf("exit %d, slower cells printed: %v; want exit 1 exactly when one is", code, slower)
	}
	run, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	byRev := map[string]*results.Cell{}
	for _, c := range run.Cells {
		if c.Status != results.OK || c.Revision == nil {
			t.Fatalf("%s: %s %q, revision %+v", c.ID(), c.Status, c.Reason, c.Revision)
		}
		if !c.Control {
			byRev[c.Revision.Name] = c
		}
	}
	ids := slices.Sorted(func(yield func(string) bool) {
		for _, c := range run.Cells {
			if !yield(c.ID()) {
				return
			}
		}
	})
	want := []string{"spin/plaintext/1cpu/c16/revision=HEAD", "spin/plaintext/1cpu/c16/revision=HEAD~1", "spin/plaintext/1cpu/c16/revision=HEAD~2", "spin/plaintext/1cpu/c16/revision=HEAD~2 (control)"}
	if !slices.Equal(ids, want) {
		t.Fatalf("cells %q, want %q", ids, want)
	}
	for i, name := range []string{"HEAD~2", "HEAD~1", "HEAD"} {
		if got := byRev[name].Revision.Commit; got != commits[i] {
			t.Errorf("%s: commit %s, want %s", name, got, commits[i])
		}
	}
	if a, b, c := byRev["HEAD~2"].Image.ID, byRev["HEAD~1"].Image.ID, byRev["HEAD"].Image.ID; a != b || a == c {
		t.Errorf("images %s, %s, %s: want the first two one image (the same target files), the third another", a, b, c)
	}
	comment := filepath.Join(t.TempDir(), "comment.md")
	if out, err := exec.Command(filepath.Join(repoRoot(t), ".ci", "bench-comment"), out, comment).CombinedOutput(); err != nil {
		t.Errorf(".ci/bench-comment: %v\n%s", err, out)
	} else if body := readFile(t, comment); !strings.Contains(body, "revision=HEAD~1") || !strings.Contains(body, "The baseline is `HEAD~2`") {
		t.Errorf("the comment does not quote the run's revisions section:\n%s", body)
	}
	readings := regexp.MustCompile(`(?m)^  (slower|faster|no difference shown|cannot tell): spin/plaintext/1cpu/c16/revision=HEAD(~1)?[: (]`).FindAllString(text, -1)
	if len(readings) != 2 || !strings.Contains(readFile(t, filepath.Join(out, "README.md")), "## Relative to revision `HEAD~2`") {
		t.Errorf("the gate or the README does not read each later revision against HEAD~2")
	}
}

// A duet on the real engine: the later revision and the baseline's A/A
// control each run at the same time as the baseline, each side with a
// load generator container of its own on its own core, and each of their
// trials carries the baseline's reading of the same moment. The gate's
// exit code is 1 exactly when it printed a slower cell, and nothing the
// run started is left running.
func TestDuetGate(t *testing.T) {
	connect(t)
	path, _ := spinRepo(t)
	out := filepath.Join(t.TempDir(), "out")
	code, text := runCLI(context.Background(), t, "run", "-f", path, "--out", out, "--no-ceiling",
		"--revisions", "HEAD~1,HEAD", "--schedule", "duet", "--trials", "4", "--fail-on-regression")
	slower := strings.Contains(text, "\n  slower: ")
	if code != cli.ExitOK && code != cli.ExitFailed || slower != (code == cli.ExitFailed) {
		t.Fatalf("exit %d, slower cells printed: %v; want exit 1 exactly when one is\n%s", code, slower, text)
	}
	run, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if run.Matrix.Order != results.Duet {
		t.Errorf("order %q, want duet", run.Matrix.Order)
	}
	base := "spin/plaintext/1cpu/c16/revision=HEAD~1/schedule=duet"
	for _, c := range run.Cells {
		if c.Status != results.OK || len(c.Trials) != 4 || c.Duet == "" {
			t.Fatalf("%s: %s %q, %d trials, duet %q", c.ID(), c.Status, c.Reason, len(c.Trials), c.Duet)
		}
		if c.ID() == base {
			continue
		}
		for k, tr := range c.Trials {
			if b := tr.Beside; b == nil || b.Cell != base || b.RPS <= 0 || b.CPUSet == tr.CPUSet {
				t.Errorf("%s trial %d (cores %s): beside %+v; want the baseline's reading on the other core", c.ID(), k+1, tr.CPUSet, b)
			}
		}
	}
	if !strings.Contains(readFile(t, filepath.Join(out, "README.md")), "ran in duets") {
		t.Error("the README does not say the trials ran in duets")
	}
}
