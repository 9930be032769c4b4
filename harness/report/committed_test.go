package report

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/internal/golden"
	"github.com/webbench/webbench/harness/results"
)

// Every committed result set is what the code renders from its
// results.json: README.md and each chart, byte for byte. A change to the
// rendering must re-render them (bin/harness report DIR), so reviewers
// never read tables that the code would no longer print. Only what git
// tracks is checked: a folder a run left beside them (make matrix's, a
// killed run's without a README, one an older harness rendered) is the
// user's to commit or delete, and never fails the tests.
func TestCommittedResultsRender(t *testing.T) {
	sets := committedSets(t, "../..")
	if len(sets) == 0 {
		t.Fatal("no committed results under results/")
	}
	for _, name := range sets {
		dir := filepath.Join("../../results", name)
		t.Run(name, func(t *testing.T) { checkRendered(t, dir) })
	}
	for _, dir := range committedStudyRuns(t, "../..") {
		t.Run(dir, func(t *testing.T) { checkRendered(t, filepath.Join("../..", dir)) })
	}
	// The index between the markers is what `harness index` writes for the
	// committed sets; rows of folders git does not track are not judged.
	if ok, diff := indexCurrent("../../results", sets); !ok {
		t.Errorf("results/README.md's index is stale (run bin/harness index):\n%s", diff)
	}
}

// maxCommittedSets is how many run folders results/ may hold: past it the
// index stops being a page a reader takes in, and the runs it shows are
// picked for what each shows that no other does.
const maxCommittedSets = 8

// results/ holds at most maxCommittedSets runs; a new one replaces one.
func TestCommittedSetsAtMost(t *testing.T) {
	if sets := committedSets(t, "../.."); len(sets) > maxCommittedSets {
		t.Errorf("results/ holds %d run folders, at most %d: %v", len(sets), maxCommittedSets, sets)
	}
}

// checkRendered fails when dir's README.md or a chart is not what the
// code renders from dir/results.json, or a committed chart is no longer drawn.
func checkRendered(t *testing.T, dir string) {
	run, err := results.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Render(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	// No committed run comes near a cap: it renders whole.
	for _, l := range r.Left {
		t.Errorf("a cap left out: %s", l)
	}
	golden.Check(t, filepath.Join(dir, "README.md"), r.README)
	want := map[string]bool{}
	for _, c := range r.Charts {
		want[c.File] = true
		golden.Check(t, filepath.Join(dir, "charts", c.File), c.SVG)
	}
	committed, _ := filepath.Glob(filepath.Join(dir, "charts", "*.svg"))
	for _, f := range committed {
		if !want[filepath.Base(f)] {
			t.Errorf("%s is committed but no longer rendered", f)
		}
	}
}

// committedStudyRuns lists the runs git tracks under root/studies/*/runs,
// as paths relative to root (every such folder outside a git checkout).
func committedStudyRuns(t *testing.T, root string) []string {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z", "--", "studies")
	cmd.Dir = root
	out, err := cmd.Output()
	var dirs []string
	if err != nil {
		paths, _ := filepath.Glob(filepath.Join(root, "studies", "*", "runs", "*", "results.json"))
		for _, p := range paths {
			rel, _ := filepath.Rel(root, filepath.Dir(p))
			dirs = append(dirs, rel)
		}
		return dirs
	}
	for _, f := range strings.Split(string(out), "\x00") {
		if parts := strings.Split(f, "/"); len(parts) == 5 && parts[2] == "runs" && parts[4] == "results.json" {
			dirs = append(dirs, filepath.Dir(f))
		}
	}
	sort.Strings(dirs)
	return dirs
}

// committedSets lists the result sets git tracks under root/results (a
// folder whose results.json is tracked), sorted. Outside a git checkout
// (an unpacked archive) every folder holding a results.json counts.
func committedSets(t *testing.T, root string) []string {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z", "--", "results")
	cmd.Dir = root
	out, err := cmd.Output()
	var sets []string
	if err != nil {
		t.Logf("git ls-files: %v; checking every results folder", err)
		paths, _ := filepath.Glob(filepath.Join(root, "results", "*", "results.json"))
		for _, p := range paths {
			sets = append(sets, filepath.Base(filepath.Dir(p)))
		}
		return sets
	}
	for _, f := range strings.Split(string(out), "\x00") {
		if parts := strings.Split(f, "/"); len(parts) == 3 && parts[2] == "results.json" {
			sets = append(sets, parts[1])
		}
	}
	sort.Strings(sets)
	return sets
}

// indexRow matches a row of the index and captures its folder link.
var indexRow = regexp.MustCompile(`^\| \[[^\]]*\]\(([^)]*)/README\.md\) \|`)

// indexCurrent reports whether root/README.md's index is what Index would
// write for the result sets named (and the comparisons in root), and the
// diff if not; rows of other folders in the README are left out of the
// comparison. It works on a copy, so it never rewrites root.
func indexCurrent(root string, sets []string) (bool, string) {
	tmp, err := os.MkdirTemp("", "index")
	if err != nil {
		return false, err.Error()
	}
	defer os.RemoveAll(tmp)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		return false, err.Error()
	}
	named := map[string]bool{}
	for _, name := range sets {
		named[name] = true
		data, err := os.ReadFile(filepath.Join(root, name, "results.json"))
		if err != nil {
			return false, err.Error()
		}
		os.MkdirAll(filepath.Join(tmp, name), 0o755)
		os.WriteFile(filepath.Join(tmp, name, "results.json"), data, 0o644)
	}
	var kept []string
	for _, line := range strings.SplitAfter(string(readme), "\n") {
		if m := indexRow.FindStringSubmatch(line); m != nil {
			if folder, err := url.PathUnescape(m[1]); err == nil && !named[folder] {
				continue // a folder git does not track: the user's to commit
			}
		}
		kept = append(kept, line)
	}
	readme = []byte(strings.Join(kept, ""))
	compares, _ := filepath.Glob(filepath.Join(root, "compare-*.md"))
	for _, c := range compares {
		os.WriteFile(filepath.Join(tmp, filepath.Base(c)), nil, 0o644)
	}
	os.WriteFile(filepath.Join(tmp, "README.md"), readme, 0o644)
	if err := Index(tmp); err != nil {
		return false, err.Error()
	}
	again, _ := os.ReadFile(filepath.Join(tmp, "README.md"))
	if !bytes.Equal(again, readme) {
		return false, golden.Diff(readme, again)
	}
	return true, ""
}

