package cli

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/analysis"
	"github.com/webbench/webbench/harness/results"
)

// slowDown makes c's trials achieve share of what they did, every figure
// with it (requests, errors, rps, error rate, summary), so that the cell
// stays consistent.
func slowDown(c *results.Cell, share float64) {
	for i := range c.Trials {
		t := &c.Trials[i]
		t.Requests, t.Errors = int64(share*float64(t.Requests)), int64(share*float64(t.Errors))
		for k, n := range t.ErrorKinds {
			t.ErrorKinds[k] = int64(share * float64(n))
		}
		t.RPS = float64(t.Requests) / t.Seconds
		t.ErrorRate = 0
		if t.Errors > 0 {
			t.ErrorRate = float64(t.Errors) / float64(t.Requests+t.Errors)
		}
	}
	if c.Summary != nil {
		c.Summary = analysis.Summarize(c.Trials, c.Summary.Aggregate)
	}
}

// copyRun writes a copy of the run in src, edited, to a folder name of a
// new temporary directory, and returns that folder.
func copyRun(t *testing.T, src, name string, edit func(*results.Run)) string {
	t.Helper()
	run, err := results.Read(src)
	if err != nil {
		t.Fatal(err)
	}
	edit(run)
	dir := filepath.Join(t.TempDir(), name)
	if err := results.Write(dir, run); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Two quick runs of one trial each, the second 25…50% slower: no gate
// verdict can rest on one trial a side, so every cell reads "cannot
// tell", the gate passes, and says how many cells it could not tell.
func TestCompareOneTrialCannotTell(t *testing.T) {
	one := func(run *results.Run) {
		run.Matrix.Load.Trials = 1
		for _, c := range run.Cells {
			c.Trials = c.Trials[:1]
			c.Summary = analysis.Summarize(c.Trials, c.Summary.Aggregate)
		}
	}
	a := copyRun(t, "../compare/testdata/laptop-4c", "a", one)
	b := copyRun(t, "../compare/testdata/laptop-4c", "b", func(run *results.Run) {
		one(run)
		for i, c := range run.Cells {
			slowDown(c, 0.5+0.1*float64(i))
		}
	})
	code, out, errs := runMain("compare", a, b, "--fail-on-regression")
	if code != ExitOK || !strings.Contains(errs, `Cannot tell: 3 of 3 cells in run "b"`) {
		t.Errorf("one trial a side: exit %d, stderr %q", code, errs)
	}
	if !strings.Contains(out, "| cannot tell: n=1 (-50.0%) ") {
		t.Errorf("no cannot tell in the table:\n%s", out)
	}
}

// Two copies of the committed capacity run, every trial of the second
// achieving 40% of its rate (consistently: requests, rps and summary): a
// rate not held is a regression, named by cell: each of the 10 cells ok
// in both.
func TestCompareRateNotHeld(t *testing.T) {
	const capacity = "testdata/capacity" // a copy of results/2c-amd-epyc-capacity
	a := copyRun(t, capacity, "a", func(*results.Run) {})
	b := copyRun(t, capacity, "b", func(run *results.Run) {
		for _, c := range run.Cells {
			slowDown(c, 0.4)
		}
	})
	code, _, errs := runMain("compare", a, b, "--fail-on-regression")
	if code != ExitFailed || strings.Count(errs, "  regressed: ") != 10 ||
		!strings.Contains(errs, `regressed: go-nethttp/plaintext/1cpu/c64/r2000/openloop in run "b": the fixed rate of 2,000/s not held: 800/s achieved (-60.0%), 6 of 6 trial(s) short of it`) {
		t.Errorf("rate cut to 40%%: exit %d, stderr %q", code, errs)
	}
	if code, _, errs := runMain("compare", a, capacity, "--fail-on-regression"); code != ExitOK {
		t.Errorf("the run against its copy: exit %d, stderr %q", code, errs)
	}
}

// B without 10 of A's 11 cells fails the gate, naming each: a vanished
// cell is not a passed one.
func TestCompareMissingCells(t *testing.T) {
	const a = "testdata/capacity"
	full, err := results.Read(a)
	if err != nil {
		t.Fatal(err)
	}
	var ok []string
	for _, c := range full.Cells {
		if c.Status == results.OK {
			ok = append(ok, c.ID())
		}
	}
	b := copyRun(t, a, "b", func(run *results.Run) {
		run.Cells = slices.DeleteFunc(run.Cells, func(c *results.Cell) bool { return c.ID() != ok[0] })
	})
	code, _, errs := runMain("compare", a, b, "--fail-on-regression")
	if code != ExitFailed || strings.Count(errs, "  missing: ") != len(ok)-1 || !strings.Contains(errs, "  missing: "+ok[1]+`: ok in the first run, not in run "b" at all`) {
		t.Errorf("%d of %d ok cells missing: exit %d, stderr %q", len(ok)-1, len(ok), code, errs)
	}
}

// A results.json whose rps was tripled without its requests and seconds
// is refused, the file and the cell named, before anything is compared.
func TestCompareRefusesContradiction(t *testing.T) {
	const laptop = "../compare/testdata/laptop-4c"
	forged := copyRun(t, laptop, "forged", func(run *results.Run) {
		for i := range run.Cells[0].Trials {
			run.Cells[0].Trials[i].RPS *= 3
		}
	})
	code, _, errs := runMain("compare", laptop, forged, "--fail-on-regression")
	want := filepath.Join(forged, "results.json") + ": cell 1 (go-nethttp/plaintext/1cpu/c512): trial 1: rps 120000 where its other figures make it 40000"
	if code != ExitUsage || !strings.Contains(errs, want) {
		t.Errorf("tripled rps: exit %d, stderr %q, want %q", code, errs, want)
	}
}

// A run labelled like a target of its own (the README's --label mine for
// a target mine) is called a run, quoted, wherever compare names it.
func TestCompareRunNamedLikeTarget(t *testing.T) {
	const laptop = "../compare/testdata/laptop-4c"
	mine := copyRun(t, laptop, "mine", func(run *results.Run) { run.Cells[0].Target = "mine" })
	theirs := copyRun(t, laptop, "theirs", func(run *results.Run) { run.Cells[0].Target = "mine" })
	code, out, errs := runMain("compare", mine, theirs)
	if code != ExitOK {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	for _, want := range []string{` | run "mine"     | run "theirs"   | vs run "mine" |`, `| mine/plaintext/1cpu/c512 `} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "vs mine") {
		t.Errorf("a column reads \"vs mine\":\n%s", out)
	}
}

// Runs are named apart: two folders of one name by their paths, a
// folder given twice by its place.
func TestCompareRunNames(t *testing.T) {
	for _, tc := range []struct{ dirs, want []string }{
		{[]string{"results/mine", "old/theirs/"}, []string{"mine", "theirs"}},
		{[]string{"a/results", "b/results", "c/x"}, []string{"a/results", "b/results", "x"}},
		{[]string{"r/x", "r/x/"}, []string{"r/x", "r/x (#2)"}},
	} {
		if got := runNames(tc.dirs); !slices.Equal(got, tc.want) {
			t.Errorf("runNames(%q) = %q, want %q", tc.dirs, got, tc.want)
		}
	}
}
