package report

import (
	"regexp"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/analysis"
	"github.com/webbench/webbench/harness/results"
)

// revCell is a cell of revision rev built from commit, six trials at rps
// requests a second on half a core.
func revCell(rev, commit string, control bool, rps ...float64) *results.Cell {
	c := &results.Cell{Target: "t", Scenario: "plaintext", CPUs: 1, Connections: 8, Status: results.OK, Control: control,
		Axes: []results.KV{{Name: "revision", Value: rev}}, Revision: &results.Revision{Name: rev, Commit: commit}}
	for _, x := range rps {
		c.Trials = append(c.Trials, results.Trial{Result: results.Result{RPS: x, Requests: int64(10 * x), Seconds: 10}, TargetCPUCores: 0.5})
	}
	c.Summary = analysis.Summarize(c.Trials, results.AggregateMedian)
	return c
}

// A run of two revisions says, under its own heading, what the gate read
// of each later cell: both figures, the commit and the reading; a run
// without revisions has no such section.
func TestRevisionsSection(t *testing.T) {
	base := []float64{1000, 1010, 990, 1005, 995, 1000}
	slow := []float64{900, 909, 891, 904, 896, 900}
	const a, b = "aaaaaaaaaaaa0000", "bbbbbbbbbbbb1111"
	run := &results.Run{Schema: results.Schema, Cells: []*results.Cell{revCell("main", a, false, base...), revCell("main", a, true, base...), revCell("WORKTREE", b, false, slow...)}}
	run.Matrix.Axes = map[string][]string{"revision": {"main", "WORKTREE"}}
	md := string(markdownOf(t, run))
	if want := RevisionsHeading + "\n\nThe baseline is `main` (aaaaaaaaaaaa)."; !strings.Contains(md, want) {
		t.Errorf("no %q in\n%s", want, md)
	}
	row := regexp.MustCompile(`\| t/plaintext/1cpu/c8/revision=WORKTREE +\| bbbbbbbbbbbb +\| +0\.900× \(0\.900…0\.901\) \| slower +\| +1\.11× \(1\.11…1\.11\) \| slower +\| \*\*slower\*\* +\|`)
	if !row.MatchString(md) {
		t.Errorf("no row reading the head slower in both figures in\n%s", md)
	}
	run.Matrix.Axes = nil
	if md := string(markdownOf(t, run)); strings.Contains(md, RevisionsHeading) {
		t.Errorf("a run without revisions has the section")
	}
}

// A README opens with one picture: the first requests/s chart, else the
// first chart, else none.
func TestHeadline(t *testing.T) {
	for _, tc := range []struct {
		charts []Chart
		want   string
	}{
		{[]Chart{{File: "latency-json.svg", Title: "json: latency"}, {File: "rps-json.svg", Title: "json: requests/s [c64]"}}, "![json: requests/s (c64)](charts/rps-json.svg)\n\n"},
		{[]Chart{{File: "latency-vs-rps-plaintext.svg", Title: "capacity"}}, "![capacity](charts/latency-vs-rps-plaintext.svg)\n\n"},
		{nil, ""},
	} {
		var b strings.Builder
		headline(&b, tc.charts)
		if b.String() != tc.want {
			t.Errorf("headline of %d charts: %q, want %q", len(tc.charts), b.String(), tc.want)
		}
	}
}
