// Package golden compares test output with files under testdata, printing a
// line diff when they differ; `go test ./... -update` rewrites the files.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata")

// Check compares got with the file at path, or rewrites it with -update.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what the code renders (-want +got):\n%s", path, Diff(want, got))
	}
}

// Diff is a line diff of two texts.
func Diff(want, got []byte) string {
	return cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(got), "\n"))
}
