package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A committed run and the tracked index are kept: run --force into a
// committed run's folder replaced it with a quick try's cells, and every
// run rewrote the tracked index.
func TestTrackedRunsAreKept(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	repo := t.TempDir()
	committed := filepath.Join(repo, "results", "2c-x")
	os.MkdirAll(committed, 0o755)
	data, err := os.ReadFile(filepath.Join("..", "compare", "testdata", "laptop-4c", "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(committed, "results.json"), data, 0o644)
	os.WriteFile(filepath.Join(repo, "results", "README.md"), []byte("# index\n"), 0o644)
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"}} {
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	all := committedCells(ctx, committed)
	if len(all) < 2 {
		t.Fatalf("committed cells: %v", all)
	}
	if err := guardTracked(ctx, committed, all[:1]); ExitCode(err) != ExitUsage {
		t.Errorf("a run of one of %d committed cells was let through: %v", len(all), err)
	}
	if err := guardTracked(ctx, committed, all); err != nil {
		t.Errorf("a run covering every committed cell was refused: %v", err)
	}
	try := filepath.Join(repo, "results", "2c-x-only")
	os.MkdirAll(try, 0o755)
	if guardTracked(ctx, try, nil) != nil {
		t.Error("an untracked folder was refused")
	}
	if leaveIndex(ctx, try) == "" {
		t.Error("a quick try into an untracked folder would rewrite the tracked index")
	}
	if why := leaveIndex(ctx, committed); why != "" {
		t.Errorf("a tracked run may not update its index: %s", why)
	}
}

// --only dropped targets and the profile's control without a word; plan
// now names each, so a user sees what the selection leaves out.
func TestPlanNamesWhatIsLeftOut(t *testing.T) {
	code, out, stderr := runMain("plan", "-f", filepath.Join("..", "..", "matrix.yaml"), "--only", "go-nethttp")
	if code != ExitOK {
		t.Fatalf("plan: exit %d: %s", code, stderr)
	}
	// Once, below the cells that will run: it printed a line per target
	// left out (18) before them.
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "left out") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "left out by --only: ") || !strings.Contains(lines[0], "go-fasthttp") {
		t.Fatalf("plan did not say once what --only leaves out, go-fasthttp among it:\n%s", out)
	}
	if strings.Contains(lines[0], "go-nethttp") {
		t.Errorf("plan names a selected target as left out: %s", lines[0])
	}
	if strings.Index(out, "left out") < strings.Index(out, "go-nethttp/plaintext/") {
		t.Errorf("what is left out comes before the cells that run:\n%s", out)
	}
}

// A target the profile's only: leaves out is measured when --only names
// it: the README's "your own target" step (make matrix runs the quick
// profile) once measured go-nethttp alone and said nothing but a
// "left out" line about the newcomer's target.
func TestOnlyReplacesProfileOnly(t *testing.T) {
	code, out, stderr := runMain("plan", "-f", filepath.Join("..", "..", "matrix.yaml"), "--profile", "quick", "--only", "db-go-pgx,go-nethttp")
	if code != ExitOK {
		t.Fatalf("plan: exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "db-go-pgx/") || !strings.Contains(out, "go-nethttp/") {
		t.Errorf("plan --profile quick --only db-go-pgx,go-nethttp lists not both:\n%s", out)
	}
	if strings.Contains(out, "db-go-pgx: left out") {
		t.Errorf("plan still leaves out the target --only names:\n%s", out)
	}
}
