package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// Two targets built from one folder build one image (the second is the
// first's cache): plan counts it once.
func TestPlanCountsSharedFolderOnce(t *testing.T) {
	path := writeMatrix(t, strings.Replace(small, "  t: {build: t, port: 8080}\n",
		"  t: {build: t, port: 8080}\n  u: {build: t, port: 8080, env: {MODE: other}}\n", 1))
	code, out, _ := runMain("plan", "-f", path)
	if code != ExitOK {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if !strings.Contains(out, " 1 target image(s) plus the load generator") {
		t.Errorf("plan output, want 1 target image for the shared folder:\n%s", out)
	}
}

// --only with nothing in it names no cell: it is refused, naming the flag,
// rather than taken for no selection (every cell), and "," does not
// replace a profile's selection with every cell either.
func TestOnlyEmptyIsRefused(t *testing.T) {
	path := writeMatrix(t, small+"profiles:\n  p: {only: \"t/s\"}\n")
	none := "unix://" + filepath.Join(t.TempDir(), "none.sock")
	for _, args := range [][]string{
		{"plan", "-f", path, "--only", ""},
		{"plan", "-f", path, "--only", ","},
		{"plan", "-f", path, "--profile", "p", "--only", ","},
		// An engine that is not there: should the check regress, run
		// fails at dialing rather than measuring on the real engine.
		{"run", "-f", path, "--only", " , ", "--target-engine", none, "--loadgen-engine", none, "--out", t.TempDir()},
	} {
		code, out, stderr := runMain(args...)
		if code != ExitUsage || !strings.Contains(stderr, "names no cell") || !strings.Contains(stderr, "--only") {
			t.Errorf("%q: exit %d, want %d and an error naming --only: %s%s", args, code, ExitUsage, stderr, out)
		}
	}
	if code, _, stderr := runMain("plan", "-f", path); code != ExitOK {
		t.Errorf("no --only: exit %d: %s", code, stderr)
	}
}
