package cli

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/results"
)

// The gate needs two revisions: without them run refuses it before
// touching Docker, and a revision no commit has is refused naming it.
func TestGateNeedsRevisions(t *testing.T) {
	path := writeMatrix(t, small)
	if code, _, stderr := runMain("run", "-f", path, "--fail-on-regression"); code != ExitUsage || !strings.Contains(stderr, "give two or more (--revisions BASE,HEAD") {
		t.Errorf("no revisions: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runMain("plan", "-f", path, "--revisions", "HEAD~1,HEAD"); code != ExitUsage || !strings.Contains(stderr, "is in no git repository") {
		t.Errorf("a matrix outside git: exit %d, %s", code, stderr)
	}
	dir := filepath.Dir(path)
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Skipf("git %v: %v %s", args, err, out)
		}
	}
	if code, _, stderr := runMain("plan", "-f", path, "--revisions", "HEAD,no-such-rev"); code != ExitUsage || !strings.Contains(stderr, `revision "no-such-rev"`) {
		t.Errorf("an unknown revision: exit %d, %s", code, stderr)
	}
	if code, stdout, stderr := runMain("plan", "-f", path, "--revisions", "HEAD,WORKTREE"); code != ExitOK || !strings.Contains(stdout, "revision=HEAD (control)") || !strings.Contains(stdout, "revision=WORKTREE") {
		t.Errorf("two revisions: exit %d, %s %s; want the baseline's control and the head's cells", code, stdout, stderr)
	}
}

// revisionCell is a cell of revision rev, six trials at rps requests a
// second on half a core.
func revisionCell(rev string, control bool, rps ...float64) *results.Cell {
	c := &results.Cell{Target: "t", Scenario: "s", CPUs: 1, Connections: 8, Status: results.OK, Control: control,
		Axes: []results.KV{{Name: "revision", Value: rev}}}
	for _, x := range rps {
		c.Trials = append(c.Trials, results.Trial{Result: results.Result{RPS: x, Requests: int64(10 * x), Seconds: 10}, TargetCPUCores: 0.5})
	}
	return c
}

// A head 10% slower than its base, both measured in the run, fails the
// gate, naming the cell and both figures; the same head as fast passes.
func TestGate(t *testing.T) {
	base := []float64{1000, 1010, 990, 1005, 995, 1000}
	slow := []float64{900, 909, 891, 904, 896, 900}
	for name, tc := range map[string]struct {
		head []float64
		code int
		want string
	}{
		"slower": {slow, ExitFailed, "  slower: t/s/1cpu/c8/revision=head: requests/s 0.900× (0.900…0.901) slower, CPU per answer 1.11× (1.11…1.11) slower"},
		"same":   {base, ExitOK, "  no difference shown: t/s/1cpu/c8/revision=head"},
	} {
		run := &results.Run{Cells: []*results.Cell{revisionCell("base", false, base...), revisionCell("base", true, base...), revisionCell("head", false, tc.head...)}}
		run.Matrix.Axes = map[string][]string{"revision": {"base", "head"}}
		var out bytes.Buffer
		err := gate(&out, run)
		if ExitCode(err) != tc.code || !strings.Contains(out.String(), tc.want) || !strings.Contains(out.String(), "gate: ") {
			t.Errorf("%s: exit %d, printed\n%s\nwant exit %d and %q", name, ExitCode(err), out.String(), tc.code, tc.want)
		}
	}
}
