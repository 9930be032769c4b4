package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/webbench/webbench/harness/internal/golden"
	"github.com/webbench/webbench/harness/results"
)

// Every committed result set is what the code renders from its
// results.json: README.md and each chart, byte for byte. A change to the
// rendering must re-render them (bin/harness report DIR), so reviewers
// never read tables that the code would no longer print.
func TestCommittedResultsRender(t *testing.T) {
	dirs, err := filepath.Glob("../../results/*/results.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Fatal("no committed results under results/")
	}
	for _, path := range dirs {
		dir := filepath.Dir(path)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			run, err := results.Read(dir)
			if err != nil {
				t.Fatal(err)
			}
			charts, err := Charts(run)
			if err != nil {
				t.Fatal(err)
			}
			var md bytes.Buffer
			if err := markdown(&md, run, charts); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join(dir, "README.md"), md.Bytes())
			want := map[string]bool{}
			for _, c := range charts {
				want[c.File] = true
				golden.Check(t, filepath.Join(dir, "charts", c.File), c.SVG)
			}
			committed, _ := filepath.Glob(filepath.Join(dir, "charts", "*.svg"))
			for _, f := range committed {
				if !want[filepath.Base(f)] {
					t.Errorf("%s is committed but no longer rendered", f)
				}
			}
		})
	}
	// The index between the markers is what `harness index` writes.
	if ok, diff := indexCurrent("../../results"); !ok {
		t.Errorf("results/README.md's index is stale (run bin/harness index):\n%s", diff)
	}
}

// indexCurrent reports whether root/README.md's index is what Index would
// write for the result sets and comparisons in root, and the diff if not.
// It works on a copy, so it never rewrites root.
func indexCurrent(root string) (bool, string) {
	tmp, err := os.MkdirTemp("", "index")
	if err != nil {
		return false, err.Error()
	}
	defer os.RemoveAll(tmp)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		return false, err.Error()
	}
	dirs, _ := filepath.Glob(filepath.Join(root, "*", "results.json"))
	for _, path := range dirs {
		dir := filepath.Dir(path)
		os.MkdirAll(filepath.Join(tmp, filepath.Base(dir)), 0o755)
		data, _ := os.ReadFile(path)
		os.WriteFile(filepath.Join(tmp, filepath.Base(dir), "results.json"), data, 0o644)
	}
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
	src, err := filepath.Glob("../../results/*/results.json")
	if err != nil || len(src) == 0 {
		t.Fatal("no committed results", err)
	}
	data, _ := os.ReadFile(src[0])
	os.MkdirAll(filepath.Join(dir, "a"), 0o755)
	os.WriteFile(filepath.Join(dir, "a", "results.json"), data, 0o644)
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("# r\n\n"+IndexStart+"\n"+IndexEnd+"\n"), 0o644)
	if ok, _ := indexCurrent(dir); ok {
		t.Error("an index that lists nothing passes for current")
	}
	if did, err := IndexIfPresent(dir); !did || err != nil {
		t.Fatalf("IndexIfPresent: %v, %v", did, err)
	}
	if ok, diff := indexCurrent(dir); !ok {
		t.Errorf("after IndexIfPresent the index is stale:\n%s", diff)
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
	src, _ := filepath.Glob("../../results/*/results.json")
	if len(src) == 0 {
		t.Fatal("no committed results")
	}
	run, err := results.Read(filepath.Dir(src[0]))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "charts"), 0o755)
	stale := filepath.Join(dir, "charts", "rps-old-scenario.svg")
	os.WriteFile(stale, []byte("<svg/>"), 0o644)
	if err := WriteDir(dir, run); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("a stale chart survived WriteDir")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "charts", "*.svg")); len(left) == 0 {
		t.Error("WriteDir drew no chart")
	}
}
