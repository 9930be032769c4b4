package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Index lists every result set and comparison, keeps the hand-written text
// around its markers, and gives the same bytes when run again.
func TestIndex(t *testing.T) {
	root := t.TempDir()
	data, err := os.ReadFile("testdata/run/results.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"b-run", "a-run"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
		os.WriteFile(filepath.Join(root, d, "results.json"), data, 0o644)
	}
	os.MkdirAll(filepath.Join(root, "not-a-run"), 0o755)
	os.WriteFile(filepath.Join(root, "compare-a-vs-b.md"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(root, "README.md"), []byte("# Mine\n\nintro\n\n"+IndexStart+"\nold\n"+IndexEnd+"\n\n## Notes\nkept\n"), 0o644)
	if err := Index(root); err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(filepath.Join(root, "README.md"))
	s := string(first)
	for _, want := range []string{"# Mine\n\nintro", "## Notes\nkept", "[a-run](a-run/README.md) | 2c-test | Test CPU, 2 CPUs | 2026-12-02 | quick | bridge | 3 × 2s | 6/1/1 |", "[a-vs-b](compare-a-vs-b.md)"} {
		if !strings.Contains(s, want) {
			t.Errorf("index lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "\nold\n") || strings.Contains(s, "not-a-run") || strings.Index(s, "a-run") > strings.Index(s, "b-run") {
		t.Errorf("index content or order wrong:\n%s", s)
	}
	Index(root)
	second, _ := os.ReadFile(filepath.Join(root, "README.md"))
	if string(second) != s {
		t.Error("a second index changed the file")
	}
}

// A run's cells measured in part are counted apart in the index, not as
// ok ones.
func TestIndexCountsPartial(t *testing.T) {
	root := t.TempDir()
	data, err := os.ReadFile("testdata/run/results.json")
	if err != nil {
		t.Fatal(err)
	}
	// The run as a kill left it: never finished, so its short ok cells
	// (one trial of three) read as partial.
	data = []byte(strings.Replace(string(data), `"finished_at"`, `"finished_at_was"`, 1))
	os.MkdirAll(filepath.Join(root, "killed"), 0o755)
	os.WriteFile(filepath.Join(root, "killed", "results.json"), data, 0o644)
	if err := Index(root); err != nil {
		t.Fatal(err)
	}
	s, _ := os.ReadFile(filepath.Join(root, "README.md"))
	if !strings.Contains(string(s), "| 1/1/1, 5 partial |") {
		t.Errorf("index lacks the partial count:\n%s", s)
	}
}
