package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The example CI workflow's compare step (.ci/bench-compare), on recorded
// runs: from the faster run to the slower it writes the comment naming the
// regression and exits 1; the other way round it writes the comparison and
// exits 0.
func TestCIBenchCompare(t *testing.T) {
	bin := harnessBinary(t)
	script := filepath.Join(repoRoot(t), ".ci", "bench-compare")
	data := filepath.Join(repoRoot(t), "harness", "compare", "testdata")
	for _, c := range []struct {
		base, pr string
		code     int
		want     string
	}{
		{"vm-16c", "laptop-4c", 1, "**Regressed:** 1 cell(s) regressed beyond their intervals and the noise floor: go-nethttp/plaintext/1cpu/c512 in laptop-4c"},
		{"laptop-4c", "vm-16c", 0, "### Benchmark: vm-16c against laptop-4c"},
	} {
		out := filepath.Join(t.TempDir(), "comment.md")
		cmd := exec.Command(script, filepath.Join(data, c.base), filepath.Join(data, c.pr), out)
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
