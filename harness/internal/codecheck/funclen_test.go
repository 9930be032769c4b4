package codecheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxLines is the most lines a production function in harness/ or
// docker/ (the load generator's own programs) may span, counted from the
// line of func to the line of its closing brace, both included.
const maxLines = 80

// TestFunctionLength fails naming every function of a non-test Go file
// under harness/ or docker/ that spans more than maxLines lines.
func TestFunctionLength(t *testing.T) {
	for _, root := range []string{filepath.Join("..", ".."), filepath.Join("..", "..", "..", "docker")} {
		long, files := longFunctions(t, root, maxLines)
		if files == 0 {
			t.Fatalf("no Go files found under %s", root)
		}
		for _, l := range long {
			t.Errorf("%s: split it into functions of at most %d lines", filepath.Join(filepath.Base(root), l), maxLines)
		}
	}
}

// longFunctions returns "file:line name N lines" for each function with a
// body in the non-test Go files under root (file relative to root) longer than max lines, and the
// number of files it read.
func longFunctions(t *testing.T, root string, max int) ([]string, int) {
	t.Helper()
	var long []string
	files := 0
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		files++
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			a, b := fset.Position(fn.Pos()), fset.Position(fn.End())
			if n := b.Line - a.Line + 1; n > max {
				rel, _ := filepath.Rel(root, path)
				long = append(long, fmt.Sprintf("%s:%d %s %d lines", filepath.ToSlash(rel), a.Line, fn.Name.Name, n))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return long, files
}

// TestLongFunctionsFound checks that the count above finds a function one
// line over the limit and passes one at the limit.
func TestLongFunctionsFound(t *testing.T) {
	dir := t.TempDir()
	body := func(name string, lines int) string {
		// func line + (lines-2) statements + closing brace
		return "func " + name + "() {\n" + strings.Repeat("\t_ = 0\n", lines-2) + "}\n"
	}
	src := "package p\n\n" + body("atLimit", maxLines) + "\n" + body("over", maxLines+1)
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p_test.go"), []byte("package p\n\n"+body("testOver", maxLines+5)), 0o644); err != nil {
		t.Fatal(err)
	}
	long, files := longFunctions(t, dir, maxLines)
	if files != 1 || len(long) != 1 || !strings.Contains(long[0], " over 81 lines") {
		t.Fatalf("got %q from %d files, want only over, 81 lines, from p.go", long, files)
	}
}