// The committed-results check still fails on a stale index: a result set
// the index does not list, or a row that no longer matches its run.
func TestStaleIndexFails(t *testing.T) {
	dir := t.TempDir()
	sets := committedSets(t, "../..")
	if len(sets) == 0 {
		t.Fatal("no committed results")
	}
	data, _ := os.ReadFile(filepath.Join("../../results", sets[0], "results.json"))
	os.MkdirAll(filepath.Join(dir, "a"), 0o755)
	os.WriteFile(filepath.Join(dir, "a", "results.json"), data, 0o644)
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("# r\n\n"+IndexStart+"\n"+IndexEnd+"\n"), 0o644)
	if ok, _ := indexCurrent(dir, []string{"a"}); ok {
		t.Error("an index that lists nothing passes for current")
	}
	if did, err := IndexIfPresent(dir); !did || err != nil {
		t.Fatalf("IndexIfPresent: %v, %v", did, err)
	}
	if ok, diff := indexCurrent(dir, []string{"a"}); !ok {
		t.Errorf("after IndexIfPresent the index is stale:\n%s", diff)
	}
	// A run's folder that git does not track (b, and its row) is not
	// judged; a tracked folder's row that no longer matches still fails.
	os.MkdirAll(filepath.Join(dir, "b"), 0o755)
	os.WriteFile(filepath.Join(dir, "b", "results.json"), data, 0o644)
	if _, err := IndexIfPresent(dir); err != nil {
		t.Fatal(err)
	}
	if ok, diff := indexCurrent(dir, []string{"a"}); !ok {
		t.Errorf("an untracked folder's row failed the check:\n%s", diff)
	}
	readme, _ := os.ReadFile(filepath.Join(dir, "README.md"))
	stale := strings.Replace(string(readme), "| [a](a/README.md) | ", "| [a](a/README.md) | edited ", 1)
	os.WriteFile(filepath.Join(dir, "README.md"), []byte(stale), 0o644)
	if ok, _ := indexCurrent(dir, []string{"a"}); ok {
		t.Error("an edited row of a tracked folder passes for current")
	}
	// A folder with no index is left alone.
	plain := t.TempDir()
	os.WriteFile(filepath.Join(plain, "README.md"), []byte("notes\n"), 0o644)
	if did, _ := IndexIfPresent(plain); did {
		t.Error("IndexIfPresent wrote an index where there was none")
	}
}

// WriteDir leaves in charts/ only what it draws: a chart an earlier run
// left there (run --force into the folder) is removed.
func TestWriteDirRemovesStaleCharts(t *testing.T) {
	sets := committedSets(t, "../..")
	if len(sets) == 0 {
		t.Fatal("no committed results")
	}
	run, err := results.Read(filepath.Join("../../results", sets[0]))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "charts"), 0o755)
	stale := filepath.Join(dir, "charts", "rps-old-scenario.svg")
	os.WriteFile(stale, []byte("<svg/>"), 0o644)
	if _, err := WriteDir(context.Background(), dir, run); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("a stale chart survived WriteDir")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "charts", "*.svg")); len(left) == 0 {
		t.Error("WriteDir drew no chart")
	}
}
