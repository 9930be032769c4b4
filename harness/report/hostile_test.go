package report

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/internal/safefile"
	"github.com/webbench/webbench/harness/results"
)

// A charts/ linked elsewhere is refused, and the files there are kept: the
// removal of stale charts must not reach outside the run's folder.
func TestWriteDirRefusesLinkedCharts(t *testing.T) {
	run, err := results.Read("testdata/run")
	if err != nil {
		t.Fatal(err)
	}
	dir, elsewhere := t.TempDir(), t.TempDir()
	mine := filepath.Join(elsewhere, "mine.svg")
	os.WriteFile(mine, []byte("<svg/>"), 0o644)
	if err := os.Symlink(elsewhere, filepath.Join(dir, "charts")); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteDir(context.Background(), dir, run); !errors.Is(err, safefile.ErrLink) {
		t.Errorf("WriteDir through a linked charts/: %v, want %v", err, safefile.ErrLink)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("a file behind the link was removed: %v", err)
	}
}

// A comparison's file name cannot inject a link into the index, and a
// FIFO in place of README.md is refused instead of hanging the index.
func TestIndexHostileNames(t *testing.T) {
	root := t.TempDir()
	name := "compare-a](http://evil) [b.md"
	os.WriteFile(filepath.Join(root, name), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(root, "README.md"), []byte(IndexStart+"\n"+IndexEnd+"\n"), 0o644)
	if err := Index(root); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(root, "README.md"))
	if strings.Contains(string(b), "](http://evil)") {
		t.Errorf("the file name made a link:\n%s", b)
	}
	fifo := t.TempDir()
	if err := mkfifo(filepath.Join(fifo, "README.md")); err != nil {
		t.Skip("no FIFO here:", err)
	}
	if err := Index(fifo); err == nil {
		t.Error("Index read a FIFO as README.md")
	}
}

// A CSV cell starting with = is not a formula to a spreadsheet.
func TestCSVNoFormula(t *testing.T) {
	run, err := results.Read("testdata/run")
	if err != nil {
		t.Fatal(err)
	}
	run.Cells[0].Target = `=HYPERLINK("http://evil","x")`
	var buf bytes.Buffer
	if err := CSV(context.Background(), &buf, run); err != nil {
		t.Fatal(err)
	}
	records, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	seen := false
	for _, rec := range records {
		for _, f := range rec {
			seen = seen || strings.Contains(f, "HYPERLINK")
			if strings.HasPrefix(f, "=") {
				t.Errorf("a formula cell: %q", f)
			}
		}
	}
	if !seen {
		t.Error("the hostile target is in no CSV row: the test tests nothing")
	}
}
