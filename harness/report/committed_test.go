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
	tmp := t.TempDir()
	readme, err := os.ReadFile("../../results/README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range dirs {
		dir := filepath.Dir(path)
		os.MkdirAll(filepath.Join(tmp, filepath.Base(dir)), 0o755)
		data, _ := os.ReadFile(path)
		os.WriteFile(filepath.Join(tmp, filepath.Base(dir), "results.json"), data, 0o644)
	}
	compares, _ := filepath.Glob("../../results/compare-*.md")
	for _, c := range compares {
		os.WriteFile(filepath.Join(tmp, filepath.Base(c)), nil, 0o644)
	}
	os.WriteFile(filepath.Join(tmp, "README.md"), readme, 0o644)
	if err := Index(tmp); err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(filepath.Join(tmp, "README.md"))
	if !bytes.Equal(again, readme) {
		t.Errorf("results/README.md's index is stale (run bin/harness index):\n%s", golden.Diff(readme, again))
	}
}
