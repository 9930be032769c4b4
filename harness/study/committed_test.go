package study

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/webbench/webbench/harness/internal/golden"
)

// Every committed study's README.md is what the code renders from its
// study.yaml and runs, byte for byte: a changed run, rule or claim must
// re-render it (bin/harness study DIR).
func TestCommittedStudies(t *testing.T) {
	dirs, _ := filepath.Glob("../../studies/*/study.yaml")
	if len(dirs) == 0 {
		t.Fatal("no study under studies/")
	}
	for _, path := range dirs {
		dir := filepath.Dir(path)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			s, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			md, err := s.README()
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join(dir, "README.md"), md)
			checkAccounted(t, s)
			checkRunsUsed(t, s)
		})
	}
}

// checkAccounted: every pair a claim names is measured or said to be not
// measured; a claim none of whose pairs any run holds reads not measured
// unless a reason says why it cannot be tested (its own, or one derived
// from the runs' skips, the setup, or the cells' layout); and no claim
// is confirmed or contradicted unless its every checklist item matches.
func checkAccounted(t *testing.T, s *Study) {
	for _, j := range s.Judgements {
		c := j.Claim
		if c.Test != nil && len(j.Measures)+len(j.Missing) != len(units(c.Test)) {
			t.Errorf("%s: %d pairs, %d measured and %d missing", c.ID, len(units(c.Test)), len(j.Measures), len(j.Missing))
		}
		derived := len(j.Here) > 0 || len(j.Shared) > 0 // reasons the runs and the setup give
		if len(j.Measures) == 0 && !derived && c.NotTestableHere == "" && c.Untestable == "" && j.Verdict != NotMeasured {
			t.Errorf("%s: no run holds its cells, yet it reads %s", c.ID, j.Verdict)
		}
		if j.Verdict == Confirmed || j.Verdict == Contradicted {
			for _, m := range j.Measures {
				if !allOK(m.Checklist) {
					t.Errorf("%s reads %s with a checklist item that does not match", c.ID, j.Verdict)
				}
			}
		}
	}
}

// checkRunsUsed: every run under runs/ is named in study.yaml, and every
// run it names holds a cell some claim names (measured, or skipped with
// the reason its verdict gives): experiments no verdict uses are not kept.
func checkRunsUsed(t *testing.T, s *Study) {
	used := map[string]bool{}
	for _, r := range s.Runs {
		for _, c := range s.File.Claims {
			for _, p := range pairsOf(c) {
				if r.cell(p.A) != nil || r.cell(p.B) != nil {
					used[r.Name] = true
				}
			}
		}
	}
	named := map[string]bool{}
	for _, r := range s.File.Runs {
		named[r] = true
		if !used[r] {
			t.Errorf("%s names run %s, which no claim reads: delete it, or test a claim with it", filepath.Join(s.Dir, "study.yaml"), r)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(s.Dir, "runs"))
	for _, e := range entries {
		if !named["runs/"+e.Name()] {
			t.Errorf("%s is not named in study.yaml", filepath.Join(s.Dir, "runs", e.Name()))
		}
	}
}
