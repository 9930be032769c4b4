package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The example CI workflow's compare step (.ci/bench-compare), on recorded
// runs: a pull request whose every cell failed gets the comment naming the
// problem and exit 1; between two runs 22.9% apart with no A/A control of
// their own (within the drift allowed between runs) it writes the
// comparison, the change beside its `~`, and exits 1 for the base's cell
// the pull request's run lacks; a run against itself exits 0.
func TestCIBenchCompare(t *testing.T) {
	bin := harnessBinary(t)
	script := filepath.Join(repoRoot(t), ".ci", "bench-compare")
	data := filepath.Join(repoRoot(t), "harness", "compare", "testdata")
	failed := allFailed(t, filepath.Join(data, "laptop-4c"))
	for _, c := range []struct {
		base, pr string
		code     int
		want     string
	}{
		{filepath.Join(data, "vm-16c"), failed, 1, "**The gate failed:**"},
		{filepath.Join(data, "vm-16c"), filepath.Join(data, "laptop-4c"), 1, "~ -22.9%"},
		{filepath.Join(data, "laptop-4c"), filepath.Join(data, "laptop-4c"), 0, "against laptop-4c"},
	} {
		out := filepath.Join(t.TempDir(), "comment.md")
		cmd := exec.Command(script, c.base, c.pr, out)
		cmd.Env = append(os.Environ(), "HARNESS="+bin)
		text, err := cmd.CombinedOutput()
		if code := exitCode(err); code != c.code {
			t.Errorf("%s → %s: exit %d, want %d\n%s", c.base, c.pr, code, c.code, text)
		}
		body, err := os.ReadFile(out)
		if err != nil || !strings.Contains(string(body), c.want) || !strings.Contains(string(body), "go-nethttp") {
			t.Errorf("%s → %s: comment lacks %q (%v):\n%s", c.base, c.pr, c.want, err, body)
		}
	}
}

// allFailed copies the run in dir with every cell marked failed.
func allFailed(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var run map[string]any
	if err := json.Unmarshal(b, &run); err != nil {
		t.Fatal(err)
	}
	for _, c := range run["cells"].([]any) {
		cell := c.(map[string]any)
		cell["status"], cell["reason"] = "failed", "the pull request broke it"
		delete(cell, "summary")
		delete(cell, "trials")
	}
	out := filepath.Join(t.TempDir(), "pr-failed")
	if b, err = json.Marshal(run); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "results.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}
