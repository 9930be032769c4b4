package study

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/results"
)

// committedRun is a small run (a copy of study 003's
// 2c-amd-epyc-fastcgi-asrun20, kept apart so that re-measuring the study
// leaves these tests alone), copied into the tests' folders.
const committedRun = "testdata/asrun20/results.json"

// writeRun writes the committed run's results.json, edited by edit when
// not nil, into dir.
func writeRun(t *testing.T, dir string, edit func(*results.Run)) {
	t.Helper()
	data, err := os.ReadFile(committedRun)
	if err != nil {
		t.Fatal(err)
	}
	if edit == nil {
		os.MkdirAll(dir, 0o755)
		if err := os.WriteFile(filepath.Join(dir, "results.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	r, err := results.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	edit(r)
	if err := results.Write(dir, r); err != nil {
		t.Fatal(err)
	}
}

// A study reads runs inside its own folder only, each once, and no cell
// whose figures contradict each other; each refusal names study.yaml's
// line and the runs[i] field. Before, every name below was loaded (and
// linked from the README), and aliases of one run were read again each.
func TestLoadRunsStaysInsideTheStudy(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "studies", "999-x")
	writeRun(t, filepath.Join(dir, "runs", "x"), nil)
	outside := filepath.Join(root, "outside", "evilrun")
	writeRun(t, outside, nil)
	os.Symlink(outside, filepath.Join(dir, "runs", "link"))
	os.Symlink("x", filepath.Join(dir, "runs", "alias"))
	os.MkdirAll(filepath.Join(dir, "runs", "file-link"), 0o755)
	os.Symlink(filepath.Join(outside, "results.json"), filepath.Join(dir, "runs", "file-link", "results.json"))
	writeRun(t, filepath.Join(dir, "runs", "forged"), func(r *results.Run) {
		r.Cells[0].Trials[0].RPS *= 3 // requests and seconds left as measured
	})

	for _, c := range []struct{ name, want string }{
		{"../../outside/evilrun", "leads outside the study's folder"},
		{"runs/../../../outside/evilrun", "leads outside the study's folder"},
		{"runs/../..", "leads outside the study's folder"},
		{"../../proc/self/cwd/runs/x", "leads outside the study's folder"},
		{outside, "is an absolute path"},
		{"runs/./x", `write it "runs/x"`},
		{"runs/link", "outside the study's folder"},
		{"runs/file-link", "outside the study's folder"},
		{"runs/alias", `is runs[0] ("runs/x") again`},
		{"runs/x", `is runs[0] ("runs/x") again`},
		{"runs/forged", "runs/forged: cell fastcgi-node/"},
		{"runs/forged", "trial 1: rps"},
		{"runs/none", "no results.json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			yml := filepath.Join(dir, "study.yaml")
			os.WriteFile(yml, []byte("study: \"999\"\nruns:\n  - runs/x\n  - "+c.name+"\n"), 0o644)
			runs, err := LoadRuns(dir, &File{Runs: []string{"runs/x", c.name}})
			at := yml + ":4:5: runs[1]: "
			if err == nil || !strings.Contains(err.Error(), at) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %d run(s), %v; want an error at %q saying %q", len(runs), err, at, c.want)
			}
		})
	}
	runs, err := LoadRuns(dir, &File{Runs: []string{"runs/x"}})
	if err != nil || len(runs) != 1 || runs[0].Name != "runs/x" {
		t.Errorf("a run inside the study: %d run(s), %v", len(runs), err)
	}
}

// A study reached as "." (harness study . from inside its folder) renders
// the README it renders by its path; it read "studies/." before, and
// study --check called the committed README stale.
func TestREADMEFromInsideTheFolder(t *testing.T) {
	abs, err := filepath.Abs("../../studies/003-fastcgi")
	if err != nil {
		t.Fatal(err)
	}
	byPath, err := Load(abs)
	if err != nil {
		t.Fatal(err)
	}
	want, err := byPath.README()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(abs)
	here, err := Load(".")
	if err != nil {
		t.Fatal(err)
	}
	got, err := here.README()
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("README of . differs from the README of %s (%v)", abs, err)
	}
}
