package codecheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// A type with many methods does several jobs (split it by the objects
// that own them); a struct with many fields is several things at once
// (split it by what reads each part), save the records of the two files
// the project reads and writes, whose fields are those files' keys.
const (
	maxTypeMethods = 40
	maxTypeFields  = 20
)

// records are the structs that are a file's record, by package directory
// and name: matrix.yaml's (as read, and as decoded) and results.json's.
var records = map[string]bool{
	"matrix.fileSchema": true,
	"matrix.Matrix":     true,
	"results.Cell":      true,
	"results.Settings":  true,
}

// TestTypeSize fails naming every type of a non-test Go file under
// harness/ or docker/ with more than maxTypeMethods methods, and every
// struct but the records with more than maxTypeFields fields (an embedded
// struct counts as one).
func TestTypeSize(t *testing.T) {
	for _, root := range []string{filepath.Join("..", ".."), filepath.Join("..", "..", "..", "docker")} {
		methods, fields := typeSizes(t, root)
		if len(fields) == 0 {
			t.Fatalf("no structs found under %s", root)
		}
		for _, name := range sortedKeys(methods) {
			if n := methods[name]; n > maxTypeMethods {
				t.Errorf("type %s has %d methods, at most %d: group them into the objects that own them", name, n, maxTypeMethods)
			}
		}
		for _, name := range sortedKeys(fields) {
			if n := fields[name]; n > maxTypeFields && !records[name] {
				t.Errorf("struct %s has %d fields, at most %d: split it by what reads each part", name, n, maxTypeFields)
			}
		}
	}
}

// TestTypeSizeCounts: typeSizes counts a type's methods across its files,
// value and pointer receivers and generic ones alike, and a struct's
// fields by name, an embedded field as one.
func TestTypeSizeCounts(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "p", "a.go"), "package p\n\ntype big struct {\n\ta, b int\n\tfmt.Stringer\n\tc string\n}\n\nfunc (big) one() {}\nfunc (*big) two() {}\n\ntype g[T any] struct{ v T }\n\nfunc (g[T]) m() {}\n")
	write(t, filepath.Join(dir, "p", "b.go"), "package p\n\nfunc (b *big) three() {}\n")
	write(t, filepath.Join(dir, "p", "b_test.go"), "package p\n\nfunc (b *big) four() {}\n")
	methods, fields := typeSizes(t, dir)
	if got := fmt.Sprint(methods); got != "map[p.big:3 p.g:1]" {
		t.Errorf("methods = %s, want map[p.big:3 p.g:1]", got)
	}
	if got := fmt.Sprint(fields); got != "map[p.big:4 p.g:1]" {
		t.Errorf("fields = %s, want map[p.big:4 p.g:1]", got)
	}
}

// typeSizes reads the non-test Go files under root and returns, by
// "dir.Type" (dir the file's directory's base name), each type's method
// count and each struct's field count.
func typeSizes(t *testing.T, root string) (methods, fields map[string]int) {
	t.Helper()
	methods, fields = map[string]int{}, map[string]int{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg := filepath.Base(filepath.Dir(path))
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv != nil {
				methods[pkg+"."+receiver(fn.Recv.List[0].Type)]++
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if ts, ok := n.(*ast.TypeSpec); ok {
				if st, ok := ts.Type.(*ast.StructType); ok {
					fields[pkg+"."+ts.Name.Name] = fieldCount(st.Fields)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return methods, fields
}

// receiver is the name of a method's receiver type: T of T, *T, T[P] and
// *T[P, Q].
func receiver(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return fmt.Sprintf("%T", e)
		}
	}
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// write makes the file at path, and its directory, holding text.
func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
